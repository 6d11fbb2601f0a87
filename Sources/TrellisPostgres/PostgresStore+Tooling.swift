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

    /// Runs `sql` on the store's connection, outside any session, with `search_path` set to
    /// the store's schema (so `"Character"` names the store's table); rows as
    /// ``execute(_:connection:)``, except that booleans read `1` and `0` (as SQLite's integers do).
    package func rows(_ sql: String) throws -> [[String?]] {
        try withConnection { connection in
            try connection.reconnectIfNeeded()
            try connection.execute("SET search_path TO \(SQLText.identifier(schema))")
            return try connection.textRows(sql, booleansAsIntegers: true)
        }
    }

    /// The SQL text of every statement the store's connection prepared (for the quoting audit).
    package var preparedSQL: [String] {
        (try? withConnection { $0.preparedSQL }) ?? []
    }
}

extension PostgresConnection {
    /// Runs `sql` without parameters; the last statement's rows as text (`booleansAsIntegers`:
    /// `true`/`false` as `1`/`0`).
    func textRows(_ sql: String, booleansAsIntegers: Bool = false) throws(StoreError) -> [[String?]] {
        let result = try executeReturning(sql)
        let booleans = (0..<result.columnCount).map { booleansAsIntegers && PQftype(result.handle, Int32($0)) == PostgresType.bool }
        return (0..<result.rowCount).map { row in
            (0..<result.columnCount).map { column in
                guard !result.isNull(row, column) else { return nil }
                let text = result.string(row, column)
                return booleans[column] ? (text == "t" ? "1" : "0") : text
            }
        }
    }
}
