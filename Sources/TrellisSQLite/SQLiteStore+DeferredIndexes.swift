import CSQLite
import Foundation
import Trellis
import TrellisSQL

/// Bulk runs (``BulkWritingStore``): many write transactions (a sync's pages) without
/// row-by-row upkeep of the secondary indexes.
///
/// The non-unique indexes (a to-one's foreign key column, a many-to-many's `destination`;
/// ``StoreLayout/secondaryIndexes``) serve reads of inverse relationships, queries on to-one
/// columns and the foreign keys' `ON DELETE` actions; writing objects needs only those under a
/// to-many the import reads (a mapped inverse), which are never deferred
/// (``StoreLayout/deferrableIndexes``). Kept
/// up row by row they cost each page of a run a seek and a page write per index row, which
/// ``SQLiteSession/dropSecondaryIndexesOfEmptyTables()`` avoids only for the first page into
/// empty tables. In a run:
///
/// - Once the run has inserted at least as many objects as the store held when it began (and at
///   least ``BulkRun/minimumObjects``), the write session drops every deferrable index and
///   records their SQL, as the file had it, in `trellis_metadata` (key ``deferredIndexesKey``,
///   a JSON array of `{"name", "sql"}`), in the same transaction: no commit ever leaves the
///   indexes missing without the mark. A small incremental run into a large store never
///   reaches the threshold, and keeps its indexes (a rebuild would sort the whole table for a
///   few rows). Unique (identity) indexes are never dropped: the upserts and the uniqueness
///   rules rely on them.
/// - A write session that deletes objects while the mark stands rebuilds the indexes first, in
///   its transaction (the foreign keys' `ON DELETE` actions would otherwise scan the child
///   table once per deleted object); the run then keeps them.
/// - When the run ends (returns or throws), the indexes are built again, each with one sort,
///   and the mark removed, in one transaction.
/// - A process that dies in the run (`kill -9`, a power cut) leaves the mark. Every process
///   whose run relies on it holds a shared `flock(2)` on the file `<store>-trellis-run`, which
///   the kernel releases when the process dies; opening the store, any process that gets that
///   lock exclusively while the mark stands knows no run is alive, rebuilds the indexes and
///   removes the mark (``SQLiteStore/repairedDeferredIndexes``; the CLI says so on stderr).
///   A store opened read-only repairs too, through a connection of its own, when the process
///   may write the file (``SQLiteStore/Configuration/repairsDeferredIndexes``).
///
/// The state is all in the file (the mark, `sqlite_master`), each step re-reading it inside its
/// transaction; the lock only says whether a run is alive. Queries meanwhile answer the same,
/// scanning where they would have sought the dropped indexes (`docs/Sync.md`).
extension SQLiteStore: BulkWritingStore {
    /// The `trellis_metadata` key of the indexes a run deferred.
    static let deferredIndexesKey = "deferredIndexes"

    public func withBulkRun<T>(_ body: () throws -> T) throws -> T {
        guard !isReadOnly, RunLock.canLock(storeAt: path) else { return try body() }
        let run: BulkRun = try withConnection { _ in
            if let run = bulkRun {
                run.depth += 1
                return run
            }
            let run = BulkRun(lockPath: RunLock.path(forStoreAt: path))
            bulkRun = run
            return run
        }
        let result = Result { try body() }
        let finished = Result { try finish(run) }
        let value = try result.get()
        try finished.get()
        return value
    }

    /// Ends the outermost run: the last process relying on the deferral rebuilds the indexes.
    private func finish(_ run: BulkRun) throws {
        try withConnection { connection in
            run.depth -= 1
            guard run.depth == 0 else { return }
            bulkRun = nil
            guard let lock = run.lock else { return }
            run.lock = nil
            // Another process's run that relies on the deferral keeps it; the last one rebuilds.
            guard lock.upgradeToExclusive() else {
                lock.release(removingFile: false)
                return
            }
            defer { lock.release(removingFile: true) }
            try SQLiteStore.rebuildInTransaction(on: connection)
        }
    }

    // MARK: - Repair on open

    /// Rebuilds the indexes a run left deferred when no live process runs it (the run lock is
    /// free), on `connection` or, when it is read-only, on a writable connection of its own if
    /// the process may write the file. Done before the schema is checked or migrated.
    /// - Returns: the number of indexes rebuilt (0 when there was nothing to repair, or a
    ///   live run holds the deferral, or the file cannot be written).
    static func repairDeferredIndexes(_ connection: Connection, path: String, busyTimeoutMilliseconds: Int) throws(StoreError) -> Int {
        guard RunLock.canLock(storeAt: path), try tableExists(SchemaDescription.metadataTable, connection: connection),
            try markText(on: connection) != nil
        else { return 0 }
        guard let lock = RunLock.exclusive(path: RunLock.path(forStoreAt: path)) else { return 0 }
        defer { lock.release(removingFile: true) }
        let writer: Connection
        if connection.isReadOnly {
            guard access(path, W_OK) == 0, let own = try? Connection(path: path, readOnly: false), !own.isReadOnly else { return 0 }
            sqlite3_busy_timeout(own.handle, Int32(clamping: busyTimeoutMilliseconds))
            writer = own
        } else {
            writer = connection
        }
        return try rebuildInTransaction(on: writer)
    }

    /// ``rebuildDeferredIndexes(on:)`` in a `BEGIN IMMEDIATE` transaction of its own.
    @discardableResult
    static func rebuildInTransaction(on connection: Connection) throws(StoreError) -> Int {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let built = try rebuildDeferredIndexes(on: connection)
            try connection.execute("COMMIT")
            return built
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: - The mark

    /// Builds the indexes the mark lists that the file lacks, and removes the mark, inside the
    /// transaction open on `connection`.
    /// - Returns: the number of indexes built.
    /// - Throws: `StoreError` `.engine` when the mark cannot be read.
    static func rebuildDeferredIndexes(on connection: Connection) throws(StoreError) -> Int {
        guard let indexes = try deferredIndexes(on: connection) else { return 0 }
        var built = 0
        for index in indexes where !(try indexExists(index.name, on: connection)) {
            try connection.execute(index.sql)
            built += 1
        }
        try writeMark(nil, on: connection)
        return built
    }

    /// The indexes the mark lists; nil without a mark.
    /// - Throws: `StoreError` `.engine` when the mark is not the JSON this store writes.
    static func deferredIndexes(on connection: Connection) throws(StoreError) -> [DeferredIndex]? {
        guard let text = try markText(on: connection) else { return nil }
        do {
            return try JSONDecoder().decode([DeferredIndex].self, from: Data(text.utf8))
        } catch {
            throw StoreError(
                .engine,
                message: "trellis_metadata key '\(deferredIndexesKey)' (the secondary indexes a sync run "
                    + "deferred) is not readable: \(error); the indexes it names cannot be rebuilt from it "
                    + "(export the objects and import them into a new store)")
        }
    }

    static func markText(on connection: Connection) throws(StoreError) -> String? {
        let statement = try connection.cachedStatement("SELECT \"value\" FROM \"trellis_metadata\" WHERE \"key\" = ?1")
        defer { statement.reset() }
        try statement.bind(deferredIndexesKey, at: 1)
        guard try statement.step() else { return nil }
        return statement.string(0)
    }

    /// Writes the mark (nil: removes it).
    static func writeMark(_ indexes: [DeferredIndex]?, on connection: Connection) throws(StoreError) {
        let statement: Statement
        if let indexes {
            let text: String
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                text = String(decoding: try encoder.encode(indexes.sorted { $0.name < $1.name }), as: UTF8.self)
            } catch {
                throw StoreError(.engine, message: "cannot encode the deferred indexes: \(error)")
            }
            statement = try connection.cachedStatement(
                "INSERT INTO \"trellis_metadata\"(\"key\", \"value\") VALUES (?1, ?2) "
                    + "ON CONFLICT(\"key\") DO UPDATE SET \"value\" = excluded.\"value\"")
            try statement.bind(text, at: 2)
        } else {
            statement = try connection.cachedStatement("DELETE FROM \"trellis_metadata\" WHERE \"key\" = ?1")
        }
        defer { statement.reset() }
        try statement.bind(deferredIndexesKey, at: 1)
        try statement.run()
    }

    /// The SQL of the index `name` as the file has it; nil when the file has no such index.
    static func indexSQL(_ name: String, on connection: Connection) throws(StoreError) -> String? {
        let lookup = try connection.cachedStatement("SELECT \"sql\" FROM \"sqlite_master\" WHERE \"type\" = 'index' AND \"name\" = ?1")
        defer { lookup.reset() }
        try lookup.bind(name, at: 1)
        guard try lookup.step(), !lookup.isNull(0) else { return nil }
        return lookup.string(0)
    }

    static func indexExists(_ name: String, on connection: Connection) throws(StoreError) -> Bool {
        try indexSQL(name, on: connection) != nil
    }
}

/// An index dropped for a bulk load or a run: its name and its SQL as the file had it.
struct DeferredIndex: Codable, Equatable {
    var name: String
    var sql: String
}

/// The state of one ``SQLiteStore/withBulkRun(_:)`` in this process. Read and written only
/// while the store's lock is held (in write sessions, and by `withBulkRun`).
final class BulkRun {
    /// A run inserting fewer objects gains nothing measurable from deferring.
    static let minimumObjects = 1000

    let lockPath: String
    /// Nested `withBulkRun` calls; the outermost one finishes the run.
    var depth = 1
    /// The rows the store's tables held (``SQLiteSession/rowCountBound(of:)``) at the run's first write.
    var objectsAtStart: Int?
    /// Objects the run's write sessions inserted (also those rolled back: a heuristic).
    var inserted = 0
    /// A deletion rebuilt the indexes: the run keeps them from then on.
    var keepsIndexes = false
    /// Held shared from the run's first deferral until it ends.
    var lock: RunLock?

    init(lockPath: String) { self.lockPath = lockPath }

    /// Whether the run has inserted enough objects to defer the secondary indexes.
    var defers: Bool {
        guard !keepsIndexes, let objectsAtStart else { return false }
        return inserted >= max(objectsAtStart, BulkRun.minimumObjects)
    }
}

/// An advisory lock (`flock(2)`) on `<store>-trellis-run`: held shared by every process whose
/// run relies on deferred indexes, taken exclusively (without waiting) by whoever rebuilds
/// them. The kernel releases it when its process dies, however it dies.
final class RunLock {
    private var descriptor: Int32
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Stores in files only (not `:memory:`, temporary or URI databases).
    static func canLock(storeAt path: String) -> Bool {
        !path.isEmpty && path != ":memory:" && !path.hasPrefix("file:")
    }

    static func path(forStoreAt path: String) -> String { path + "-trellis-run" }

    /// The lock held shared; nil when someone holds it exclusively (a rebuild is under way)
    /// or the file cannot be opened.
    static func shared(path: String) -> RunLock? { take(path: path, LOCK_SH) }

    /// The lock held exclusively; nil when a live process holds it.
    static func exclusive(path: String) -> RunLock? { take(path: path, LOCK_EX) }

    /// Opens (creating) and locks the file; again when the file was removed or replaced
    /// meanwhile (a rebuild that ended removes it), so the lock held is the file's at `path`.
    private static func take(path: String, _ operation: Int32) -> RunLock? {
        for _ in 0..<8 {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return nil }
            guard flock(fd, operation | LOCK_NB) == 0 else {
                close(fd)
                return nil
            }
            var held = stat()
            var named = stat()
            if fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
                return RunLock(descriptor: fd, path: path)
            }
            close(fd)
        }
        return nil
    }

    /// Turns the shared lock exclusive when no other process holds it (without waiting). When
    /// it cannot, the lock may be gone altogether (flock(2) does not convert atomically).
    func upgradeToExclusive() -> Bool {
        flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    /// Releases the lock; `removingFile` (held exclusively) also removes the file.
    func release(removingFile: Bool) {
        guard descriptor >= 0 else { return }
        if removingFile { unlink(path) }
        close(descriptor)
        descriptor = -1
    }
}

extension SQLiteSession {
    /// In a bulk run (``bulkRun``) that has inserted enough objects (``BulkRun/defers``), drops
    /// the secondary indexes still in the file and marks them deferred, in this transaction.
    /// - Complexity: one metadata lookup per apply once the run defers; one `sqlite_master`
    ///   lookup per secondary index when the mark is missing.
    func deferSecondaryIndexesIfWorthIt(inserting count: Int) throws(StoreError) {
        guard let run = bulkRun, !run.keepsIndexes else { return }
        if run.objectsAtStart == nil {
            var rows = 0
            for table in layout.tables.values { rows += try rowCountBound(of: table) }
            run.objectsAtStart = rows
        }
        run.inserted += count
        guard run.defers, !layout.deferrableIndexes.isEmpty else { return }
        if run.lock == nil {
            // Held also when the mark stands already (another run's): the run then rebuilds at
            // its end. A rebuild holding the lock now: this page keeps the indexes.
            guard let lock = RunLock.shared(path: run.lockPath) else { return }
            run.lock = lock
        }
        if try SQLiteStore.markText(on: connection) != nil { return }
        // The bulk load of empty tables may have dropped some in this transaction already:
        // the deferrable ones stay dropped, the others are still built before commit.
        let deferrable = Set(layout.deferrableIndexes.map(\.name))
        var deferred = droppedIndexes.filter { deferrable.contains($0.name) }
        droppedIndexes.removeAll { deferrable.contains($0.name) }
        for index in layout.deferrableIndexes where !deferred.contains(where: { $0.name == index.name }) {
            guard let sql = try SQLiteStore.indexSQL(index.name, on: connection) else { continue }
            try connection.execute("DROP INDEX \(SQL.identifier(index.name))")
            deferred.append(DeferredIndex(name: index.name, sql: sql))
        }
        guard !deferred.isEmpty else { return }
        try SQLiteStore.writeMark(deferred, on: connection)
    }

    /// Before deleting objects: the indexes a run deferred are built again (and the mark
    /// removed) in this transaction, so the foreign keys' `ON DELETE` actions seek instead of
    /// scanning the child table once per deleted object.
    func rebuildDeferredIndexesBeforeDeleting() throws(StoreError) {
        guard try SQLiteStore.markText(on: connection) != nil else { return }
        _ = try SQLiteStore.rebuildDeferredIndexes(on: connection)
        bulkRun?.keepsIndexes = true
    }
}
