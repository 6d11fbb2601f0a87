/// A store that writes a long run of write transactions faster when it is told they form
/// one run: a sync's pages, each committed with its checkpoint (`trellis sync`).
///
/// Inside ``withBulkRun(_:)`` every ``PersistentStore/write(_:)`` keeps its contract (it
/// commits or rolls back as a whole, readers see each commit, uniqueness rules hold); what the
/// store may do differently is the upkeep of what it can rebuild, such as secondary indexes,
/// as long as a crash at any moment leaves a store the next open repairs.
///
/// The SQLite store implements it (`SQLiteStore+DeferredIndexes.swift`, `docs/Sync.md`
/// "Index upkeep during a run").
///
///     try (store as? any BulkWritingStore)?.withBulkRun { try pages.forEach(write) }
public protocol BulkWritingStore: PersistentStore {
    /// Runs `body`, whose write sessions form one run; when it returns or throws, the store
    /// finishes the run (e.g. rebuilds what it deferred) before this returns.
    /// Runs nest: only the outermost one finishes.
    /// - Throws: whatever `body` throws; `StoreError` when finishing the run fails (what the
    ///   run committed stays committed).
    func withBulkRun<T>(_ body: () throws -> T) throws -> T
}
