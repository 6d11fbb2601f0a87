import Trellis

/// SQLite's SQL for the ``SQLPredicateCompiler`` (https://sqlite.org/lang_expr.html):
/// `?N` parameters, `1`/`0` booleans, `IS NOT` as the null-safe inequality, text
/// comparisons through the `trellis_text` function (``SQLiteTextFunction``), decimals
/// (stored as text) compared and ordered by value through the `trellis_decimal` collation
/// (``SQLiteDecimalCollation``), key sets as `json_each` over one bound JSON array (one
/// statement text whatever the number of keys), and conditions nested at most
/// ``maximumNesting`` levels deep. It decides every comparison (``SQLiteTextFunction`` runs
/// the in-memory matcher).
struct SQLiteDialect: SQLDialect {
    /// SQLite's parser refuses a statement whose conditions nest beyond its parser stack
    /// (`YYSTACKDEPTH`, 100 entries: "parser stack overflow"). Measured on SQLite 3.40 with
    /// the shapes the compiler writes (alternating `NOT coalesce(…, 0)` and lists whose last
    /// term nests on, a sub-query at the bottom, `trellis_text`, key sets and counts as
    /// leaves), the shallowest refused nests 24 levels (SQLPredicateCompiler.levels(of:));
    /// 20 leaves a margin. Deeper conditions are relaxed and decided in memory
    /// (`SQLiteNestingTests`).
    var maximumNesting: Int? { 20 }

    func parameter(_ number: Int) -> String { "?\(number)" }
    var trueLiteral: String { "1" }
    var falseLiteral: String { "0" }

    func notEqualOrNull(_ lhs: String, _ rhs: String) -> String { "\(lhs) IS NOT \(rhs)" }

    /// `trellis_text(…)`. (A pre-filter in SQLite's C code for an ASCII BEGINSWITH operand,
    /// `(LIKE 'bat%' OR GLOB '*[^\x01-\x7F]*') AND trellis_text(…)`, was measured at 68 ms
    /// against 15–24 ms for the function alone on the 100k names: the GLOB's character class
    /// costs more than the function's ASCII fast path.)
    func textComparison(
        _ op: PredicateOperator, column: String, operand: String, options: PredicateOptions,
        bind: (AttributeValue) -> String
    ) -> String {
        "trellis_text(\(SQLiteTextFunction.code(of: op)), \(column), \(bind(.string(operand))), \(options.rawValue))"
    }

    func orderingExpression(_ expression: String, type: AttributeType) -> String {
        type == .decimal ? "\(expression) COLLATE \(SQLiteDecimalCollation.name)" : expression
    }

    /// SQLite already orders NULL first ascending and last descending (https://sqlite.org/lang_select.html#orderby).
    func orderDirection(ascending: Bool) -> String { ascending ? "ASC" : "DESC" }

    func primaryKeySet(_ keys: [Int64], bind: (AttributeValue) -> String) -> String {
        "(SELECT value FROM json_each(\(bind(.string("[" + keys.map(String.init).joined(separator: ",") + "]")))))"
    }
}

extension StoreLayout: SQLQueryLayout {
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
