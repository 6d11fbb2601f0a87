import Foundation
import Trellis
import TrellisSQL

/// Sync workers' leases (``LeasingStore``) in the table `trellis_sync_leases`:
///
///     "resource" text PRIMARY KEY, "holder" text, "expires_at" timestamptz,
///     "claimed_at" timestamptz, "finished_at" timestamptz, "finished_by" text
///
/// created on first use, with the schema when missing (under the schema lock,
/// ``lockSchemaCreation(connection:schema:)``); a schema holding only this table is still an
/// empty schema to the store (the workers' first claims come before the first page creates
/// the store's tables).
/// A claim is one `READ COMMITTED` transaction: the names' rows are inserted if missing,
/// then the first free one is locked with `FOR UPDATE SKIP LOCKED` (so concurrent claimers
/// never wait on each other and never take the same row) and given to the holder until
/// `now() + seconds`. Every time is the server's `now()`.
extension PostgresStore: LeasingStore {
    static let leasesTable = "trellis_sync_leases"

    public func leaseClock() throws -> Date {
        try withLeaseTransaction { connection in
            let result = try connection.run("SELECT (extract(epoch FROM now()) * 1000000)::int8")
            return Self.date(micros: result.int64(0, 0))
        }
    }

    public func claimLease(among names: [String], holder: String, seconds: Double, notFinishedSince: Date) throws -> LeaseClaim {
        guard !isReadOnly else { throw StoreError(.readOnly, message: "the store \(storeDescription) is read-only") }
        return try withLeaseTransaction { connection in
            let table = SQLText.qualified(schema, Self.leasesTable)
            var list = PostgresArray(of: PostgresType.text)
            for name in names { list.append(bytes: name.utf8) }
            var insert = PostgresParameters()
            insert.append(list)
            try connection.run("INSERT INTO \(table) (\"resource\") SELECT unnest($1::text[]) ON CONFLICT DO NOTHING", insert)

            // Holders of this machine whose process is gone free their leases at once.
            var held = PostgresParameters()
            held.append(list)
            let holders = try connection.run(
                "SELECT DISTINCT \"holder\" FROM \(table) WHERE \"resource\" = ANY($1::text[]) "
                    + "AND \"holder\" IS NOT NULL AND \"expires_at\" >= now()", held)
            for row in 0..<holders.rowCount where Lease.isDeadLocalHolder(holders.string(row, 0)) {
                var dead = PostgresParameters()
                dead.append(text: holders.string(row, 0))
                try connection.run("UPDATE \(table) SET \"expires_at\" = now() - interval '1 microsecond' WHERE \"holder\" = $1", dead)
            }

            var claim = PostgresParameters()
            claim.append(list)
            claim.append(text: holder)
            claim.append(Self.micros(notFinishedSince))
            let free = try connection.run(
                "SELECT \"resource\", \"holder\" FROM \(table) WHERE \"resource\" = ANY($1::text[]) "
                    + "AND (\"holder\" IS NULL OR \"holder\" = $2 OR \"expires_at\" < now()) "
                    + "AND (\"finished_at\" IS NULL OR \"finished_at\" < to_timestamp($3::int8 / 1000000.0)) "
                    + "ORDER BY array_position($1::text[], \"resource\") LIMIT 1 FOR UPDATE SKIP LOCKED", claim)
            if free.rowCount == 1 {
                let name = free.string(0, 0)
                let previous = free.isNull(0, 1) ? nil : free.string(0, 1)
                var take = PostgresParameters()
                take.append(text: name)
                take.append(text: holder)
                take.append(Self.milliseconds(seconds))
                try connection.run(
                    "UPDATE \(table) SET \"holder\" = $2, \"claimed_at\" = now(), "
                        + "\"expires_at\" = now() + $3::int8 * interval '1 millisecond' WHERE \"resource\" = $1", take)
                return .claimed(name, previousHolder: previous == holder ? nil : previous)
            }
            var left = PostgresParameters()
            left.append(list)
            left.append(Self.micros(notFinishedSince))
            let remaining = try connection.run(
                "SELECT count(*) FROM \(table) WHERE \"resource\" = ANY($1::text[]) "
                    + "AND (\"finished_at\" IS NULL OR \"finished_at\" < to_timestamp($2::int8 / 1000000.0))", left)
            return remaining.int64(0, 0) > 0 ? .waiting : .done
        }
    }

    public func endLease(_ name: String, holder: String, finished: Bool) throws {
        guard !isReadOnly else { throw StoreError(.readOnly, message: "the store \(storeDescription) is read-only") }
        try withLeaseTransaction { connection in
            var parameters = PostgresParameters()
            parameters.append(text: name)
            parameters.append(text: holder)
            let table = SQLText.qualified(schema, Self.leasesTable)
            try connection.run(
                "UPDATE \(table) SET \"holder\" = NULL, \"expires_at\" = NULL"
                    + (finished ? ", \"finished_at\" = now(), \"finished_by\" = $2" : "")
                    + " WHERE \"resource\" = $1 AND \"holder\" = $2", parameters)
        }
    }

    public func leases() throws -> [Lease] {
        try withLeaseTransaction { connection in try Self.readLeases(connection, schema: schema) }
    }

    /// The lease rows of the store in the schema `connection` names, read in one read-only
    /// transaction without opening the store for a model (for `trellis sync --status`);
    /// empty when the store has no lease table yet.
    /// - Throws: `StoreError` `.unavailable` (cannot connect; the message names the server
    ///   without its password).
    public static func leases(connection: String) throws -> [Lease] {
        let parsed = try ConnectionString(connection)
        let schema = parsed.schema ?? "public"
        let opened = try PostgresConnection(parsed)
        try opened.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        defer { if opened.isConnected { try? opened.execute("ROLLBACK") } }
        var names = PostgresParameters()
        names.append(text: schema)
        names.append(text: leasesTable)
        let exists = try opened.run(
            "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE n.nspname = $1 AND c.relname = $2", names)
        guard exists.rowCount > 0 else { return [] }
        return try readLeases(opened, schema: schema)
    }

    /// Every lease row of `schema`, by name.
    static func readLeases(_ connection: PostgresConnection, schema: String) throws -> [Lease] {
        let result = try connection.run(
            "SELECT \"resource\", \"holder\", (extract(epoch FROM \"expires_at\") * 1000000)::int8, "
                + "(extract(epoch FROM \"finished_at\") * 1000000)::int8, \"finished_by\" "
                + "FROM \(SQLText.qualified(schema, leasesTable)) ORDER BY \"resource\" COLLATE \"C\"")
        return (0..<result.rowCount).map { row in
            Lease(
                name: result.string(row, 0), holder: result.isNull(row, 1) ? nil : result.string(row, 1),
                expiresAt: result.isNull(row, 2) ? nil : date(micros: result.int64(row, 2)),
                finishedAt: result.isNull(row, 3) ? nil : date(micros: result.int64(row, 3)),
                finishedBy: result.isNull(row, 4) ? nil : result.string(row, 4))
        }
    }

    /// Runs `body` in one `READ COMMITTED` transaction of the store's connection, the lease
    /// table created first when missing; committed when it returns, rolled back when it throws.
    private func withLeaseTransaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { connection in
            if connection.isConnected, connection.isInTransaction {
                throw StoreError(.engine, message: "a session of this store is already open on this thread; leases are taken outside sessions")
            }
            try connection.reconnectIfNeeded()
            try ensureLeaseTable(connection)
            try connection.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
            do {
                let value = try body(connection)
                try connection.commit()
                return value
            } catch {
                if connection.isConnected, connection.isInTransaction { try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// Creates `trellis_sync_leases` when the schema lacks it (once per process and schema),
    /// serialized with the store's other schema work.
    private func ensureLeaseTable(_ connection: PostgresConnection) throws {
        let key = connection.display + "/" + schema
        if Self.leaseTables.contains(key) { return }
        try PostgresStore.lockSchemaCreation(connection: connection, schema: schema)
        defer { PostgresStore.unlockSchemaCreation(connection: connection, schema: schema) }
        try connection.execute("CREATE SCHEMA IF NOT EXISTS \(SQLText.identifier(schema))")
        try connection.execute(
            "CREATE TABLE IF NOT EXISTS \(SQLText.qualified(schema, Self.leasesTable)) ("
                + "\"resource\" text PRIMARY KEY, \"holder\" text, \"expires_at\" timestamptz, "
                + "\"claimed_at\" timestamptz, \"finished_at\" timestamptz, \"finished_by\" text)")
        Self.leaseTables.insert(key)
    }

    /// The schemas whose lease table this process made sure of.
    private static let leaseTables = KnownNames()

    /// A set of names shared by threads.
    // SAFETY: `names` is only touched while `lock` is held.
    private final class KnownNames: @unchecked Sendable {
        private let lock = NSLock()
        private var names: Set<String> = []
        func contains(_ name: String) -> Bool { lock.withLock { names.contains(name) } }
        func insert(_ name: String) { _ = lock.withLock { names.insert(name) } }
    }

    /// A lease duration in whole milliseconds (at least 1, at most a year).
    static func milliseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return 1 }
        return Int64(max(1, min(seconds * 1000, 365 * 86_400_000)).rounded())
    }

    static func micros(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }
    static func date(micros: Int64) -> Date { Date(timeIntervalSince1970: Double(micros) / 1_000_000) }
}

extension PostgresSession: LeasingSession {
    func renewLease(_ name: String, holder: String, seconds: Double) throws -> Bool {
        guard isWritable else { throw StoreError(.readOnly, message: "cannot renew a lease in a read session") }
        var parameters = PostgresParameters()
        parameters.append(text: name)
        parameters.append(text: holder)
        parameters.append(PostgresStore.milliseconds(seconds))
        let result = try connection.run(
            "UPDATE \(layout.qualified(PostgresStore.leasesTable)) SET "
                + "\"expires_at\" = now() + $3::int8 * interval '1 millisecond' "
                + "WHERE \"resource\" = $1 AND \"holder\" = $2", parameters)
        return result.changedRows == 1
    }
}
