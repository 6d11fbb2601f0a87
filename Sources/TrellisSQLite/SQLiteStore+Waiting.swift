import CSQLite
import Foundation

extension SQLiteStore {
    /// Calls `observer` while a statement waits for another connection's lock (a write
    /// session's `BEGIN IMMEDIATE` while another process writes), with how long the wait has
    /// lasted so far: at its start and then every few milliseconds, at most every 100 ms,
    /// on the waiting thread. The wait still ends with `StoreError.busy` after
    /// ``Configuration/busyTimeoutMilliseconds``.
    ///
    /// Replaces SQLite's busy timeout with a busy handler that sleeps as
    /// `sqlite3_busy_timeout` does (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 ms, then
    /// 100 ms; https://sqlite.org/c3ref/busy_handler.html). For a command that tells its user
    /// why it is not progressing (`waiting for another import to finish…`).
    public func reportWaits(to observer: @escaping @Sendable (_ waited: Duration) -> Void) {
        let reporter = SQLiteWaitReporter(timeoutMilliseconds: configuration.busyTimeoutMilliseconds, observer: observer)
        try? withConnection { connection in
            waitReporter = reporter
            sqlite3_busy_handler(
                connection.handle,
                { context, count in
                    guard let context else { return 0 }
                    return Unmanaged<SQLiteWaitReporter>.fromOpaque(context).takeUnretainedValue().shouldRetry(count: count) ? 1 : 0
                }, Unmanaged.passUnretained(reporter).toOpaque())
        }
    }
}

/// The state of one store's busy handler (see ``SQLiteStore/reportWaits(to:)``).
final class SQLiteWaitReporter: @unchecked Sendable {
    // SAFETY: `start` is read and written only by the busy handler, which SQLite calls on
    // the thread running a statement, and statements run only with the store's lock held.
    private let timeout: Duration
    private let observer: @Sendable (Duration) -> Void
    private var start = ContinuousClock.now

    private static let delays: [Int] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    init(timeoutMilliseconds: Int, observer: @escaping @Sendable (Duration) -> Void) {
        self.timeout = .milliseconds(max(0, timeoutMilliseconds))
        self.observer = observer
    }

    /// The busy handler for SQLite's `count`-th call in one wait (0 for the first):
    /// reports the wait, sleeps, and says whether to try again.
    func shouldRetry(count: Int32) -> Bool {
        let now = ContinuousClock.now
        if count == 0 { start = now }
        let waited = now - start
        guard waited < timeout else { return false }
        observer(waited)
        let delay = Duration.milliseconds(SQLiteWaitReporter.delays[min(Int(count), SQLiteWaitReporter.delays.count - 1)])
        let sleep = min(delay, timeout - waited)
        let (seconds, attoseconds) = sleep.components
        usleep(useconds_t(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        return true
    }
}
