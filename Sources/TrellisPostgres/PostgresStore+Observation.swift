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
/// Other processes' commits are found by polling `max("seq")` on a connection of the
/// poller's own every ``pollInterval`` while listeners are registered (LISTEN/NOTIFY is not
/// relied on: CockroachDB and YugabyteDB do not deliver it alike); this store's own commits
/// wake listeners at once.
extension PostgresStore: ObservableStore {
    /// How many commits the change log keeps.
    static let logCapacity: Int64 = 1000
    /// How often the poller looks for other connections' commits: 50 ms.
    static let pollInterval = 50

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
        let result = try connection.run("INSERT INTO \(table) (\"seq\", \"changes\") VALUES (nextval("
                                        + SQLText.literal(layout.qualified(PostgresSchema.commitSequence)) + "), $1) RETURNING \"seq\"",
                                        parameters)
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
            let result = try connection.run("SELECT \"seq\", \"changes\" FROM \(layout.qualified(SchemaDescription.commitsTable)) "
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

/// A store's commit listeners and the poller that runs while there are any.
final class PostgresObservers: @unchecked Sendable {
    // SAFETY: `poller` is read and written only while `lock` is held; the rest is immutable
    // and Sendable.
    let listeners = CommitListeners()
    private let connection: String
    private let table: String
    private let lock = NSLock()
    private var poller: SequencePoller?

    init(connection: String, table: String) {
        self.connection = connection
        self.table = table
    }

    func add(_ listener: @escaping @Sendable () -> Void) -> CommitListenerToken {
        let token = listeners.add(listener)
        update()
        return CommitListenerToken { [weak self] in
            token.cancel()
            self?.update()
        }
    }

    private func update() {
        lock.withLock {
            let wanted = listeners.count > 0
            if wanted, poller == nil {
                poller = SequencePoller(connection: connection, table: table, listeners: listeners)
            } else if !wanted, let running = poller {
                running.stop()
                poller = nil
            }
        }
    }

    deinit { poller?.stop() }
}

/// Reads the change log's last sequence on a connection of its own at an interval and wakes
/// the listeners when it moves (another connection committed).
final class SequencePoller: @unchecked Sendable {
    // SAFETY: `connection` and `last` are used only on `queue` (the timer's handler and
    // `stop`'s clean-up both run there); the other properties are immutable and Sendable.
    private let queue = DispatchQueue(label: "trellis.postgres.commit-poller")
    private let timer: DispatchSourceTimer
    private var connection: PostgresConnection?
    private var last: Int64 = -1

    init(connection text: String, table: String, listeners: CommitListeners) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        connection = (try? ConnectionString(text)).flatMap { try? PostgresConnection($0) }
        timer.schedule(deadline: .now(), repeating: .milliseconds(PostgresStore.pollInterval), leeway: .milliseconds(1))
        timer.setEventHandler { [weak self, weak listeners] in
            guard let self, let connection = self.connection else { return }
            try? connection.reconnectIfNeeded()
            guard let now = try? connection.run("SELECT coalesce(max(\"seq\"), 0) FROM \(table)").int64(0, 0) else { return }
            if self.last >= 0, now != self.last { listeners?.notify() }
            self.last = now
        }
        timer.resume()
    }

    func stop() {
        timer.cancel()
        queue.async { self.connection = nil }
    }
}
