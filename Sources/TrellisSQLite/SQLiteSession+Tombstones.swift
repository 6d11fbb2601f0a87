import Foundation
import Trellis
import TrellisSQL

/// The tombstones of acknowledged deletes (``Tombstone``) as one table, made by the first write
/// session that writes one, in that session's transaction (the pusher's recording of the
/// acknowledgement):
///
///     CREATE TABLE "trellis_tombstones" ("server_identity" TEXT NOT NULL, "entity" TEXT NOT NULL,
///       "stamp" TEXT NOT NULL, "acknowledged_at" INTEGER NOT NULL, PRIMARY KEY ("server_identity", "entity"))
///
/// `server_identity` is JSON text (``Tombstone/serverIdentityText``), `stamp` RFC 3339 text,
/// `acknowledged_at` milliseconds since 1970. The key leads with the identity: a pull looks
/// tombstones up by the identities of its page's objects.
extension SQLiteSession {
    static let tombstonesTableSQL = """
        CREATE TABLE IF NOT EXISTS "trellis_tombstones" ("server_identity" TEXT NOT NULL, "entity" TEXT NOT NULL, \
        "stamp" TEXT NOT NULL, "acknowledged_at" INTEGER NOT NULL, PRIMARY KEY ("server_identity", "entity"))
        """
    private static let tombstoneColumns = "\"entity\", \"server_identity\", \"stamp\", \"acknowledged_at\""

    func tombstoneEntries() throws -> [Tombstone] {
        try checkValid()
        guard try hasTombstonesTable() else { return [] }
        return try readTombstones(
            "SELECT \(SQLiteSession.tombstoneColumns) FROM \"trellis_tombstones\" ORDER BY \"entity\", \"server_identity\"", bind: { _ in })
    }

    func tombstoneRows(serverIdentities: [String]?) throws -> [Tombstone] {
        guard let serverIdentities else { return try tombstoneEntries() }
        try checkValid()
        guard !serverIdentities.isEmpty, try hasTombstonesTable() else { return [] }
        var rows: [Tombstone] = []
        let identities = Array(Set(serverIdentities))
        var start = 0
        while start < identities.count {
            let chunk = identities[start..<min(start + chunkSize, identities.count)]
            let sql =
                "SELECT \(SQLiteSession.tombstoneColumns) FROM \"trellis_tombstones\" WHERE \"server_identity\" IN (\(SQL.placeholders(chunk.count)))"
            rows += try readTombstones(sql, bind: { s in for (i, k) in chunk.enumerated() { try s.bind(k, at: Int32(i + 1)) } })
            start += chunk.count
        }
        return rows
    }

    func writeTombstones(_ rows: [Tombstone]) throws {
        try checkTombstonesWritable()
        guard !rows.isEmpty else { return }
        if try !hasTombstonesTable() {
            try connection.execute(SQLiteSession.tombstonesTableSQL)
            tombstonesTableExists = true
        }
        let insert = try connection.cachedStatement(
            "INSERT OR REPLACE INTO \"trellis_tombstones\"(\(SQLiteSession.tombstoneColumns)) VALUES (?1, ?2, ?3, ?4)")
        for row in rows {
            insert.reset()
            try insert.bind(row.entityName, at: 1)
            try insert.bind(row.serverIdentityText, at: 2)
            try insert.bind(row.stamp, at: 3)
            insert.bind(row.acknowledgedAtMilliseconds, at: 4)
            try insert.run()
        }
        insert.reset()
    }

    func deleteTombstones(_ rows: [Tombstone]) throws {
        try checkTombstonesWritable()
        guard !rows.isEmpty, try hasTombstonesTable() else { return }
        let delete = try connection.cachedStatement("DELETE FROM \"trellis_tombstones\" WHERE \"server_identity\" = ?1 AND \"entity\" = ?2")
        for row in rows {
            delete.reset()
            try delete.bind(row.serverIdentityText, at: 1)
            try delete.bind(row.entityName, at: 2)
            try delete.run()
        }
        delete.reset()
    }

    // MARK: - Internals

    private func checkTombstonesWritable() throws(StoreError) {
        try checkValid()
        guard isWritable else { throw StoreError(.readOnly, message: "cannot change the tombstones in a read session") }
    }

    private func hasTombstonesTable() throws(StoreError) -> Bool {
        if tombstonesTableExists { return true }
        tombstonesTableExists = try SQLiteStore.tableExists(SchemaDescription.tombstonesTable, connection: connection)
        return tombstonesTableExists
    }

    private func readTombstones(_ sql: String, bind: (Statement) throws -> Void) throws -> [Tombstone] {
        let statement = try connection.cachedStatement(sql)
        statement.reset()
        defer { statement.reset() }
        try bind(statement)
        var rows: [Tombstone] = []
        while try statement.step() {
            let text = statement.string(1)
            guard let identity = try OutboxEntry.serverIdentity(fromText: text) else {
                throw StoreError(.engine, message: "a tombstone has an unreadable server identity: \(text.prefix(80))")
            }
            rows.append(
                Tombstone(
                    entityName: statement.string(0), serverIdentity: identity, stamp: statement.string(2),
                    acknowledgedAt: OutboxEntry.date(milliseconds: statement.int64(3))))
        }
        return rows
    }
}
