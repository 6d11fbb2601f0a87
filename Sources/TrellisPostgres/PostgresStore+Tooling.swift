import CLibPQ
import Trellis

/// Raw SQL for tests, benchmarks and tools inside this package (not public API).
extension PostgresStore {
    /// Runs `sql` (one or more statements) on a new connection and returns the rows of the
    /// last one, every column as text (nil for NULL).
    /// - Throws: `StoreError` as the store maps SQLSTATEs (`.unavailable` when the server
    ///   cannot be reached, `.permissionDenied`, …).
    package static func execute(_ sql: String, connection: String) throws -> [[String?]] {
        let connection = try PostgresConnection(try ConnectionString(connection))
        return try connection.textRows(sql)
    }

    /// Runs `sql` on the store's connection, outside any session; rows as ``execute(_:connection:)``.
    package func rows(_ sql: String) throws -> [[String?]] {
        try withConnection { try $0.textRows(sql) }
    }

    /// The SQL text of every statement the store's connection prepared (for the quoting audit).
    package var preparedSQL: [String] {
        (try? withConnection { $0.preparedSQL }) ?? []
    }
}

extension PostgresConnection {
    /// Runs `sql` without parameters; the last statement's rows as text.
    func textRows(_ sql: String) throws(StoreError) -> [[String?]] {
        let result = try executeReturning(sql)
        return (0..<result.rowCount).map { row in
            (0..<result.columnCount).map { result.isNull(row, $0) ? nil : result.string(row, $0) }
        }
    }
}
