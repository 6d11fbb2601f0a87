import Trellis
import TrellisSQL

/// One entity: its columns (positional, as ``ResolvedEntity/attributes`` and
/// ``ResolvedEntity/relationships``) and the SQL of its set-based statements.
final class PostgresEntityLayout: Sendable {
    let entity: ResolvedEntity
    let table: PostgresTableLayout
    /// Column name (unquoted) of each attribute, by position.
    let attributeColumns: [String]
    let attributeTypes: [AttributeType]
    let relationships: [PostgresRelationshipLayout]
    /// This entity and its sub-entities.
    let kindNames: [String]
    /// `true` when ``kindNames`` are all the entities of the table (no `_entity` filter needed).
    let coversTable: Bool
    /// Positions (in ``attributeColumns``) of the identity attributes, in identity order.
    let identityIndexes: [Int]
    let declaredAttributeColumns: [(String, AttributeType)]
    let declaredForeignKeys: [(String, PostgresTableLayout)]
    /// Positions (in ``relationships``) of the to-ones, in insert-column order.
    let toOneIndexes: [Int]
    /// By relationship position: left empty by an import's fetch.
    let importSkips: [Bool]
    /// By relationship position, for a to-one whose inverse is an ordered to-many: that
    /// to-many's order table (qualified), whose rows for this object are pruned when it moves.
    let orderTables: [String?]

    /// The unique index an insert of this entity may run into: the nearest entity (self or
    /// ancestor) introducing identity; its columns are positions in ``attributeColumns``.
    let conflictIndexes: [Int]
    /// `ON CONFLICT ("id") [WHERE …]`, nil without identity.
    let conflictTarget: String?
    /// The partial index's kinds, for the conflict lookup (nil: the whole table).
    let conflictKinds: [String]?

    /// `INSERT … SELECT … FROM unnest(…) ON CONFLICT … DO UPDATE SET … WHERE (…) IS DISTINCT FROM (…) RETURNING "_pk"`:
    /// $1 keys, $2 entity, $3 placeholder flag, then one array per attribute and to-one.
    let upsertSQL: String
    /// The same with `DO NOTHING`: a placeholder never overwrites a stored object.
    let insertPlaceholderSQL: String

    init(
        entity: ResolvedEntity, table: PostgresTableLayout, schema: String, description: SchemaDescription,
        byName: [String: SchemaDescription.Entity], tables: [String: PostgresTableLayout], model: ObjectModel
    ) throws(StoreError) {
        self.entity = entity
        self.table = table
        var attributeColumn: [String: String] = [:]
        var relationshipStored: [String: SchemaDescription.Relationship] = [:]
        var lineage: [SchemaDescription.Entity] = []
        var current = byName[entity.name]
        while let e = current {
            lineage.append(e)
            for a in e.attributes where attributeColumn[a.name] == nil { attributeColumn[a.name] = a.column }
            for r in e.relationships where relationshipStored[r.name] == nil { relationshipStored[r.name] = r }
            current = e.parent.flatMap { byName[$0] }
        }
        var columns: [String] = []
        for attribute in entity.attributes {
            guard let column = attributeColumn[attribute.name] else {
                throw StoreError(.incompatibleSchema, message: "entity \(entity.name), attribute \(attribute.name): no column in the store")
            }
            columns.append(column)
        }
        attributeColumns = columns
        attributeTypes = entity.attributes.map(\.type)
        var relationships: [PostgresRelationshipLayout] = []
        var toOnes: [Int] = []
        var orderTables = [String?](repeating: nil, count: entity.relationships.count)
        func walk<T>(_ start: SchemaDescription.Entity?, _ find: (SchemaDescription.Entity) -> T?) -> T? {
            var e = start
            while let current = e {
                if let found = find(current) { return found }
                e = current.parent.flatMap { byName[$0] }
            }
            return nil
        }
        for (i, relationship) in entity.relationships.enumerated() {
            guard let stored = relationshipStored[relationship.name],
                let destinationEntity = byName[relationship.destinationEntity],
                let destination = tables[destinationEntity.table]
            else {
                throw StoreError(.incompatibleSchema, message: "entity \(entity.name), relationship \(relationship.name): not in the store")
            }
            let inverse = relationship.inverseName.flatMap { model.entity(named: relationship.destinationEntity)?.relationship(named: $0) }
            switch stored.storage {
            case .foreignKey:
                relationships.append(.foreignKey(column: stored.column ?? relationship.name, destination: destination))
                toOnes.append(i)
                if let inverse, inverse.isToMany, inverse.isOrdered {
                    orderTables[i] = walk(destinationEntity) { e in
                        e.relationships.first { $0.name == inverse.name && $0.storage == .joinTable }?.table
                    }.map { SQLText.qualified(schema, $0) }
                }
            case .joinTable, .sharedJoinTable, .inverseJoinTable:
                let inverseSide = stored.storage == .inverseJoinTable
                let ownerOrdered = inverseSide ? (inverse?.isOrdered ?? false) : relationship.isOrdered
                var membershipColumn: String?
                if stored.storage == .joinTable, let inverse, !inverse.isToMany {
                    membershipColumn = walk(destinationEntity) { e in e.relationships.first { $0.name == inverse.name }?.column }
                }
                relationships.append(
                    .joinTable(
                        PostgresJoinLayout(
                            table: stored.table ?? relationship.name, schema: schema, ownTable: table, destination: destination,
                            isInverseSide: inverseSide, isShared: stored.storage != .joinTable, hasPositions: ownerOrdered,
                            membershipColumn: membershipColumn)))
            case .inverseForeignKey:
                guard let column = walk(destinationEntity, { e in e.relationships.first { $0.name == relationship.inverseName }?.column }) else {
                    throw StoreError(
                        .incompatibleSchema,
                        message: "entity \(entity.name), relationship \(relationship.name): "
                            + "its inverse has no column in the store")
                }
                relationships.append(.inverseForeignKey(column: column, destination: destination))
            }
        }
        self.relationships = relationships
        var importSkips = [Bool](repeating: false, count: relationships.count)
        for i in entity.importSkippableToManyIndexes where i < importSkips.count { importSkips[i] = true }
        self.importSkips = importSkips
        self.orderTables = orderTables
        self.toOneIndexes = toOnes
        kindNames = entity.kindNames
        coversTable = Set(entity.kindNames) == Set(table.entityNames)
        identityIndexes = entity.identityAttributeIndexes
        let own = byName[entity.name]
        declaredAttributeColumns = own?.attributes.map { ($0.column, $0.type) } ?? []
        declaredForeignKeys =
            own?.relationships.compactMap { r in
                guard r.storage == .foreignKey, let column = r.column, let d = byName[r.destination], let t = tables[d.table] else { return nil }
                return (column, t)
            } ?? []

        // The upsert.
        let toOneColumns: [String] = toOnes.map { index in
            if case .foreignKey(let column, _) = relationships[index] { return column }
            return ""
        }
        let insertColumns = ["_pk", "_entity", "_placeholder"] + columns + toOneColumns
        var arrays = ["$1::bigint[]"]
        for (n, type) in attributeTypes.enumerated() { arrays.append("$\(n + 4)\(PostgresValues.elementType(for: type).cast)") }
        for n in toOneColumns.indices { arrays.append("$\(attributeTypes.count + n + 4)::bigint[]") }
        let values = (["v.c0", "$2::text", "$3::boolean"] + (1..<arrays.count).map { "v.c\($0)" }).joined(separator: ", ")
        let head =
            "INSERT INTO \(table.qualifiedName) AS t (\(insertColumns.map(SQLText.identifier).joined(separator: ", "))) "
            + "SELECT \(values) FROM unnest(\(arrays.joined(separator: ", "))) AS v(\((0..<arrays.count).map { "c\($0)" }.joined(separator: ", ")))"
        var target: (columns: [String], partialKinds: [String]?)?
        for e in lineage.reversed() {
            if let index = SchemaDescription.identityIndex(of: e, byName: byName, in: description) {
                target = index
                break
            }
        }
        if let target {
            let predicate = PostgresSchema.partialPredicate(target.partialKinds)
            let conflict =
                " ON CONFLICT (\(target.columns.map(SQLText.identifier).joined(separator: ", ")))"
                + (predicate.map { " WHERE \($0)" } ?? "")
            let identity = Set(target.columns)
            let updated = (["_placeholder"] + columns + toOneColumns).filter { !identity.contains($0) }
            let set = updated.map { "\(SQLText.identifier($0)) = excluded.\(SQLText.identifier($0))" }.joined(separator: ", ")
            let old = updated.map { "t.\(SQLText.identifier($0))" }.joined(separator: ", ")
            let new = updated.map { "excluded.\(SQLText.identifier($0))" }.joined(separator: ", ")
            let sameEntity = table.isPolymorphic ? " AND t.\"_entity\" = excluded.\"_entity\"" : ""
            upsertSQL =
                head + conflict + " DO UPDATE SET \(set) WHERE ROW(\(old)) IS DISTINCT FROM ROW(\(new))\(sameEntity)"
                + " RETURNING t.\"_pk\""
            insertPlaceholderSQL = head + conflict + " DO NOTHING RETURNING t.\"_pk\""
            conflictTarget = conflict
            conflictIndexes = target.columns.compactMap { column in columns.firstIndex(of: column) }
            conflictKinds = target.partialKinds
        } else {
            upsertSQL = head
            insertPlaceholderSQL = head
            conflictTarget = nil
            conflictIndexes = []
            conflictKinds = nil
        }
    }

    /// `WHERE` condition restricting to this entity's kinds (`t."_entity" = ANY($n::text[])`), nil when the entity covers its table.
    func kindCondition(parameter: Int) -> String? {
        coversTable ? nil : "t.\"_entity\" = ANY($\(parameter)::text[])"
    }

    /// The identity condition on `t` for parameters starting at `$first`: `t."id" = ANY($1::text[])`,
    /// or `(t."row", t."number") IN (SELECT * FROM unnest($1::text[], $2::bigint[]))`.
    func identityCondition(columns indexes: [Int], first: Int) -> String {
        let columns = indexes.map { "t.\(SQLText.identifier(attributeColumns[$0]))" }
        let casts = indexes.enumerated().map { "$\(first + $0)\(PostgresValues.elementType(for: attributeTypes[$1]).cast)" }
        if indexes.count == 1 { return "\(columns[0]) = ANY(\(casts[0]))" }
        return "(\(columns.joined(separator: ", "))) IN (SELECT * FROM unnest(\(casts.joined(separator: ", "))))"
    }
}
