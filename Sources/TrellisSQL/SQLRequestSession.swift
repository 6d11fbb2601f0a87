import Trellis

/// How a SQL store's session runs fetch requests, once for SQLite and PostgreSQL: the
/// ``SQLPredicateCompiler`` writes the request for the session's dialect and layout; when
/// the parts are exact (``SQLPredicateCompiler/Parts/isExact``) the engine answers (the rows
/// in the request's order from its offset, at most its limit; or the count); otherwise the
/// condition is a relaxed pre-filter (a comparison the dialect does not decide, or
/// conditions nested deeper than it parses, replaced by a constant that keeps every row
/// they may hold for), and ``RequestEvaluator`` decides the whole request on the rows it
/// selects: matches, order, offset and limit, as on every store.
///
/// `name BEGINSWITH[c] 'bat' AND rating > 3` on PostgreSQL selects the rows rated above 3
/// and evaluates the prefix on them; `name BEGINSWITH[c] 'bat'` alone reads every row of
/// the entity (`PostgresQueryTests`).
package protocol SQLRequestSession: StoreSession {
    /// The dialect the compiler writes for.
    var requestDialect: any SQLDialect { get }
    /// Where the store keeps each entity, attribute and relationship.
    var requestLayout: any SQLQueryLayout { get }
    /// The objects the rows `parts` select (from `request`'s entity's table, aliased `t`)
    /// stand for, with their to-many relationships; when `ordered`, in `parts.orderBySQL`
    /// order from the request's offset, at most its limit; otherwise every such row, in no
    /// particular order.
    func rows(_ parts: SQLPredicateCompiler.Parts, of request: ResolvedFetchRequest, ordered: Bool) throws -> [ObjectSnapshot]
    /// The number of rows `parts` (exact) select.
    func rowCount(_ parts: SQLPredicateCompiler.Parts, of request: ResolvedFetchRequest) throws -> Int
}

extension SQLRequestSession {
    /// The parts of `request` for this session's dialect and layout.
    package func compile(_ request: ResolvedFetchRequest) throws -> SQLPredicateCompiler.Parts {
        var compiler = SQLPredicateCompiler(layout: requestLayout, dialect: requestDialect)
        return try compiler.compile(request)
    }

    /// ``StoreSession/fetch(_:)``: in SQL, or in memory on the pre-filter's rows.
    package func fetchCompiled(_ request: ResolvedFetchRequest) throws -> [ObjectSnapshot] {
        let parts = try compile(request)
        guard parts.isExact else { return try evaluator(request).run(try rows(parts, of: request, ordered: false)) }
        return try rows(parts, of: request, ordered: true)
    }

    /// ``StoreSession/count(_:)``: in SQL, or in memory on the pre-filter's rows.
    package func countCompiled(_ request: ResolvedFetchRequest) throws -> Int {
        let parts = try compile(request.unlimited)
        guard parts.isExact else { return try evaluator(request).count(try rows(parts, of: request, ordered: false)) }
        return try rowCount(parts, of: request)
    }

    /// The evaluator for `request`, finding the destinations of key paths by ID.
    private func evaluator(_ request: ResolvedFetchRequest) -> RequestEvaluator {
        RequestEvaluator(request, lookup: { try self.fetch(ids: [$0]).first })
    }
}
