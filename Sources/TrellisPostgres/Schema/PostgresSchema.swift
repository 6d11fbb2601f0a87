import Trellis
import TrellisSQL

/// The PostgreSQL objects (tables, sequences, foreign keys, indexes) of a
/// ``SchemaDescription`` inside one PostgreSQL schema, with the exact DDL that creates them.
/// The same shape as the SQLite store's (`docs/SQLiteSchema.md`), in PostgreSQL's types
/// (`docs/PostgresStore.md`):
///
/// - one table per inheritance hierarchy: `"_pk" bigint` (default from the sequence
///   `"<table> keys"`), `"_entity" text`, `"_placeholder" boolean`, one column per attribute
///   and per to-one of every entity in the hierarchy;
/// - a to-one: `bigint`, a foreign key `ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED`
///   (added after every table exists, so hierarchies may refer to each other), indexed;
/// - a join table `("source", "destination"[, "position"])`, primary key `(source,
///   destination)`, without foreign keys: PostgreSQL checks a foreign key row by row (with
///   deferred constraints, at COMMIT), which took 2.3 s of a 7.8 s import of 100,000
///   characters with 300,000 links; `apply` deletes the links of deleted objects (either
///   side) itself. A many-to-many's shared table is indexed on `destination`;
/// - a unique index on each entity's identity columns (partial, `WHERE "_entity" IN (…)`,
///   as in SQLite).
///
/// Index and sequence names share the schema's namespace with the tables; one longer than 63
/// bytes is shortened to its first bytes plus a hash of the whole (``relationName(_:)``),
/// the same way every time, since PostgreSQL would otherwise cut it short itself.
struct PostgresSchema {
    struct Column: Equatable {
        var name: String
        /// `"name" type …`, as in CREATE TABLE and ALTER TABLE ADD COLUMN.
        var definition: String
    }

    struct Table {
        var name: String
        var columns: [Column]
        var createSQL: String
    }

    /// A named object created by one statement (an index, a sequence, a foreign key).
    struct Object: Equatable {
        /// Identifies it across versions: the index or sequence name, `table(column)` for a foreign key.
        var key: String
        var table: String
        var createSQL: String
        var dropSQL: String
    }

    let schema: String
    /// Hierarchy tables, then join tables, in creation order.
    var tables: [Table] = []
    /// `CREATE SEQUENCE`, one per hierarchy table.
    var sequences: [Object] = []
    var foreignKeys: [Object] = []
    var indexes: [Object] = []
    /// Hierarchy table → its key sequence (unqualified name).
    var sequenceOfTable: [String: String] = [:]

    init(_ description: SchemaDescription, schema: String) {
        self.schema = schema
        func q(_ name: String) -> String { SQLText.qualified(schema, name) }
        var relationNames = NameSet(reservedPrefix: nil)
        for name in [SchemaDescription.metadataTable, PostgresSchema.locksTable, PostgresStore.leasesTable] { relationNames.insert(name) }
        for entity in description.entities {
            relationNames.insert(entity.table)
            for relationship in entity.relationships { if let t = relationship.table { relationNames.insert(t) } }
        }
        func allocate(_ preferred: String) -> String {
            PostgresSchema.relationName(relationNames.allocate(preferred: PostgresSchema.relationName(preferred)))
        }
        let byName = Dictionary(description.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

        var tableOrder: [String] = []
        var columnsByTable: [String: [Column]] = [:]
        for entity in description.entities where columnsByTable[entity.table] == nil {
            tableOrder.append(entity.table)
            let sequence = allocate("\(entity.table) keys")
            sequenceOfTable[entity.table] = sequence
            sequences.append(
                Object(
                    key: sequence, table: entity.table, createSQL: "CREATE SEQUENCE \(q(sequence))",
                    dropSQL: "DROP SEQUENCE \(q(sequence))"))
            columnsByTable[entity.table] = [
                Column(name: "_pk", definition: "\"_pk\" bigint NOT NULL DEFAULT nextval(\(SQLText.literal(q(sequence))))"),
                Column(name: "_entity", definition: "\"_entity\" text NOT NULL"),
                Column(name: "_placeholder", definition: "\"_placeholder\" boolean NOT NULL DEFAULT false"),
            ]
        }
        var joinTables: [Table] = []
        for entity in description.entities {
            for attribute in entity.attributes {
                columnsByTable[entity.table, default: []].append(
                    Column(
                        name: attribute.column,
                        definition: "\(SQLText.identifier(attribute.column)) \(PostgresSchema.columnType(attribute.type))"))
            }
            for relationship in entity.relationships {
                let destinationTable = byName[relationship.destination]?.table ?? relationship.destination
                switch relationship.storage {
                case .foreignKey:
                    guard let column = relationship.column else { continue }
                    columnsByTable[entity.table, default: []].append(
                        Column(name: column, definition: "\(SQLText.identifier(column)) bigint"))
                    let table = q(entity.table)
                    foreignKeys.append(
                        Object(
                            key: "\(entity.table)(\(column))", table: entity.table,
                            createSQL: "ALTER TABLE \(table) ADD FOREIGN KEY (\(SQLText.identifier(column))) REFERENCES "
                                + "\(q(destinationTable)) (\"_pk\") ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED",
                            dropSQL: ""))
                    let name = allocate("\(entity.table)(\(column))")
                    indexes.append(
                        Object(
                            key: name, table: entity.table,
                            createSQL: "CREATE INDEX \(SQLText.identifier(name)) ON \(table) (\(SQLText.identifier(column)))",
                            dropSQL: "DROP INDEX \(q(name))"))
                case .joinTable, .sharedJoinTable:
                    guard let table = relationship.table else { continue }
                    var columns = [
                        // No foreign key (see the type's documentation): `apply` deletes an
                        // object's links itself.
                        Column(name: "source", definition: "\"source\" bigint NOT NULL"),
                        Column(name: "destination", definition: "\"destination\" bigint NOT NULL"),
                    ]
                    if relationship.isOrdered {
                        columns.append(Column(name: "position", definition: "\"position\" bigint NOT NULL"))
                    }
                    let body = (columns.map(\.definition) + ["PRIMARY KEY (\"source\", \"destination\")"]).joined(separator: ",\n  ")
                    joinTables.append(Table(name: table, columns: columns, createSQL: "CREATE TABLE \(q(table)) (\n  \(body)\n)"))
                    if relationship.storage == .sharedJoinTable {
                        let name = allocate("\(table)(destination)")
                        indexes.append(
                            Object(
                                key: name, table: table,
                                createSQL: "CREATE INDEX \(SQLText.identifier(name)) ON \(q(table)) (\"destination\")",
                                dropSQL: "DROP INDEX \(q(name))"))
                    }
                case .inverseJoinTable, .inverseForeignKey:
                    break
                }
            }
        }
        for entity in description.entities {
            guard let identity = SchemaDescription.identityIndex(of: entity, byName: byName, in: description) else { continue }
            let name = allocate(entity.parent == nil ? "\(entity.table) identity" : "\(entity.name) identity")
            var sql =
                "CREATE UNIQUE INDEX \(SQLText.identifier(name)) ON \(q(entity.table)) ("
                + identity.columns.map(SQLText.identifier).joined(separator: ", ") + ")"
            if let predicate = PostgresSchema.partialPredicate(identity.partialKinds) { sql += " WHERE \(predicate)" }
            indexes.append(Object(key: name, table: entity.table, createSQL: sql, dropSQL: "DROP INDEX \(q(name))"))
        }
        for name in tableOrder {
            let columns = columnsByTable[name] ?? []
            let body = (columns.map(\.definition) + ["PRIMARY KEY (\"_pk\")"]).joined(separator: ",\n  ")
            tables.append(Table(name: name, columns: columns, createSQL: "CREATE TABLE \(q(name)) (\n  \(body)\n)"))
        }
        tables += joinTables
    }

    /// The store's own tables: metadata, lock rows (``PostgresSession/lock(scope:exclusive:)``),
    /// the change log (`PostgresStore+Observation.swift`) with its sequence, the outbox and the
    /// tombstones of acknowledged deletes.
    static let locksTable = "trellis_locks"
    static let commitSequence = "trellis_commits seq"

    /// `CREATE TABLE` of `trellis_metadata` and `trellis_locks` in `schema`, then the change log,
    /// `trellis_outbox` and `trellis_tombstones`.
    static func systemTables(schema: String) -> [String] {
        [
            "CREATE TABLE \(SQLText.qualified(schema, SchemaDescription.metadataTable)) (\"key\" text PRIMARY KEY, \"value\" text NOT NULL)",
            "CREATE TABLE \(SQLText.qualified(schema, locksTable)) (\"scope\" text PRIMARY KEY)",
        ] + commitLog(schema: schema) + PostgresSession.outboxTable(schema: schema) + PostgresSession.tombstonesTable(schema: schema)
    }

    /// The change log: `CREATE SEQUENCE "trellis_commits seq"`, `CREATE TABLE "trellis_commits"`.
    static func commitLog(schema: String) -> [String] {
        [
            "CREATE SEQUENCE \(SQLText.qualified(schema, commitSequence))",
            "CREATE TABLE \(SQLText.qualified(schema, SchemaDescription.commitsTable)) (\"seq\" bigint PRIMARY KEY, \"changes\" text NOT NULL)",
        ]
    }

    /// Every statement that creates the schema in an empty PostgreSQL schema, in order:
    /// sequences, tables, foreign keys, indexes.
    var createStatements: [String] {
        sequences.map(\.createSQL) + tables.map(\.createSQL) + foreignKeys.map(\.createSQL) + indexes.map(\.createSQL)
    }

    /// `"_entity" IN ('Car', 'SportsCar')` for a partial index's kinds.
    static func partialPredicate(_ kinds: [String]?) -> String? {
        kinds.map { "\"_entity\" IN (\($0.map(SQLText.literal).joined(separator: ", ")))" }
    }

    /// The column type of an attribute type (https://www.postgresql.org/docs/15/datatype.html).
    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string, .uri: return "text"
        case .integer16: return "smallint"
        case .integer32: return "integer"
        case .integer64: return "bigint"
        case .decimal: return "numeric"
        case .double, .float: return "double precision"
        case .boolean: return "boolean"
        case .date: return "timestamp with time zone"
        case .binary: return "bytea"
        case .uuid: return "uuid"
        case .json: return "jsonb"
        }
    }

    /// `name`, or, when longer than 63 bytes, its first bytes (cut at a character boundary)
    /// followed by ` ` and the FNV-1a hash of the whole name (16 hex digits), 63 bytes at most.
    static func relationName(_ name: String) -> String {
        guard name.utf8.count > 63 else { return name }
        var prefix = ""
        for character in name {
            if prefix.utf8.count + String(character).utf8.count > 46 { break }
            prefix.append(character)
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return prefix + " " + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
