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
/// (``PostgresDialect``: `[c]`, `[d]`, LIKE, MATCHES) runs in two steps: the SQL selects the
/// rows the rest of the predicate allows (the comparison relaxed, ``PostgresDialect/relaxed(_:)``;
/// `name BEGINSWITH[c] 'bat' AND rating > 3` selects the rows rated above 3), then
/// ``RequestEvaluator`` decides the whole predicate on them, sorts and applies the limit
/// and offset in memory: the answer every store gives.
extension PostgresSession {
    func fetch(_ request: ResolvedFetchRequest) throws -> [ObjectSnapshot] {
        try checkValid()
        let (relaxed, changed) = PostgresDialect.relaxed(request.predicate)
        if changed {
            let candidates = try candidates(request, relaxed)
            return try RequestEvaluator(request, lookup: { try self.fetch(ids: [$0]).first }).run(candidates)
        }
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

    /// The rows the relaxed predicate selects (every row the request may return), unsorted and unlimited.
    private func candidates(_ request: ResolvedFetchRequest, _ relaxed: ResolvedPredicate) throws -> [ObjectSnapshot] {
        let entityLayout = try layout.entity(request.entity.name)
        let prefilter = ResolvedFetchRequest(entity: request.entity, predicate: relaxed, sortDescriptors: [], limit: nil, offset: 0)
        let dialect = PostgresDialect()
        var compiler = SQLPredicateCompiler(layout: layout, dialect: dialect)
        let parts = try compiler.compile(prefilter)
        guard !dialect.needsEvaluation else { return try fetch(entity: request.entity.name, matching: nil) }
        try useStoreSchema()
        return try select(entityLayout.table, joins: parts.joins, condition: parts.whereSQL, parameters: try Self.parameters(parts.parameters),
                          relationshipsOf: entityLayout.kindNames, forImport: false)
    }

    func count(_ request: ResolvedFetchRequest) throws -> Int {
        try checkValid()
        let (relaxed, changed) = PostgresDialect.relaxed(request.predicate)
        if changed {
            let candidates = try candidates(request, relaxed)
            return try RequestEvaluator(request, lookup: { try self.fetch(ids: [$0]).first }).count(candidates)
        }
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

    /// The SQL the session runs for `request` (for tests): with a text comparison it cannot
    /// decide, the pre-filter's (the relaxed predicate, unsorted: the evaluator sorts).
    func sql(for request: ResolvedFetchRequest) throws -> String {
        let entityLayout = try layout.entity(request.entity.name)
        let (relaxed, changed) = PostgresDialect.relaxed(request.predicate)
        let compiled = changed ? ResolvedFetchRequest(entity: request.entity, predicate: relaxed, sortDescriptors: [], limit: nil, offset: 0)
            : request
        var compiler = SQLPredicateCompiler(layout: layout, dialect: PostgresDialect())
        let parts = try compiler.compile(compiled)
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
