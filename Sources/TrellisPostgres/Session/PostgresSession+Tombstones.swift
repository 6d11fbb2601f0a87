import Foundation
import Trellis
import TrellisSQL

/// The tombstones of acknowledged deletes (``Tombstone``) in the store's schema, made with the
/// store's own tables (and added to a store made before it when the store is opened or migrated):
///
///     CREATE TABLE "trellis_tombstones" ("server_identity" text NOT NULL, "entity" text NOT NULL,
///       "stamp" text NOT NULL, "acknowledged_at" bigint NOT NULL, PRIMARY KEY ("server_identity", "entity"))
///
/// Written and read by the session's own transaction, set-based (`INSERT … SELECT FROM unnest(…)
/// ON CONFLICT DO UPDATE`, `DELETE … FROM unnest(…)`). A pull reads the tombstones after its
/// outbox rows (`SELECT … FOR UPDATE`, which waits for a push recording the same object's
/// acknowledgement), so under READ COMMITTED it sees the tombstone that recording wrote.
extension PostgresSession {
    /// `CREATE TABLE` of the tombstones in `schema`.
    static func tombstonesTable(schema: String) -> [String] {
        [
            "CREATE TABLE \(SQLText.qualified(schema, SchemaDescription.tombstonesTable)) (\"server_identity\" text NOT NULL, "
                + "\"entity\" text NOT NULL, \"stamp\" text NOT NULL, \"acknowledged_at\" bigint NOT NULL, "
                + "PRIMARY KEY (\"server_identity\", \"entity\"))"
        ]
    }

    private static let tombstoneColumns = "\"entity\", \"server_identity\", \"stamp\", \"acknowledged_at\""
    private var tombstonesTable: String { layout.qualified(SchemaDescription.tombstonesTable) }

    func tombstoneEntries() throws -> [Tombstone] {
        try checkValid()
        return try readTombstones(
            "SELECT \(PostgresSession.tombstoneColumns) FROM \(tombstonesTable) ORDER BY \"entity\", \"server_identity\"", PostgresParameters())
    }

    func tombstoneRows(serverIdentities: [String]?) throws -> [Tombstone] {
        guard let serverIdentities else { return try tombstoneEntries() }
        try checkValid()
        guard !serverIdentities.isEmpty else { return [] }
        var parameters = PostgresParameters()
        parameters.append(PostgresSession.textArray(Array(Set(serverIdentities))))
        return try readTombstones(
            "SELECT \(PostgresSession.tombstoneColumns) FROM \(tombstonesTable) WHERE \"server_identity\" = ANY($1::text[])", parameters)
    }

    func writeTombstones(_ rows: [Tombstone]) throws {
        try checkTombstonesWritable()
        guard !rows.isEmpty else { return }
        // One row per key (the last wins), as ON CONFLICT cannot touch a row twice in one statement.
        var unique: [String: Tombstone] = [:]
        for row in rows { unique["\(row.entityName)\u{0}\(row.serverIdentityText)"] = row }
        var entity = PostgresArray(of: PostgresType.text)
        var identity = PostgresArray(of: PostgresType.text)
        var stamp = PostgresArray(of: PostgresType.text)
        var acknowledged = PostgresArray(of: PostgresType.int8)
        for row in unique.values {
            entity.append(bytes: row.entityName.utf8)
            identity.append(bytes: row.serverIdentityText.utf8)
            stamp.append(bytes: row.stamp.utf8)
            acknowledged.append(row.acknowledgedAtMilliseconds)
        }
        var parameters = PostgresParameters()
        for array in [entity, identity, stamp, acknowledged] { parameters.append(array) }
        try connection.run(
            "INSERT INTO \(tombstonesTable) (\(PostgresSession.tombstoneColumns)) "
                + "SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) "
                + "ON CONFLICT (\"server_identity\", \"entity\") DO UPDATE SET \"stamp\" = EXCLUDED.\"stamp\", "
                + "\"acknowledged_at\" = EXCLUDED.\"acknowledged_at\"", parameters)
    }

    func deleteTombstones(_ rows: [Tombstone]) throws {
        try checkTombstonesWritable()
        guard !rows.isEmpty else { return }
        var entity = PostgresArray(of: PostgresType.text)
        var identity = PostgresArray(of: PostgresType.text)
        for row in rows {
            entity.append(bytes: row.entityName.utf8)
            identity.append(bytes: row.serverIdentityText.utf8)
        }
        var parameters = PostgresParameters()
        parameters.append(entity)
        parameters.append(identity)
        try connection.run(
            "DELETE FROM \(tombstonesTable) AS t USING unnest($1::text[], $2::text[]) AS v(e, i) "
                + "WHERE t.\"entity\" = v.e AND t.\"server_identity\" = v.i", parameters)
    }

    // MARK: - Internals

    private func checkTombstonesWritable() throws(StoreError) {
        try checkValid()
        guard isWritable else { throw StoreError(.readOnly, message: "cannot change the tombstones in a read session") }
    }

    private func readTombstones(_ sql: String, _ parameters: PostgresParameters) throws -> [Tombstone] {
        let result = try connection.run(sql, parameters)
        var rows: [Tombstone] = []
        rows.reserveCapacity(result.rowCount)
        for r in 0..<result.rowCount {
            let text = result.string(r, 1)
            guard let identity = try OutboxEntry.serverIdentity(fromText: text) else {
                throw StoreError(.engine, message: "a tombstone has an unreadable server identity: \(text.prefix(80))")
            }
            rows.append(
                Tombstone(
                    entityName: result.string(r, 0), serverIdentity: identity, stamp: result.string(r, 2),
                    acknowledgedAt: OutboxEntry.date(milliseconds: result.int64(r, 3))))
        }
        return rows
    }
}
