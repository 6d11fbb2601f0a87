import Foundation
import Trellis
import TrellisSQL

/// The caller's metadata (``StoreSession/metadataValue(forKey:)``), kept in the store's own
/// `trellis_metadata` table under the prefix `user:`, so it never meets the store's keys
/// (`format`, `schema`, `schemaHash`, `modelVersion`; see `SQLiteStore+Migrations.swift`).
/// Read and written inside the session's transaction: a value set in a write session that
/// rolls back is gone with its object changes.
extension SQLiteSession {
    /// The prefix of caller keys in `trellis_metadata`.
    static let userMetadataPrefix = "user:"

    func metadataValue(forKey key: String) throws -> String? {
        try checkValid()
        let statement = try connection.cachedStatement("SELECT \"value\" FROM \"trellis_metadata\" WHERE \"key\" = ?1")
        defer { statement.reset() }
        try statement.bind(SQLiteSession.userMetadataPrefix + key, at: 1)
        guard try statement.step() else { return nil }
        return statement.string(0)
    }

    func setMetadataValue(_ value: String?, forKey key: String) throws {
        try checkValid()
        guard isWritable else { throw StoreError(.readOnly, message: "cannot set metadata in a read session") }
        guard !key.isEmpty else { throw StoreError(.engine, message: "a metadata key must not be empty") }
        let statement: Statement
        if let value {
            statement = try connection.cachedStatement(
                "INSERT INTO \"trellis_metadata\"(\"key\", \"value\") VALUES (?1, ?2) "
                    + "ON CONFLICT(\"key\") DO UPDATE SET \"value\" = excluded.\"value\"")
            try statement.bind(value, at: 2)
        } else {
            statement = try connection.cachedStatement("DELETE FROM \"trellis_metadata\" WHERE \"key\" = ?1")
        }
        defer { statement.reset() }
        try statement.bind(SQLiteSession.userMetadataPrefix + key, at: 1)
        try statement.run()
    }
}

extension SQLiteStore {
    /// The caller metadata (``StoreSession/metadataValue(forKey:)``) of the store file at
    /// `path`, read without opening the store for a model (for tools that report on a store
    /// whose model they do not have, e.g. `trellis sync --status`). Keys as the caller gave them.
    /// - Throws: `StoreError` `.notAStore` for a file that is not a Trellis store (or does not exist).
    public static func userMetadata(atPath path: String) throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.notAStore, message: "\(path) does not exist")
        }
        let connection = try Connection(path: path, readOnly: true)
        do {
            guard try tableExists(SchemaDescription.metadataTable, connection: connection) else {
                throw StoreError(.notAStore, message: "\(path) is not a Trellis store (it has no trellis_metadata table)")
            }
        } catch let error as StoreError where error.code == .notAStore {
            throw StoreError(.notAStore, message: error.message.contains(path) ? error.message : "\(path) is not an SQLite database")
        }
        var result: [String: String] = [:]
        for (key, value) in try readMetadata(connection: connection) {
            guard key.hasPrefix(SQLiteSession.userMetadataPrefix) else { continue }
            result[String(key.dropFirst(SQLiteSession.userMetadataPrefix.count))] = value
        }
        return result
    }
}
