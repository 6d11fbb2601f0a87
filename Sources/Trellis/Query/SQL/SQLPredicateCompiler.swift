/// Compiles a ``ResolvedFetchRequest`` to the parts of one SQL `SELECT` over the root
/// entity's table (aliased `t`): the joins its key paths need, the `WHERE` condition, the
/// `ORDER BY` list and the values to bind, for any ``SQLDialect`` and ``SQLQueryLayout``.
///
/// - Key paths through to-one relationships are `LEFT JOIN`s, one per distinct path and
///   shared by the predicate and the sort (a missing destination reads as NULL).
/// - `ANY`/`NONE`/`ALL` are `IN` sub-queries (uncorrelated semi-joins, run once) over the
///   join table or the destination's foreign key; `@count` is a `count(*)` sub-query.
/// - `NOT` is two-valued: `NOT coalesce(p, FALSE)`, so a comparison with a NULL column is
///   false and its negation true, as ``RequestEvaluator`` decides.
/// - Ties are broken by object ID (`_entity`, then `_pk`).
/// - What the dialect does not decide (``SQLDialect/decides(_:options:values:)``: PostgreSQL's
///   `[c]`, `[d]`, `LIKE`, `MATCHES`, text with U+0000) and conditions nested deeper than it
///   parses (``SQLDialect/maximumNesting``) are relaxed: replaced by the constant that keeps
///   every row they may hold for (`TRUE`, or `FALSE` under an odd number of `NOT`s), so the
///   condition is a pre-filter selecting a superset of the rows, and ``Parts/isExact`` is false.
///
/// Identifiers are quoted by the dialect and values are parameters: no predicate text or
/// value reaches the SQL (names with quotes, semicolons and `--` are safe).
public struct SQLPredicateCompiler {
    /// The compiled parts.
    public struct Parts: Sendable {
        /// ` LEFT JOIN … AS q1 ON …` (empty or starting with a space), after `FROM <table> AS t`.
        public var joins: String
        /// The condition (never empty).
        public var whereSQL: String
        /// The `ORDER BY` list (without the keywords), ending with the object ID tie-break.
        public var orderBySQL: String
        /// The values to bind, parameter 1 first.
        public var parameters: [AttributeValue]
        /// Whether the condition is the request's predicate; false when something was relaxed
        /// out of it: then it selects every row the predicate may hold for (and more), and the
        /// store decides the request in memory on those rows (``RequestEvaluator``), ignoring
        /// the `ORDER BY`.
        public var isExact: Bool
    }

    private let layout: any SQLQueryLayout
    private let dialect: any SQLDialect
    private var parameters: [AttributeValue] = []
    private var aliasCount = 0
    private var isExact = true

    public init(layout: any SQLQueryLayout, dialect: any SQLDialect) {
        self.layout = layout
        self.dialect = dialect
    }

    /// The parts of the query for `request`; parameters are numbered from 1.
    /// - Throws: whatever the layout throws for an entity or property it does not have.
    public mutating func compile(_ request: ResolvedFetchRequest) throws -> Parts {
        parameters = []
        aliasCount = 0
        isExact = true
        let table = try layout.sqlTable(for: request.entity)
        let scope = Scope(alias: "t", entity: request.entity, table: table)
        var conditions: [String] = []
        if let kinds = table.kinds {
            conditions.append("t.\(dialect.identifier(table.entityColumn)) IN (\(kinds.map { bind(.string($0)) }.joined(separator: ", ")))")
        }
        if request.predicate != .constant(true) {
            conditions.append(try sql(request.predicate, scope, positive: true, depth: 0))
        }
        var order: [String] = []
        for descriptor in request.sortDescriptors {
            let column = try self.column(descriptor.keyPath, scope)
            let type = descriptor.keyPath.attribute?.type ?? .integer64
            order.append(dialect.orderingExpression(column, type: type) + " " + dialect.orderDirection(ascending: descriptor.ascending))
        }
        // By entity name as `ObjectID` orders it (PostgreSQL: bytewise, not by the database's collation).
        if table.entityNames.count > 1 { order.append(dialect.orderingExpression("t.\(dialect.identifier(table.entityColumn))", type: .string)) }
        order.append("t.\(dialect.identifier(table.primaryKey))")
        return Parts(
            joins: scope.joins.joined(), whereSQL: conditions.isEmpty ? dialect.trueLiteral : conditions.joined(separator: " AND "),
            orderBySQL: order.joined(separator: ", "), parameters: parameters, isExact: isExact)
    }

    // MARK: - Scopes

    /// A table alias and the joins made from it (the query's root, or an EXISTS sub-query).
    private final class Scope {
        let alias: String
        let entity: ResolvedEntity
        let table: SQLTableInfo
        var joins: [String] = []
        /// Alias of the row reached by a to-one path, by the path's positions.
        var joined: [String: String] = [:]
        init(alias: String, entity: ResolvedEntity, table: SQLTableInfo) {
            self.alias = alias
            self.entity = entity
            self.table = table
        }
    }

    private mutating func bind(_ value: AttributeValue) -> String {
        parameters.append(value)
        return dialect.parameter(parameters.count)
    }

    private mutating func newAlias(_ prefix: String) -> String {
        aliasCount += 1
        return "\(prefix)\(aliasCount)"
    }

    /// The alias of the row at the end of `hops` from the scope's row (LEFT JOINs made once).
    private mutating func alias(after hops: [ResolvedHop], _ scope: Scope) throws -> String {
        var alias = scope.alias
        var key = ""
        for hop in hops {
            key += "/\(hop.source.name).\(hop.index)"
            if let existing = scope.joined[key] {
                alias = existing
                continue
            }
            let fk = try layout.sqlForeignKey(for: hop.source, relationship: hop.index)
            let destination = try layout.sqlTable(for: hop.destination)
            let next = newAlias("q")
            scope.joins.append(
                " LEFT JOIN \(dialect.identifier(destination.name)) AS \(next) ON \(next).\(dialect.identifier(destination.primaryKey))"
                    + " = \(alias).\(dialect.identifier(fk))")
            scope.joined[key] = next
            alias = next
        }
        return alias
    }

    /// The column expression of a key path's value (an attribute, or a to-one's foreign key).
    private mutating func column(_ path: ResolvedKeyPath, _ scope: Scope) throws -> String {
        let alias = try self.alias(after: path.hops, scope)
        switch path.target {
        case .attribute(let entity, let index):
            return "\(alias).\(dialect.identifier(try layout.sqlColumn(for: entity, attribute: index)))"
        case .toOne(let entity, let index):
            return "\(alias).\(dialect.identifier(try layout.sqlForeignKey(for: entity, relationship: index)))"
        case .object:
            return "\(alias).\(dialect.identifier(scope.table.primaryKey))"
        }
    }

    // MARK: - Conditions

    /// The condition for `predicate`, which holds in a positive position (under an even
    /// number of `NOT`s) when `positive`, nested in `depth` levels (``SQLDialect/maximumNesting``).
    private mutating func sql(_ predicate: ResolvedPredicate, _ scope: Scope, positive: Bool, depth: Int) throws -> String {
        if let maximum = dialect.maximumNesting, depth + SQLPredicateCompiler.levels(of: predicate) > maximum { return relaxed(positive) }
        switch predicate {
        case .constant(let b): return b ? dialect.trueLiteral : dialect.falseLiteral
        case .and(let ps):
            return try list(ps, "AND", empty: dialect.trueLiteral, scope, positive: positive, depth: depth)
        case .or(let ps):
            return try list(ps, "OR", empty: dialect.falseLiteral, scope, positive: positive, depth: depth)
        case .not(let p):
            return dialect.negation(try sql(p, scope, positive: !positive, depth: depth + SQLPredicateCompiler.levels(of: predicate)))
        case .objectIDs(let ids):
            return try objectIDCondition(ids, scope)
        case .compare(let path, let op, let values, let options):
            guard dialect.decides(op, options: options, values: values) else { return relaxed(positive) }
            return try comparison(path, op, values, options, scope)
        case .exists(let path, let inner):
            // `owner IN (SELECT source …)`, not a correlated EXISTS: the sub-query does not
            // depend on the outer row, so SQLite runs it once (an ANY over 100k characters:
            // 248 ms as EXISTS, one index probe per row; see docs/Queries.md).
            let (owner, select, innerScope) = try semijoin(path, scope)
            var conditions = [select.notNull]
            if inner != .constant(true) {
                conditions.append(try sql(inner, innerScope, positive: positive, depth: depth + SQLPredicateCompiler.subqueryLevels))
            }
            return "\(owner) IN (SELECT \(select.column) FROM \(select.from)\(innerScope.joins.joined()) "
                + "WHERE \(conditions.joined(separator: " AND ")))"
        case .count(let path, let op, let counts):
            if op != .in, counts.isEmpty || (op == .between && counts.count != 2) { return dialect.falseLiteral }
            let (from, link, _) = try subquery(path, scope)
            let count = "(SELECT count(*) FROM \(from) WHERE \(link))"
            return ordering(count, op, counts.map { bind(.integer($0)) })
        }
    }

    /// `(p1 OP p2 OP …)` (``balanced(_:_:)``), or `empty` for no conditions.
    private mutating func list(
        _ ps: [ResolvedPredicate], _ op: String, empty: String, _ scope: Scope,
        positive: Bool, depth: Int
    ) throws -> String {
        if ps.isEmpty { return empty }
        let inner = depth + SQLPredicateCompiler.groupLevels(ps.count)  // as levels(of:)
        var parts: [String] = []
        parts.reserveCapacity(ps.count)
        for p in ps { parts.append(try sql(p, scope, positive: positive, depth: inner)) }
        return SQLPredicateCompiler.balanced(parts[...], op)
    }

    /// The constant that keeps every row a relaxed condition may hold for (`TRUE`, or `FALSE`
    /// in a negative position); the parts are no longer exact.
    private mutating func relaxed(_ positive: Bool) -> String {
        isExact = false
        return positive ? dialect.trueLiteral : dialect.falseLiteral
    }

    /// Nesting levels (``SQLDialect/maximumNesting``) a sub-query adds (`IN (SELECT … WHERE …)`
    /// holds more of SQLite's parser stack than a parenthesis or a `NOT`).
    static let subqueryLevels = 2

    /// The nesting levels `predicate`'s own SQL adds around (or below) what it contains: a
    /// `NOT` one, a list its parentheses, a sub-query ``subqueryLevels`` (a set of object
    /// IDs one more: `(entity = … AND pk IN (SELECT …))`), a comparison none.
    static func levels(of predicate: ResolvedPredicate) -> Int {
        switch predicate {
        case .constant, .compare: return 0
        case .not: return 1
        case .and(let ps), .or(let ps): return groupLevels(ps.count)
        case .exists, .count: return subqueryLevels
        case .objectIDs: return subqueryLevels + 1
        }
    }

    /// Nesting levels a list of `count` conditions adds as ``balanced(_:_:)`` writes it: one
    /// parenthesis for up to 8, one more for each halving beyond.
    static func groupLevels(_ count: Int) -> Int {
        var levels = count > 1 ? 1 : 0
        var n = count
        while n > 8 {
            n = (n + 1) / 2
            levels += 1
        }
        return levels
    }

    /// `(a OP b OP …)`, as a balanced tree of groups of at most 8 when there are more: SQLite
    /// parses `a OR b OR c …` as a left-deep tree, and refuses one deeper than 1,000
    /// ("Expression tree is too large"), so a flat list of 1,001 comparisons would fail.
    static func balanced(_ parts: ArraySlice<String>, _ op: String) -> String {
        if parts.count == 1 { return parts[parts.startIndex] }
        if parts.count <= 8 { return "(" + parts.joined(separator: " \(op) ") + ")" }
        let middle = parts.startIndex + parts.count / 2
        return "(" + balanced(parts[..<middle], op) + " \(op) " + balanced(parts[middle...], op) + ")"
    }

    /// For `ANY`: the owner's key, and a sub-query selecting the keys of the owners that
    /// have a destination (`column` from `from`, `notNull` its test), over the destinations of `path`.
    private mutating func semijoin(_ path: ResolvedToManyPath, _ scope: Scope) throws
        -> (String, (column: String, from: String, notNull: String), Scope)
    {
        let owner = try alias(after: path.hops, scope)
        let hop = path.toMany
        let ownerTable = try layout.sqlTable(for: hop.source)
        let destination = try layout.sqlTable(for: hop.destination)
        let d = newAlias("s")
        let inner = Scope(alias: d, entity: hop.destination, table: destination)
        let ownerKey = "\(owner).\(dialect.identifier(ownerTable.primaryKey))"
        switch try layout.sqlToMany(for: hop.source, relationship: hop.index) {
        case .destinationForeignKey(let column):
            let key = "\(d).\(dialect.identifier(column))"
            return (ownerKey, (key, "\(dialect.identifier(destination.name)) AS \(d)", "\(key) IS NOT NULL"), inner)
        case .joinTable(let table, let sourceColumn, let destinationColumn):
            let j = d + "j"
            let from =
                "\(dialect.identifier(table)) AS \(j) JOIN \(dialect.identifier(destination.name)) AS \(d) ON "
                + "\(d).\(dialect.identifier(destination.primaryKey)) = \(j).\(dialect.identifier(destinationColumn))"
            let key = "\(j).\(dialect.identifier(sourceColumn))"
            return (ownerKey, (key, from, "\(key) IS NOT NULL"), inner)
        }
    }

    /// `FROM` and link condition of a sub-query over the destinations of `path`.
    private mutating func subquery(_ path: ResolvedToManyPath, _ scope: Scope) throws -> (String, String, Scope) {
        let owner = try alias(after: path.hops, scope)
        let hop = path.toMany
        let ownerTable = try layout.sqlTable(for: hop.source)
        let destination = try layout.sqlTable(for: hop.destination)
        let d = newAlias("s")
        let inner = Scope(alias: d, entity: hop.destination, table: destination)
        let ownerKey = "\(owner).\(dialect.identifier(ownerTable.primaryKey))"
        switch try layout.sqlToMany(for: hop.source, relationship: hop.index) {
        case .destinationForeignKey(let column):
            return ("\(dialect.identifier(destination.name)) AS \(d)", "\(d).\(dialect.identifier(column)) = \(ownerKey)", inner)
        case .joinTable(let table, let sourceColumn, let destinationColumn):
            let j = d + "j"
            let from =
                "\(dialect.identifier(table)) AS \(j) JOIN \(dialect.identifier(destination.name)) AS \(d) ON "
                + "\(d).\(dialect.identifier(destination.primaryKey)) = \(j).\(dialect.identifier(destinationColumn))"
            return (from, "\(j).\(dialect.identifier(sourceColumn)) = \(ownerKey)", inner)
        }
    }

    private mutating func objectIDCondition(_ ids: Set<ObjectID>, _ scope: Scope) throws -> String {
        let names = Set(scope.table.entityNames)
        let byEntity = Dictionary(grouping: ids.filter { names.contains($0.entityName) }, by: \.entityName)
        guard !byEntity.isEmpty else { return dialect.falseLiteral }
        let pk = "\(scope.alias).\(dialect.identifier(scope.table.primaryKey))"
        var parts: [String] = []
        for entity in byEntity.keys.sorted() {
            let keys = (byEntity[entity] ?? []).map(\.primaryKey).sorted()
            var condition = "\(pk) IN \(dialect.primaryKeySet(keys, bind: { bind($0) }))"
            if scope.table.entityNames.count > 1 {
                condition = "(\(scope.alias).\(dialect.identifier(scope.table.entityColumn)) = \(bind(.string(entity))) AND \(condition))"
            }
            parts.append(condition)
        }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " OR ") + ")"
    }

    private mutating func comparison(
        _ path: ResolvedKeyPath, _ op: PredicateOperator, _ values: [AttributeValue?],
        _ options: PredicateOptions, _ scope: Scope
    ) throws -> String {
        let column = try self.column(path, scope)
        let type = path.attribute?.type ?? .integer64
        if op != .in, values.isEmpty || (op == .between && values.count != 2) { return dialect.falseLiteral }
        // Values compare as they order (a decimal stored as text by its number).
        let compared = dialect.orderingExpression(column, type: type)
        switch op {
        case .equal:
            guard let value = values[0] else { return "\(column) IS NULL" }
            if !options.isEmpty, let text = value.stringValue {
                return dialect.textComparison(.equal, column: column, operand: text, options: options, bind: { bind($0) })
            }
            return "\(compared) = \(bind(value))"
        case .notEqual:
            guard let value = values[0] else { return "\(column) IS NOT NULL" }
            return dialect.notEqualOrNull(compared, bind(value))
        case .in:
            let present = values.compactMap { $0 }
            if present.isEmpty { return dialect.falseLiteral }
            return "\(compared) IN (\(present.map { bind($0) }.joined(separator: ", ")))"
        case .less, .lessOrEqual, .greater, .greaterOrEqual, .between:
            let lhs = dialect.orderingExpression(column, type: type)
            return ordering(lhs, op, values.map { dialect.orderingExpression(bind($0 ?? .integer(0)), type: type) })
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard let text = values[0]?.stringValue else { return dialect.falseLiteral }
            return dialect.textComparison(op, column: column, operand: text, options: options, bind: { bind($0) })
        }
    }

    private func ordering(_ lhs: String, _ op: PredicateOperator, _ rhs: [String]) -> String {
        switch op {
        case .equal: return "\(lhs) = \(rhs[0])"
        case .notEqual: return "\(lhs) <> \(rhs[0])"
        case .less: return "\(lhs) < \(rhs[0])"
        case .lessOrEqual: return "\(lhs) <= \(rhs[0])"
        case .greater: return "\(lhs) > \(rhs[0])"
        case .greaterOrEqual: return "\(lhs) >= \(rhs[0])"
        case .between: return "\(lhs) BETWEEN \(rhs[0]) AND \(rhs[1])"
        case .in: return rhs.isEmpty ? dialect.falseLiteral : "\(lhs) IN (\(rhs.joined(separator: ", ")))"
        default: return dialect.falseLiteral
        }
    }
}
