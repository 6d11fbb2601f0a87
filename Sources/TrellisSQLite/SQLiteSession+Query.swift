import Trellis

/// Fetch requests compiled to SQL (``SQLPredicateCompiler`` with ``SQLiteDialect``): one
/// `SELECT` over the entity's table with `LEFT JOIN`s for to-one key paths, `EXISTS`
/// sub-queries for `ANY`/`NONE`/`ALL`, `ORDER BY` the sort descriptors then the object ID,
/// `LIMIT`/`OFFSET`; then the to-many relationships of the rows found, batched as for every
/// fetch. The statement is cached by its text, which depends on the request's shape only
/// (values are parameters), so a repeated request is prepared once.
extension SQLiteSession {
    func fetch(_ request: ResolvedFetchRequest) throws -> [ObjectSnapshot] {
        try checkValid()
        let (table, sql, parameters) = try query(for: request)
        guard let statement = try SQLiteSession.statement(sql, on: connection) else { return try evaluated(request) }
        for (i, value) in parameters.enumerated() { try statement.bind(value, at: Int32(i + 1)) }
        var reader = RowReader(layout: layout, table: table)
        try reader.readAll(statement, deduplicate: false)
        return try finish(&reader)
    }

    /// The rows of the request's one `SELECT`, stepped `batchSize` at a time: each batch's
    /// to-many relationships are loaded (batched, as for every fetch) before `body` gets it.
    /// The statement is prepared for this call, not taken from the cache, so that `body` may
    /// run any query meanwhile (the same request too) without resetting it.
    func fetch(_ request: ResolvedFetchRequest, batchSize: Int, _ body: ([ObjectSnapshot]) throws -> Void) throws {
        try checkValid()
        let (table, sql, parameters) = try query(for: request)
        guard let statement = try SQLiteSession.statement(sql, on: connection, cached: false) else {
            let snapshots = try evaluated(request)
            var start = 0
            while start < snapshots.count {
                let end = min(start + max(1, batchSize), snapshots.count)
                try body(Array(snapshots[start..<end]))
                start = end
            }
            return
        }
        defer { statement.reset() }
        for (i, value) in parameters.enumerated() { try statement.bind(value, at: Int32(i + 1)) }
        var reader = RowReader(layout: layout, table: table)
        var more = true
        while more {
            more = try reader.readRows(statement, limit: max(1, batchSize))
            let snapshots = try finish(&reader)
            if !snapshots.isEmpty { try body(snapshots) }
        }
    }

    /// The table, SQL text and parameters of the request's `SELECT`.
    private func query(for request: ResolvedFetchRequest) throws -> (TableLayout, String, [AttributeValue]) {
        let entityLayout = try layout.entity(request.entity.name)
        var compiler = SQLPredicateCompiler(layout: layout, dialect: SQLiteDialect())
        let parts = try compiler.compile(request)
        let table = entityLayout.table
        var sql = table.selectColumnsSQL + " FROM " + table.fromSQL + parts.joins + " WHERE " + parts.whereSQL
            + " ORDER BY " + parts.orderBySQL
        var parameters = parts.parameters
        if request.limit != nil || request.offset > 0 {
            parameters.append(.integer(Int64(request.limit ?? -1)))
            parameters.append(.integer(Int64(request.offset)))
            sql += " LIMIT ?\(parameters.count - 1) OFFSET ?\(parameters.count)"
        }
        return (table, sql, parameters)
    }

    func count(_ request: ResolvedFetchRequest) throws -> Int {
        try checkValid()
        let entityLayout = try layout.entity(request.entity.name)
        var compiler = SQLPredicateCompiler(layout: layout, dialect: SQLiteDialect())
        let parts = try compiler.compile(request.unlimited)
        guard let statement = try SQLiteSession.statement(
            "SELECT count(*) FROM \(entityLayout.table.quotedName) AS t" + parts.joins + " WHERE " + parts.whereSQL, on: connection) else {
            return try RequestEvaluator(request, lookup: { try self.fetch(ids: [$0]).first })
                .count(try fetch(entity: request.entity.name, matching: nil))
        }
        for (i, value) in parts.parameters.enumerated() { try statement.bind(value, at: Int32(i + 1)) }
        return Int(try statement.runReturningInt64() ?? 0)
    }

    /// The cached statement for `sql`, or nil when SQLite refuses it as too complex (a
    /// predicate nesting `NOT`s, parentheses and sub-queries beyond SQLite's parser stack,
    /// "parser stack overflow", or its expression depth of 1,000): such a request is then
    /// evaluated in memory (``RequestEvaluator``), so that it gives the answer every store gives.
    /// `cached: false` prepares a statement of its own (finalized when released).
    static func statement(_ sql: String, on connection: Connection, cached: Bool = true) throws -> Statement? {
        let result = Result { () throws(StoreError) -> Statement in
            cached ? try connection.cachedQueryStatement(sql) : try connection.makeStatement(sql)
        }
        if case .failure(let error) = result, error.code == .engine,
           error.message.contains("parser stack overflow") || error.message.contains("Expression tree is too large") {
            return nil
        }
        return try result.get()
    }

    /// `request` evaluated in memory over every object of its entity.
    private func evaluated(_ request: ResolvedFetchRequest) throws -> [ObjectSnapshot] {
        try RequestEvaluator(request, lookup: { try self.fetch(ids: [$0]).first }).run(try fetch(entity: request.entity.name, matching: nil))
    }

    /// The SQL of `request` (for tests and `EXPLAIN QUERY PLAN`).
    func sql(for request: ResolvedFetchRequest) throws -> (sql: String, parameters: [AttributeValue]) {
        let entityLayout = try layout.entity(request.entity.name)
        var compiler = SQLPredicateCompiler(layout: layout, dialect: SQLiteDialect())
        let parts = try compiler.compile(request)
        let table = entityLayout.table
        return (table.selectColumnsSQL + " FROM " + table.fromSQL + parts.joins + " WHERE " + parts.whereSQL
                    + " ORDER BY " + parts.orderBySQL, parts.parameters)
    }
}
