import Foundation
import Trellis
import TrellisSQL

/// A ``PersistentStore`` in a PostgreSQL database (or one that speaks its protocol), reached
/// through libpq: the SQLite store's layout and semantics on a server that many processes
/// write at once. See `docs/PostgresStore.md`.
///
///     let store = try PostgresStore(connection: "postgresql://app@db.example.com/catalog", model: model)
///     let context = ObjectContext(store: store)
///     let report = try context.importObjects(from: json, entity: "Character")
///
/// - Connection: any libpq connection string (`postgresql://user@host:port/dbname?…` or
///   `host=… dbname=…`); what it leaves out comes from the `PG*` environment variables, the
///   password from `~/.pgpass`, as libpq defines them. Messages name the server as
///   `postgresql://user@host:port/dbname`, never with the password.
/// - Layout: the tables of `docs/SQLiteSchema.md` inside the PostgreSQL schema
///   ``Configuration/schema`` (default `public`), in PostgreSQL types (`bigint`, `numeric`,
///   `timestamptz`, `uuid`, `jsonb`, `bytea`), with `trellis_metadata` recording the model.
///   Additive migrations are applied automatically (in one transaction); anything else throws
///   `StoreError.incompatibleSchema` naming every change, leaving the data untouched.
/// - Transactions: each ``write(_:)`` is one transaction (`REPEATABLE READ` by default): it
///   commits when the closure returns and rolls back entirely when it throws or the
///   connection is lost. A write that fails for conflicting with a concurrent one (SQLSTATE
///   40001, 40P01) is rolled back and run again, after a randomised, growing delay, up to
///   ``Configuration/maxAttempts`` times. Each ``read(_:)`` sees one snapshot.
/// - Writes are set-based: one `INSERT … SELECT … FROM unnest(…) ON CONFLICT … DO UPDATE …
///   WHERE (…) IS DISTINCT FROM (…)` per entity, one `UPDATE … FROM unnest(…)` per set of
///   changed columns, rows sorted by key so two writers lock rows in the same order; the
///   statements of one step go out in one round trip (libpq pipeline mode).
///
/// Concurrency: the store owns one connection, confined behind a lock a session holds from
/// start to end; sessions of one store run one at a time and do not nest. Open a second
/// store for work that runs at the same time.
public final class PostgresStore: PersistentStore, @unchecked Sendable {
    // SAFETY: `connection` is neither Sendable nor thread-safe; it is only used inside
    // `withConnection`, which holds `lock` for the whole use, and no reference to it (or to a
    // session wrapping it) escapes. `pendingWork` is read and written only while `lock` is
    // held. Every other stored property is immutable and Sendable.

    /// The transaction isolation of write sessions
    /// (https://www.postgresql.org/docs/15/transaction-iso.html).
    public enum Isolation: String, Sendable, Hashable {
        /// Each statement sees what was committed before it began; a conflicting insert waits
        /// for the other transaction and then updates the row it committed.
        case readCommitted = "READ COMMITTED"
        /// One snapshot for the whole transaction; a row changed by a transaction that
        /// committed after the snapshot is a serialization failure, and the store runs the
        /// transaction again (the default).
        case repeatableRead = "REPEATABLE READ"
        /// As repeatable read, and the outcome is that of some serial order of the
        /// transactions (more conflicts, all retried).
        case serializable = "SERIALIZABLE"
    }

    /// When the database gets the schema its model needs.
    public enum MigrationPolicy: Sendable, Hashable {
        /// Opening the store creates or migrates the schema in its own transaction (the default).
        case onOpen
        /// Opening the store only checks that the schema can be migrated and writes nothing;
        /// each write session does the work first, inside its own transaction, until one
        /// commits (a session that rolls back leaves the database as it was); a read session
        /// before then does it inside a transaction it rolls back.
        case inWriteTransactions
    }

    /// How a store is opened.
    public struct Configuration: Sendable, Hashable {
        /// The PostgreSQL schema holding the store's tables (created when missing). Default
        /// nil: the connection string's `schema` parameter, else `public`.
        public var schema: String?
        /// Refuse write sessions (`.readOnly`) and never create or migrate. Default `false`.
        public var isReadOnly: Bool
        /// Isolation of write sessions. Default ``Isolation/repeatableRead``.
        public var isolation: Isolation
        /// How many times a write session runs before a conflict is reported
        /// (`.transactionConflict`); 1 disables retries. Default 10.
        public var maxAttempts: Int
        /// The delay before the second attempt, in seconds; each further one doubles it, up to
        /// 2 s, and a random part of up to the same again is added. Default 0.02.
        public var retryDelay: Double
        /// Default ``MigrationPolicy/onOpen``.
        public var migrationPolicy: MigrationPolicy
        /// While the store is observed (``ObservableStore``), how often, in seconds, the
        /// observer's own connection reads the change log although no `NOTIFY` woke it: the
        /// notification is only a wake-up, and this poll finds every commit it missed. A
        /// server that refuses `LISTEN` (CockroachDB) is polled every 0.05 s instead, if
        /// that is sooner. Default 0.5.
        public var observationPollInterval: Double
        /// The text of the model file the store is opened with (Trellis JSON model format),
        /// recorded in `trellis_metadata` key `model` when the store is created, migrated or
        /// written with a different text, and read back by ``recordedModel(connection:)``
        /// (`trellis model show postgresql://…`, an import or sync without `--model`). Default
        /// nil: the recorded text is kept while the schema stays the same, and removed when a
        /// migration changes it (it would describe the tables no more).
        public var modelRecord: String?
        /// Whether committing write sessions send `NOTIFY` (tests turn it off to show that the
        /// poll alone delivers every commit). Default `true`.
        package var notifiesCommits = true

        /// A configuration; `maxAttempts` is clamped to 1...1000, `retryDelay` to 0...10 and
        /// `observationPollInterval` to 0.001...86400.
        public init(
            schema: String? = nil, isReadOnly: Bool = false, isolation: Isolation = .repeatableRead,
            maxAttempts: Int = 10, retryDelay: Double = 0.02, migrationPolicy: MigrationPolicy = .onOpen,
            observationPollInterval: Double = 0.5, modelRecord: String? = nil
        ) {
            self.schema = schema
            self.isReadOnly = isReadOnly
            self.isolation = isolation
            self.maxAttempts = max(1, min(maxAttempts, 1000))
            self.retryDelay = retryDelay.isFinite ? max(0, min(retryDelay, 10)) : 0.02
            self.migrationPolicy = migrationPolicy
            self.observationPollInterval = observationPollInterval.isFinite ? max(0.001, min(observationPollInterval, 86_400)) : 0.5
            self.modelRecord = modelRecord
        }
    }

    /// The model the store was opened with.
    public let model: ObjectModel
    /// The configuration the store was opened with.
    public let configuration: Configuration
    /// `schema public of postgresql://user@host:port/dbname` (no password): how messages name the store.
    public let storeDescription: String
    /// The PostgreSQL schema holding the store's tables.
    public let schema: String
    /// `true` when writes are refused.
    public var isReadOnly: Bool { configuration.isReadOnly }

    let layout: PostgresLayout
    /// Whether committing write sessions send `NOTIFY` (``Configuration/notifiesCommits``,
    /// and the server took a `pg_notify` when the store was opened).
    let notifiesCommits: Bool
    /// Commit listeners and their poller (`PostgresStore+Observation.swift`).
    let observers: PostgresObservers
    private let lock = NSRecursiveLock()
    private let connection: PostgresConnection
    private var pendingWork: SchemaWork

    /// Connects to the database `connection` names and opens the store in
    /// ``Configuration/schema`` for `model`: an empty (or missing) schema gets the store's
    /// tables; a store made for an earlier model is migrated (additive changes only).
    ///
    /// - Throws: `StoreError` — `.unavailable` (cannot connect: unreachable server, wrong
    ///   password, unknown database), `.notAStore` (the schema holds tables but no Trellis
    ///   store, or a store of a newer Trellis), `.incompatibleSchema` (the model changed in a
    ///   way that cannot be migrated, or a name PostgreSQL cannot hold), `.permissionDenied`
    ///   (the role may not create the schema's tables; the message says which privilege),
    ///   `.readOnly` (a new or outdated store opened read-only), `.engine`.
    public init(connection: String, model: ObjectModel, configuration: Configuration = Configuration()) throws {
        self.model = model
        let connectionString = try ConnectionString(connection)
        var configuration = configuration
        configuration.schema = configuration.schema ?? connectionString.schema ?? "public"
        self.configuration = configuration
        let schema = configuration.schema ?? "public"
        self.schema = schema
        guard !schema.isEmpty, schema.utf8.count <= 63, !schema.utf8.contains(0) else {
            throw StoreError(
                .incompatibleSchema,
                message: "'\(schema)' cannot be a PostgreSQL schema name "
                    + "(it must have 1 to 63 bytes and no NUL character)")
        }
        let opened = try PostgresConnection(connectionString)
        self.connection = opened
        self.storeDescription = "schema \(schema) of \(opened.display)"
        let applying = configuration.migrationPolicy == .onOpen && !configuration.isReadOnly
        let prepared = try PostgresStore.prepareSchema(
            connection: opened, model: model, schema: schema, configuration: configuration,
            applying: applying, describing: storeDescription)
        if prepared.work.changesTables, configuration.isReadOnly, configuration.migrationPolicy == .onOpen {
            throw StoreError(
                .readOnly,
                message: "\(storeDescription) needs "
                    + (prepared.work == SchemaWork.creation ? "the store's tables" : "a migration for the model")
                    + " but the store is opened read-only")
        }
        self.layout = prepared.layout
        self.pendingWork = applying ? .none : prepared.work
        let channel = PostgresStore.notificationChannel(schema: schema)
        self.notifiesCommits =
            configuration.notifiesCommits && !configuration.isReadOnly
            && PostgresStore.takesNotifications(opened, channel: channel)
        self.observers = PostgresObservers(
            connection: connection,
            table: SQLText.qualified(schema, SchemaDescription.commitsTable),
            channel: channel,
            pollInterval: configuration.observationPollInterval)
    }

    /// `true` when `text` is a libpq connection string rather than a file path: a
    /// `postgresql://` or `postgres://` URI, or `key=value` pairs (`host=db dbname=catalog`).
    public static func isConnectionString(_ text: String) -> Bool {
        if text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") { return true }
        let first = text.drop { $0 == " " }.prefix { $0 != " " }
        guard let equals = first.firstIndex(of: "="), equals != first.startIndex else { return false }
        return first[..<equals].allSatisfy { $0.isLetter || $0 == "_" }
    }

    /// How messages name the database `connection` points at: `postgresql://user@host:port/dbname`
    /// from the parts the string gives, never the password (nor other parameters).
    public static func describe(connection: String) -> String {
        (try? ConnectionString(connection).display) ?? "a PostgreSQL connection string that libpq cannot parse"
    }

    /// The PostgreSQL schema `connection` names with its `schema` parameter, if any.
    public static func schemaParameter(of connection: String) -> String? {
        ConnectionString.takingSchema(from: connection).1
    }

    /// The statements that create a new store for `model` in `schema`, in order, without the
    /// trailing `;`: `trellis_metadata`, `trellis_locks`, sequences, tables, foreign keys,
    /// indexes (what `trellis schema --dialect postgresql` prints).
    /// - Throws: `StoreError` `.incompatibleSchema` for a name PostgreSQL cannot hold.
    public static func schemaStatements(for model: ObjectModel, schema: String = "public") throws -> [String] {
        let description = try SchemaDescription(model: model, previous: nil, rules: .postgreSQL)
        return PostgresSchema.systemTables(schema: schema) + PostgresSchema(description, schema: schema).createStatements
    }

    // MARK: - Sessions

    /// Runs `body` in one read-only `REPEATABLE READ` transaction: every fetch inside sees the
    /// same committed state.
    public func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try withConnection { connection in
            try refuseNesting(connection)
            try connection.reconnectIfNeeded()
            let pending = pendingWork.changesTables
            // The schema work it does and rolls back meets another process's creation as a write's would.
            if pending { try PostgresStore.lockSchemaCreation(connection: connection, schema: schema) }
            defer { if pending { PostgresStore.unlockSchemaCreation(connection: connection, schema: schema) } }
            try connection.execute(pending ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let session = PostgresSession(connection: connection, layout: layout, model: model, isWritable: false)
            defer {
                session.invalidate()
                if connection.isConnected { try? connection.execute(pending ? "ROLLBACK" : "COMMIT") }
            }
            if pending { try applyPendingWork(on: connection) }
            return try body(session)
        }
    }

    /// Runs `body` in one transaction: commits when it returns, rolls back everything when it
    /// throws. A conflict with a concurrent transaction (SQLSTATE 40001, 40P01) rolls back
    /// and runs `body` again (see ``Configuration/maxAttempts``), so `body` must be
    /// repeatable (``PersistentStore/write(_:)``).
    /// - Throws: `.readOnly` for a read-only store; `.transactionConflict` after the last
    ///   attempt; `.unavailable` when the connection is lost (nothing is committed; when it
    ///   is lost during `COMMIT` the message says the outcome is unknown); whatever `body` throws.
    public func write<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        guard !isReadOnly else {
            throw StoreError(.readOnly, message: "the store \(storeDescription) is read-only")
        }
        let (result, commit) = try withConnection { connection -> (T, StoreCommit?) in
            try refuseNesting(connection)
            var attempt = 1
            while true {
                do {
                    return try writeOnce(connection, body)
                } catch let conflict as ConflictFailure {
                    guard attempt < configuration.maxAttempts else {
                        throw PostgresStore.gaveUp(conflict.error, attempts: attempt)
                    }
                    Thread.sleep(forTimeInterval: retryDelay(before: attempt + 1))
                    attempt += 1
                }
            }
        }
        if commit != nil { observers.listeners.notify() }
        return result
    }

    private func writeOnce<T>(_ connection: PostgresConnection, _ body: (any StoreSession) throws -> T) throws -> (T, StoreCommit?) {
        try connection.reconnectIfNeeded()
        // Creating or migrating tables: one process at a time, the next seeing what the previous committed.
        let changesTables = pendingWork.changesTables
        if changesTables { try PostgresStore.lockSchemaCreation(connection: connection, schema: schema) }
        defer { if changesTables { PostgresStore.unlockSchemaCreation(connection: connection, schema: schema) } }
        try connection.execute("BEGIN ISOLATION LEVEL \(configuration.isolation.rawValue)")
        var session: PostgresSession?
        do {
            if pendingWork != .none {
                do {
                    try applyPendingWork(on: connection)
                } catch {
                    // Another process created the same tables (or schema) at the same moment:
                    // once it commits, this transaction finds them.
                    let raced = PostgresStore.creationRaces.contains(connection.lastSQLState ?? "")
                    if connection.isConnected, connection.isInTransaction { try? connection.execute("ROLLBACK") }
                    if raced { throw ConflictFailure(error: error) }
                    throw error
                }
            }
            let writeSession = PostgresSession(connection: connection, layout: layout, model: model, isWritable: true)
            session = writeSession
            let result = try body(writeSession)
            if let failure = writeSession.failure { throw failure }
            writeSession.invalidate()
            let commit = try logCommit(writeSession.commitRecord, on: connection)
            try connection.commit()
            pendingWork = .none
            return (result, commit)
        } catch {
            session?.invalidate()
            // Whatever `body` made of it, a serialization failure or deadlock of this
            // transaction's own statements means: roll back and run it again.
            let conflicted = connection.lastSQLState.map(PostgresError.retryable.contains) ?? false
            if connection.isConnected, connection.isInTransaction { try? connection.execute("ROLLBACK") }
            if conflicted { throw ConflictFailure(error: error) }
            throw error
        }
    }

    /// SQLSTATEs of DDL that met the same DDL of a concurrent transaction: duplicate table,
    /// object or schema, or the unique index of a catalog.
    static let creationRaces: Set<String> = ["42P07", "42710", "42P06", "23505", "40001", "40P01"]

    /// A write attempt that failed for a conflict with a concurrent transaction (the error as `body` threw it).
    private struct ConflictFailure: Error {
        let error: any Error
    }

    /// The delay before attempt `attempt` (2, 3, …): `retryDelay × 2^(attempt − 2)`, at most
    /// 2 s, plus a random part of up to as much again (so writers that collided spread out).
    func retryDelay(before attempt: Int) -> Double {
        let base = min(2, configuration.retryDelay * pow(2, Double(min(attempt - 2, 20))))
        return base + Double.random(in: 0...max(base, 0.000_001))
    }

    private static func gaveUp(_ error: any Error, attempts: Int) -> any Error {
        guard let store = error as? StoreError, store.code == .transactionConflict else { return error }
        return store.withMessage(
            "\(store.message) (the transaction was tried \(attempts) time"
                + "\(attempts == 1 ? "" : "s") and rolled back each time)")
    }

    /// Applies the schema work the database still needs inside the open transaction,
    /// checking it leads to the layout the store opened with.
    private func applyPendingWork(on connection: PostgresConnection) throws {
        let prepared = try PostgresStore.prepareSchemaInTransaction(
            connection: connection, model: model, schema: schema,
            configuration: configuration, applying: true,
            describing: storeDescription)
        guard prepared.layout.description == layout.description else {
            throw StoreError(
                .incompatibleSchema,
                message: "the store's schema changed since \(storeDescription) was opened "
                    + "(another process migrated it); open the store again")
        }
    }

    private func refuseNesting(_ connection: PostgresConnection) throws(StoreError) {
        if connection.isConnected, connection.isInTransaction {
            throw StoreError(
                .engine,
                message: "a session of this store is already open on this thread; "
                    + "sessions do not nest (open a second PostgresStore for concurrent work)")
        }
    }

    /// Runs `body` with the connection, holding the lock (for tests and tools: raw SQL).
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }
}
