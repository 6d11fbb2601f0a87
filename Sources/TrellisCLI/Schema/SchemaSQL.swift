import CSQLite
import Foundation
import Trellis
import TrellisSQLite

// Interim: TrellisSQLite has no public API for a model's schema SQL yet (the `sqlite`
// branch adds one). Until then the schema is read back from a store made in a temporary
// directory, so it is exactly what `SQLiteStore` creates.

/// The SQL statements a new SQLite store runs for a model.
enum SchemaSQL {
    /// `CREATE TABLE …;` and `CREATE INDEX …;` statements, in creation order, each ending
    /// with `;` and a newline.
    /// - Throws: ``CommandError`` `.store` when the temporary store cannot be made or read.
    static func statements(for model: ObjectModel) throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("trellis-schema-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("schema.sqlite").path
        do {
            _ = try SQLiteStore(path: path, model: model)
        } catch {
            throw CommandError(.store, "cannot make the schema: \(error)")
        }
        var handle: OpaquePointer?
        defer { sqlite3_close(handle) }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw CommandError(.store, "cannot read the schema back: \(message(handle))")
        }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        let sql = "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw CommandError(.store, "cannot read the schema back: \(message(handle))")
        }
        var text = ""
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw CommandError(.store, "cannot read the schema back: \(message(handle))") }
            if let bytes = sqlite3_column_text(statement, 0) {
                text += String(cString: bytes) + ";\n"
            }
        }
        return text
    }

    private static func message(_ handle: OpaquePointer?) -> String {
        guard let handle, let text = sqlite3_errmsg(handle) else { return "out of memory" }
        return String(cString: text)
    }
}
