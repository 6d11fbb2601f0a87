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
///   naming the entity and property, leaving the file untouched;
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
    // session wrapping it) escapes the closure. Every other stored property is immutable
    // and Sendable.

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

        /// A configuration; `lookupChunkSize` is clamped to 1...8000.
        public init(isReadOnly: Bool = false, busyTimeoutMilliseconds: Int = 5000, lookupChunkSize: Int = 500) {
            self.isReadOnly = isReadOnly
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.lookupChunkSize = max(1, min(lookupChunkSize, 8000))
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

    let layout: StoreLayout
    /// Recursive, so that a session opened inside another session of the same store (on the
    /// same thread) fails with an error instead of deadlocking.
    private let lock = NSRecursiveLock()
    private let connection: Connection

    /// Opens the store file at `path` (created when missing, unless read-only) for `model`.
    ///
    /// - Throws: `StoreError` — `.notAStore` (not an SQLite database, or not a Trellis
    ///   store), `.incompatibleSchema` (the model changed in a way that cannot be migrated:
    ///   the message names the entity and property), `.readOnly` (a new or outdated store
    ///   in a file that cannot be written), `.busy`, `.engine`.
    public init(path: String, model: ObjectModel, configuration: Configuration = Configuration()) throws {
        self.model = model
        self.path = path
        self.configuration = configuration
        let connection = try Connection(path: path, readOnly: configuration.isReadOnly)
        self.connection = connection
        self.isReadOnly = connection.isReadOnly
        sqlite3_busy_timeout(connection.handle, Int32(clamping: configuration.busyTimeoutMilliseconds))
        try SQLiteStore.configure(connection, path: path)
        self.layout = try SQLiteStore.prepareSchema(connection: connection, model: model, path: path)
    }

    // MARK: - Sessions

    /// Runs `body` in one read transaction: every fetch inside sees the same committed
    /// state, whatever other connections commit meanwhile.
    public func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try withConnection { connection in
            try SQLiteStore.refuseNesting(connection)
            try connection.execute("BEGIN DEFERRED")
            let session = SQLiteSession(connection: connection, layout: layout, model: model,
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
    /// - Throws: `StoreError.readOnly` for a read-only store; `.busy` when another
    ///   connection holds the write lock beyond the busy timeout; whatever `body` throws.
    public func write<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        guard !isReadOnly else {
            throw StoreError(.readOnly, message: "the store \(path) is read-only")
        }
        return try withConnection { connection in
            try SQLiteStore.refuseNesting(connection)
            try connection.execute("BEGIN IMMEDIATE")
            let session = SQLiteSession(connection: connection, layout: layout, model: model,
                                        isWritable: true, chunkSize: configuration.lookupChunkSize)
            do {
                let result = try body(session)
                try session.recreateDroppedIndexes()
                session.invalidate()
                try connection.execute("COMMIT")
                return result
            } catch {
                session.invalidate()
                if connection.isInTransaction { try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// Sets the connection's PRAGMAs (https://sqlite.org/pragma.html); the first statement
    /// that reads the file turns "not a database" into `.notAStore`.
    private static func configure(_ connection: Connection, path: String) throws(StoreError) {
        let statements = connection.isReadOnly
            ? ["PRAGMA foreign_keys = ON", "SELECT count(*) FROM sqlite_master"]
            : ["PRAGMA foreign_keys = ON", "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL"]
        for sql in statements {
            do {
                try connection.execute(sql)
            } catch {
                guard error.code == .notAStore else { throw error }
                throw StoreError(.notAStore, message: "\(path) is not an SQLite database", details: error.details)
            }
        }
    }

    /// Sessions of one store do not nest (one connection, one transaction at a time).
    private static func refuseNesting(_ connection: Connection) throws(StoreError) {
        if connection.isInTransaction {
            throw StoreError(.engine, message: "a session of this store is already open on this thread; "
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
