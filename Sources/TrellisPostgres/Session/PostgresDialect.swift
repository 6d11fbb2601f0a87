import Foundation
import Trellis

/// PostgreSQL's SQL for the ``SQLPredicateCompiler`` (https://www.postgresql.org/docs/15/functions.html):
/// `$N` parameters, `TRUE`/`FALSE`, `IS DISTINCT FROM` as the null-safe inequality, text
/// ordered by bytes (`COLLATE "C"`, as SQLite's BINARY collation orders it), nulls first
/// ascending and last descending (as SQLite), and key sets as `unnest` of one `bigint[]`.
///
/// Text comparisons follow ``PredicateTextMatcher``'s rules. Without options, text compares
/// by its UTF-8 bytes, which PostgreSQL decides exactly: `==` (deterministic collations
/// compare equal only when the bytes are), BEGINSWITH, ENDSWITH and CONTAINS (`left`,
/// `right`, `strpos` on UTF-8 text, which a byte match and a character match agree on).
/// `[c]`/`[d]` (Unicode full case folding, `ß` = `ss`, and canonical composition), LIKE and
/// MATCHES (ICU regular expressions) are not PostgreSQL's: its `ILIKE`, `lower()` and `~*`
/// fold by the database's collation and locale (an ASCII-only fold in the C locale), and
/// its regular expressions are another dialect. Such comparisons are taken out of the SQL
/// (``relaxed(_:)``: the SQL condition is a pre-filter that keeps every row that may match)
/// and the session evaluates the request on the rows it returns, in memory, with
/// ``RequestEvaluator`` (docs/PostgresStore.md, docs/Queries.md).
final class PostgresDialect: SQLDialect, @unchecked Sendable {
    // SAFETY: `evaluates` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var evaluates = false

    /// Whether a compiled request used a text comparison SQL cannot decide exactly (never,
    /// for a predicate ``relaxed(_:)`` returned).
    var needsEvaluation: Bool { lock.withLock { evaluates } }

    /// Whether SQL decides `op` with `options` exactly (see the type's notes).
    static func decidesExactly(_ op: PredicateOperator, _ options: PredicateOptions) -> Bool {
        switch op {
        case .equal, .beginsWith, .endsWith, .contains: return options.isEmpty
        case .like, .matches: return false
        default: return true
        }
    }

    /// `predicate` with each text comparison SQL cannot decide replaced by the constant that
    /// keeps every row it might hold for: `TRUE` where the comparison counts positively,
    /// `FALSE` under an odd number of `NOT`s (`NONE` and `ALL` are `NOT`s of `ANY`), so the
    /// relaxed condition selects a superset of the rows `predicate` selects; and whether
    /// anything was replaced. A comparison with a text value holding U+0000 is replaced too
    /// (PostgreSQL cannot receive it as text; no stored text holds it).
    static func relaxed(_ predicate: ResolvedPredicate, positive: Bool = true) -> (ResolvedPredicate, Bool) {
        switch predicate {
        case .constant, .objectIDs, .count:
            return (predicate, false)
        case .compare(_, let op, let values, let options):
            // PostgreSQL text cannot hold U+0000, so such a value cannot be sent; in memory it
            // is compared like any other character (no stored text holds it).
            if values.contains(where: { $0?.stringValue?.unicodeScalars.contains("\u{0}") ?? false }) {
                return (.constant(positive), true)
            }
            let text = values.contains { $0?.stringValue != nil }
            if text || op == .like || op == .matches, !decidesExactly(op, options) { return (.constant(positive), true) }
            return (predicate, false)
        case .exists(let path, let inner):
            let (relaxedInner, changed) = relaxed(inner, positive: positive)
            return (.exists(path, relaxedInner), changed)
        case .and(let parts):
            let relaxedParts = parts.map { relaxed($0, positive: positive) }
            return (.and(relaxedParts.map(\.0)), relaxedParts.contains { $0.1 })
        case .or(let parts):
            let relaxedParts = parts.map { relaxed($0, positive: positive) }
            return (.or(relaxedParts.map(\.0)), relaxedParts.contains { $0.1 })
        case .not(let inner):
            let (relaxedInner, changed) = relaxed(inner, positive: !positive)
            return (.not(relaxedInner), changed)
        }
    }

    func parameter(_ number: Int) -> String { "$\(number)" }
    var trueLiteral: String { "TRUE" }
    var falseLiteral: String { "FALSE" }

    func notEqualOrNull(_ lhs: String, _ rhs: String) -> String { "\(lhs) IS DISTINCT FROM \(rhs)" }

    func textComparison(_ op: PredicateOperator, column: String, operand: String, options: PredicateOptions,
                        bind: (AttributeValue) -> String) -> String {
        guard options.isEmpty else {
            lock.withLock { evaluates = true }
            return "TRUE"
        }
        let text = "(\(column))::text"
        switch op {
        case .equal: return "coalesce(\(text) = \(bind(.string(operand)))::text, FALSE)"
        case .beginsWith:
            let value = bind(.string(operand)) + "::text"
            return "coalesce(left(\(text), length(\(value))) = \(value), FALSE)"
        case .endsWith:
            let value = bind(.string(operand)) + "::text"
            return "coalesce(right(\(text), length(\(value))) = \(value), FALSE)"
        case .contains:
            return "coalesce(strpos(\(text), \(bind(.string(operand)))::text) > 0, FALSE)"
        default:
            lock.withLock { evaluates = true }
            return "TRUE"
        }
    }

    func orderingExpression(_ expression: String, type: AttributeType) -> String {
        switch type {
        case .string, .uri: return "(\(expression))::text COLLATE \"C\""
        default: return expression
        }
    }

    func orderDirection(ascending: Bool) -> String { ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST" }

    func primaryKeySet(_ keys: [Int64], bind: (AttributeValue) -> String) -> String {
        "(SELECT unnest(\(bind(.string("{" + keys.map(String.init).joined(separator: ",") + "}")))::bigint[]))"
    }
}

extension PostgresLayout: SQLQueryLayout {
    func sqlTable(for entity: ResolvedEntity) throws -> SQLTableInfo {
        let layout = try self.entity(entity.name)
        return SQLTableInfo(name: layout.table.name, primaryKey: "_pk", entityColumn: "_entity",
                            kinds: layout.coversTable ? nil : layout.kindNames, entityNames: layout.table.entityNames)
    }

    func sqlColumn(for entity: ResolvedEntity, attribute index: Int) throws -> String {
        let layout = try self.entity(entity.name)
        guard layout.attributeColumns.indices.contains(index) else {
            throw StoreError(.unknownObject, message: "entity \(entity.name) has no attribute at position \(index)")
        }
        return layout.attributeColumns[index]
    }

    func sqlForeignKey(for entity: ResolvedEntity, relationship index: Int) throws -> String {
        let layout = try self.entity(entity.name)
        guard layout.relationships.indices.contains(index), case .foreignKey(let column, _) = layout.relationships[index] else {
            throw StoreError(.unknownObject, message: "entity \(entity.name) has no to-one relationship at position \(index)")
        }
        return column
    }

    func sqlToMany(for entity: ResolvedEntity, relationship index: Int) throws -> SQLToManyStorage {
        let layout = try self.entity(entity.name)
        guard layout.relationships.indices.contains(index) else {
            throw StoreError(.unknownObject, message: "entity \(entity.name) has no relationship at position \(index)")
        }
        switch layout.relationships[index] {
        case .foreignKey:
            throw StoreError(.unknownObject, message: "\(entity.name).\(entity.relationships[index].name) is a to-one relationship")
        case .inverseForeignKey(let column, _):
            return .destinationForeignKey(column: column)
        case .joinTable(let join):
            if let membership = join.membershipColumn { return .destinationForeignKey(column: membership) }
            return .joinTable(table: join.table, sourceColumn: join.thisColumn, destinationColumn: join.otherColumn)
        }
    }
}
