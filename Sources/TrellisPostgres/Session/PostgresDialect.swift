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
/// its regular expressions are another dialect. The dialect does not decide those
/// (``decides(_:options:values:)``), nor a comparison with text holding U+0000, which
/// PostgreSQL cannot receive as text; the compiler relaxes them out of the SQL, which then
/// pre-filters the rows the session decides in memory (``SQLRequestSession``,
/// docs/PostgresStore.md, docs/Queries.md). A stateless value.
struct PostgresDialect: SQLDialect {
    /// False for `[c]`/`[d]` text comparisons, LIKE, MATCHES and values holding U+0000 (see the type's notes).
    func decides(_ op: PredicateOperator, options: PredicateOptions, values: [AttributeValue?]) -> Bool {
        if values.contains(where: { $0?.stringValue?.unicodeScalars.contains("\u{0}") ?? false }) { return false }
        switch op {
        case .equal, .beginsWith, .endsWith, .contains: return options.isEmpty
        case .like, .matches: return false
        default: return true
        }
    }

    func parameter(_ number: Int) -> String { "$\(number)" }
    var trueLiteral: String { "TRUE" }
    var falseLiteral: String { "FALSE" }

    func notEqualOrNull(_ lhs: String, _ rhs: String) -> String { "\(lhs) IS DISTINCT FROM \(rhs)" }

    /// Only for comparisons ``decides(_:options:values:)`` accepts: `==`, BEGINSWITH,
    /// ENDSWITH, CONTAINS without options.
    func textComparison(
        _ op: PredicateOperator, column: String, operand: String, options: PredicateOptions,
        bind: (AttributeValue) -> String
    ) -> String {
        let text = "(\(column))::text"
        let value = bind(.string(operand)) + "::text"
        switch op {
        case .equal: return "coalesce(\(text) = \(value), FALSE)"
        case .beginsWith: return "coalesce(left(\(text), length(\(value))) = \(value), FALSE)"
        case .endsWith: return "coalesce(right(\(text), length(\(value))) = \(value), FALSE)"
        case .contains: return "coalesce(strpos(\(text), \(value)) > 0, FALSE)"
        default: preconditionFailure("PostgresDialect does not decide \(op)\(options); the compiler asks decides(_:options:values:) first")
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
        return SQLTableInfo(
            name: layout.table.name, primaryKey: "_pk", entityColumn: "_entity",
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
