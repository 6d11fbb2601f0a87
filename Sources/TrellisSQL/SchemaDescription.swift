import Trellis

/// The schema a store was made for: every entity with its table, every declared
/// property with its column or join table. Shared by the SQL stores (SQLite and
/// PostgreSQL), which record it as JSON in `trellis_metadata` (key `schema`) and compare it
/// with the model on open (`SQLiteStore+Migrations.swift`, `PostgresStore+Schema.swift`).
///
/// Names are chosen once and then kept: a property keeps the column it got when it was
/// added, even when a later model version adds a property whose preferred name would
/// collide. See `docs/SQLiteSchema.md` for the naming rules and ``NamingRules`` for what
/// differs between engines.
package struct SchemaDescription: Codable, Equatable, Sendable {
    /// Version of this description's shape (not of the model).
    package static let currentFormat = 1

    package var format: Int
    /// Entities in model order.
    package var entities: [Entity]

    package init(format: Int, entities: [Entity]) {
        self.format = format
        self.entities = entities
    }

    package struct Entity: Codable, Equatable, Sendable {
        package var name: String
        package var parent: String?
        package var isAbstract: Bool
        /// The table of the entity's inheritance hierarchy (named after the root entity).
        package var table: String
        /// The identity attribute names, unioned with the parents' (resolved order).
        package var identity: [String]
        /// Attributes the entity declares (inherited ones live in the parent's entry).
        package var attributes: [Attribute]
        /// Relationships the entity declares.
        package var relationships: [Relationship]
    }

    package struct Attribute: Codable, Equatable, Sendable {
        package var name: String
        package var type: AttributeType
        /// The column in the entity's table.
        package var column: String
    }

    package struct Relationship: Codable, Equatable, Sendable {
        package var name: String
        package var destination: String
        package var inverse: String?
        package var isToMany: Bool
        package var isOrdered: Bool
        package var storage: Storage
        /// The foreign-key column, for `.foreignKey`.
        package var column: String?
        /// The join table, for `.joinTable`.
        package var table: String?
    }

    /// How a relationship is stored (the rule of ``ChangeSet``'s documentation).
    package enum Storage: String, Codable, Sendable {
        /// A to-one: a column holding the destination's `_pk`.
        case foreignKey
        /// An unordered to-many whose inverse is a to-one: nothing of its own; the
        /// destinations are the rows whose inverse foreign key points at the object.
        case inverseForeignKey
        /// A to-many without inverse, or ordered with a to-one inverse: a join table
        /// `(source, destination[, position])` of its own, read by source only.
        case joinTable
        /// The owning side of a many-to-many pair: a join table shared with the inverse
        /// (`source` is this side), indexed both ways.
        case sharedJoinTable
        /// The other side of a many-to-many pair: the inverse's shared join table, read and
        /// written through its `destination` column.
        case inverseJoinTable
    }

    /// Names SQLite or the store reserve; no table takes them.
    package static let metadataTable = "trellis_metadata"
    /// The change log (`SQLiteStore+Observation.swift`, `PostgresStore+Observation.swift`); no entity's table takes the name.
    package static let commitsTable = "trellis_commits"
    /// The outbox of local changes (`SQLiteSession+Outbox.swift`, `PostgresSession+Outbox.swift`); no entity's table takes the name.
    package static let outboxTable = "trellis_outbox"
    /// The tombstones of acknowledged deletes (`SQLiteSession+Tombstones.swift`, `PostgresSession+Tombstones.swift`); no entity's table takes the name.
    package static let tombstonesTable = "trellis_tombstones"
    /// Columns every entity table has; no property column takes these names.
    package static let systemColumns = ["_pk", "_entity", "_placeholder"]

    package func entity(named name: String) -> Entity? { entities.first { $0.name == name } }
}

// MARK: - Deriving a description from a model

extension SchemaDescription {
    /// The description for `model`, keeping every table and column name `previous`
    /// already gave to the same entity or property (so an existing file still matches).
    ///
    /// - Throws: `StoreError` `.incompatibleSchema` when a name cannot be an identifier of
    ///   the engine `rules` describes (it contains a NUL character; a PostgreSQL name longer
    ///   than 63 bytes).
    package init(model: ObjectModel, previous: SchemaDescription?, rules: NamingRules = .sqlite) throws(StoreError) {
        var tableNames = NameSet(reservedPrefix: rules.reservedTablePrefix)
        tableNames.insert(SchemaDescription.metadataTable)
        tableNames.insert(SchemaDescription.commitsTable)
        tableNames.insert(SchemaDescription.outboxTable)
        tableNames.insert(SchemaDescription.tombstonesTable)
        for name in rules.reservedTables { tableNames.insert(name) }
        var columnNames: [String: NameSet] = [:]  // per table
        for entity in previous?.entities ?? [] {
            tableNames.insert(entity.table)
            for attribute in entity.attributes {
                columnNames[entity.table, default: NameSet(reservedPrefix: rules.reservedTablePrefix)].insert(attribute.column)
            }
            for relationship in entity.relationships {
                if let column = relationship.column { columnNames[entity.table, default: NameSet(reservedPrefix: rules.reservedTablePrefix)].insert(column) }
                if let table = relationship.table { tableNames.insert(table) }
            }
        }

        var entities: [Entity] = []
        var tableOfRoot: [String: String] = [:]
        var sharedTables: [String: String] = [:]  // owner "entity\0relationship" → join table
        for resolved in model.resolvedEntities {
            let declaration = resolved.declaration
            for name in [declaration.name] + declaration.attributes.map(\.name) + declaration.relationships.map(\.name)
            where name.utf8.contains(0) {
                throw StoreError(
                    .incompatibleSchema,
                    message: "entity \(declaration.name): the name '\(name)' contains a NUL character, "
                        + "which \(rules.identifierPhrase) cannot hold")
            }
            let old = previous?.entity(named: declaration.name)
            let table: String
            if let known = tableOfRoot[resolved.rootName] {
                table = known
            } else {
                table = previous?.entity(named: resolved.rootName)?.table ?? tableNames.allocate(preferred: resolved.rootName)
                tableOfRoot[resolved.rootName] = table
            }
            try rules.check(table: table, entity: declaration.name)
            var columns = columnNames[table] ?? NameSet(reservedPrefix: rules.reservedTablePrefix)
            for system in SchemaDescription.systemColumns + rules.reservedColumns { columns.insert(system) }

            var attributes: [Attribute] = []
            for attribute in declaration.attributes {
                let column =
                    old?.attributes.first { $0.name == attribute.name }?.column
                    ?? columns.allocate(preferred: attribute.name, qualified: "\(declaration.name).\(attribute.name)")
                try rules.check(column: column, entity: declaration.name, property: attribute.name)
                attributes.append(Attribute(name: attribute.name, type: attribute.type, column: column))
            }
            var relationships: [Relationship] = []
            for relationship in declaration.relationships {
                let oldRelationship = old?.relationships.first { $0.name == relationship.name }
                let storage = SchemaDescription.storage(of: relationship, declaredBy: declaration.name, in: model)
                var entry = Relationship(
                    name: relationship.name, destination: relationship.destinationEntity,
                    inverse: relationship.inverseName, isToMany: relationship.isToMany,
                    isOrdered: relationship.isOrdered, storage: storage, column: nil, table: nil)
                switch storage {
                case .foreignKey:
                    let column =
                        oldRelationship?.column
                        ?? columns.allocate(preferred: relationship.name, qualified: "\(declaration.name).\(relationship.name)")
                    try rules.check(column: column, entity: declaration.name, property: relationship.name)
                    entry.column = column
                case .joinTable:
                    let joinTable =
                        oldRelationship?.table
                        ?? tableNames.allocate(preferred: "\(declaration.name).\(relationship.name)")
                    try rules.check(joinTable: joinTable, entity: declaration.name, property: relationship.name)
                    entry.table = joinTable
                case .sharedJoinTable, .inverseJoinTable:
                    let owner =
                        storage == .sharedJoinTable
                        ? (declaration.name, relationship.name)
                        : SchemaDescription.declaringEntity(
                            of: relationship.inverseName ?? "", in: relationship.destinationEntity,
                            model: model)
                    let key = "\(owner.0)\u{0}\(owner.1)"
                    if let known = sharedTables[key] {
                        entry.table = known
                    } else {
                        let table =
                            previous?.entity(named: owner.0)?.relationships.first { $0.name == owner.1 }?.table
                            ?? tableNames.allocate(preferred: "\(owner.0).\(owner.1)")
                        try rules.check(joinTable: table, entity: owner.0, property: owner.1)
                        sharedTables[key] = table
                        entry.table = table
                    }
                case .inverseForeignKey:
                    break
                }
                relationships.append(entry)
            }
            columnNames[table] = columns
            entities.append(
                Entity(
                    name: declaration.name, parent: declaration.parentName, isAbstract: declaration.isAbstract,
                    table: table, identity: resolved.identityAttributes.map(\.name),
                    attributes: attributes, relationships: relationships))
        }
        self.init(format: SchemaDescription.currentFormat, entities: entities)
    }

    /// The storage rule of ``ChangeSet``: a to-one is a foreign key; an unordered to-many
    /// whose inverse is a to-one is stored by that foreign key only; every other to-many
    /// (no inverse, many-to-many, ordered) is a join table. The two sides of a many-to-many
    /// share one join table, owned by the ordered side when exactly one side is ordered,
    /// else by the side declared first in the model (entity order, then declaration order).
    package static func storage(of relationship: RelationshipDescription, declaredBy entity: String, in model: ObjectModel) -> Storage {
        guard relationship.isToMany else { return .foreignKey }
        guard let inverseName = relationship.inverseName,
            let inverse = model.entity(named: relationship.destinationEntity)?.relationship(named: inverseName)
        else {
            return .joinTable
        }
        if !inverse.isToMany { return relationship.isOrdered ? .joinTable : .inverseForeignKey }
        // Many-to-many. A symmetric relationship (its own inverse) keeps a table of its own.
        let here = (entity, relationship.name)
        let there = declaringEntity(of: inverseName, in: relationship.destinationEntity, model: model)
        if here == there { return .joinTable }
        if relationship.isOrdered != inverse.isOrdered { return relationship.isOrdered ? .sharedJoinTable : .inverseJoinTable }
        return precedes(here, there, in: model) ? .sharedJoinTable : .inverseJoinTable
    }

    /// (declaring entity, relationship name) of the relationship `name` as `entity` (or a parent) declares it.
    package static func declaringEntity(of name: String, in entity: String, model: ObjectModel) -> (String, String) {
        var current = model.entity(named: entity)?.declaration
        while let e = current {
            if e.relationships.contains(where: { $0.name == name }) { return (e.name, name) }
            current = e.parentName.flatMap { model.entity(named: $0)?.declaration }
        }
        return (entity, name)
    }

    private static func precedes(_ a: (String, String), _ b: (String, String), in model: ObjectModel) -> Bool {
        let entityA = model.entities.firstIndex { $0.name == a.0 } ?? 0
        let entityB = model.entities.firstIndex { $0.name == b.0 } ?? 0
        if entityA != entityB { return entityA < entityB }
        let relationships = model.entities[entityA].relationships
        return (relationships.firstIndex { $0.name == a.1 } ?? 0) < (relationships.firstIndex { $0.name == b.1 } ?? 0)
    }
}

/// A set of identifiers compared as SQLite compares them (ASCII case-insensitively; for
/// PostgreSQL, whose quoted names are case-sensitive, that only avoids names differing in
/// case, so both engines give a model the same names), handing out names that are free.
package struct NameSet {
    private var keys: Set<String> = []
    /// Names starting with it (lowercased) get a leading `_` (SQLite: `sqlite_`).
    private let reservedPrefix: String?

    /// An empty set; allocated names starting with `reservedPrefix` get a leading `_`.
    package init(reservedPrefix: String? = "sqlite_") {
        self.reservedPrefix = reservedPrefix
    }

    package static func key(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    package func contains(_ name: String) -> Bool { keys.contains(NameSet.key(name)) }

    package mutating func insert(_ name: String) { keys.insert(NameSet.key(name)) }

    /// `preferred` if free, else `qualified` if given and free, else the first free
    /// `<name> 2`, `<name> 3`, …; names starting with the reserved prefix (`sqlite_`,
    /// reserved by SQLite, https://sqlite.org/lang_createtable.html) are prefixed with `_`.
    /// The name is taken.
    package mutating func allocate(preferred: String, qualified: String? = nil) -> String {
        func usable(_ name: String) -> String {
            guard let reservedPrefix else { return name }
            return NameSet.key(name).hasPrefix(reservedPrefix) ? "_" + name : name
        }
        var candidates = [usable(preferred)]
        if let qualified { candidates.append(usable(qualified)) }
        for candidate in candidates where !contains(candidate) {
            insert(candidate)
            return candidate
        }
        let base = candidates[candidates.count - 1]
        var n = 2
        while contains("\(base) \(n)") { n += 1 }
        insert("\(base) \(n)")
        return "\(base) \(n)"
    }
}
