import Foundation

/// Reads a store with the `sqlite3` command-line shell, independently of Trellis (for tests).
public enum SQLiteShell {
    /// `sqlite3` exited with a failure; the message is what it wrote on standard error.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The rows of `sql` as `sqlite3 -batch -readonly` prints them (`|` between columns, one
    /// row per line), without the final newline. Run it after comparing a store's bytes: a
    /// read-only connection may leave `-wal` and `-shm` files next to it.
    /// - Throws: ``Failure`` when `sqlite3` fails (the message is its standard error).
    public static func query(_ database: URL, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-batch", "-readonly", database.path, sql]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "sqlite3 failed: \(String(decoding: errors, as: UTF8.self))")
        }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Everything a test compares to say a store did not change: the schema, the metadata and
    /// the row count of every table.
    public static func state(of database: URL) throws -> String {
        let tables = try query(database, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .split(separator: "\n").map(String.init)
        var text = try query(database, "SELECT type, name, sql FROM sqlite_master ORDER BY type, name") + "\n"
        text += try query(database, "SELECT key, value FROM trellis_metadata ORDER BY key") + "\n"
        for table in tables {
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            text += table + ": " + (try query(database, "SELECT count(*) FROM \(quoted)")) + "\n"
        }
        return text
    }
}
