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
        if observers.fileWasReplaced {
            throw StoreError(
                .engine,
                message: "the store file \(path) was deleted or replaced while it was observed; "
                    + "open it again to see what it holds now")
        }
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
///
/// The poller also checks that the path still names the file the store opened (device and
/// inode): a store file deleted or replaced (`mv other.sqlite store.sqlite`) under an
/// observer would otherwise never change again for it. It then wakes the listeners once, and
/// ``SQLiteStore/commits(after:)`` throws, so that observers end with an error.
final class SQLiteObservers: @unchecked Sendable {
    // SAFETY: `poller` and `replaced` are read and written only while `lock` is held; the
    // rest is immutable and Sendable.
    let listeners = CommitListeners()
    private let path: String
    private let intervalMilliseconds: Int
    private let lock = NSLock()
    private var poller: DataVersionPoller?
    private var replaced = false
    /// The file's identity when the store opened it (nil: unknown, never checked).
    let fileIdentity: FileIdentity?

    init(path: String, intervalMilliseconds: Int) {
        self.path = path
        self.intervalMilliseconds = intervalMilliseconds
        self.fileIdentity = FileIdentity(path: path)
    }

    /// Whether the poller found the path naming another file, or none.
    var fileWasReplaced: Bool { lock.withLock { replaced } }

    /// Called by the poller: marks the file replaced and wakes the listeners (once).
    fileprivate func checkFile() {
        guard let fileIdentity, !fileWasReplaced, FileIdentity(path: path) != fileIdentity else { return }
        lock.withLock { replaced = true }
        listeners.notify()
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
                poller = DataVersionPoller(
                    path: path, intervalMilliseconds: intervalMilliseconds, listeners: listeners,
                    checkFile: { [weak self] in self?.checkFile() })
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

    init(path: String, intervalMilliseconds: Int, listeners: CommitListeners, checkFile: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        connection = try? Connection(path: path, readOnly: true)
        // The baseline is read now, before the listener that started the poller is
        // registered and so before its observer's first fetch: a commit after that fetch then
        // changes data_version relative to it, however late the first tick runs (on a loaded
        // machine it can run after another process's commit, which would go unnoticed).
        version = (try? connection?.makeStatement("PRAGMA data_version").runReturningInt64()).flatMap { $0 } ?? -1
        timer.schedule(deadline: .now(), repeating: .milliseconds(intervalMilliseconds), leeway: .milliseconds(1))
        timer.setEventHandler { [weak self, weak listeners] in
            checkFile()
            guard let self, let connection = self.connection,
                let now = try? connection.makeStatement("PRAGMA data_version").runReturningInt64()
            else { return }
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

/// A file's device and inode (`stat(2)`), to tell whether a path still names the same file.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path`; nil when there is none.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
