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
        let statement = try connection.cachedStatement(sql)
        for (i, value) in parameters.enumerated() { try statement.bind(value, at: Int32(i + 1)) }
        var reader = RowReader(layout: layout, table: table)
        try reader.readAll(statement, deduplicate: false)
        return try finish(&reader)
    }

    func count(_ request: ResolvedFetchRequest) throws -> Int {
        try checkValid()
        let entityLayout = try layout.entity(request.entity.name)
        var compiler = SQLPredicateCompiler(layout: layout, dialect: SQLiteDialect())
        let parts = try compiler.compile(request.unlimited)
        let statement = try connection.cachedStatement(
            "SELECT count(*) FROM \(entityLayout.table.quotedName) AS t" + parts.joins + " WHERE " + parts.whereSQL)
        for (i, value) in parts.parameters.enumerated() { try statement.bind(value, at: Int32(i + 1)) }
        return Int(try statement.runReturningInt64() ?? 0)
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
