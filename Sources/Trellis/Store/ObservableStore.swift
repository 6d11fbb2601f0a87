import Foundation

/// A store whose commits can be observed (``ObjectContext/observe(_:)``): it logs each
/// commit's ``StoreCommit`` in the same transaction as the commit's changes, and wakes its
/// listeners after commits — its own at once, other connections' and other processes' when
/// it notices them (the SQLite store polls `PRAGMA data_version`; a PostgreSQL store would
/// use `LISTEN/NOTIFY` as the wake-up and a change log table for the content).
public protocol ObservableStore: PersistentStore {
    /// Runs `body` in a read session and returns the sequence of the last commit that
    /// session sees (0 when none), so that results and sequence belong together.
    func readObserving<T>(_ body: (any StoreSession) throws -> T) throws -> (sequence: Int64, value: T)

    /// The commits after `sequence`, oldest first; nil when the log no longer holds all of
    /// them (the observer then runs its request again).
    func commits(after sequence: Int64) throws -> [StoreCommit]?

    /// Calls `listener` (on some thread) after commits; keep the token to keep listening.
    func addCommitListener(_ listener: @escaping @Sendable () -> Void) -> CommitListenerToken
}

/// Keeps a commit listener registered; ``cancel()`` (or releasing the token) stops it.
public final class CommitListenerToken: @unchecked Sendable {
    // SAFETY: `onCancel` is read and cleared only while `lock` is held.
    private let lock = NSLock()
    private var onCancel: (@Sendable () -> Void)?

    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Stops the listener (idempotent).
    public func cancel() {
        let action = lock.withLock { () -> (@Sendable () -> Void)? in
            defer { onCancel = nil }
            return onCancel
        }
        action?()
    }

    deinit { cancel() }
}

/// The listeners of one store, for store implementations: ``add(_:)`` returns the token,
/// ``notify()`` calls every listener. Thread-safe.
public final class CommitListeners: @unchecked Sendable {
    // SAFETY: `next` and `listeners` are read and written only while `lock` is held;
    // `onActive` is immutable and Sendable.
    private let lock = NSLock()
    private var next = 0
    private var listeners: [Int: @Sendable () -> Void] = [:]
    /// Called when the first listener is added (`true`) and when the last one goes (`false`).
    private let onActive: (@Sendable (Bool) -> Void)?

    public init(onActive: (@Sendable (Bool) -> Void)? = nil) {
        self.onActive = onActive
    }

    public func add(_ listener: @escaping @Sendable () -> Void) -> CommitListenerToken {
        let (id, first) = lock.withLock { () -> (Int, Bool) in
            next += 1
            listeners[next] = listener
            return (next, listeners.count == 1)
        }
        if first { onActive?(true) }
        return CommitListenerToken { [weak self] in self?.remove(id) }
    }

    private func remove(_ id: Int) {
        let last = lock.withLock { () -> Bool in
            guard listeners.removeValue(forKey: id) != nil else { return false }
            return listeners.isEmpty
        }
        if last { onActive?(false) }
    }

    /// The number of listeners.
    public var count: Int { lock.withLock { listeners.count } }

    /// Calls every listener on the calling thread.
    public func notify() {
        let current = lock.withLock { Array(listeners.values) }
        for listener in current { listener() }
    }
}

/// The recent commits of a store, for store implementations (a bounded, thread-safe log).
public final class CommitLog: @unchecked Sendable {
    // SAFETY: `commits` and `last` are read and written only while `lock` is held.
    private let lock = NSLock()
    private var commits: [StoreCommit] = []
    private var last: Int64
    /// How many commits are kept.
    public let capacity: Int

    public init(capacity: Int = 256, last: Int64 = 0) {
        self.capacity = capacity
        self.last = last
    }

    /// The last logged sequence.
    public var lastSequence: Int64 { lock.withLock { last } }

    /// Logs `commit`; a gap in the sequence (commits logged elsewhere) drops the older ones.
    public func append(_ commit: StoreCommit) {
        lock.withLock {
            if commit.sequence != last + 1 { commits.removeAll() }
            commits.append(commit)
            if commits.count > capacity { commits.removeFirst(commits.count - capacity) }
            last = max(last, commit.sequence)
        }
    }

    /// The commits after `sequence`, or nil when they are not all here.
    public func commits(after sequence: Int64) -> [StoreCommit]? {
        lock.withLock {
            if sequence >= last { return [] }
            guard let first = commits.first, first.sequence <= sequence + 1 else { return nil }
            return commits.filter { $0.sequence > sequence }
        }
    }
}
