import Trellis
import TrellisSQL

/// Fetch requests compiled to SQL (``SQLRequestSession``: ``SQLPredicateCompiler`` with
/// ``PostgresDialect``): one `SELECT` over the entity's table with `LEFT JOIN`s for to-one
/// key paths, `IN` sub-queries for `ANY`/`NONE`/`ALL`, `ORDER BY` the sort descriptors then
/// the object ID, `LIMIT`/`OFFSET`, and, in the same round trip, the to-many relationships of
/// the rows it selects. Values are sent as text the server reads as the compared column's
/// type. The compiler writes table names unqualified: the session sets `search_path` to the
/// store's schema (`SET LOCAL`, for its transaction only).
///
/// A request with a comparison PostgreSQL's operators cannot decide exactly
/// (``PostgresDialect``: `[c]`, `[d]`, LIKE, MATCHES, text with U+0000) runs in two steps:
/// the SQL selects the rows the rest of the predicate allows (`name BEGINSWITH[c] 'bat' AND
/// rating > 3` selects the rows rated above 3), then ``RequestEvaluator`` decides the whole
/// predicate on them, sorts and applies the limit and offset in memory: the answer every
/// store gives.
extension PostgresSession: SQLRequestSession {
    var requestDialect: any SQLDialect { PostgresDialect() }
    var requestLayout: any SQLQueryLayout { layout }

    func fetch(_ request: ResolvedFetchRequest) throws -> [ObjectSnapshot] {
        try checkValid()
        return try fetchCompiled(request)
    }

    func count(_ request: ResolvedFetchRequest) throws -> Int {
        try checkValid()
        return try countCompiled(request)
    }

    /// The rows of the request read `batchSize` at a time from a cursor in the session's
    /// transaction (`DECLARE … NO SCROLL CURSOR FOR SELECT …`, then `FETCH FORWARD n`), each
    /// batch's to-many relationships read by its keys before `body` gets it; the cursor is
    /// closed at the end. So the server keeps the answer and the client holds one batch. A
    /// request decided in memory on a pre-filter's rows (``SQLRequestSession``) is evaluated
    /// whole, then handed out in batches. `body` may run other fetches meanwhile (the same
    /// request too: a nested call opens a cursor of its own).
    func fetch(_ request: ResolvedFetchRequest, batchSize: Int, _ body: ([ObjectSnapshot]) throws -> Void) throws {
        try checkValid()
        let size = max(1, batchSize)
        let parts = try compile(request)
        guard parts.isExact else {
            let snapshots = try fetchCompiled(request)
            var start = 0
            while start < snapshots.count {
                let end = min(start + size, snapshots.count)
                try body(Array(snapshots[start..<end]))
                start = end
            }
            return
        }
        let entityLayout = try layout.entity(request.entity.name)
        try useStoreSchema()
        let (suffix, parameters) = try orderedSuffix(parts, of: request)
        let table = entityLayout.table
        let cursor = "trellis_fetch_\(openCursors)"
        try connection.run(
            "DECLARE \(cursor) NO SCROLL CURSOR FOR SELECT \(table.selectList) FROM \(table.fromSQL)\(parts.joins) "
                + "WHERE \(parts.whereSQL)\(suffix)", parameters)
        openCursors += 1
        defer {
            openCursors -= 1
            try? connection.execute("CLOSE \(cursor)")  // (fails only in a transaction that failed, which ends it anyway)
        }
        let fetch = "FETCH FORWARD \(size) FROM \(cursor)"
        while true {
            let result = try connection.run(fetch)
            var snapshots = try readRows(result, table: table)
            if snapshots.isEmpty { return }
            try loadToMany(of: &snapshots, table: table, kinds: entityLayout.kindNames, forImport: false)
            try body(snapshots)
            if result.rowCount < size { return }
        }
    }

    func rows(_ parts: SQLPredicateCompiler.Parts, of request: ResolvedFetchRequest, ordered: Bool) throws -> [ObjectSnapshot] {
        let entityLayout = try layout.entity(request.entity.name)
        try useStoreSchema()
        var suffix = ""
        var parameters = try Self.parameters(parts.parameters)
        if ordered { (suffix, parameters) = try orderedSuffix(parts, of: request) }
        return try select(
            entityLayout.table, joins: parts.joins, condition: parts.whereSQL, suffix: suffix, parameters: parameters,
            relationshipsOf: entityLayout.kindNames, forImport: false)
    }

    /// ` ORDER BY …` the request's order, with its `LIMIT` and `OFFSET`, and the parameters
    /// of the compiled condition followed by theirs.
    private func orderedSuffix(
        _ parts: SQLPredicateCompiler.Parts,
        of request: ResolvedFetchRequest
    ) throws -> (String, PostgresParameters) {
        var parameters = try Self.parameters(parts.parameters)
        var suffix = " ORDER BY " + parts.orderBySQL
        if let limit = request.limit {
            parameters.append(untyped: String(limit))
            suffix += " LIMIT $\(parameters.count)"
        }
        if request.offset > 0 {
            parameters.append(untyped: String(request.offset))
            suffix += " OFFSET $\(parameters.count)"
        }
        return (suffix, parameters)
    }

    func rowCount(_ parts: SQLPredicateCompiler.Parts, of request: ResolvedFetchRequest) throws -> Int {
        let entityLayout = try layout.entity(request.entity.name)
        try useStoreSchema()
        let result = try connection.run(
            "SELECT count(*) FROM \(entityLayout.table.qualifiedName) AS t\(parts.joins) WHERE \(parts.whereSQL)",
            try Self.parameters(parts.parameters))
        return Int(result.int64(0, 0))
    }

    /// The SQL the session runs for `request` (for tests), and whether it is exact: with a
    /// comparison it cannot decide, the pre-filter's (the relaxed predicate; its `ORDER BY`
    /// is then not run).
    func sql(for request: ResolvedFetchRequest) throws -> (sql: String, isExact: Bool) {
        let entityLayout = try layout.entity(request.entity.name)
        let parts = try compile(request)
        return (
            "SELECT \(entityLayout.table.selectList) FROM \(entityLayout.table.fromSQL)\(parts.joins) WHERE \(parts.whereSQL)"
                + " ORDER BY \(parts.orderBySQL)", parts.isExact
        )
    }

    /// The compiler's values as untyped text parameters.
    private static func parameters(_ values: [AttributeValue]) throws(StoreError) -> PostgresParameters {
        var parameters = PostgresParameters()
        for value in values { parameters.append(untyped: try PostgresValues.literalText(value)) }
        return parameters
    }

    /// `SET LOCAL search_path` to the store's schema, once per session.
    private func useStoreSchema() throws(StoreError) {
        guard !schemaIsSearched else { return }
        try connection.execute("SET LOCAL search_path TO \(SQLText.identifier(layout.schema))")
        schemaIsSearched = true
    }
}
