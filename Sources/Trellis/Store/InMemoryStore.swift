import Foundation

/// A ``PersistentStore`` that keeps objects in memory: for tests, previews, and as the
/// reference implementation of the store contract.
///
/// - Sessions: ``read(_:)`` works on the committed state as it was when the session began
///   (a copy-on-write value, so later writes never show through); ``write(_:)`` works on a
///   private copy that replaces the committed state only when the closure returns. Writers
///   are serialised by a lock; readers never wait for writers. Do not nest `write` calls.
/// - Atomicity: a failed ``StoreSession/apply(_:)`` poisons its write session, so the
///   transaction rolls back even if the closure catches the error.
/// - Constraints: identity values are unique per inheritance hierarchy (every entity whose
///   identity attributes differ from its parent's adds its own uniqueness scope);
///   relationship destinations must exist. Both give ``StoreError/Code/constraintViolation``.
/// - Relationships follow ``ChangeSet``'s storage rules: a to-many whose inverse is a to-one
///   is derived from the inverse's foreign keys (its slot in a change is ignored); other
///   to-manys behave as join tables; inverses are kept on both sides.
/// - Complexity: identity fetches O(1) per identity; a write copies each table it changes
///   once (O(rows)); predicate fetches scan the hierarchy's rows.
public final class InMemoryStore: PersistentStore {
    /// The model the store was created with.
    public let model: ObjectModel
    let schema: ModelSchema
    private let box: StateBox
    private let writer = NSLock()
    /// Recent commits, for observers (``ObservableStore``).
    let commitLog = CommitLog()
    let listeners = CommitListeners()

    /// An empty store for `model`.
    public init(model: ObjectModel) {
        self.model = model
        self.schema = ModelSchema(model: model)
        self.box = StateBox(InMemoryState(tableCount: schema.entities.count))
    }

    /// Runs `body` over the committed state as of now; later writes are not visible to it.
    public func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        let session = InMemorySession(store: self, state: box.current(), writable: false)
        defer { session.isValid = false }
        return try body(session)
    }

    /// Runs `body` in one transaction: its changes replace the committed state when it
    /// returns; nothing is kept when it throws or when an `apply` inside it failed.
    public func write<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        writer.lock()
        defer { writer.unlock() }
        let session = InMemorySession(store: self, state: box.current(), writable: true)
        defer { session.isValid = false }
        let result = try body(session)
        if let failure = session.failure { throw failure }
        var commit = session.commitRecord
        if !commit.isEmpty {
            commit.sequence = session.state.sequence + 1
            session.state.sequence = commit.sequence
        }
        box.replace(session.state)
        if !commit.isEmpty {
            commitLog.append(commit)
            listeners.notify()
        }
        return result
    }

    /// The number of stored objects of every entity (test and diagnostics helper).
    public var objectCount: Int { box.current().tables.reduce(0) { $0 + $1.rows.count } }
}

// MARK: - State

/// The committed state behind a lock.
// SAFETY: `state` is only read or replaced while `lock` is held; the value itself is
// copy-on-write and never shared mutably.
private final class StateBox: @unchecked Sendable {
    private let lock = NSLock()
    private var state: InMemoryState
    init(_ state: InMemoryState) { self.state = state }
    func current() -> InMemoryState { lock.withLock { state } }
    func replace(_ new: InMemoryState) { lock.withLock { state = new } }
}

// MARK: - Observation

extension InMemoryStore: ObservableStore {
    public func readObserving<T>(_ body: (any StoreSession) throws -> T) throws -> (sequence: Int64, value: T) {
        let state = box.current()
        let session = InMemorySession(store: self, state: state, writable: false)
        defer { session.isValid = false }
        return (state.sequence, try body(session))
    }

    /// The last 256 commits are kept; an observer further behind runs its request again.
    public func commits(after sequence: Int64) throws -> [StoreCommit]? {
        commitLog.commits(after: sequence)
    }

    /// Listeners are called on the writing thread, right after the commit.
    public func addCommitListener(_ listener: @escaping @Sendable () -> Void) -> CommitListenerToken {
        listeners.add(listener)
    }
}
