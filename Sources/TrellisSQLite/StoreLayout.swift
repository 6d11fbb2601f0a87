import Trellis
import TrellisSQL

/// Where each entity and property of the model lives in the file, with the SQL text of
/// every statement a session runs, built once when the store opens (so no session builds
/// SQL per object). Immutable.
final class StoreLayout: Sendable {
    let description: SchemaDescription
    let tables: [String: TableLayout]
    let entities: [String: EntityLayout]
    /// The non-unique indexes of the schema (foreign key columns, join tables'
    /// `destination`): dropped for bulk loads into empty tables (`SQLiteSession+BulkLoad.swift`).
    let secondaryIndexes: [(name: String, table: String)]
    /// The secondary indexes a bulk run may defer (`SQLiteStore+DeferredIndexes.swift`): those
    /// no import reads, i.e. every one except those under a to-many that imports load (a
    /// mapped to-many stored by its inverse's foreign key, the inverse side of a many-to-many).
    let deferrableIndexes: [(name: String, table: String)]

    init(model: ObjectModel, description: SchemaDescription) throws(StoreError) {
        self.description = description
        self.secondaryIndexes = Schema(description).indexes.filter { !$0.createSQL.hasPrefix("CREATE UNIQUE") }.map { ($0.name, $0.table) }
        let byName = Dictionary(description.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var entityNamesByTable: [String: [String]] = [:]
        var tableOrder: [String] = []
        for entity in description.entities {
            if entityNamesByTable[entity.table] == nil { tableOrder.append(entity.table) }
            entityNamesByTable[entity.table, default: []].append(entity.name)
        }
        var tables: [String: TableLayout] = [:]
        for name in tableOrder {
            tables[name] = TableLayout(name: name, entityNames: entityNamesByTable[name] ?? [])
        }
        var entities: [String: EntityLayout] = [:]
        for resolved in model.resolvedEntities {
            guard let stored = byName[resolved.name], let table = tables[stored.table] else {
                throw StoreError(.incompatibleSchema, message: "entity \(resolved.name) has no table in the store")
            }
            entities[resolved.name] = try EntityLayout(
                entity: resolved, table: table, description: description,
                byName: byName, tables: tables, model: model)
        }
        self.tables = tables
        self.entities = entities
        for table in tables.values {
            table.finish(entities: table.entityNames.compactMap { entities[$0] })
        }
        var readByImports = Set<[String]>()
        for entity in entities.values {
            for (slot, relationship) in entity.relationships.enumerated() where !entity.importSkips[slot] {
                switch relationship {
                case .foreignKey: break
                case .inverseForeignKey(let column, let destination): readByImports.insert([destination.name, column])
                case .joinTable(let join):
                    if join.isInverseSide { readByImports.insert([join.table, "destination"]) }
                    if let column = join.membershipColumn { readByImports.insert([join.destination.name, column]) }
                }
            }
        }
        self.deferrableIndexes = Schema(description).indexes.compactMap { index in
            guard let column = index.column, !readByImports.contains([index.table, column]) else { return nil }
            return (index.name, index.table)
        }
    }

    /// The model's own `String` for an entity name read from a row (so snapshots share
    /// one string instead of each holding a copy); the text itself when unknown.
    func canonicalName(_ name: String) -> String {
        entities[name]?.entity.name ?? name
    }

    /// The layout of `entity`.
    /// - Throws: `StoreError` `.unknownObject` for an entity the model does not have.
    func entity(_ name: String) throws(StoreError) -> EntityLayout {
        guard let layout = entities[name] else {
            throw StoreError(.unknownObject, message: "unknown entity '\(name)'")
        }
        return layout
    }
}

/// One table per inheritance hierarchy: its name and the read statement shared by all
/// its entities (every column of every entity, plus the concrete entity of each to-one
/// destination when the destination hierarchy has several entities).
final class TableLayout: @unchecked Sendable {
    // SAFETY: the `var`s are written once by `finish(entities:)` inside `StoreLayout.init`,
    // before the layout is published; afterwards the object is only read.
    let name: String
    let quotedName: String
    /// Entities stored in the table, in model order (root first).
    let entityNames: [String]
    /// More than one entity shares the table, so the `_entity` column must be read.
    var isPolymorphic: Bool { entityNames.count > 1 }

    /// `SELECT t."_pk", t."_entity", t."_placeholder", <columns…> FROM "T" AS t LEFT JOIN …`
    private(set) var selectSQL = ""
    /// ``selectSQL`` up to `FROM` (the column list).
    private(set) var selectColumnsSQL = ""
    /// ``selectSQL`` after `FROM`: `"T" AS t LEFT JOIN …`.
    private(set) var fromSQL = ""
    /// Position of each attribute or FK column in ``selectSQL`` (after the 3 system columns).
    private(set) var columnPositions: [String: Int32] = [:]
    /// Position of the `_entity` column of a to-one's destination (LEFT JOIN), by FK column.
    private(set) var destinationEntityPositions: [String: Int32] = [:]
    /// How to read each entity's snapshot from a row of ``selectSQL``.
    private(set) var readPlans: [String: ReadPlan] = [:]
    /// The read plan when the table holds one entity.
    private(set) var singlePlan: ReadPlan?
    /// `DELETE FROM "T" WHERE "_pk" = ?1`
    let deleteSQL: String
    /// `SELECT max("_pk") FROM "T"`
    let maxKeySQL: String

    init(name: String, entityNames: [String]) {
        self.name = name
        self.quotedName = SQL.identifier(name)
        self.entityNames = entityNames
        self.deleteSQL = "DELETE FROM \(quotedName) WHERE \"_pk\" = ?1"
        self.maxKeySQL = "SELECT max(\"_pk\") FROM \(quotedName)"
    }

    func finish(entities: [EntityLayout]) {
        var columns = ["t.\"_pk\"", "t.\"_entity\"", "t.\"_placeholder\""]
        var joins: [String] = []
        var seen: Set<String> = []
        for entity in entities {
            for (column, _) in entity.declaredAttributeColumns where seen.insert(column).inserted {
                columnPositions[column] = Int32(columns.count)
                columns.append("t.\(SQL.identifier(column))")
            }
            for (column, destination) in entity.declaredForeignKeys where seen.insert(column).inserted {
                columnPositions[column] = Int32(columns.count)
                columns.append("t.\(SQL.identifier(column))")
                if destination.isPolymorphic {
                    let alias = "d\(joins.count)"
                    destinationEntityPositions[column] = Int32(columns.count)
                    columns.append("\(alias).\"_entity\"")
                    joins.append("LEFT JOIN \(destination.quotedName) AS \(alias) ON \(alias).\"_pk\" = t.\(SQL.identifier(column))")
                }
            }
        }
        for entity in entities {
            var toOnes: [ReadPlan.ToOne] = []
            for (slot, relationship) in entity.relationships.enumerated() {
                guard case .foreignKey(let column, let destination) = relationship,
                    let position = columnPositions[column]
                else { continue }
                toOnes.append(
                    ReadPlan.ToOne(
                        slot: slot, column: position, entityColumn: destinationEntityPositions[column],
                        destinationEntity: destination.entityNames.first ?? ""))
            }
            readPlans[entity.entity.name] = ReadPlan(
                ordinal: entityNames.firstIndex(of: entity.entity.name) ?? 0,
                attributePositions: entity.attributeColumns.map { columnPositions[$0] ?? 0 },
                attributeTypes: entity.attributeTypes, relationshipCount: entity.relationships.count, toOnes: toOnes)
        }
        singlePlan = entityNames.count == 1 ? readPlans[entityNames[0]] : nil
        selectColumnsSQL = "SELECT \(columns.joined(separator: ", "))"
        fromSQL = "\(quotedName) AS t" + (joins.isEmpty ? "" : " " + joins.joined(separator: " "))
        selectSQL = selectColumnsSQL + " FROM " + fromSQL
    }
}

extension TableLayout {
    /// Position of `column` (an attribute or to-one column) in ``selectSQL``.
    func columnPosition(_ column: String) -> Int32 { columnPositions[column] ?? 0 }

    /// The read plan of `entityName` (nil for an entity the table does not hold).
    @inline(__always)
    func readPlan(for entityName: String) -> ReadPlan? {
        singlePlan ?? readPlans[entityName]
    }
}

/// Which columns of a table's select statement hold one entity's attributes and to-ones.
struct ReadPlan: Sendable {
    struct ToOne: Sendable {
        /// Position in the entity's relationships.
        var slot: Int
        /// Column holding the destination's `_pk`.
        var column: Int32
        /// Column holding the destination's `_entity` (polymorphic destinations only).
        var entityColumn: Int32?
        /// The destination entity when the destination table holds one entity.
        var destinationEntity: String
    }

    /// Position of the entity in ``TableLayout/entityNames``.
    var ordinal: Int
    var attributePositions: [Int32]
    var attributeTypes: [AttributeType]
    var relationshipCount: Int
    var toOnes: [ToOne]
}

/// How one relationship of an entity is read and written.
enum RelationshipLayout: Sendable {
    /// A to-one: `column` (unquoted name) in the source table.
    case foreignKey(column: String, destination: TableLayout)
    /// An unordered to-many stored by the inverse to-one's `column` in the destination table.
    case inverseForeignKey(column: String, destination: TableLayout)
    /// A join table, seen from this relationship's side.
    case joinTable(JoinLayout)
}

extension RelationshipLayout {
    /// Identifies the storage a to-many is read from (relationships of sibling entities
    /// sharing it are loaded together); nil for a to-one.
    var loadKey: String? {
        switch self {
        case .foreignKey: return nil
        case .inverseForeignKey(let column, let destination): return "inverse \(destination.name) \(column)"
        case .joinTable(let join): return "join \(join.table) \(join.thisColumn)"
        }
    }

    /// ``loadKey`` for a derived to-many (kept by the other side's writes), which a session
    /// caches; nil for a to-one or a to-many written from its own side.
    var derivedLinksKey: String? {
        switch self {
        case .foreignKey: return nil
        case .inverseForeignKey: return loadKey
        case .joinTable(let join): return join.isInverseSide ? loadKey : nil
        }
    }
}

/// A join table as one relationship uses it. The owning side reads and writes through
/// `source`; the inverse side of a shared (many-to-many) table through `destination`.
final class JoinLayout: Sendable {
    /// The table name (unquoted).
    let table: String
    /// The table of the objects that have this relationship.
    let ownTable: TableLayout
    /// The table of this relationship's destinations.
    let destination: TableLayout
    /// `true` for the non-owning side of a many-to-many.
    let isInverseSide: Bool
    /// `true` when both sides of a many-to-many use the table.
    let isShared: Bool
    /// The table has a `position` column (the owning side is ordered).
    let hasPositions: Bool
    /// For an ordered to-many whose inverse is a to-one: the inverse's foreign-key column in
    /// the destination table, which decides membership (the table only gives the order).
    let membershipColumn: String?

    /// This side's column (`source`, or `destination` for the inverse side).
    let thisColumn: String
    /// The other side's column.
    let otherColumn: String
    /// This side's order is the position order (owning ordered side).
    var isOrdered: Bool { hasPositions && !isInverseSide }

    /// Inserts one link: ?1 this object, ?2 the destination, ?3 the position (owning
    /// ordered side); the inverse side of an ordered table appends after the owner's last
    /// position. Shared tables ignore a link that exists (or, owning ordered side, move it).
    let insert: String
    /// The owning side's insert without a conflict clause, for the links of a new object.
    let insertNew: String
    /// `DELETE FROM "J" WHERE <this> = ?1`: before replacing an object's links.
    let deleteThisSide: String
    /// `DELETE FROM "J" WHERE "destination" IN (SELECT value FROM json_each(?1))`: the links
    /// to deleted objects ("destination" has no foreign key); one scan, or index lookups
    /// for a shared table.
    let deleteDestinations: String

    init(
        table: String, ownTable: TableLayout, destination: TableLayout, isInverseSide: Bool, isShared: Bool, hasPositions: Bool,
        membershipColumn: String? = nil
    ) {
        self.table = table
        self.membershipColumn = membershipColumn
        self.ownTable = ownTable
        self.destination = destination
        self.isInverseSide = isInverseSide
        self.isShared = isShared
        self.hasPositions = hasPositions
        thisColumn = isInverseSide ? "destination" : "source"
        otherColumn = isInverseSide ? "source" : "destination"
        let t = SQL.identifier(table)
        let plain =
            hasPositions
            ? "INSERT INTO \(t)(\"source\", \"destination\", \"position\") VALUES (?1, ?2, ?3)"
            : "INSERT INTO \(t)(\"source\", \"destination\") VALUES (?1, ?2)"
        insertNew = plain
        if isInverseSide {
            insert =
                hasPositions
                ? "INSERT INTO \(t)(\"destination\", \"source\", \"position\") VALUES (?1, ?2, "
                    + "(SELECT coalesce(max(\"position\") + 1, 0) FROM \(t) WHERE \"source\" = ?2)) ON CONFLICT DO NOTHING"
                : "INSERT INTO \(t)(\"destination\", \"source\") VALUES (?1, ?2) ON CONFLICT DO NOTHING"
        } else {
            let conflict =
                !isShared
                ? ""
                : hasPositions
                    ? " ON CONFLICT DO UPDATE SET \"position\" = excluded.\"position\"" : " ON CONFLICT DO NOTHING"
            insert = plain + conflict
        }
        deleteThisSide = "DELETE FROM \(t) WHERE \(SQL.identifier(thisColumn)) = ?1"
        deleteDestinations = "DELETE FROM \(t) WHERE \"destination\" IN (SELECT value FROM json_each(?1))"
    }

    /// ``insertNew`` for `rows` rows: `INSERT INTO "J"("source", "destination") VALUES (?, ?), (?, ?), …`.
    func insertNew(rows: Int) -> String {
        let t = SQL.identifier(table)
        let row = hasPositions ? "(?, ?, ?)" : "(?, ?)"
        let columns = hasPositions ? "(\"source\", \"destination\", \"position\")" : "(\"source\", \"destination\")"
        return "INSERT INTO \(t)\(columns) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// The session cache key of the inverse side's links (`destination` → sources), for a shared table.
    var inverseLinksKey: String { "join \(table) destination" }

    /// The table referenced by `column` (`source` or `destination`).
    func referencedTable(_ column: String) -> TableLayout {
        column == thisColumn ? ownTable : destination
    }
}

/// One entity: its columns (positional, as ``ResolvedEntity/attributes`` and
/// ``ResolvedEntity/relationships``) and its prepared SQL.
final class EntityLayout: Sendable {
    let entity: ResolvedEntity
    let table: TableLayout
    /// Column name (unquoted) of each attribute, by position.
    let attributeColumns: [String]
    let attributeTypes: [AttributeType]
    let relationships: [RelationshipLayout]
    /// This entity and its sub-entities.
    let kindNames: [String]
    /// `true` when ``kindNames`` are all the entities of the table (no `_entity` filter needed).
    let coversTable: Bool
    /// Identity column names (unquoted), in identity order.
    let identityColumns: [String]
    /// Columns this entity declares itself: (column, attribute type).
    let declaredAttributeColumns: [(String, AttributeType)]
    /// To-one columns this entity declares itself: (column, destination table).
    let declaredForeignKeys: [(String, TableLayout)]

    /// `INSERT INTO "T"("_pk", "_entity", "_placeholder", <attributes>, <to-ones>) VALUES (…)`
    /// `[ON CONFLICT(<identity>) [WHERE …] DO UPDATE SET <all but identity>]`, and, in a
    /// table of several entities, `WHERE "_entity" = excluded."_entity"`: a stored object of
    /// another entity with the same identity is never overwritten (the writer then throws).
    let insertSQL: String
    /// Same for a placeholder, but `DO NOTHING`: a placeholder never overwrites a stored object.
    let insertPlaceholderSQL: String
    /// `SELECT "_pk", "_entity" FROM "T" WHERE <conflict columns> = ?… [AND <index predicate>]`, to
    /// find the stored object an insert ran into; nil when inserts cannot conflict (no identity).
    let conflictLookupSQL: String?
    /// Positions (in ``attributeColumns``) of the conflict target's columns, in parameter order.
    let conflictAttributeIndexes: [Int]
    /// For an integer identity of one column under a unique index without a predicate:
    /// `SELECT min(c) FROM "T"` and `SELECT max(c) FROM "T"`, each one probe of the index
    /// (https://sqlite.org/optoverview.html#minmax). An identity fetch leaves out the
    /// identities outside the stored range, which cannot be found: a fresh import of
    /// ascending ids then seeks only the ids it may find.
    let identityRangeSQL: (min: String, max: String)?
    /// Positions (in ``relationships``) of the to-one relationships, in insert-column order.
    let toOneIndexes: [Int]
    /// The session cache key of the inverse to-many each to-one feeds (same order as ``toOneIndexes``).
    let toOneLinksKeys: [String]
    /// By relationship position: left empty by an import's fetch
    /// (``ResolvedEntity/importSkippableToManyIndexes``).
    let importSkips: [Bool]
    /// By relationship position, for a to-one whose inverse is an ordered to-many: the
    /// statement deleting this object's rows from that to-many's order table except those
    /// of its new destination (`DELETE FROM "J" WHERE "destination" = ?1 AND "source" IS NOT ?2`),
    /// run when the to-one changes, so an object that leaves keeps no stale position.
    let orderRowsCleanupSQL: [String?]

    init(
        entity: ResolvedEntity, table: TableLayout, description: SchemaDescription,
        byName: [String: SchemaDescription.Entity], tables: [String: TableLayout], model: ObjectModel
    ) throws(StoreError) {
        self.entity = entity
        self.table = table
        // Columns of every attribute and relationship, walking the declaring entities.
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
        var relationships: [RelationshipLayout] = []
        var toOnes: [Int] = []
        var cleanups = [String?](repeating: nil, count: entity.relationships.count)
        for (i, relationship) in entity.relationships.enumerated() {
            guard let stored = relationshipStored[relationship.name],
                let destinationEntity = byName[relationship.destinationEntity],
                let destination = tables[destinationEntity.table]
            else {
                throw StoreError(.incompatibleSchema, message: "entity \(entity.name), relationship \(relationship.name): not in the store")
            }
            switch stored.storage {
            case .foreignKey:
                relationships.append(.foreignKey(column: stored.column ?? relationship.name, destination: destination))
                toOnes.append(i)
                // The inverse is an ordered to-many with an order table (its owner's join table).
                if let inverseName = relationship.inverseName,
                    let inverse = model.entity(named: relationship.destinationEntity)?.relationship(named: inverseName),
                    inverse.isToMany, inverse.isOrdered
                {
                    var walk: SchemaDescription.Entity? = destinationEntity
                    while let e = walk, cleanups[i] == nil {
                        if let r = e.relationships.first(where: { $0.name == inverseName }), r.storage == .joinTable, let table = r.table {
                            cleanups[i] = "DELETE FROM \(SQL.identifier(table)) WHERE \"destination\" = ?1 AND \"source\" IS NOT ?2"
                        }
                        walk = e.parent.flatMap { byName[$0] }
                    }
                }
            case .joinTable, .sharedJoinTable, .inverseJoinTable:
                let inverseSide = stored.storage == .inverseJoinTable
                let ownerOrdered =
                    inverseSide
                    ? (model.entity(named: relationship.destinationEntity)?.relationship(named: relationship.inverseName ?? "")?.isOrdered ?? false)
                    : relationship.isOrdered
                // An ordered to-many whose inverse is a to-one: the inverse's column says which
                // objects are linked (the context may change only that side), the join table
                // says in which order.
                var membershipColumn: String?
                if stored.storage == .joinTable, let inverseName = relationship.inverseName,
                    let inverse = model.entity(named: relationship.destinationEntity)?.relationship(named: inverseName), !inverse.isToMany
                {
                    var walk: SchemaDescription.Entity? = destinationEntity
                    while let e = walk, membershipColumn == nil {
                        membershipColumn = e.relationships.first { $0.name == inverseName }?.column
                        walk = e.parent.flatMap { byName[$0] }
                    }
                }
                relationships.append(
                    .joinTable(
                        JoinLayout(
                            table: stored.table ?? relationship.name, ownTable: table, destination: destination,
                            isInverseSide: inverseSide, isShared: stored.storage != .joinTable, hasPositions: ownerOrdered,
                            membershipColumn: membershipColumn)))
            case .inverseForeignKey:
                // The inverse to-one lives on the destination entity (or one of its parents).
                var column: String?
                var walk: SchemaDescription.Entity? = destinationEntity
                while let e = walk, column == nil {
                    column = e.relationships.first { $0.name == relationship.inverseName }?.column
                    walk = e.parent.flatMap { byName[$0] }
                }
                guard let column else {
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
        self.orderRowsCleanupSQL = cleanups
        self.toOneIndexes = toOnes
        self.toOneLinksKeys = toOnes.map { index in
            if case .foreignKey(let column, _) = relationships[index] { return "inverse \(table.name) \(column)" }
            return ""
        }
        kindNames = entity.kindNames
        coversTable = Set(entity.kindNames) == Set(table.entityNames)
        identityColumns = entity.identityAttributeIndexes.map { columns[$0] }
        let own = byName[entity.name]
        declaredAttributeColumns = own?.attributes.map { ($0.column, $0.type) } ?? []
        declaredForeignKeys =
            own?.relationships.compactMap { r in
                guard r.storage == .foreignKey, let column = r.column,
                    let d = byName[r.destination], let t = tables[d.table]
                else { return nil }
                return (column, t)
            } ?? []

        // INSERT … ON CONFLICT(identity) DO UPDATE SET … RETURNING "_pk"
        let toOneColumns: [String] = toOnes.map { index in
            if case .foreignKey(let column, _) = relationships[index] { return column }
            return ""
        }
        let insertColumns = ["_pk", "_entity", "_placeholder"] + columns + toOneColumns
        let head =
            "INSERT INTO \(table.quotedName)(\(insertColumns.map(SQL.identifier).joined(separator: ", ")))"
            + " VALUES (\((1...insertColumns.count).map { "?\($0)" }.joined(separator: ", ")))"
        // The conflict target: the unique index of the nearest entity (self or ancestor) introducing identity.
        var target: (columns: [String], predicate: String?)?
        for e in lineage.reversed() {
            if let index = Schema.identityIndex(of: e, in: description, byName: byName) {
                target = index
                break
            }
        }
        if let target {
            let conflict =
                " ON CONFLICT(\(target.columns.map(SQL.identifier).joined(separator: ", ")))"
                + (target.predicate.map { " WHERE \($0)" } ?? "")
            let identity = Set(target.columns)
            let updated = (["_placeholder"] + columns + toOneColumns).filter { !identity.contains($0) }
            let set = updated.map { "\(SQL.identifier($0)) = excluded.\(SQL.identifier($0))" }.joined(separator: ", ")
            let sameEntity = table.isPolymorphic ? " WHERE \"_entity\" = excluded.\"_entity\"" : ""
            insertSQL = head + conflict + (set.isEmpty ? " DO NOTHING" : " DO UPDATE SET \(set)" + sameEntity)
            insertPlaceholderSQL = head + conflict + " DO NOTHING"
            let conditions =
                target.columns.enumerated().map { "\(SQL.identifier($1)) = ?\($0 + 1)" }
                + (target.predicate.map { [$0] } ?? [])
            conflictLookupSQL = "SELECT \"_pk\", \"_entity\" FROM \(table.quotedName) WHERE \(conditions.joined(separator: " AND "))"
            conflictAttributeIndexes = target.columns.compactMap { column in columns.firstIndex(of: column) }
        } else {
            insertSQL = head
            insertPlaceholderSQL = head
            conflictLookupSQL = nil
            conflictAttributeIndexes = []
        }
        let integerTypes: Set<AttributeType> = [.integer16, .integer32, .integer64]
        if let target, target.predicate == nil, target.columns.count == 1, target.columns == identityColumns,
            let type = entity.identityAttributes.first?.type, integerTypes.contains(type)
        {
            let column = SQL.identifier(target.columns[0])
            identityRangeSQL = ("SELECT min(\(column)) FROM \(table.quotedName)", "SELECT max(\(column)) FROM \(table.quotedName)")
        } else {
            identityRangeSQL = nil
        }
    }

    /// `UPDATE "T" SET <changed columns> WHERE "_pk" = ?1`; parameters follow `columns`' order from ?2.
    func updateSQL(columns: [String]) -> String {
        let set = columns.enumerated().map { "\(SQL.identifier($1)) = ?\($0 + 2)" }.joined(separator: ", ")
        return "UPDATE \(table.quotedName) SET \(set) WHERE \"_pk\" = ?1"
    }
}
