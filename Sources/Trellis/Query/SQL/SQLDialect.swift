/// What differs between the SQL engines the ``SQLPredicateCompiler`` writes for (SQLite,
/// PostgreSQL): parameter markers, boolean literals, the null-safe comparison, how text
/// comparisons with `[c]`/`[d]` run, how decimals order, sets of primary keys, which
/// comparisons the engine decides and how deeply it parses nested conditions. A dialect is a
/// stateless value: what the compiler relaxed is in its result (``SQLPredicateCompiler/Parts/isExact``).
///
/// Every identifier is quoted with ``identifier(_:)``; every value is a bound parameter
/// (never written into SQL text).
public protocol SQLDialect: Sendable {
    /// The marker of parameter `number` (1-based): `?1` (SQLite), `$1` (PostgreSQL).
    func parameter(_ number: Int) -> String
    /// A quoted identifier (`"a""b"`).
    func identifier(_ name: String) -> String
    /// `1` / `TRUE`.
    var trueLiteral: String { get }
    /// `0` / `FALSE`.
    var falseLiteral: String { get }
    /// `a IS NOT b` (SQLite) / `a IS DISTINCT FROM b` (PostgreSQL): true when exactly one is NULL.
    func notEqualOrNull(_ lhs: String, _ rhs: String) -> String
    /// A boolean expression (never NULL) comparing the text `column` with `operand` (already
    /// folded for `options`) under `op` (`==`, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES)
    /// and `options`, with the semantics of ``PredicateTextMatcher``; `bind` binds a value
    /// and returns its parameter marker.
    func textComparison(
        _ op: PredicateOperator, column: String, operand: String, options: PredicateOptions,
        bind: (AttributeValue) -> String
    ) -> String
    /// The expression a value of `type` in `expression` orders and compares by (`=`, `<>`,
    /// `IN`, `<`, `BETWEEN`, `ORDER BY`): a decimal stored as text by its number, exactly as
    /// ``ValueOrder`` orders `Decimal`s (SQLite: a collation).
    func orderingExpression(_ expression: String, type: AttributeType) -> String
    /// `ASC`/`DESC` with nulls first when ascending and last when descending.
    func orderDirection(ascending: Bool) -> String
    /// An expression for the set of primary keys (`IN` takes it), binding what it needs
    /// through `bind` (which returns the parameter marker).
    func primaryKeySet(_ keys: [Int64], bind: (AttributeValue) -> String) -> String
    /// Whether the engine's SQL decides the comparison `op` with `options` of a value with
    /// `values` exactly as ``RequestEvaluator`` does (default: always). The compiler relaxes
    /// a comparison it does not decide (``SQLPredicateCompiler/Parts/isExact``), and the
    /// store decides it in memory; ``textComparison(_:column:operand:options:bind:)`` is
    /// asked only for comparisons the dialect decides.
    func decides(_ op: PredicateOperator, options: PredicateOptions, values: [AttributeValue?]) -> Bool
    /// How deeply conditions may nest in the SQL the engine is sure to parse, in levels: one
    /// per `NOT` and per parenthesized list, ``SQLPredicateCompiler/subqueryLevels`` per
    /// sub-query. Deeper conditions are relaxed (decided in memory). Nil (the default): no limit.
    var maximumNesting: Int? { get }
}

extension SQLDialect {
    public func decides(_ op: PredicateOperator, options: PredicateOptions, values: [AttributeValue?]) -> Bool { true }

    public var maximumNesting: Int? { nil }

    /// `NOT condition`, two-valued: a condition that is NULL (a comparison with a missing
    /// value) counts as false, so its negation holds: `NOT coalesce(p, FALSE)`. The one home of
    /// the rule, for ``SQLPredicateCompiler`` and the stores' ``StorePredicate`` conditions,
    /// as ``RequestEvaluator`` and in-memory ``StorePredicate`` evaluation decide.
    public func negation(_ condition: String) -> String { "NOT coalesce(\(condition), \(falseLiteral))" }

    public func identifier(_ name: String) -> String {
        var out = "\""
        for c in name.unicodeScalars {
            if c == "\"" { out += "\"\"" } else { out.unicodeScalars.append(c) }
        }
        return out + "\""
    }
}
