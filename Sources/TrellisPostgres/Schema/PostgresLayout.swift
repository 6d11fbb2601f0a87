import Trellis
import TrellisSQL

/// Where each entity and property of the model lives in the PostgreSQL schema, with the SQL
/// text sessions run, built once when the store opens. Immutable.
final class PostgresLayout: Sendable {
    let description: SchemaDescription
    let schema: String
    let tables: [String: PostgresTableLayout]
    let entities: [String: PostgresEntityLayout]
    /// Hierarchy tables in description order (root entities first in model order).
    let tableOrder: [PostgresTableLayout]

    init(model: ObjectModel, description: SchemaDescription, schema: String) throws(StoreError) {
        self.description = description
        self.schema = schema
        let ddl = PostgresSchema(description, schema: schema)
        let byName = Dictionary(description.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var entityNamesByTable: [String: [String]] = [:]
        var order: [String] = []
        for entity in description.entities {
            if entityNamesByTable[entity.table] == nil { order.append(entity.table) }
            entityNamesByTable[entity.table, default: []].append(entity.name)
        }
        var tables: [String: PostgresTableLayout] = [:]
        for name in order {
            tables[name] = PostgresTableLayout(
                name: name, schema: schema, entityNames: entityNamesByTable[name] ?? [],
                sequence: ddl.sequenceOfTable[name] ?? "\(name) keys")
        }
        var entities: [String: PostgresEntityLayout] = [:]
        for resolved in model.resolvedEntities {
            guard let stored = byName[resolved.name], let table = tables[stored.table] else {
                throw StoreError(.incompatibleSchema, message: "entity \(resolved.name) has no table in the store")
            }
            entities[resolved.name] = try PostgresEntityLayout(
                entity: resolved, table: table, schema: schema, description: description,
                byName: byName, tables: tables, model: model)
        }
        self.tables = tables
        self.entities = entities
        self.tableOrder = order.compactMap { tables[$0] }
        for table in tables.values {
            table.finish(entities: table.entityNames.compactMap { entities[$0] })
        }
    }

    /// The model's own `String` for an entity name read from a row; the text itself when unknown.
    func canonicalName(_ name: String) -> String {
        entities[name]?.entity.name ?? name
    }

    /// - Throws: `.unknownObject` for an entity the model does not have.
    func entity(_ name: String) throws(StoreError) -> PostgresEntityLayout {
        guard let layout = entities[name] else {
            throw StoreError(.unknownObject, message: "unknown entity '\(name)'")
        }
        return layout
    }

    /// `"schema"."name"`.
    func qualified(_ name: String) -> String { SQLText.qualified(schema, name) }
}

/// One table per inheritance hierarchy and the select list shared by its entities.
final class PostgresTableLayout: @unchecked Sendable {
    // SAFETY: the `var`s are written once by `finish(entities:)` inside `PostgresLayout.init`,
    // before the layout is published; afterwards the object is only read.
    let name: String
    let qualifiedName: String
    /// `nextval('"schema"."T keys"')`'s sequence, qualified and quoted.
    let qualifiedSequence: String
    let entityNames: [String]
    var isPolymorphic: Bool { entityNames.count > 1 }

    /// `t."_pk", t."_entity", t."_placeholder", <columns…>` (numeric columns cast to text).
    private(set) var selectList = ""
    /// `"s"."T" AS t LEFT JOIN …` (the entity of polymorphic to-one destinations).
    private(set) var fromSQL = ""
    private(set) var columnPositions: [String: Int] = [:]
    private(set) var destinationEntityPositions: [String: Int] = [:]
    private(set) var readPlans: [String: PostgresReadPlan] = [:]
    private(set) var singlePlan: PostgresReadPlan?

    init(name: String, schema: String, entityNames: [String], sequence: String) {
        self.name = name
        self.qualifiedName = SQLText.qualified(schema, name)
        self.qualifiedSequence = SQLText.qualified(schema, sequence)
        self.entityNames = entityNames
    }

    func finish(entities: [PostgresEntityLayout]) {
        var columns = ["t.\"_pk\"", "t.\"_entity\"", "t.\"_placeholder\""]
        var joins: [String] = []
        var seen: Set<String> = []
        for entity in entities {
            for (column, type) in entity.declaredAttributeColumns where seen.insert(column).inserted {
                columnPositions[column] = columns.count
                columns.append("t.\(SQLText.identifier(column))" + (type == .decimal ? "::text" : ""))
            }
            for (column, destination) in entity.declaredForeignKeys where seen.insert(column).inserted {
                columnPositions[column] = columns.count
                columns.append("t.\(SQLText.identifier(column))")
                if destination.isPolymorphic {
                    let alias = "d\(joins.count)"
                    destinationEntityPositions[column] = columns.count
                    columns.append("\(alias).\"_entity\"")
                    joins.append("LEFT JOIN \(destination.qualifiedName) AS \(alias) ON \(alias).\"_pk\" = t.\(SQLText.identifier(column))")
                }
            }
        }
        for entity in entities {
            var toOnes: [PostgresReadPlan.ToOne] = []
            for (slot, relationship) in entity.relationships.enumerated() {
                guard case .foreignKey(let column, let destination) = relationship, let position = columnPositions[column] else { continue }
                toOnes.append(
                    PostgresReadPlan.ToOne(
                        slot: slot, column: position, entityColumn: destinationEntityPositions[column],
                        destinationEntity: destination.entityNames.first ?? ""))
            }
            readPlans[entity.entity.name] = PostgresReadPlan(
                ordinal: entityNames.firstIndex(of: entity.entity.name) ?? 0,
                attributePositions: entity.attributeColumns.map { columnPositions[$0] ?? 0 },
                attributeTypes: entity.attributeTypes, relationshipCount: entity.relationships.count, toOnes: toOnes)
        }
        singlePlan = entityNames.count == 1 ? readPlans[entityNames[0]] : nil
        selectList = columns.joined(separator: ", ")
        fromSQL = "\(qualifiedName) AS t" + (joins.isEmpty ? "" : " " + joins.joined(separator: " "))
    }

    /// The read plan of `entityName` (nil for an entity the table does not hold).
    @inline(__always)
    func readPlan(for entityName: String) -> PostgresReadPlan? {
        singlePlan ?? readPlans[entityName]
    }

    /// `SELECT <select list> FROM <from>`.
    var selectSQL: String { "SELECT \(selectList) FROM \(fromSQL)" }
}

/// Which columns of a table's select list hold one entity's attributes and to-ones.
struct PostgresReadPlan: Sendable {
    struct ToOne: Sendable {
        var slot: Int
        var column: Int
        var entityColumn: Int?
        var destinationEntity: String
    }

    var ordinal: Int
    var attributePositions: [Int]
    var attributeTypes: [AttributeType]
    var relationshipCount: Int
    var toOnes: [ToOne]
}

/// How one relationship of an entity is read and written (the rules of ``ChangeSet``).
enum PostgresRelationshipLayout: Sendable {
    /// A to-one: `column` in the source table.
    case foreignKey(column: String, destination: PostgresTableLayout)
    /// An unordered to-many stored by the inverse to-one's `column` in the destination table.
    case inverseForeignKey(column: String, destination: PostgresTableLayout)
    /// A join table, seen from this relationship's side.
    case joinTable(PostgresJoinLayout)
}

/// A join table as one relationship uses it: the owning side through `source`, the inverse
/// side of a shared (many-to-many) table through `destination`.
final class PostgresJoinLayout: Sendable {
    let table: String
    let qualifiedName: String
    let ownTable: PostgresTableLayout
    let destination: PostgresTableLayout
    let isInverseSide: Bool
    let isShared: Bool
    let hasPositions: Bool
    /// For an ordered to-many whose inverse is a to-one: the inverse's column in the
    /// destination table, which decides membership (the table only gives the order).
    let membershipColumn: String?
    let thisColumn: String
    let otherColumn: String
    var isOrdered: Bool { hasPositions && !isInverseSide }

    init(
        table: String, schema: String, ownTable: PostgresTableLayout, destination: PostgresTableLayout, isInverseSide: Bool,
        isShared: Bool, hasPositions: Bool, membershipColumn: String?
    ) {
        self.table = table
        self.qualifiedName = SQLText.qualified(schema, table)
        self.ownTable = ownTable
        self.destination = destination
        self.isInverseSide = isInverseSide
        self.isShared = isShared
        self.hasPositions = hasPositions
        self.membershipColumn = membershipColumn
        thisColumn = isInverseSide ? "destination" : "source"
        otherColumn = isInverseSide ? "source" : "destination"
    }
}
