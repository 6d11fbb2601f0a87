import CSQLite
import Foundation
import Trellis
import TrellisSQL

/// Observation (``ObservableStore``): every write session that changed something logs its
/// ``StoreCommit`` as one row of `trellis_commits("seq" INTEGER PRIMARY KEY, "changes" TEXT)`
/// in the same transaction (so a rolled-back write logs nothing, and another process reads
/// exactly what committed); the newest ``logCapacity`` rows are kept. The table is made by
/// the first write that changes something. Listeners are woken right after this store's own
/// commits, and, while any listener is registered, when `PRAGMA data_version`
/// (https://sqlite.org/pragma.html#pragma_data_version) on a connection of the poller's own
/// shows another connection's commit, checked every ``Configuration/changePollIntervalMilliseconds``.
extension SQLiteStore: ObservableStore {
    /// How many commits the change log keeps.
    static let logCapacity: Int64 = 1000

    static let commitTableSQL = """
        CREATE TABLE IF NOT EXISTS "trellis_commits" ("seq" INTEGER PRIMARY KEY, "changes" TEXT NOT NULL)
        """

    /// Logs `commit` inside the open write transaction; nil (nothing logged) when it is empty.
    func logCommit(_ commit: StoreCommit, on connection: Connection) throws(StoreError) -> StoreCommit? {
        guard !commit.isEmpty else { return nil }
        guard logsCommits else { return commit }  // sequence 0: observers run their requests again
        if !commitTableExists { try connection.execute(SQLiteStore.commitTableSQL) }
        let insert = try connection.cachedStatement("INSERT INTO \"trellis_commits\"(\"changes\") VALUES (?1)")
        try insert.bind(commit.logText, at: 1)
        try insert.run()
        var logged = commit
        logged.sequence = connection.lastInsertRowID
        if logged.sequence > SQLiteStore.logCapacity {
            let prune = try connection.cachedStatement("DELETE FROM \"trellis_commits\" WHERE \"seq\" <= ?1")
            prune.bind(logged.sequence - SQLiteStore.logCapacity, at: 1)
            try prune.run()
        }
        return logged
    }

    /// `false` for a file made before the name was reserved whose entity table is called
    /// `trellis_commits`: nothing is logged, and observers run their requests again after
    /// every commit they are woken for.
    var logsCommits: Bool {
        !layout.tables.keys.contains { $0.lowercased() == SchemaDescription.commitsTable }
    }

    public func readObserving<T>(_ body: (any StoreSession) throws -> T) throws -> (sequence: Int64, value: T) {
        guard logsCommits else { return (0, try read(body)) }
        return try read { session in
            let connection = (session as! SQLiteSession).connection
            return (try SQLiteStore.lastSequence(connection), try body(session))
        }
    }

    public func commits(after sequence: Int64) throws -> [StoreCommit]? {
        guard logsCommits else { return nil }
        // This store's own commits are all there is when no other connection committed since
        // the last of them (the connection's data_version has not moved): no read needed.
        let foreign = try withConnection { connection -> Bool in
            guard let recorded = ownCommitDataVersion else { return true }
            return try connection.cachedStatement("PRAGMA data_version").runReturningInt64() != recorded
        }
        if !foreign, let own = commitLog.commits(after: sequence) { return own }
        return try read { session -> [StoreCommit]? in
            let connection = (session as! SQLiteSession).connection
            guard try SQLiteStore.tableExists("trellis_commits", connection: connection) else { return [] }
            let statement = try connection.cachedStatement(
                "SELECT \"seq\", \"changes\" FROM \"trellis_commits\" WHERE \"seq\" > ?1 ORDER BY \"seq\"")
            statement.bind(sequence, at: 1)
            defer { statement.reset() }
            var commits: [StoreCommit] = []
            while try statement.step() {
                commits.append(try StoreCommit(sequence: statement.int64(0), logText: statement.string(1)))
            }
            if let first = commits.first, first.sequence != sequence + 1 { return nil }
            return commits
        }
    }

    public func addCommitListener(_ listener: @escaping @Sendable () -> Void) -> CommitListenerToken {
        observers.add(listener)
    }

    /// The last logged sequence in the file (0 without a log).
    static func lastSequence(_ connection: Connection) throws(StoreError) -> Int64 {
        guard try tableExists("trellis_commits", connection: connection) else { return 0 }
        return try connection.cachedStatement("SELECT coalesce(max(\"seq\"), 0) FROM \"trellis_commits\"").runReturningInt64() ?? 0
    }
}

/// A store's commit listeners and the poller that runs while there are any.
final class SQLiteObservers: @unchecked Sendable {
    // SAFETY: `poller` is read and written only while `lock` is held; the rest is immutable
    // and Sendable.
    let listeners = CommitListeners()
    private let path: String
    private let intervalMilliseconds: Int
    private let lock = NSLock()
    private var poller: DataVersionPoller?

    init(path: String, intervalMilliseconds: Int) {
        self.path = path
        self.intervalMilliseconds = intervalMilliseconds
    }

    func add(_ listener: @escaping @Sendable () -> Void) -> CommitListenerToken {
        let token = listeners.add(listener)
        update()
        return CommitListenerToken { [weak self] in
            token.cancel()
            self?.update()
        }
    }

    /// Starts the poller when there are listeners, stops it when there are none.
    private func update() {
        lock.withLock {
            let wanted = listeners.count > 0
            if wanted, poller == nil {
                poller = DataVersionPoller(path: path, intervalMilliseconds: intervalMilliseconds, listeners: listeners)
            } else if !wanted, let running = poller {
                running.stop()
                poller = nil
            }
        }
    }

    deinit { poller?.stop() }
}

/// Checks `PRAGMA data_version` on its own read-only connection at an interval and wakes the
/// listeners when it changes (another connection committed).
final class DataVersionPoller: @unchecked Sendable {
    // SAFETY: `connection` and `version` are used only on `queue` (the timer's handler and
    // `stop`'s cancellation both run there); the other properties are immutable and Sendable.
    private let queue = DispatchQueue(label: "trellis.sqlite.data-version")
    private let timer: DispatchSourceTimer
    private var connection: Connection?
    private var version: Int64 = -1

    init(path: String, intervalMilliseconds: Int, listeners: CommitListeners) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        connection = try? Connection(path: path, readOnly: true)
        timer.schedule(deadline: .now(), repeating: .milliseconds(intervalMilliseconds), leeway: .milliseconds(1))
        timer.setEventHandler { [weak self, weak listeners] in
            guard let self, let connection = self.connection,
                  let now = try? connection.makeStatement("PRAGMA data_version").runReturningInt64() else { return }
            if self.version >= 0, now != self.version { listeners?.notify() }
            self.version = now
        }
        timer.resume()
    }

    func stop() {
        timer.cancel()
        queue.async { self.connection = nil }
    }
}
