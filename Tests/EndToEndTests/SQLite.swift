import Foundation
import Testing

/// Reads a store with the `sqlite3` command-line shell, independently of Trellis.
enum SQLite {
    /// The rows of `sql` as `sqlite3 -batch` prints them (`|` between columns, one row per
    /// line), without the final newline.
    static func query(_ database: URL, _ sql: String) throws -> String {
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
        try #require(process.terminationStatus == 0, "sqlite3 failed: \(String(decoding: errors, as: UTF8.self))")
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
