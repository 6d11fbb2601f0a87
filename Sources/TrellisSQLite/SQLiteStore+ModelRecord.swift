import Foundation
import Trellis
import TrellisSQL

/// The model a store records (`trellis_metadata` key `model`): the text of the model file
/// it was last written with, when the opener gave one (``SQLiteStore/Configuration/modelRecord``).
extension SQLiteStore {
    static let modelRecordKey = "model"

    /// The model file text recorded in the store at `path`, or nil when it records none (a
    /// store made by a program that gave no ``Configuration/modelRecord``, or one whose
    /// schema changed since). Opens the file read-only and writes nothing.
    ///
    ///     if let text = try SQLiteStore.recordedModel(atPath: "t.sqlite") {
    ///         let file = try ModelFile.read(data: Data(text.utf8))
    ///     }
    ///
    /// - Throws: `StoreError` `.notAStore` for a file that is not an SQLite database or
    ///   not a Trellis store (an empty file included), `.engine` when it cannot be read.
    public static func recordedModel(atPath path: String) throws(StoreError) -> String? {
        do throws(StoreError) {
            let connection = try Connection(path: path, readOnly: true)
            try connection.execute("BEGIN DEFERRED")
            defer { try? connection.execute("COMMIT") }
            guard try tableExists(SchemaDescription.metadataTable, connection: connection) else {
                throw StoreError(.notAStore, message: "\(path) is not a Trellis store (it has no trellis_metadata table)")
            }
            return try readMetadata(connection: connection)[modelRecordKey]
        } catch {
            if error.code == .notAStore, !error.message.contains(path) {
                throw error.withCode(.notAStore, message: "\(path) is not an SQLite database")
            }
            throw error
        }
    }

    /// Writes `record` as the recorded model; with nil, removes the recorded model when
    /// `schemaChanged` (it describes the file no more) and keeps it otherwise.
    static func updateModelRecord(_ record: String?, schemaChanged: Bool, connection: Connection) throws(StoreError) {
        if let record {
            let upsert = try connection.cachedStatement(
                "INSERT INTO \"trellis_metadata\"(\"key\", \"value\") VALUES (?1, ?2) ON CONFLICT(\"key\") DO UPDATE SET \"value\" = excluded.\"value\"")
            try upsert.bind(modelRecordKey, at: 1)
            try upsert.bind(record, at: 2)
            try upsert.run()
        } else if schemaChanged {
            let delete = try connection.cachedStatement("DELETE FROM \"trellis_metadata\" WHERE \"key\" = ?1")
            try delete.bind(modelRecordKey, at: 1)
            try delete.run()
        }
    }
}
