import Trellis

/// Fetch requests compiled to SQL (``SQLPredicateCompiler`` with ``PostgresDialect``): one
/// `SELECT` over the entity's table with `LEFT JOIN`s for to-one key paths, `IN`
/// sub-queries for `ANY`/`NONE`/`ALL`, `ORDER BY` the sort descriptors then the object ID,
/// `LIMIT`/`OFFSET`, and, in the same round trip, the to-many relationships of the rows it
/// selects. Values are sent as text the server reads as the compared column's type. The
/// compiler writes table names unqualified: the session sets `search_path` to the store's
/// schema (`SET LOCAL`, for its transaction only).
///
/// A request with a text comparison PostgreSQL's operators cannot decide exactly
/// (``PostgresDialect``) is evaluated in memory (``RequestEvaluator``), as stores without SQL do.
extension PostgresSession {
    func fetch(_ request: ResolvedFetchRequest) throws -> [ObjectSnapshot] {
        try checkValid()
        let entityLayout = try layout.entity(request.entity.name)
        let dialect = PostgresDialect()
        var compiler = SQLPredicateCompiler(layout: layout, dialect: dialect)
        let parts = try compiler.compile(request)
        if dialect.needsEvaluation {
            let candidates = try fetch(entity: request.entity.name, matching: nil)
            return try RequestEvaluator(request, lookup: { try self.fetch(ids: [$0]).first }).run(candidates)
        }
        try useStoreSchema()
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
        return try select(entityLayout.table, joins: parts.joins, condition: parts.whereSQL, suffix: suffix, parameters: parameters,
                          relationshipsOf: entityLayout.kindNames, forImport: false)
    }

    func count(_ request: ResolvedFetchRequest) throws -> Int {
        try checkValid()
        let entityLayout = try layout.entity(request.entity.name)
        let dialect = PostgresDialect()
        var compiler = SQLPredicateCompiler(layout: layout, dialect: dialect)
        let parts = try compiler.compile(request.unlimited)
        if dialect.needsEvaluation {
            let candidates = try fetch(entity: request.entity.name, matching: nil)
            return try RequestEvaluator(request, lookup: { try self.fetch(ids: [$0]).first }).count(candidates)
        }
        try useStoreSchema()
        let result = try connection.run("SELECT count(*) FROM \(entityLayout.table.qualifiedName) AS t\(parts.joins) WHERE \(parts.whereSQL)",
                                        try Self.parameters(parts.parameters))
        return Int(result.int64(0, 0))
    }

    /// The SQL of `request` (for tests).
    func sql(for request: ResolvedFetchRequest) throws -> String {
        let entityLayout = try layout.entity(request.entity.name)
        var compiler = SQLPredicateCompiler(layout: layout, dialect: PostgresDialect())
        let parts = try compiler.compile(request)
        return "SELECT \(entityLayout.table.selectList) FROM \(entityLayout.table.fromSQL)\(parts.joins) WHERE \(parts.whereSQL)"
            + " ORDER BY \(parts.orderBySQL)"
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
