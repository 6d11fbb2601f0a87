import Foundation
import Trellis
import TrellisSQL

/// The caller's metadata (``StoreSession/metadataValue(forKey:)``: `TrellisSync`'s
/// checkpoints), kept in the store's `trellis_metadata("key" text PRIMARY KEY, "value" text)`
/// under the prefix `user:`, as the SQLite store keeps it, so it never meets the store's own
/// keys (`format`, `schema`, `schemaHash`, `modelVersion`).
///
/// Read and written by the session's own transaction: a value set in a write session commits
/// with the session's object changes or rolls back with them (a conflict that runs the
/// session again runs the `INSERT … ON CONFLICT` again too). Concurrent writers of one key:
/// the later transaction waits for the earlier one's row lock, and under `REPEATABLE READ`
/// is then a serialization failure the store retries, so neither value is lost silently.
extension PostgresSession {
    /// The prefix of caller keys in `trellis_metadata` (as ``SQLiteSession``'s).
    static let userMetadataPrefix = "user:"

    func metadataValue(forKey key: String) throws -> String? {
        try checkValid()
        var parameters = PostgresParameters()
        parameters.append(text: PostgresSession.userMetadataPrefix + key)
        let result = try connection.run(
            "SELECT \"value\" FROM \(layout.qualified(SchemaDescription.metadataTable)) "
                + "WHERE \"key\" = $1", parameters)
        return result.rowCount == 0 ? nil : result.string(0, 0)
    }

    /// - Throws: `StoreError` `.readOnly` in a read session; `.engine` for an empty key;
    ///   `.unsupportedValue` for a key or value holding U+0000 (PostgreSQL's `text` cannot).
    func setMetadataValue(_ value: String?, forKey key: String) throws {
        try checkValid()
        guard isWritable else { throw StoreError(.readOnly, message: "cannot set metadata in a read session") }
        guard !key.isEmpty else { throw StoreError(.engine, message: "a metadata key must not be empty") }
        for (what, text) in [("key", key), ("value", value ?? "")] where text.utf8.contains(0) {
            throw StoreError(
                .unsupportedValue,
                message: "the metadata \(what) of '\(key.replacingNUL)' holds U+0000, "
                    + "which PostgreSQL text cannot hold")
        }
        let table = layout.qualified(SchemaDescription.metadataTable)
        var parameters = PostgresParameters()
        parameters.append(text: PostgresSession.userMetadataPrefix + key)
        if let value {
            parameters.append(text: value)
            try connection.run(
                "INSERT INTO \(table) (\"key\", \"value\") VALUES ($1, $2) "
                    + "ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"", parameters)
        } else {
            try connection.run("DELETE FROM \(table) WHERE \"key\" = $1", parameters)
        }
    }
}

extension PostgresStore {
    /// The caller metadata (``StoreSession/metadataValue(forKey:)``) of the store in the
    /// schema `connection` names (its `schema` parameter, else `public`), read in one
    /// read-only transaction without opening the store for a model (for tools that report on
    /// a store whose model they do not have, e.g. `trellis sync --status`). Keys as the caller
    /// gave them; empty for a schema with no tables yet (a store not created yet).
    /// - Throws: `StoreError` `.unavailable` (cannot connect; the message names the server
    ///   without its password), `.notAStore` (the schema holds tables but no `trellis_metadata`).
    public static func userMetadata(connection: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in try storeMetadata(connection: connection) ?? [:] where key.hasPrefix(PostgresSession.userMetadataPrefix) {
            result[String(key.dropFirst(PostgresSession.userMetadataPrefix.count))] = value
        }
        return result
    }

    /// The model file text the store in the schema `connection` names records
    /// (``Configuration/modelRecord``, key `model` of `trellis_metadata`: every `trellis import`
    /// and `trellis sync` records it), read in one read-only transaction without opening the
    /// store for a model (for `trellis model show postgresql://…` and an import without
    /// `--model`).
    ///
    /// - Returns: `storeExists` false for a schema with no tables yet (a store not created
    ///   yet: `model` is then nil); `model` nil too for a store written by a program that gave
    ///   no record, or whose schema a migration without a record changed.
    /// - Throws: `StoreError` `.unavailable` (cannot connect; the message names the server
    ///   without its password), `.notAStore` (the schema holds tables but no `trellis_metadata`).
    public static func recordedModel(connection: String) throws -> (storeExists: Bool, model: String?) {
        guard let metadata = try storeMetadata(connection: connection) else { return (false, nil) }
        return (true, metadata[modelRecordKey])
    }

    /// Every `trellis_metadata` row of the store in the schema `connection` names, or nil for
    /// a schema with no tables (or none at all).
    private static func storeMetadata(connection: String) throws -> [String: String]? {
        let parsed = try ConnectionString(connection)
        let schema = parsed.schema ?? "public"
        let opened = try PostgresConnection(parsed)
        try opened.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        defer { if opened.isConnected { try? opened.execute("ROLLBACK") } }
        var names = PostgresParameters()
        names.append(text: schema)
        let tables = try opened.run(
            "SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                + "ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')", names)
        let existing = Set((0..<tables.rowCount).map { tables.string($0, 0) })
        guard existing.contains(SchemaDescription.metadataTable) else {
            if existing.subtracting([PostgresStore.leasesTable]).isEmpty { return nil }
            throw StoreError(
                .notAStore,
                message: "schema \(schema) of \(opened.display) holds tables but no Trellis store "
                    + "(it has no trellis_metadata table)")
        }
        return try readMetadata(connection: opened, schema: schema)
    }
}

extension String {
    /// The text with U+0000 shown as `\0` (for messages).
    var replacingNUL: String { replacingOccurrences(of: "\u{0}", with: "\\0") }
}
