import Trellis

/// A ``StorePredicate`` as a PostgreSQL `WHERE` condition on `t`, its values bound as
/// parameters of the compared attribute's type (`t."id" = $1::bigint`).
enum PostgresPredicate {
    /// The condition for `entity` (its kinds) and `predicate`; values are appended to `parameters`.
    /// - Throws: `.unknownObject` for a name that is not an attribute or to-one of the entity.
    static func condition(for entity: PostgresEntityLayout, predicate: StorePredicate?,
                          parameters: inout PostgresParameters) throws(StoreError) -> String {
        var parts: [String] = []
        if !entity.coversTable {
            parameters.append(PostgresSession.textArray(entity.kindNames))
            parts.append("t.\"_entity\" = ANY($\(parameters.count)::text[])")
        }
        if let predicate { parts.append(try sql(for: predicate, entity: entity, parameters: &parameters)) }
        return parts.isEmpty ? "TRUE" : parts.joined(separator: " AND ")
    }

    /// `::bigint`, `::numeric`, … : the type a parameter compared with an attribute is read as.
    static func scalarCast(_ type: AttributeType) -> String {
        switch type {
        case .string, .uri: return "::text"
        case .integer16, .integer32, .integer64: return "::bigint"
        case .decimal: return "::numeric"
        case .double, .float: return "::float8"
        case .boolean: return "::boolean"
        case .date: return "::timestamptz"
        case .binary: return "::bytea"
        case .uuid: return "::uuid"
        case .json: return "::jsonb"
        }
    }

    private static func sql(for predicate: StorePredicate, entity: PostgresEntityLayout,
                            parameters: inout PostgresParameters) throws(StoreError) -> String {
        func attribute(_ name: String) throws(StoreError) -> (column: String, type: AttributeType) {
            guard let index = entity.entity.attributeIndex(of: name) else {
                throw StoreError(.unknownObject, message: "entity \(entity.entity.name) has no attribute '\(name)'")
            }
            return ("t.\(SQLText.identifier(entity.attributeColumns[index]))", entity.attributeTypes[index])
        }
        func bind(_ value: AttributeValue, _ type: AttributeType) throws(StoreError) -> String {
            try PostgresValues.appendParameter(value, as: type, to: &parameters)
            return "$\(parameters.count)\(scalarCast(type))"
        }
        switch predicate {
        case .equals(let name, let value):
            let (column, type) = try attribute(name)
            guard let value else { return "\(column) IS NULL" }
            return "\(column) = \(try bind(value, type))"
        case .oneOf(let name, let values):
            let (column, type) = try attribute(name)
            if values.isEmpty { return "FALSE" }
            var placeholders: [String] = []
            for value in values { placeholders.append(try bind(value, type)) }
            return "\(column) IN (\(placeholders.joined(separator: ", ")))"
        case .relatedTo(let name, let destination):
            guard let index = entity.entity.relationshipIndex(of: name),
                  case .foreignKey(let fk, _) = entity.relationships[index] else {
                throw StoreError(.unknownObject, message: "entity \(entity.entity.name) has no to-one relationship '\(name)'")
            }
            guard let destination else { return "t.\(SQLText.identifier(fk)) IS NULL" }
            parameters.append(destination.primaryKey)
            return "t.\(SQLText.identifier(fk)) = $\(parameters.count)::bigint"
        case .and(let predicates):
            if predicates.isEmpty { return "TRUE" }
            var parts: [String] = []
            for p in predicates { parts.append(try sql(for: p, entity: entity, parameters: &parameters)) }
            return "(" + parts.joined(separator: " AND ") + ")"
        case .or(let predicates):
            if predicates.isEmpty { return "FALSE" }
            var parts: [String] = []
            for p in predicates { parts.append(try sql(for: p, entity: entity, parameters: &parameters)) }
            return "(" + parts.joined(separator: " OR ") + ")"
        case .not(let p):
            return PostgresDialect().negation(try sql(for: p, entity: entity, parameters: &parameters))
        }
    }
}
