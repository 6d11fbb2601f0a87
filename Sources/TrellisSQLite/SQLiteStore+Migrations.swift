import Foundation
import Trellis
import TrellisSQL

/// Creating the schema in a new file, checking it in an existing one, and additive
/// migrations.
///
/// The file records what it was made for in `trellis_metadata` (key → value):
///
/// | key | value |
/// |---|---|
/// | `format` | `1`, the version of this layout |
/// | `modelVersion` | the model's ``ObjectModel/versionLabel`` (row absent when nil) |
/// | `schema` | the ``SchemaDescription`` as JSON (entities, tables, columns, types) |
/// | `schemaHash` | FNV-1a 64-bit hash of `schema`, 16 hex digits |
/// | `model` | the model file the store was last written with, when the opener gave one (``Configuration/modelRecord``; see `SQLiteStore+ModelRecord.swift`) |
///
/// On open the recorded description is compared with the model's. Allowed (applied
/// automatically in one transaction: when the store opens, or, with
/// ``SQLiteStore/MigrationPolicy/inWriteTransactions``, inside each write session until one
/// commits): new entities (a new table, or new columns when
/// the entity joins an existing hierarchy), new attributes, new relationships, changed
/// optionality, default values, JSON mappings, version label. A new attribute with a default
/// value gets it in the stored objects (Core Data's lightweight migration does the same).
/// Refused with `StoreError.incompatibleSchema`, file untouched: a removed entity or
/// property, a changed attribute type, changed identity attributes, a changed parent entity,
/// a relationship whose destination, cardinality, ordering or storage changed, and a new
/// required attribute without a default value in an entity that has stored objects
/// (placeholders aside). (An existing attribute made required is not checked: the file does
/// not record optionality.)
extension SQLiteStore {
    static let currentFormat = "1"

    /// The statements that create a new store for `model`, in the order the store runs them
    /// (the `trellis_metadata` table, entity and join tables, then indexes), without the
    /// trailing `;` — exactly the `sql` of `sqlite_master` in a new store file. See
    /// `docs/SQLiteSchema.md` for the layout.
    ///
    ///     for statement in try SQLiteStore.schemaStatements(for: model) { print(statement + ";") }
    ///
    /// - Throws: `StoreError` `.incompatibleSchema` for a name SQLite cannot hold (a NUL character).
    public static func schemaStatements(for model: ObjectModel) throws -> [String] {
        let description = try SchemaDescription(model: model, previous: nil)
        return [metadataTableSQL] + Schema(description).createStatements
    }

    static let metadataTableSQL = "CREATE TABLE \"trellis_metadata\" (\"key\" TEXT PRIMARY KEY NOT NULL, \"value\" TEXT NOT NULL)"

    /// What a file needs before it fits the model, as found by ``prepareSchema(connection:model:path:applying:)``.
    enum SchemaWork: Sendable, Equatable {
        /// The file fits the model as it is.
        case none
        /// Only `trellis_metadata` changes (the version label, defaults, optionality, mappings).
        case metadata
        /// New tables, columns or indexes (and default values for the stored objects).
        case migration
        /// An empty database: the whole schema.
        case creation

        /// Whether the model's tables or columns are missing from the file until the work is done.
        var changesTables: Bool { self == .migration || self == .creation }
    }

    /// Compares the file with the model and, when `applying`, creates or migrates the schema
    /// (in one transaction, committed); otherwise only checks that it could, writing nothing.
    ///
    /// - Returns: the layout of the schema the model gets, and what the file needed.
    /// - Throws: `.incompatibleSchema` naming every difference that is not additive; `.notAStore`;
    ///   `.readOnly` when applying work to a file that cannot be written.
    static func prepareSchema(
        connection: Connection, model: ObjectModel, path: String, modelRecord: String? = nil,
        applying: Bool
    ) throws(StoreError) -> (layout: StoreLayout, work: SchemaWork) {
        let writes = applying && !connection.isReadOnly
        try connection.execute(writes ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let prepared = try prepareSchemaInTransaction(
                connection: connection, model: model, path: path,
                modelRecord: modelRecord, applying: applying)
            try connection.execute("COMMIT")
            connection.clearStatementCache()
            return prepared
        } catch {
            try? connection.execute("ROLLBACK")
            connection.clearStatementCache()
            if error.code == .notAStore {
                throw error.withMessage(error.message.contains(path) ? error.message : "\(path) is not an SQLite database")
            }
            throw error
        }
    }

    /// ``prepareSchema(connection:model:path:applying:)`` inside the caller's transaction:
    /// a write session applies the work a store opened with
    /// ``SQLiteStore/MigrationPolicy/inWriteTransactions`` left pending, so that it commits or
    /// rolls back with the session.
    static func prepareSchemaInTransaction(
        connection: Connection, model: ObjectModel, path: String, modelRecord: String? = nil,
        applying: Bool
    ) throws(StoreError) -> (layout: StoreLayout, work: SchemaWork) {
        let writable = !connection.isReadOnly
        let hasMetadata = try tableExists(SchemaDescription.metadataTable, connection: connection)
        guard hasMetadata else {
            let objectCount = try connection.cachedStatement("SELECT count(*) FROM sqlite_master").runReturningInt64() ?? 0
            guard objectCount == 0 else {
                throw StoreError(.notAStore, message: "\(path) is an SQLite database but not a Trellis store (it has no trellis_metadata table)")
            }
            let description = try SchemaDescription(model: model, previous: nil)
            if applying {
                guard writable else {
                    throw StoreError(.readOnly, message: "cannot create a store in the read-only file \(path)")
                }
                try connection.execute(metadataTableSQL)
                for statement in Schema(description).createStatements { try connection.execute(statement) }
                try writeMetadata(description, model: model, connection: connection)
                try updateModelRecord(modelRecord, schemaChanged: true, connection: connection)
            }
            return (try StoreLayout(model: model, description: description), .creation)
        }

        let metadata = try readMetadata(connection: connection)
        guard metadata["format"] == currentFormat, let schemaText = metadata["schema"],
            let stored = try? JSONDecoder().decode(SchemaDescription.self, from: Data(schemaText.utf8))
        else {
            throw StoreError(
                .notAStore,
                message: "\(path) has a trellis_metadata table this version of Trellis cannot read "
                    + "(format \(metadata["format"] ?? "missing"))")
        }
        let description = try SchemaDescription(model: model, previous: stored)
        if description == stored {
            let versionChanged = metadata["modelVersion"] != model.versionLabel
            let recordChanged = modelRecord.map { $0 != metadata[modelRecordKey] } ?? false
            if applying, writable, versionChanged || recordChanged {
                if versionChanged { try writeMetadata(description, model: model, connection: connection) }
                try updateModelRecord(modelRecord, schemaChanged: false, connection: connection)
            }
            return (try StoreLayout(model: model, description: description), versionChanged || recordChanged ? .metadata : .none)
        }
        try SchemaDescription.checkCompatibility(stored: stored, new: description, readOnly: !writable)
        let statements = migrationStatements(from: stored, to: description)
        if applying {
            guard writable else {
                throw StoreError(
                    .readOnly,
                    message: "the store \(path) needs a migration for the model (new entities or properties) "
                        + "but is read-only")
            }
            for statement in statements { try connection.execute(statement) }
        }
        try fillNewAttributes(from: stored, to: description, model: model, connection: connection, applying: applying)
        if applying {
            try writeMetadata(description, model: model, connection: connection)
            try updateModelRecord(modelRecord, schemaChanged: true, connection: connection)
        }
        return (try StoreLayout(model: model, description: description), statements.isEmpty ? .metadata : .migration)
    }

    /// Gives the stored objects a value for each attribute the migration adds: its default
    /// value (`UPDATE … WHERE "_entity" IN (<kinds>)`, when `applying`), or, for a required
    /// attribute without one, throws `.incompatibleSchema` when such objects exist (the
    /// caller's transaction then leaves the file untouched).
    static func fillNewAttributes(
        from stored: SchemaDescription, to new: SchemaDescription, model: ObjectModel,
        connection: Connection, applying: Bool
    ) throws(StoreError) {
        let before = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for entity in new.entities {
            guard let old = before[entity.name], let resolved = model.entity(named: entity.name) else { continue }  // a new entity has no objects
            let known = Set(old.attributes.map(\.name))
            for attribute in entity.attributes where !known.contains(attribute.name) {
                guard let index = resolved.attributeIndex(of: attribute.name) else { continue }
                let description = resolved.attributes[index]
                // The entity's kinds are parameters ?2, ?3, …; ?1 is the default value (unused by the count).
                let kinds = resolved.kindNames.indices.map { "?\($0 + 2)" }.joined(separator: ", ")
                let table = SQL.identifier(entity.table)
                let column = SQL.identifier(attribute.column)
                let sql: String
                if description.defaultValue != nil {
                    guard applying else { continue }
                    sql = "UPDATE \(table) SET \(column) = ?1 WHERE \"_entity\" IN (\(kinds))"
                } else if !description.isOptional {
                    sql = "SELECT count(*) FROM \(table) WHERE \"_entity\" IN (\(kinds)) AND \"_placeholder\" = 0"
                } else {
                    continue
                }
                let statement = try connection.makeStatement(sql)
                try statement.bind(description.defaultValue, at: 1)
                for (i, kind) in resolved.kindNames.enumerated() { try statement.bind(kind, at: Int32(i + 2)) }
                if description.defaultValue != nil {
                    try statement.run()
                } else {
                    let count = try statement.runReturningInt64() ?? 0
                    if count > 0 {
                        throw StoreError(
                            .incompatibleSchema,
                            message: SchemaDescription.incompatibilityPreamble(readOnly: connection.isReadOnly)
                                + "entity \(entity.name), property \(attribute.name): the new attribute is required and "
                                + "has no default value, but \(count) stored object\(count == 1 ? " has" : "s have") no value for it",
                            details: "make the attribute optional or give it a default value")
                    }
                }
            }
        }
    }

    /// DDL turning `stored`'s schema into `new`'s: new tables, new columns, new or changed indexes.
    static func migrationStatements(from stored: SchemaDescription, to new: SchemaDescription) -> [String] {
        let before = Schema(stored)
        let after = Schema(new)
        var statements: [String] = []
        let oldTables = Dictionary(before.tables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for table in after.tables {
            guard let old = oldTables[table.name] else {
                statements.append(table.createSQL)
                continue
            }
            let oldColumns = Set(old.columns.map(\.name))
            for column in table.columns where !oldColumns.contains(column.name) {
                statements.append("ALTER TABLE \(SQL.identifier(table.name)) ADD COLUMN \(column.definition)")
            }
        }
        let oldIndexes = Dictionary(before.indexes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let newIndexNames = Set(after.indexes.map(\.name))
        for index in before.indexes where !newIndexNames.contains(index.name) {
            statements.append("DROP INDEX \(SQL.identifier(index.name))")
        }
        for index in after.indexes {
            if let old = oldIndexes[index.name] {
                if old.createSQL == index.createSQL { continue }
                statements.append("DROP INDEX \(SQL.identifier(index.name))")
            }
            statements.append(index.createSQL)
        }
        return statements
    }

    // MARK: - Metadata

    static func tableExists(_ name: String, connection: Connection) throws(StoreError) -> Bool {
        let statement = try connection.cachedStatement("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1")
        try statement.bind(name, at: 1)
        return (try statement.runReturningInt64() ?? 0) > 0
    }

    static func readMetadata(connection: Connection) throws(StoreError) -> [String: String] {
        let statement = try connection.cachedStatement("SELECT \"key\", \"value\" FROM \"trellis_metadata\"")
        defer { statement.reset() }
        var values: [String: String] = [:]
        while try statement.step() { values[statement.string(0)] = statement.string(1) }
        return values
    }

    static func writeMetadata(_ description: SchemaDescription, model: ObjectModel, connection: Connection) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text: String
        do {
            text = String(decoding: try encoder.encode(description), as: UTF8.self)
        } catch {
            throw StoreError(.engine, message: "cannot encode the schema description: \(error)")
        }
        let upsert = try connection.cachedStatement(
            "INSERT INTO \"trellis_metadata\"(\"key\", \"value\") VALUES (?1, ?2) ON CONFLICT(\"key\") DO UPDATE SET \"value\" = excluded.\"value\"")
        for (key, value) in [("format", currentFormat), ("schema", text), ("schemaHash", fnv1a64Hex(text))] {
            try upsert.bind(key, at: 1)
            try upsert.bind(value, at: 2)
            try upsert.run()
        }
        if let label = model.versionLabel {
            try upsert.bind("modelVersion", at: 1)
            try upsert.bind(label, at: 2)
            try upsert.run()
        } else {
            let delete = try connection.cachedStatement("DELETE FROM \"trellis_metadata\" WHERE \"key\" = 'modelVersion'")
            try delete.run()
        }
    }

    /// FNV-1a, 64 bits, as 16 lowercase hex digits (a fingerprint of the schema text, not a security hash).
    static func fnv1a64Hex(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
