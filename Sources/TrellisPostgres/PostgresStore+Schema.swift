import CLibPQ
import Foundation
import Trellis
import TrellisSQL

/// Creating the store's tables in an empty schema, checking an existing store against the
/// model, and additive migrations: the SQLite store's rules (`SQLiteStore+Migrations.swift`)
/// with PostgreSQL's DDL, which is transactional, so a refused or failed migration leaves
/// every table as it was.
///
/// `trellis_metadata` records `format` (`1`), `modelVersion`, `schema` (the
/// ``SchemaDescription`` as JSON, the same text the SQLite store keeps) and `schemaHash`.
/// `trellis_locks` holds one lock row per scope (``PostgresSession/lock(scope:exclusive:)``).
/// `model` holds the model file text the store was last written with, when the opener gave
/// one (``Configuration/modelRecord``), as the SQLite store's `model` key does.
extension PostgresStore {
    static let currentFormat = "1"
    static let modelRecordKey = "model"

    /// What the database needs before it fits the model.
    enum SchemaWork: Sendable, Equatable {
        case none
        /// Only `trellis_metadata` changes.
        case metadata
        /// New tables, columns or indexes (and default values for stored objects).
        case migration
        /// An empty schema: the whole store.
        case creation

        var changesTables: Bool { self == .migration || self == .creation }
    }

    /// Compares the database with the model in one transaction (`READ COMMITTED`, so that
    /// a concurrent migration is seen once its lock is had) and, when `applying`, creates or
    /// migrates the schema, committed before returning. Two processes creating the same store
    /// at once: the second sees the first's tables and opens them (up to 3 attempts).
    static func prepareSchema(
        connection: PostgresConnection, model: ObjectModel, schema: String, configuration: Configuration,
        applying: Bool, describing store: String
    ) throws -> (layout: PostgresLayout, work: SchemaWork) {
        var attempt = 1
        if applying { try lockSchemaCreation(connection: connection, schema: schema) }
        defer { if applying { unlockSchemaCreation(connection: connection, schema: schema) } }
        while true {
            try connection.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
            do {
                let prepared = try prepareSchemaInTransaction(
                    connection: connection, model: model, schema: schema,
                    configuration: configuration, applying: applying, describing: store)
                if applying { try connection.commit() } else { try connection.execute("ROLLBACK") }
                return prepared
            } catch {
                if connection.isConnected, connection.isInTransaction { try? connection.execute("ROLLBACK") }
                // Another process created the same objects at the same moment.
                let raced = creationRaces.contains(connection.lastSQLState ?? "")
                guard raced, attempt < 3 else { throw describe(error, store: store, connection: connection) }
                attempt += 1
            }
        }
    }

    /// Takes the session-level advisory lock that serializes creating and migrating the store
    /// in `schema` among every process (https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS),
    /// waiting while another holds it. Taken before the transaction begins, so that its
    /// snapshot (`REPEATABLE READ` takes it at the first statement) sees the tables the
    /// previous holder committed: several first runs into one empty database never race on
    /// `CREATE TABLE` (which fails with `duplicate key value violates unique constraint
    /// "pg_type_typname_nsp_index"`). The lock ends with the session if the process dies.
    static func lockSchemaCreation(connection: PostgresConnection, schema: String) throws(StoreError) {
        var parameters = PostgresParameters()
        parameters.append(text: schema)
        try connection.run("SELECT pg_catalog.pg_advisory_lock(\(schemaLockClass), pg_catalog.hashtext($1))", parameters)
    }

    /// Releases ``lockSchemaCreation(connection:schema:)`` (a lost connection released it already).
    static func unlockSchemaCreation(connection: PostgresConnection, schema: String) {
        guard connection.isConnected else { return }
        var parameters = PostgresParameters()
        parameters.append(text: schema)
        _ = try? connection.run("SELECT pg_catalog.pg_advisory_unlock(\(schemaLockClass), pg_catalog.hashtext($1))", parameters)
    }

    /// The first key of the schema lock (`'TRLS'` as a 32-bit integer), the second being the schema name's hash.
    static let schemaLockClass: Int32 = 0x5452_4C53

    /// ``prepareSchema(connection:model:configuration:applying:describing:)`` inside the caller's transaction.
    static func prepareSchemaInTransaction(
        connection: PostgresConnection, model: ObjectModel, schema: String,
        configuration: Configuration, applying: Bool,
        describing store: String
    ) throws -> (layout: PostgresLayout, work: SchemaWork) {
        func q(_ name: String) -> String { SQLText.qualified(schema, name) }
        var names = PostgresParameters()
        names.append(text: schema)
        let schemaExists = try connection.run("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1", names).rowCount > 0
        let tables = schemaExists ? try tableNames(connection: connection, schema: schema) : []
        guard tables.contains(SchemaDescription.metadataTable) else {
            // Sync workers' leases may be there first (a worker claims before its first page).
            let others = tables.subtracting([PostgresStore.leasesTable])
            if !others.isEmpty {
                let listed = others.sorted().prefix(5).map { SQLText.identifier($0) }.joined(separator: ", ")
                throw StoreError(
                    .notAStore,
                    message: "\(store) holds tables (\(listed)\(others.count > 5 ? ", …" : "")) "
                        + "but no Trellis store (it has no trellis_metadata table)")
            }
            let description = try SchemaDescription(model: model, previous: nil, rules: .postgreSQL)
            if applying {
                if !schemaExists { try connection.execute("CREATE SCHEMA \(SQLText.identifier(schema))") }
                for statement in PostgresSchema.systemTables(schema: schema) + PostgresSchema(description, schema: schema).createStatements {
                    try connection.execute(statement)
                }
                try addLockRows(for: description, connection: connection, schema: schema)
                try writeMetadata(description, model: model, connection: connection, schema: schema)
                try updateModelRecord(configuration.modelRecord, schemaChanged: true, connection: connection, schema: schema)
            }
            return (try PostgresLayout(model: model, description: description, schema: schema), .creation)
        }

        var metadata = try readMetadata(connection: connection, schema: schema)
        var (stored, description) = try descriptions(metadata, model: model, store: store)
        if applying, !tables.contains(SchemaDescription.commitsTable) {
            // A store made before the change log.
            for statement in PostgresSchema.commitLog(schema: schema) { try connection.execute(statement) }
            try addLockRows(for: description, connection: connection, schema: schema)
        }
        // A store made before the outbox: the table is added by the schema work (on open, or
        // in the first write session with MigrationPolicy.inWriteTransactions).
        var lacksOutbox = !tables.contains(SchemaDescription.outboxTable)
        if applying, lacksOutbox {
            for statement in PostgresSession.outboxTable(schema: schema) { try connection.execute(statement) }
        }
        // An outbox made before its base values column.
        if !lacksOutbox, try !hasColumn("base_values", table: SchemaDescription.outboxTable, connection: connection, schema: schema) {
            if applying { try connection.execute(PostgresSession.outboxBaseValuesColumn(schema: schema)) } else { lacksOutbox = true }
        }
        // A store made before the tombstones of acknowledged deletes.
        if !tables.contains(SchemaDescription.tombstonesTable) {
            if applying {
                for statement in PostgresSession.tombstonesTable(schema: schema) { try connection.execute(statement) }
            } else {
                lacksOutbox = true
            }
        }
        let versionChanged = metadata["modelVersion"] != model.versionLabel
        let recordChanged = configuration.modelRecord.map { $0 != metadata[modelRecordKey] } ?? false
        if description == stored, !versionChanged, !recordChanged {
            return (
                try PostgresLayout(model: model, description: description, schema: schema),
                lacksOutbox && !applying ? .migration : .none
            )
        }
        if applying {
            // One migrating process at a time; then look again (another may have done it).
            try connection.execute("LOCK TABLE \(q(SchemaDescription.metadataTable)) IN SHARE ROW EXCLUSIVE MODE")
            metadata = try readMetadata(connection: connection, schema: schema)
            (stored, description) = try descriptions(metadata, model: model, store: store)
        }
        if description == stored {
            let changed = metadata["modelVersion"] != model.versionLabel
            let recordChanged = configuration.modelRecord.map { $0 != metadata[modelRecordKey] } ?? false
            if applying, changed { try writeMetadata(description, model: model, connection: connection, schema: schema) }
            if applying, recordChanged {
                try updateModelRecord(configuration.modelRecord, schemaChanged: false, connection: connection, schema: schema)
            }
            return (
                try PostgresLayout(model: model, description: description, schema: schema),
                lacksOutbox && !applying ? .migration : changed || recordChanged ? .metadata : .none
            )
        }
        try SchemaDescription.checkCompatibility(stored: stored, new: description, readOnly: configuration.isReadOnly)
        let statements = migrationStatements(from: stored, to: description, schema: schema)
        if applying {
            for statement in statements { try connection.execute(statement) }
            try addLockRows(for: description, connection: connection, schema: schema)
        }
        try fillNewAttributes(from: stored, to: description, model: model, connection: connection, schema: schema, applying: applying)
        if applying {
            try writeMetadata(description, model: model, connection: connection, schema: schema)
            try updateModelRecord(configuration.modelRecord, schemaChanged: true, connection: connection, schema: schema)
        }
        return (try PostgresLayout(model: model, description: description, schema: schema), statements.isEmpty ? .metadata : .migration)
    }

    /// The stored description and the model's (keeping the stored names).
    private static func descriptions(
        _ metadata: [String: String], model: ObjectModel,
        store: String
    ) throws(StoreError) -> (SchemaDescription, SchemaDescription) {
        guard metadata["format"] == currentFormat, let text = metadata["schema"],
            let stored = try? JSONDecoder().decode(SchemaDescription.self, from: Data(text.utf8))
        else {
            if let format = metadata["format"], let number = Int(format), number > Int(currentFormat) ?? 1 {
                throw StoreError(
                    .notAStore,
                    message: "\(store) was made by a newer version of Trellis (store format \(format); "
                        + "this version reads format \(currentFormat)): use that version or a newer one")
            }
            throw StoreError(
                .notAStore,
                message: "\(store) has a trellis_metadata table this version of Trellis cannot read "
                    + "(format \(metadata["format"] ?? "missing"))")
        }
        return (stored, try SchemaDescription(model: model, previous: stored, rules: .postgreSQL))
    }

    /// Whether `table` in `schema` has a column `column`.
    static func hasColumn(_ column: String, table: String, connection: PostgresConnection, schema: String) throws(StoreError) -> Bool {
        var parameters = PostgresParameters()
        parameters.append(text: schema)
        parameters.append(text: table)
        parameters.append(text: column)
        let result = try connection.run(
            "SELECT 1 FROM pg_catalog.pg_attribute AS a JOIN pg_catalog.pg_class AS c ON c.oid = a.attrelid "
                + "JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace "
                + "WHERE n.nspname = $1 AND c.relname = $2 AND a.attname = $3 AND a.attnum > 0 AND NOT a.attisdropped",
            parameters)
        return result.rowCount > 0
    }

    /// The names of the tables (and views) in `schema`.
    static func tableNames(connection: PostgresConnection, schema: String) throws(StoreError) -> Set<String> {
        var parameters = PostgresParameters()
        parameters.append(text: schema)
        let result = try connection.run(
            "SELECT c.relname FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n "
                + "ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')",
            parameters)
        return Set((0..<result.rowCount).map { result.string($0, 0) })
    }

    /// DDL turning `stored`'s schema into `new`'s: new sequences and tables, new columns,
    /// new foreign keys, new or changed indexes.
    static func migrationStatements(from stored: SchemaDescription, to new: SchemaDescription, schema: String) -> [String] {
        let before = PostgresSchema(stored, schema: schema)
        let after = PostgresSchema(new, schema: schema)
        var statements: [String] = []
        let oldSequences = Set(before.sequences.map(\.key))
        statements += after.sequences.filter { !oldSequences.contains($0.key) }.map(\.createSQL)
        let oldTables = Dictionary(before.tables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for table in after.tables {
            guard let old = oldTables[table.name] else {
                statements.append(table.createSQL)
                continue
            }
            let oldColumns = Set(old.columns.map(\.name))
            for column in table.columns where !oldColumns.contains(column.name) {
                statements.append("ALTER TABLE \(SQLText.qualified(schema, table.name)) ADD COLUMN \(column.definition)")
            }
        }
        let oldForeignKeys = Set(before.foreignKeys.map(\.key))
        statements += after.foreignKeys.filter { !oldForeignKeys.contains($0.key) }.map(\.createSQL)
        let oldIndexes = Dictionary(before.indexes.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        let newIndexNames = Set(after.indexes.map(\.key))
        statements += before.indexes.filter { !newIndexNames.contains($0.key) }.map(\.dropSQL)
        for index in after.indexes {
            if let old = oldIndexes[index.key] {
                if old.createSQL == index.createSQL { continue }
                statements.append(old.dropSQL)
            }
            statements.append(index.createSQL)
        }
        return statements
    }

    /// A new attribute with a default value gets it in the stored objects (when `applying`);
    /// a new required one without a default throws `.incompatibleSchema` when objects exist.
    static func fillNewAttributes(
        from stored: SchemaDescription, to new: SchemaDescription, model: ObjectModel,
        connection: PostgresConnection, schema: String, applying: Bool
    ) throws(StoreError) {
        let before = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for entity in new.entities {
            guard let old = before[entity.name], let resolved = model.entity(named: entity.name) else { continue }
            let known = Set(old.attributes.map(\.name))
            for attribute in entity.attributes where !known.contains(attribute.name) {
                guard let index = resolved.attributeIndex(of: attribute.name) else { continue }
                let description = resolved.attributes[index]
                let table = SQLText.qualified(schema, entity.table)
                let column = SQLText.identifier(attribute.column)
                var parameters = PostgresParameters()
                var kinds = PostgresArray(of: PostgresType.text)
                for kind in resolved.kindNames { kinds.append(bytes: kind.utf8) }
                parameters.append(kinds)
                if let value = description.defaultValue {
                    guard applying else { continue }
                    try PostgresValues.appendParameter(value, as: description.type, to: &parameters)
                    try connection.run("UPDATE \(table) SET \(column) = $2 WHERE \"_entity\" = ANY($1::text[])", parameters)
                } else if !description.isOptional {
                    let result = try connection.run(
                        "SELECT count(*) FROM \(table) WHERE \"_entity\" = ANY($1::text[]) "
                            + "AND NOT \"_placeholder\"", parameters)
                    let count = result.int64(0, 0)
                    if count > 0 {
                        throw StoreError(
                            .incompatibleSchema,
                            message: SchemaDescription.incompatibilityPreamble(readOnly: false)
                                + "entity \(entity.name), property \(attribute.name): the new attribute is required and "
                                + "has no default value, but \(count) stored object\(count == 1 ? " has" : "s have") no value for it",
                            details: "make the attribute optional or give it a default value")
                    }
                }
            }
        }
    }

    /// One lock row per hierarchy (`import <root entity>`), so that locking it never has to insert.
    static func addLockRows(for description: SchemaDescription, connection: PostgresConnection, schema: String) throws(StoreError) {
        var scopes = PostgresArray(of: PostgresType.text)
        scopes.append(bytes: "commit log".utf8)
        for entity in description.entities where entity.parent == nil { scopes.append(bytes: "import \(entity.name)".utf8) }
        var parameters = PostgresParameters()
        parameters.append(scopes)
        try connection.run(
            "INSERT INTO \(SQLText.qualified(schema, PostgresSchema.locksTable)) (\"scope\") "
                + "SELECT unnest($1::text[]) ON CONFLICT DO NOTHING", parameters)
    }

    static func readMetadata(connection: PostgresConnection, schema: String) throws(StoreError) -> [String: String] {
        let result = try connection.run("SELECT \"key\", \"value\" FROM \(SQLText.qualified(schema, SchemaDescription.metadataTable))")
        var values: [String: String] = [:]
        for row in 0..<result.rowCount { values[result.string(row, 0)] = result.string(row, 1) }
        return values
    }

    static func writeMetadata(
        _ description: SchemaDescription, model: ObjectModel, connection: PostgresConnection,
        schema: String
    ) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text: String
        do {
            text = String(decoding: try encoder.encode(description), as: UTF8.self)
        } catch {
            throw StoreError(.engine, message: "cannot encode the schema description: \(error)")
        }
        var keys = PostgresArray(of: PostgresType.text)
        var values = PostgresArray(of: PostgresType.text)
        var entries = [("format", currentFormat), ("schema", text), ("schemaHash", fnv1a64Hex(text))]
        if let label = model.versionLabel { entries.append(("modelVersion", label)) }
        for (key, value) in entries {
            keys.append(bytes: key.utf8)
            values.append(bytes: value.utf8)
        }
        var parameters = PostgresParameters()
        parameters.append(keys)
        parameters.append(values)
        let table = SQLText.qualified(schema, SchemaDescription.metadataTable)
        try connection.run(
            "INSERT INTO \(table) (\"key\", \"value\") SELECT * FROM unnest($1::text[], $2::text[]) "
                + "ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"", parameters)
        if model.versionLabel == nil { try connection.execute("DELETE FROM \(table) WHERE \"key\" = 'modelVersion'") }
    }

    /// Writes `record` as the recorded model (key `model`); with nil, removes the recorded
    /// model when `schemaChanged` (it describes the tables no more) and keeps it otherwise.
    static func updateModelRecord(
        _ record: String?, schemaChanged: Bool, connection: PostgresConnection,
        schema: String
    ) throws(StoreError) {
        let table = SQLText.qualified(schema, SchemaDescription.metadataTable)
        var parameters = PostgresParameters()
        parameters.append(text: modelRecordKey)
        if let record {
            parameters.append(text: record)
            try connection.run(
                "INSERT INTO \(table) (\"key\", \"value\") VALUES ($1, $2) "
                    + "ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"", parameters)
        } else if schemaChanged {
            try connection.run("DELETE FROM \(table) WHERE \"key\" = $1", parameters)
        }
    }

    /// FNV-1a, 64 bits, as 16 lowercase hex digits (as the SQLite store records it).
    static func fnv1a64Hex(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// A privilege failure while opening, said in terms of what the role lacks.
    static func describe(_ error: any Error, store: String, connection: PostgresConnection) -> any Error {
        guard let error = error as? StoreError, error.code == .permissionDenied else { return error }
        let role = connectedRoleName(connection)
        let what: String
        if error.message.contains("permission denied for schema") || error.message.contains("permission denied for database") {
            what =
                "the role \(role) may not create the store's tables in \(store) (it lacks the CREATE privilege on "
                + (error.message.contains("database") ? "the database" : "the schema")
                + "): grant it, or create the store once with a role that has it"
        } else {
            what = "the role \(role) lacks a privilege the store needs in \(store)"
        }
        return error.withCode(.permissionDenied, message: "\(what) (PostgreSQL: \(error.message))")
    }
}

/// The role a connection logged in as.
func connectedRoleName(_ connection: PostgresConnection) -> String {
    guard let user = PQuser(connection.handle) else { return "(unknown)" }
    return SQLText.identifier(String(cString: user))
}
