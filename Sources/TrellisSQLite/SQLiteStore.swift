import CSQLite
import Foundation
import Trellis

/// The embedded persistent store: one SQLite database file whose schema is derived from
/// the object model (see `docs/SQLiteSchema.md`).
///
///     let store = try SQLiteStore(path: "characters.sqlite", model: model)
///     let ids = try store.write { session in try session.apply(changes) }
///     let hero = try store.read { session in
///         try session.fetch(entity: "Character", identities: [[.string("1699")]])
///     }
///
/// Opening a file:
/// - a new or empty file gets the schema and a `trellis_metadata` table recording the
///   model's version label and the schema description;
/// - a Trellis store made for an older model is migrated when the model only adds
///   entities, attributes or relationships (`ALTER TABLE … ADD COLUMN`, `CREATE TABLE`,
///   in one transaction); any other difference throws `StoreError.incompatibleSchema`
///   naming every entity and property that changed, leaving the file untouched;
/// - with ``MigrationPolicy/inWriteTransactions``, opening only checks: the schema work is
///   done inside the sessions, so a write session that rolls back leaves the file exactly as
///   it was, and a read-only store reads the file as the migration would make it without
///   writing it (see ``MigrationPolicy``);
/// - a file that is not an SQLite database, or a database without `trellis_metadata`
///   that already has tables, throws `StoreError.notAStore`;
/// - a file that cannot be written (or ``Configuration/isReadOnly``) opens for reading;
///   write sessions then throw `StoreError.readOnly`.
///
/// The connection runs with `journal_mode=WAL`, `synchronous=NORMAL`, `foreign_keys=ON`
/// and a busy timeout (https://sqlite.org/pragma.html, https://sqlite.org/wal.html).
/// Each ``write(_:)`` is one `BEGIN IMMEDIATE` transaction; each ``read(_:)`` is one
/// read transaction, so it sees one committed state even while another connection
/// writes.
///
/// Concurrency: the store owns one connection, confined behind a lock that a session
/// holds from start to end; sessions of one store therefore run one at a time and do not
/// nest (a session opened inside another throws instead of deadlocking). Open a
/// second store on the same file for a reader that runs during a write.
public final class SQLiteStore: PersistentStore, @unchecked Sendable {
    // SAFETY: `connection` is neither Sendable nor thread-safe. It is only used inside
    // `withConnection`, which holds `lock` for the whole use; no reference to it (or to a
    // session wrapping it) escapes the closure. `pendingWork`, `journalModeIsPending`,
    // `bulkRun` (and the run it names) and `waitReporter` are read and written only while `lock` is held (as are the observation
    // state's, as their comments say). Every other stored property is immutable and Sendable.

    /// When the file gets the schema its model needs: the whole schema (a new or empty
    /// file), or an additive migration (see `SQLiteStore+Migrations.swift`).
    public enum MigrationPolicy: Sendable, Hashable {
        /// Opening the store creates or migrates the schema in its own transaction, committed
        /// before `init` returns (the default).
        case onOpen
        /// Opening the store only checks that the file can be migrated (throwing
        /// `.incompatibleSchema` otherwise) and writes nothing. The work is done inside the
        /// sessions, until a write session commits it together with its own changes:
        ///
        /// - a write session applies it first, inside its transaction, so a session that
        ///   rolls back (a failed import, a dry run) leaves the file byte for byte as it was;
        /// - a read session before then applies it inside a transaction that it rolls back
        ///   (`BEGIN IMMEDIATE`, so it waits for another connection's write lock);
        /// - a store that cannot write the file (``Configuration/isReadOnly``, or a file
        ///   without write permission) reads, in each read session, a private copy of the
        ///   file (`sqlite3_backup`, https://sqlite.org/backup.html, into a temporary database,
        ///   https://sqlite.org/inmemorydb.html#temp_db) with the work applied: an empty file
        ///   reads as a store without objects, a store made for an older model as the migration
        ///   would leave it (new attributes hold their default values). The copy costs time and
        ///   temporary space in proportion to the file's size; the file is never written.
        ///
        /// An empty file stays in SQLite's rollback-journal mode until the first write session
        /// commits, and turns to WAL then, because switching to WAL writes the file's header
        /// (https://sqlite.org/wal.html#activating_and_configuring_wal_mode).
        case inWriteTransactions
    }

    /// How a store is opened.
    public struct Configuration: Sendable, Hashable {
        /// Open for reading only (write sessions throw `.readOnly`). Default `false`; a
        /// file the process cannot write opens read-only anyway.
        public var isReadOnly: Bool
        /// How long a statement waits for another connection's lock before throwing
        /// `StoreError.busy`, in milliseconds (`sqlite3_busy_timeout`). Default 5000.
        public var busyTimeoutMilliseconds: Int
        /// Identities per batched lookup statement (chunking below SQLite's parameter
        /// limit, https://sqlite.org/limits.html#max_variable_number). Default 500.
        public var lookupChunkSize: Int
        /// When the file gets the schema or migration the model needs. Default ``MigrationPolicy/onOpen``.
        public var migrationPolicy: MigrationPolicy
        /// The text of the model file the store is opened with (a Trellis JSON model file,
        /// UTF-8), recorded in `trellis_metadata` (key `model`) so that tools can open the
        /// store without one: ``SQLiteStore/recordedModel(atPath:)``, `trellis model show
        /// STORE.sqlite`, an import without `--model`. Written with the schema work, by the
        /// ``migrationPolicy`` (on open, or in the first write session that commits). Nil
        /// (default) keeps the recorded text while the schema stays the same, and removes
        /// it when the schema changes (it would no longer describe the file).
        public var modelRecord: String?
        /// How often observers' store checks the file for commits of other connections and
        /// processes (`PRAGMA data_version`), in milliseconds. Default 50.
        public var changePollIntervalMilliseconds: Int

        /// Keep SQLite's temporary data in memory (`PRAGMA temp_store = MEMORY`,
        /// https://sqlite.org/pragma.html#pragma_temp_store) rather than in temporary files:
        /// the statement journals of multi-row writes (https://sqlite.org/tempfiles.html#stmtjrnl)
        /// and the sorts of index builds. Many small write transactions gain most: a sync
        /// commits one per page, and with files each of them wrote its statement journals
        /// to disk (measured: 100 transactions of 1,000 characters, 11.7 s with files, 4.8 s in
        /// memory, the same as one transaction). Memory grows by the largest sort (an index
        /// built at the end of a bulk load). Default `false` (SQLite's default, files).
        public var keepsTemporaryDataInMemory: Bool
        /// WAL pages after which a commit checkpoints the WAL into the database file
        /// (`PRAGMA wal_autocheckpoint`, https://sqlite.org/wal.html#ckpt); nil: SQLite's
        /// default, 1000 pages. Larger values checkpoint less often in a run of many small
        /// transactions (pages rewritten by each are copied once), at the cost of a larger
        /// `-wal` file; the last connection to close checkpoints it all.
        public var walAutocheckpointPages: Int?
        /// Opening the store rebuilds the secondary indexes a bulk run (``withBulkRun(_:)``, a
        /// sync) left deferred when that run's process is gone (killed, crashed), in a
        /// transaction of its own, before anything else (``repairedDeferredIndexes``); also when
        /// opened read-only, through a connection of its own, if the process may write the file.
        /// Without it such a store reads correctly, scanning where the indexes would seek.
        /// Default `true`; a dry run that must not write the file turns it off.
        public var repairsDeferredIndexes: Bool

        /// A configuration; `lookupChunkSize` is clamped to 1...8000, the poll interval to 1...60000.
        public init(
            isReadOnly: Bool = false, busyTimeoutMilliseconds: Int = 5000, lookupChunkSize: Int = 500,
            migrationPolicy: MigrationPolicy = .onOpen, modelRecord: String? = nil,
            changePollIntervalMilliseconds: Int = 50, keepsTemporaryDataInMemory: Bool = false,
            walAutocheckpointPages: Int? = nil, repairsDeferredIndexes: Bool = true
        ) {
            self.isReadOnly = isReadOnly
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.lookupChunkSize = max(1, min(lookupChunkSize, 8000))
            self.migrationPolicy = migrationPolicy
            self.modelRecord = modelRecord
            self.changePollIntervalMilliseconds = max(1, min(changePollIntervalMilliseconds, 60_000))
            self.keepsTemporaryDataInMemory = keepsTemporaryDataInMemory
            self.walAutocheckpointPages = walAutocheckpointPages
            self.repairsDeferredIndexes = repairsDeferredIndexes
        }
    }

    /// The model the store was opened with.
    public let model: ObjectModel
    /// The database file.
    public let path: String
    /// `true` when writes are refused (requested, or the file is not writable).
    public let isReadOnly: Bool
    /// The configuration the store was opened with.
    public let configuration: Configuration
    /// The secondary indexes that opening the store rebuilt because a bulk run (a `trellis
    /// sync`) left them deferred and its process is gone (it was killed or crashed); 0 mostly.
    /// See ``Configuration/repairsDeferredIndexes`` and `SQLiteStore+DeferredIndexes.swift`.
    public let repairedDeferredIndexes: Int

    let layout: StoreLayout
    /// Recursive, so that a session opened inside another session of the same store (on the
    /// same thread) fails with an error instead of deadlocking.
    private let lock = NSRecursiveLock()
    private let connection: Connection
    /// The schema work the file still needs (``MigrationPolicy/inWriteTransactions``: until a
    /// write session commits it). Guarded by `lock`.
    private var pendingWork: SchemaWork
    /// The file was empty when opened and stays in rollback-journal mode until its first
    /// commit, which turns it to WAL. Guarded by `lock`.
    private var journalModeIsPending: Bool
    /// The change log table is known to exist (``SQLiteStore+Observation.swift``). Guarded by `lock`.
    var commitTableExists = false
    /// `PRAGMA data_version` on the connection after this store's last logged commit: while it
    /// is unchanged no other connection has committed since, and ``commitLog`` is complete.
    /// Guarded by `lock`.
    var ownCommitDataVersion: Int64?
    /// This store's own recent commits (observers read other connections' from the table).
    let commitLog = CommitLog()
    /// Observers' wake-ups, and the `data_version` poller while there are any.
    let observers: SQLiteObservers
    /// The busy handler's state once ``reportWaits(to:)`` installed it (SQLite holds a
    /// pointer to it). Guarded by `lock`.
    var waitReporter: SQLiteWaitReporter?
    /// The bulk run in progress on this store (``withBulkRun(_:)``), if any. Guarded by `lock`.
    var bulkRun: BulkRun?

    /// Opens the store file at `path` (created when missing, unless read-only) for `model`.
    ///
    /// - Throws: `StoreError` — `.notAStore` (not an SQLite database, or not a Trellis
    ///   store), `.incompatibleSchema` (the model changed in a way that cannot be migrated:
    ///   the message names every entity and property that changed), `.readOnly` (a new or
    ///   outdated store in a file that cannot be written, with ``MigrationPolicy/onOpen``),
    ///   `.busy`, `.engine`.
    public init(path: String, model: ObjectModel, configuration: Configuration = Configuration()) throws {
        self.model = model
        self.path = path
        self.configuration = configuration
        let connection = try Connection(path: path, readOnly: configuration.isReadOnly)
        self.connection = connection
        self.isReadOnly = connection.isReadOnly
        sqlite3_busy_timeout(connection.handle, Int32(clamping: configuration.busyTimeoutMilliseconds))
        let applying = configuration.migrationPolicy == .onOpen
        let isEmpty = try SQLiteStore.configure(connection, path: path, keepsJournalModeWhenEmpty: !applying, configuration: configuration)
        if configuration.repairsDeferredIndexes, !isEmpty {
            self.repairedDeferredIndexes = try SQLiteStore.repairDeferredIndexes(
                connection, path: path, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
        } else {
            self.repairedDeferredIndexes = 0
        }
        let prepared = try SQLiteStore.prepareSchema(
            connection: connection, model: model, path: path,
            modelRecord: configuration.modelRecord, applying: applying)
        self.layout = prepared.layout
        self.pendingWork = applying ? .none : prepared.work
        self.journalModeIsPending = !applying && isEmpty && !connection.isReadOnly
        // Once the file exists (a new store's is made by `configure`): the observers keep its
        // identity, to notice the file deleted or replaced under them.
        self.observers = SQLiteObservers(path: path, intervalMilliseconds: configuration.changePollIntervalMilliseconds)
    }

    // MARK: - Sessions

    /// Runs `body` in one read transaction: every fetch inside sees the same committed
    /// state, whatever other connections commit meanwhile.
    ///
    /// With ``MigrationPolicy/inWriteTransactions``, before the schema work is committed, the
    /// session reads the file as the work would leave it, without writing it (see there).
    public func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try withConnection { connection in
            try SQLiteStore.refuseNesting(connection)
            if pendingWork.changesTables {
                return try readWithPendingWork(connection, body)
            }
            try connection.execute("BEGIN DEFERRED")
            let session = SQLiteSession(
                connection: connection, layout: layout, model: model,
                isWritable: false, chunkSize: configuration.lookupChunkSize)
            defer {
                session.invalidate()
                try? connection.execute("COMMIT")
            }
            return try body(session)
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: commits when it returns, rolls
    /// back everything when it throws (the error is rethrown).
    ///
    /// With ``MigrationPolicy/inWriteTransactions``, the schema work the file still needs is
    /// done first, in the same transaction: it commits or rolls back with `body`'s changes.
    /// - Throws: `StoreError.readOnly` for a read-only store; `.busy` when another
    ///   connection holds the write lock beyond the busy timeout; `.incompatibleSchema` when
    ///   the pending migration no longer applies; whatever `body` throws.
    public func write<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        guard !isReadOnly else {
            throw StoreError(.readOnly, message: "the store \(path) is read-only")
        }
        let (result, commit) = try withConnection { connection -> (T, StoreCommit?) in
            try SQLiteStore.refuseNesting(connection)
            try connection.execute("BEGIN IMMEDIATE")
            var session: SQLiteSession?
            do {
                if pendingWork != .none { try applyPendingWork(on: connection) }
                let writeSession = SQLiteSession(
                    connection: connection, layout: layout, model: model,
                    isWritable: true, chunkSize: configuration.lookupChunkSize)
                session = writeSession
                writeSession.bulkRun = bulkRun
                let result = try body(writeSession)
                try writeSession.recreateDroppedIndexes()
                writeSession.invalidate()
                let commit = try logCommit(writeSession.commitRecord, on: connection)
                try connection.execute("COMMIT")
                if commit != nil {
                    commitTableExists = true
                    ownCommitDataVersion = try? connection.makeStatement("PRAGMA data_version").runReturningInt64()
                }
                committedPendingWork(connection)
                return (result, commit)
            } catch {
                session?.invalidate()
                if connection.isInTransaction { try? connection.execute("ROLLBACK") }
                // Statements prepared against the rolled-back schema are not kept.
                if pendingWork != .none { connection.clearStatementCache() }
                throw error
            }
        }
        if let commit {
            commitLog.append(commit)
            observers.listeners.notify()
        }
        return result
    }

    // MARK: - Deferred schema work

    /// Does the pending schema work inside the transaction open on `connection` (the
    /// file's, or a private copy's), checking it still leads to the layout the store opened with.
    private func applyPendingWork(on connection: Connection) throws(StoreError) {
        let prepared = try SQLiteStore.prepareSchemaInTransaction(
            connection: connection, model: model, path: path,
            modelRecord: configuration.modelRecord, applying: true)
        guard prepared.layout.description == layout.description else {
            throw StoreError(
                .incompatibleSchema,
                message: "the store's schema changed since \(path) was opened "
                    + "(another process migrated it); open the store again")
        }
    }

    /// After a write session committed the pending work: nothing is pending, and a file that
    /// was empty turns to WAL mode (best effort: the next store to open it does it otherwise).
    private func committedPendingWork(_ connection: Connection) {
        guard pendingWork != .none else { return }
        pendingWork = .none
        if journalModeIsPending {
            journalModeIsPending = false
            try? connection.execute("PRAGMA journal_mode = WAL")
        }
    }

    /// A read session while the file lacks tables or columns of the layout: on a writable
    /// connection, the work is applied inside a transaction that is rolled back; otherwise
    /// on a private copy of the file, made for this session and dropped after it.
    private func readWithPendingWork<T>(_ connection: Connection, _ body: (any StoreSession) throws -> T) throws -> T {
        let target: Connection
        if connection.isReadOnly {
            target = try Connection(path: "", readOnly: false)
            try connection.copy(into: target)
        } else {
            target = connection
        }
        try target.execute("BEGIN IMMEDIATE")
        defer {
            try? target.execute("ROLLBACK")
            target.clearStatementCache()
        }
        try applyPendingWork(on: target)
        let session = SQLiteSession(
            connection: target, layout: layout, model: model,
            isWritable: false, chunkSize: configuration.lookupChunkSize)
        defer { session.invalidate() }
        return try body(session)
    }

    /// Sets the connection's PRAGMAs (https://sqlite.org/pragma.html); the first statement
    /// that reads the file turns "not a database" into `.notAStore`. An empty file is left in
    /// rollback-journal mode when `keepsJournalModeWhenEmpty` (switching to WAL writes its header).
    /// - Returns: whether the file is empty (no pages).
    private static func configure(
        _ connection: Connection, path: String, keepsJournalModeWhenEmpty: Bool,
        configuration: Configuration
    ) throws(StoreError) -> Bool {
        do {
            try connection.execute("PRAGMA foreign_keys = ON")
            if configuration.keepsTemporaryDataInMemory { try connection.execute("PRAGMA temp_store = MEMORY") }
            if let pages = configuration.walAutocheckpointPages { try connection.execute("PRAGMA wal_autocheckpoint = \(max(0, pages))") }
            let isEmpty = try connection.makeStatement("PRAGMA page_count").runReturningInt64() == 0
            if !connection.isReadOnly {
                if !(isEmpty && keepsJournalModeWhenEmpty) { try connection.execute("PRAGMA journal_mode = WAL") }
                try connection.execute("PRAGMA synchronous = NORMAL")
            }
            return isEmpty
        } catch {
            guard error.code == .notAStore else { throw error }
            throw error.withCode(.notAStore, message: "\(path) is not an SQLite database")
        }
    }

    /// Sessions of one store do not nest (one connection, one transaction at a time).
    private static func refuseNesting(_ connection: Connection) throws(StoreError) {
        if connection.isInTransaction {
            throw StoreError(
                .engine,
                message: "a session of this store is already open on this thread; "
                    + "sessions do not nest (open a second SQLiteStore for a concurrent reader)")
        }
    }

    /// Runs `body` with the connection, holding the lock (for tests and tools: raw SQL).
    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }
}
