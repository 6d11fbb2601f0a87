import Trellis
import TrellisSQL

/// Fetch requests compiled to SQL (``SQLRequestSession``: ``SQLPredicateCompiler`` with
/// ``SQLiteDialect``): one `SELECT` over the entity's table with `LEFT JOIN`s for to-one key
/// paths, `IN` sub-queries for `ANY`/`NONE`/`ALL`, `ORDER BY` the sort descriptors then the
/// object ID, `LIMIT`/`OFFSET`; then the to-many relationships of the rows found, batched
/// as for every fetch. The statement is cached by its text, which depends on the request's
/// shape only (values are parameters), so a repeated request is prepared once. A predicate
/// nesting deeper than SQLite parses (``SQLiteDialect/maximumNesting``) is decided in memory
/// on the rows the rest of it selects.
extension SQLiteSession: SQLRequestSession {
    var requestDialect: any SQLDialect { SQLiteDialect() }
    var requestLayout: any SQLQueryLayout { layout }

    func fetch(_ request: ResolvedFetchRequest) throws -> [ObjectSnapshot] {
        try checkValid()
        return try fetchCompiled(request)
    }

    func count(_ request: ResolvedFetchRequest) throws -> Int {
        try checkValid()
        return try countCompiled(request)
    }

    /// The rows of the request, stepped `batchSize` at a time: each batch's to-many
    /// relationships are loaded (batched, as for every fetch) before `body` gets it. A request
    /// SQL decides whole is one `SELECT`, prepared for this call rather than taken from the
    /// cache, so that `body` may run any query meanwhile (the same request too) without
    /// resetting it; one decided in memory on a pre-filter's rows (``SQLRequestSession``)
    /// is evaluated whole, then handed out in batches.
    func fetch(_ request: ResolvedFetchRequest, batchSize: Int, _ body: ([ObjectSnapshot]) throws -> Void) throws {
        try checkValid()
        let parts = try compile(request)
        guard parts.isExact else {
            let snapshots = try fetchCompiled(request)
            var start = 0
            while start < snapshots.count {
                let end = min(start + max(1, batchSize), snapshots.count)
                try body(Array(snapshots[start..<end]))
                start = end
            }
            return
        }
        let (table, sql, parameters) = try select(parts, of: request, ordered: true)
        let statement = try connection.makeStatement(sql)
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

    func rows(_ parts: SQLPredicateCompiler.Parts, of request: ResolvedFetchRequest, ordered: Bool) throws -> [ObjectSnapshot] {
        let (table, sql, parameters) = try select(parts, of: request, ordered: ordered)
        let statement = try connection.cachedQueryStatement(sql)
        for (i, value) in parameters.enumerated() { try statement.bind(value, at: Int32(i + 1)) }
        var reader = RowReader(layout: layout, table: table)
        try reader.readAll(statement, deduplicate: false)
        return try finish(&reader)
    }

    /// The table, SQL text and parameters of the `SELECT` of `parts`; when `ordered`, in the
    /// request's order from its offset, at most its limit.
    private func select(
        _ parts: SQLPredicateCompiler.Parts, of request: ResolvedFetchRequest,
        ordered: Bool
    ) throws -> (TableLayout, String, [AttributeValue]) {
        let table = try layout.entity(request.entity.name).table
        var sql = table.selectColumnsSQL + " FROM " + table.fromSQL + parts.joins + " WHERE " + parts.whereSQL
        var parameters = parts.parameters
        if ordered {
            sql += " ORDER BY " + parts.orderBySQL
            if request.limit != nil || request.offset > 0 {
                parameters.append(.integer(Int64(request.limit ?? -1)))
                parameters.append(.integer(Int64(request.offset)))
                sql += " LIMIT ?\(parameters.count - 1) OFFSET ?\(parameters.count)"
            }
        }
        return (table, sql, parameters)
    }

    func rowCount(_ parts: SQLPredicateCompiler.Parts, of request: ResolvedFetchRequest) throws -> Int {
        let table = try layout.entity(request.entity.name).table
        let statement = try connection.cachedQueryStatement("SELECT count(*) FROM \(table.quotedName) AS t" + parts.joins + " WHERE " + parts.whereSQL)
        for (i, value) in parts.parameters.enumerated() { try statement.bind(value, at: Int32(i + 1)) }
        return Int(try statement.runReturningInt64() ?? 0)
    }

    /// The SQL of `request` (for tests and `EXPLAIN QUERY PLAN`).
    func sql(for request: ResolvedFetchRequest) throws -> (sql: String, parameters: [AttributeValue]) {
        let table = try layout.entity(request.entity.name).table
        let parts = try compile(request)
        return (
            table.selectColumnsSQL + " FROM " + table.fromSQL + parts.joins + " WHERE " + parts.whereSQL
                + " ORDER BY " + parts.orderBySQL, parts.parameters
        )
    }
}
