import Foundation
import Trellis

/// PostgreSQL's SQL for the ``SQLPredicateCompiler`` (https://www.postgresql.org/docs/15/functions.html):
/// `$N` parameters, `TRUE`/`FALSE`, `IS DISTINCT FROM` as the null-safe inequality, text
/// ordered by bytes (`COLLATE "C"`, as SQLite's BINARY collation orders it), nulls first
/// ascending and last descending (as SQLite), and key sets as `unnest` of one `bigint[]`.
///
/// Text comparisons with `[c]`/`[d]` options or BEGINSWITH, ENDSWITH, CONTAINS, LIKE and
/// MATCHES follow ``PredicateTextMatcher``'s Unicode rules, which PostgreSQL's own operators
/// do not (their case folding and patterns depend on the database's collation): a request
/// using one is marked (``needsEvaluation``) and the session evaluates it in memory instead,
/// with ``RequestEvaluator``, which gives the answer every store must give.
final class PostgresDialect: SQLDialect, @unchecked Sendable {
    // SAFETY: `evaluates` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var evaluates = false

    /// Whether a compiled request used a text comparison SQL cannot decide exactly.
    var needsEvaluation: Bool { lock.withLock { evaluates } }

    func parameter(_ number: Int) -> String { "$\(number)" }
    var trueLiteral: String { "TRUE" }
    var falseLiteral: String { "FALSE" }

    func notEqualOrNull(_ lhs: String, _ rhs: String) -> String { "\(lhs) IS DISTINCT FROM \(rhs)" }

    func textComparison(_ op: PredicateOperator, column: String, operand: String, options: PredicateOptions,
                        bind: (AttributeValue) -> String) -> String {
        lock.withLock { evaluates = true }
        return "TRUE"
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
