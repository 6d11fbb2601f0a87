import Foundation
import Trellis
import TrellisSQL

/// Observation (``ObservableStore``): every write session that changed something logs its
/// ``StoreCommit`` as one row of `trellis_commits("seq" bigint PRIMARY KEY, "changes" text)`
/// in the same transaction, so a rolled-back write logs nothing and other processes read
/// exactly what committed; the newest ``logCapacity`` rows are kept.
///
/// Sequence numbers follow commit order although many processes write at once: just before
/// COMMIT a writer locks the `commit log` row of `trellis_locks` (`FOR UPDATE`, held until
/// it commits) and only then draws its number (`nextval` of `"trellis_commits seq"`), so
/// the writer that commits first has the smaller number and an observer that has read
/// commit N never meets N − 1 later. A writer that fails after drawing leaves a gap; an
/// observer that finds one runs its request again (``commits(after:)`` returns nil).
///
/// Other connections' and processes' commits: the committing transaction also sends
/// `NOTIFY` on the store's channel (``notificationChannel(schema:)``, payload the sequence
/// number), delivered by the server only if it commits. While listeners are registered, a
/// ``CommitWatcher`` thread `LISTEN`s on a connection of its own and reads `max("seq")`
/// whenever a notification wakes it **and** every ``Configuration/observationPollInterval``
/// seconds without one, waking the listeners when it moved. The notification is a wake-up
/// only: what is delivered comes from the change log, and the poll finds every commit whose
/// notification was lost (a watcher reconnecting, a server that does not deliver NOTIFY
/// alike, as CockroachDB and YugabyteDB do not; `LISTEN` refused: polled every 0.05 s).
/// This store's own commits wake its listeners at once.
extension PostgresStore: ObservableStore {
    /// How many commits the change log keeps.
    static let logCapacity: Int64 = 1000
    /// The poll interval when the server refuses `LISTEN`, in seconds.
    static let pollIntervalWithoutListen = 0.05

    /// The `NOTIFY` channel of the store in `schema`: `trellis commits <schema>` (shortened
    /// with a hash past 63 bytes, as relation names are), one per store in a database.
    static func notificationChannel(schema: String) -> String {
        PostgresSchema.relationName("trellis commits " + schema)
    }

    /// Whether the server runs `pg_notify` (one empty notification on `channel`, outside any
    /// transaction; watchers that wake for it find no new commit). A server without it
    /// (CockroachDB has no LISTEN/NOTIFY) must not see it inside the commit, which it would fail.
    static func takesNotifications(_ connection: PostgresConnection, channel: String) -> Bool {
        var parameters = PostgresParameters()
        parameters.append(text: channel)
        return (try? connection.run("SELECT pg_notify($1, '')", parameters)) != nil
    }

    /// Logs `commit` inside the open write transaction (after taking the commit-log lock);
    /// nil when it is empty.
    func logCommit(_ commit: StoreCommit, on connection: PostgresConnection) throws(StoreError) -> StoreCommit? {
        guard !commit.isEmpty else { return nil }
        var scope = PostgresParameters()
        scope.append(text: "commit log")
        try connection.run("SELECT 1 FROM \(layout.qualified(PostgresSchema.locksTable)) WHERE \"scope\" = $1 FOR UPDATE", scope)
        var parameters = PostgresParameters()
        parameters.append(text: commit.logText)
        let table = layout.qualified(SchemaDescription.commitsTable)
        let insert =
            "INSERT INTO \(table) (\"seq\", \"changes\") VALUES (nextval("
            + SQLText.literal(layout.qualified(PostgresSchema.commitSequence)) + "), $1) RETURNING \"seq\""
        let result: PostgresResult
        if notifiesCommits {
            // The notification leaves with the COMMIT (and never without it).
            parameters.append(text: PostgresStore.notificationChannel(schema: schema))
            result = try connection.run(
                "WITH c AS (\(insert)) SELECT c.\"seq\" FROM c, "
                    + "LATERAL (SELECT pg_notify($2, c.\"seq\"::text)) AS n", parameters)
        } else {
            result = try connection.run(insert, parameters)
        }
        var logged = commit
        logged.sequence = result.int64(0, 0)
        if logged.sequence > PostgresStore.logCapacity, logged.sequence % 64 == 0 {
            var prune = PostgresParameters()
            prune.append(logged.sequence - PostgresStore.logCapacity)
            try connection.run("DELETE FROM \(table) WHERE \"seq\" <= $1", prune)
        }
        return logged
    }

    public func readObserving<T>(_ body: (any StoreSession) throws -> T) throws -> (sequence: Int64, value: T) {
        try read { session in
            let connection = (session as! PostgresSession).connection
            let result = try connection.run("SELECT coalesce(max(\"seq\"), 0) FROM \(layout.qualified(SchemaDescription.commitsTable))")
            return (result.int64(0, 0), try body(session))
        }
    }

    public func commits(after sequence: Int64) throws -> [StoreCommit]? {
        try read { session -> [StoreCommit]? in
            let connection = (session as! PostgresSession).connection
            var parameters = PostgresParameters()
            parameters.append(sequence)
            let result = try connection.run(
                "SELECT \"seq\", \"changes\" FROM \(layout.qualified(SchemaDescription.commitsTable)) "
                    + "WHERE \"seq\" > $1 ORDER BY \"seq\"", parameters)
            var commits: [StoreCommit] = []
            for row in 0..<result.rowCount {
                commits.append(try StoreCommit(sequence: result.int64(row, 0), logText: result.string(row, 1)))
            }
            for (i, commit) in commits.enumerated() where commit.sequence != sequence + 1 + Int64(i) { return nil }
            return commits
        }
    }

    public func addCommitListener(_ listener: @escaping @Sendable () -> Void) -> CommitListenerToken {
        observers.add(listener)
    }
}

/// A store's commit listeners and the watcher that runs while there are any.
final class PostgresObservers: @unchecked Sendable {
    // SAFETY: `watcher` is read and written only while `lock` is held; the rest is immutable
    // and Sendable.
    let listeners = CommitListeners()
    private let connection: String
    private let table: String
    private let channel: String
    private let pollInterval: Double
    private let lock = NSLock()
    private var watcher: CommitWatcher?

    init(connection: String, table: String, channel: String, pollInterval: Double) {
        self.connection = connection
        self.table = table
        self.channel = channel
        self.pollInterval = pollInterval
    }

    func add(_ listener: @escaping @Sendable () -> Void) -> CommitListenerToken {
        let token = listeners.add(listener)
        update()
        return CommitListenerToken { [weak self] in
            token.cancel()
            self?.update()
        }
    }

    /// Whether the running watcher's connection is listening for notifications (false when
    /// none runs, before its `LISTEN` succeeded, or when the server refused it). For tests.
    var isListening: Bool { lock.withLock { watcher?.isListening ?? false } }

    private func update() {
        lock.withLock {
            let wanted = listeners.count > 0
            if wanted, watcher == nil {
                watcher = CommitWatcher(
                    connection: connection, table: table, channel: channel, pollInterval: pollInterval,
                    listeners: listeners)
            } else if !wanted, let running = watcher {
                running.stop()
                watcher = nil
            }
        }
    }

    deinit { watcher?.stop() }
}
