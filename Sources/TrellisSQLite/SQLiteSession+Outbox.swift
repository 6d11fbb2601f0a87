import Foundation
import Trellis
import TrellisSQL

/// The outbox (``OutboxEntry``) as one table, made by the first write session that records a
/// local change, in that session's transaction (so a rolled-back first save leaves no table):
///
///     CREATE TABLE "trellis_outbox" ("seq" INTEGER PRIMARY KEY AUTOINCREMENT, "entity" TEXT NOT NULL,
///       "object" INTEGER NOT NULL, "server_identity" TEXT, "operation" TEXT NOT NULL, "fields" TEXT NOT NULL,
///       "base" TEXT, "key" TEXT NOT NULL UNIQUE, "state" TEXT NOT NULL, "attempts" INTEGER NOT NULL,
///       "last_error" TEXT, "enqueued_at" INTEGER NOT NULL, "base_values" TEXT)
///
/// `AUTOINCREMENT` (https://sqlite.org/autoinc.html): a sequence is never reused, even after
/// the row with the largest one is removed. `fields` and `server_identity` are JSON text,
/// `enqueued_at` milliseconds since 1970, `base_values` a JSON object (``OutboxEntry/baseValuesText``).
/// A table made before `base_values` gets the column (`ALTER TABLE … ADD COLUMN`) from the first
/// write session that touches the outbox; until then its rows read with no base values.
extension SQLiteSession: OutboxStorage {
    static let outboxTableSQL = [
        """
        CREATE TABLE IF NOT EXISTS "trellis_outbox" ("seq" INTEGER PRIMARY KEY AUTOINCREMENT, "entity" TEXT NOT NULL, \
        "object" INTEGER NOT NULL, "server_identity" TEXT, "operation" TEXT NOT NULL, "fields" TEXT NOT NULL, "base" TEXT, \
        "key" TEXT NOT NULL UNIQUE, "state" TEXT NOT NULL, "attempts" INTEGER NOT NULL, "last_error" TEXT, \
        "enqueued_at" INTEGER NOT NULL, "base_values" TEXT)
        """,
        "CREATE INDEX IF NOT EXISTS \"trellis_outbox object\" ON \"trellis_outbox\"(\"object\")",
        "CREATE INDEX IF NOT EXISTS \"trellis_outbox server_identity\" ON \"trellis_outbox\"(\"server_identity\")",
    ]
    private static let columnList =
        "\"seq\", \"entity\", \"object\", \"server_identity\", \"operation\", \"fields\", \"base\", "
        + "\"key\", \"state\", \"attempts\", \"last_error\", \"enqueued_at\", "
    /// The columns read, in ``readRows(_:bind:)``'s order (`NULL` for a missing `base_values`).
    private var columns: String { SQLiteSession.columnList + (outboxHasBaseValues ? "\"base_values\"" : "NULL") }

    func outboxEntries() throws -> [OutboxEntry] {
        try checkValid()
        guard try hasOutboxTable() else { return [] }
        return try readRows("SELECT \(columns) FROM \"trellis_outbox\" ORDER BY \"seq\"", bind: { _ in })
    }

    func outboxRows(objectKeys: [Int64], serverIdentities: [String]) throws -> [OutboxEntry] {
        try checkValid()
        guard try hasOutboxTable() else { return [] }
        var rows: [Int64: OutboxEntry] = [:]
        var start = 0
        let keys = Array(Set(objectKeys))
        while start < keys.count {
            let chunk = keys[start..<min(start + chunkSize, keys.count)]
            let sql = "SELECT \(columns) FROM \"trellis_outbox\" WHERE \"object\" IN (\(SQL.placeholders(chunk.count)))"
            for row in try readRows(sql, bind: { s in for (i, k) in chunk.enumerated() { s.bind(k, at: Int32(i + 1)) } }) {
                rows[row.sequence] = row
            }
            start += chunk.count
        }
        let identities = Array(Set(serverIdentities))
        start = 0
        while start < identities.count {
            let chunk = identities[start..<min(start + chunkSize, identities.count)]
            let sql = "SELECT \(columns) FROM \"trellis_outbox\" WHERE \"server_identity\" IN (\(SQL.placeholders(chunk.count)))"
            for row in try readRows(sql, bind: { s in for (i, k) in chunk.enumerated() { try s.bind(k, at: Int32(i + 1)) } }) {
                rows[row.sequence] = row
            }
            start += chunk.count
        }
        return rows.values.sorted { $0.sequence < $1.sequence }
    }

    func insertOutboxRows(_ rows: [OutboxEntry]) throws {
        try checkOutboxWritable()
        if try !hasOutboxTable() {
            for sql in SQLiteSession.outboxTableSQL { try connection.execute(sql) }
            outboxTableExists = true
            outboxHasBaseValues = true
        }
        let insert = try connection.cachedStatement(
            "INSERT INTO \"trellis_outbox\"(\"entity\", \"object\", \"server_identity\", \"operation\", \"fields\", \"base\", \"key\", "
                + "\"state\", \"attempts\", \"last_error\", \"enqueued_at\", \"base_values\") "
                + "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)")
        for row in rows {
            insert.reset()
            try bindFields(row, to: insert, from: 1)
            try insert.run()
        }
        insert.reset()
    }

    func updateOutboxRows(_ rows: [OutboxEntry]) throws {
        try checkOutboxWritable()
        guard try hasOutboxTable() else { return }
        let update = try connection.cachedStatement(
            "UPDATE \"trellis_outbox\" SET \"entity\" = ?1, \"object\" = ?2, \"server_identity\" = ?3, \"operation\" = ?4, "
                + "\"fields\" = ?5, \"base\" = ?6, \"key\" = ?7, \"state\" = ?8, \"attempts\" = ?9, \"last_error\" = ?10, "
                + "\"enqueued_at\" = ?11, \"base_values\" = ?12 WHERE \"seq\" = ?13")
        for row in rows {
            update.reset()
            try bindFields(row, to: update, from: 1)
            update.bind(row.sequence, at: 13)
            try update.run()
        }
        update.reset()
    }

    func deleteOutboxRows(sequences: [Int64]) throws {
        try checkOutboxWritable()
        guard try hasOutboxTable() else { return }
        let delete = try connection.cachedStatement("DELETE FROM \"trellis_outbox\" WHERE \"seq\" = ?1")
        for sequence in sequences {
            delete.reset()
            delete.bind(sequence, at: 1)
            try delete.run()
        }
        delete.reset()
    }

    // MARK: - Internals

    private func checkOutboxWritable() throws(StoreError) {
        try checkValid()
        guard isWritable else { throw StoreError(.readOnly, message: "cannot change the outbox in a read session") }
    }

    /// Whether the outbox table exists; for a write session, also adds `base_values` to a table
    /// made before it.
    private func hasOutboxTable() throws(StoreError) -> Bool {
        if outboxTableExists { return true }
        outboxTableExists = try SQLiteStore.tableExists(SchemaDescription.outboxTable, connection: connection)
        guard outboxTableExists else { return false }
        let column = try connection.cachedStatement("SELECT count(*) FROM pragma_table_info('trellis_outbox') WHERE name = 'base_values'")
        outboxHasBaseValues = (try column.runReturningInt64() ?? 0) > 0
        if !outboxHasBaseValues, isWritable {
            try connection.execute("ALTER TABLE \"trellis_outbox\" ADD COLUMN \"base_values\" TEXT")
            outboxHasBaseValues = true
        }
        return true
    }

    /// Binds every field but the sequence, at `first`…`first + 11`.
    private func bindFields(_ row: OutboxEntry, to statement: Statement, from first: Int32) throws(StoreError) {
        try statement.bind(row.object.entityName, at: first)
        statement.bind(row.object.primaryKey, at: first + 1)
        if let identity = row.serverIdentityText { try statement.bind(identity, at: first + 2) } else { statement.bindNull(first + 2) }
        try statement.bind(row.operation.rawValue, at: first + 3)
        try statement.bind(row.fieldsText, at: first + 4)
        if let base = row.base { try statement.bind(base, at: first + 5) } else { statement.bindNull(first + 5) }
        try statement.bind(row.key.uuidString.lowercased(), at: first + 6)
        try statement.bind(row.state.rawValue, at: first + 7)
        statement.bind(Int64(row.attempts), at: first + 8)
        if let error = row.lastError { try statement.bind(error, at: first + 9) } else { statement.bindNull(first + 9) }
        statement.bind(row.enqueuedAtMilliseconds, at: first + 10)
        if let values = row.baseValuesText { try statement.bind(values, at: first + 11) } else { statement.bindNull(first + 11) }
    }

    private func readRows(_ sql: String, bind: (Statement) throws -> Void) throws -> [OutboxEntry] {
        let statement = try connection.cachedStatement(sql)
        statement.reset()
        defer { statement.reset() }
        try bind(statement)
        var rows: [OutboxEntry] = []
        while try statement.step() {
            let sequence = statement.int64(0)
            func bad(_ what: String) -> StoreError {
                StoreError(.engine, message: "outbox row \(sequence) has an unreadable \(what)")
            }
            guard let operation = OutboxEntry.Operation(rawValue: statement.string(4)) else { throw bad("operation") }
            guard let key = UUID(uuidString: statement.string(7)) else { throw bad("key") }
            guard let state = OutboxEntry.State(rawValue: statement.string(8)) else { throw bad("state") }
            rows.append(
                OutboxEntry(
                    sequence: sequence, object: ObjectID(entityName: statement.string(1), primaryKey: statement.int64(2)),
                    serverIdentity: try OutboxEntry.serverIdentity(fromText: statement.isNull(3) ? nil : statement.string(3)),
                    operation: operation, fields: try OutboxEntry.fields(fromText: statement.string(5)),
                    base: statement.isNull(6) ? nil : statement.string(6),
                    baseValues: try OutboxEntry.baseValues(fromText: statement.isNull(12) ? nil : statement.string(12)), key: key, state: state,
                    attempts: Int(statement.int64(9)), lastError: statement.isNull(10) ? nil : statement.string(10),
                    enqueuedAt: OutboxEntry.date(milliseconds: statement.int64(11))))
        }
        return rows
    }
}
