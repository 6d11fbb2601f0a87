import Trellis

/// Raw SQL for tests, benchmarks and tools inside this package (not public API).
extension SQLiteStore {
    /// Runs `sql` outside any session and returns every row, each column as text (nil for NULL).
    package func textRows(_ sql: String) throws -> [[String?]] {
        try withConnection { connection in
            let statement = try connection.makeStatement(sql)
            var rows: [[String?]] = []
            let count = statement.columnCount
            while try statement.step() {
                rows.append((0..<count).map { statement.isNull($0) ? nil : statement.string($0) })
            }
            return rows
        }
    }
}
