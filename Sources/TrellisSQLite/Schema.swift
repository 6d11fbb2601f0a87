import Trellis
import TrellisSQL

/// The SQL objects (tables, indexes) of a ``SchemaDescription``, with the exact DDL that
/// creates them. See `docs/SQLiteSchema.md`.
///
/// - One table per inheritance hierarchy, named after the root entity: `"_pk" INTEGER
///   PRIMARY KEY` (the rowid, the object ID's primary key), `"_entity" TEXT NOT NULL` (the
///   concrete entity), `"_placeholder" INTEGER NOT NULL DEFAULT 0`, then one column per
///   attribute and per to-one relationship of every entity in the hierarchy.
/// - A to-one is `"<name>" INTEGER REFERENCES "<destination table>"("_pk") ON DELETE SET
///   NULL DEFERRABLE INITIALLY DEFERRED`, with an index (https://sqlite.org/foreignkeys.html).
/// - A join table `"<Entity>.<relationship>"("source", "destination"[, "position"])`,
///   `WITHOUT ROWID` with primary key `(source, destination)`; `source` references the
///   source table `ON DELETE CASCADE`. `destination` has no foreign key (checking it made
///   every link insert slower), and deleting destination objects removes their links in the
///   same `apply`, one statement per join table. Without an inverse, `destination` is not
///   indexed either (the index made every link insert ~1.5× slower, 0.43 s of 1.33 s for
///   300k links, and such rows are only looked up by source). The two sides of a
///   many-to-many share one table, named after the owning side, indexed on `destination`.
/// - A `UNIQUE` index on the identity attributes of each entity that introduces identity
///   (partial, `WHERE "_entity" IN (…)`, when the columns are shared with entities
///   outside its sub-tree).
struct Schema {
    struct Column: Equatable {
        var name: String
        /// `"name" TYPE …`, as in CREATE TABLE and ALTER TABLE ADD COLUMN.
        var definition: String
    }

    struct Table {
        var name: String
        var columns: [Column]
        /// `CREATE TABLE …`.
        var createSQL: String
    }

    struct Index: Equatable {
        var name: String
        var table: String
        /// `CREATE [UNIQUE] INDEX …`.
        var createSQL: String
        /// The one column of a secondary (non-unique) index: a to-one's, or a join table's `destination`.
        var column: String? = nil
    }

    /// Tables in creation order (hierarchy tables, then join tables).
    var tables: [Table]
    var indexes: [Index]

    init(_ description: SchemaDescription) {
        var tables: [Table] = []
        var joinTables: [Table] = []
        var indexes: [Index] = []
        var indexNames = NameSet()
        indexNames.insert(SchemaDescription.metadataTable)
        for entity in description.entities {
            indexNames.insert(entity.table)
            for relationship in entity.relationships { if let t = relationship.table { indexNames.insert(t) } }
        }
        let byName = Dictionary(description.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

        var tableOrder: [String] = []
        var columnsByTable: [String: [Column]] = [:]
        for entity in description.entities where columnsByTable[entity.table] == nil {
            tableOrder.append(entity.table)
            columnsByTable[entity.table] = [
                Column(name: "_pk", definition: "\"_pk\" INTEGER PRIMARY KEY"),
                Column(name: "_entity", definition: "\"_entity\" TEXT NOT NULL"),
                Column(name: "_placeholder", definition: "\"_placeholder\" INTEGER NOT NULL DEFAULT 0"),
            ]
        }
        for entity in description.entities {
            for attribute in entity.attributes {
                columnsByTable[entity.table, default: []].append(
                    Column(name: attribute.column, definition: "\(SQL.identifier(attribute.column)) \(SQL.columnType(attribute.type))"))
            }
            for relationship in entity.relationships {
                let destinationTable = byName[relationship.destination]?.table ?? relationship.destination
                switch relationship.storage {
                case .foreignKey:
                    guard let column = relationship.column else { continue }
                    columnsByTable[entity.table, default: []].append(
                        Column(
                            name: column,
                            definition: "\(SQL.identifier(column)) INTEGER REFERENCES \(SQL.identifier(destinationTable))(\"_pk\")"
                                + " ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED"))
                    let name = indexNames.allocate(preferred: "\(entity.table)(\(column))")
                    indexes.append(
                        Index(
                            name: name, table: entity.table,
                            createSQL:
                                "CREATE INDEX \(SQL.identifier(name)) ON \(SQL.identifier(entity.table))(\(SQL.identifier(column)))", column: column))
                case .joinTable, .sharedJoinTable:
                    guard let table = relationship.table else { continue }
                    let shared = relationship.storage == .sharedJoinTable
                    var columns = [
                        Column(
                            name: "source",
                            definition: "\"source\" INTEGER NOT NULL REFERENCES \(SQL.identifier(entity.table))(\"_pk\")"
                                + " ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED"),
                        Column(name: "destination", definition: "\"destination\" INTEGER NOT NULL"),
                    ]
                    if relationship.isOrdered {
                        columns.append(Column(name: "position", definition: "\"position\" INTEGER NOT NULL"))
                    }
                    let body = (columns.map(\.definition) + ["PRIMARY KEY (\"source\", \"destination\")"]).joined(separator: ",\n  ")
                    joinTables.append(
                        Table(
                            name: table, columns: columns,
                            createSQL: "CREATE TABLE \(SQL.identifier(table)) (\n  \(body)\n) WITHOUT ROWID"))
                    if shared {
                        let name = indexNames.allocate(preferred: "\(table)(destination)")
                        indexes.append(
                            Index(
                                name: name, table: table,
                                createSQL:
                                    "CREATE INDEX \(SQL.identifier(name)) ON \(SQL.identifier(table))(\"destination\")", column: "destination"))
                    }
                case .inverseJoinTable:
                    break
                case .inverseForeignKey:
                    break
                }
            }
        }
        for entity in description.entities {
            guard let identity = Schema.identityIndex(of: entity, in: description, byName: byName) else { continue }
            let name = indexNames.allocate(preferred: entity.parent == nil ? "\(entity.table) identity" : "\(entity.name) identity")
            let columns = identity.columns.map(SQL.identifier).joined(separator: ", ")
            var sql = "CREATE UNIQUE INDEX \(SQL.identifier(name)) ON \(SQL.identifier(entity.table))(\(columns))"
            if let predicate = identity.predicate { sql += " WHERE \(predicate)" }
            indexes.append(Index(name: name, table: entity.table, createSQL: sql))
        }
        for name in tableOrder {
            let columns = columnsByTable[name] ?? []
            let body = columns.map(\.definition).joined(separator: ",\n  ")
            tables.append(Table(name: name, columns: columns, createSQL: "CREATE TABLE \(SQL.identifier(name)) (\n  \(body)\n)"))
        }
        self.tables = tables + joinTables
        self.indexes = indexes
    }

    /// Every statement that creates the schema in an empty database, in order.
    var createStatements: [String] { tables.map(\.createSQL) + indexes.map(\.createSQL) }

    // MARK: - Identity indexes

    /// The unique index an entity introduces: its identity columns, and the partial-index
    /// predicate when needed. Nil when the entity has no identity or inherits its parent's
    /// (the parent's index then already makes the rows unique).
    static func identityIndex(
        of entity: SchemaDescription.Entity, in description: SchemaDescription,
        byName: [String: SchemaDescription.Entity]
    ) -> (columns: [String], predicate: String?)? {
        guard let index = SchemaDescription.identityIndex(of: entity, byName: byName, in: description) else { return nil }
        return (index.columns, index.partialKinds.map { "\"_entity\" IN (\($0.map(SQL.literal).joined(separator: ", ")))" })
    }
}
