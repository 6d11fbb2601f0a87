/// A place objects are kept: ``InMemoryStore``, `SQLiteStore`, a PostgreSQL store.
///
/// All access goes through sessions: ``read(_:)`` sees one consistent committed state
/// (a snapshot), ``write(_:)`` runs one transaction that commits when the closure returns
/// and rolls back entirely when it throws. Imports run inside one write session, so an
/// import applies completely or not at all.
///
/// Stores are reference types shared across threads; each implementation documents how it
/// confines its connection (e.g. a mutex held for the duration of a session).
public protocol PersistentStore: AnyObject, Sendable {
    /// The model the store was opened with.
    var model: ObjectModel { get }

    /// Runs `body` with a session over one consistent committed state.
    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T

    /// Runs `body` in one write transaction: commit on return, roll back on throw.
    ///
    /// A store whose transactions can fail because they conflict with concurrent ones
    /// (PostgreSQL's serialization failures and deadlocks, SQLSTATE 40001 and 40P01) rolls
    /// back and runs `body` again in a new transaction, a bounded number of times; `body`
    /// must therefore be repeatable: it starts from the same state every time and changes
    /// nothing outside the session that it does not undo when it throws (``ObjectContext``'s
    /// saves and imports are). After the last attempt the error is thrown with code
    /// ``StoreError/Code/transactionConflict``.
    func write<T>(_ body: (any StoreSession) throws -> T) throws -> T
}

/// One transaction (write) or snapshot (read) of a store. Not thread-safe; valid only
/// inside the closure that received it.
///
/// Lookups are set-based: each call is one batched query (chunked by the store below its
/// parameter limit), never one query per object.
public protocol StoreSession: AnyObject {
    /// The store's model.
    var model: ObjectModel { get }

    /// Objects of `entity` or its sub-entities whose identity attributes equal one of
    /// `identities`. Each identity has one value per identity attribute of `entity`
    /// (``ResolvedEntity/identityAttributeIndexes`` order), already coerced to the
    /// attributes' types. Order of the result is unspecified; missing identities are absent.
    func fetch(entity: String, identities: [[AttributeValue]]) throws -> [ObjectSnapshot]

    /// As ``fetch(entity:identities:)``, for an import: the to-many relationships the import
    /// never reads (``ResolvedEntity/importSkippableToManyIndexes`` of each snapshot's entity,
    /// e.g. a power's characters, the inverse of Character.powers) may come back empty instead
    /// of loaded. The importer drops the objects it fetched this way after each batch, so no
    /// caller ever sees those slots. The default implementation loads everything.
    func fetchForImport(entity: String, identities: [[AttributeValue]]) throws -> [ObjectSnapshot]

    /// Objects of `entity` or its sub-entities matching `predicate` (nil: all), ordered by object ID:
    /// the fetch request ``request(entity:matching:)`` makes of it, which every store runs alike.
    /// - Throws: `StoreError` `.unknownObject` (an unknown entity, or a name it lacks),
    ///   `.unsupportedValue` (a value that does not convert to its attribute's type); engine errors.
    func fetch(entity: String, matching predicate: StorePredicate?) throws -> [ObjectSnapshot]

    /// The objects with these IDs (missing ones are absent).
    func fetch(ids: [ObjectID]) throws -> [ObjectSnapshot]

    /// The number of objects of `entity` or its sub-entities matching `predicate`.
    /// - Throws: as ``fetch(entity:matching:)``.
    func count(entity: String, matching predicate: StorePredicate?) throws -> Int

    /// The objects a fetch request asks for: of its entity or sub-entities, matching its
    /// predicate, in its sort order (ties by object ID), from its offset, at most its limit.
    /// Every store must give the same answer as ``RequestEvaluator`` (the default
    /// implementation, which fetches every object of the entity and evaluates in memory);
    /// SQL stores compile the request instead (``SQLPredicateCompiler``).
    func fetch(_ request: ResolvedFetchRequest) throws -> [ObjectSnapshot]

    /// The number of objects matching the request's predicate (limit and offset ignored).
    func count(_ request: ResolvedFetchRequest) throws -> Int

    /// The objects ``fetch(_:)-(ResolvedFetchRequest)`` gives, in the same order, handed to
    /// `body` in consecutive batches of at most `batchSize` (the last one shorter; no call
    /// for an empty result), so that a caller writing each batch out (an export) holds one
    /// batch at a time. `body` may use the session meanwhile (fetch destinations, count).
    ///
    /// The SQLite store steps one statement through the rows, the PostgreSQL store fetches
    /// them from a cursor (`FETCH FORWARD batchSize`); both load the to-many relationships of
    /// each batch as it comes (memory: one batch of snapshots). The default implementation
    /// (the in-memory store) fetches the whole answer with ``fetch(_:)-(ResolvedFetchRequest)``,
    /// then hands it out in batches.
    /// - Throws: what the fetch throws, or what `body` throws (the fetch stops there).
    func fetch(_ request: ResolvedFetchRequest, batchSize: Int, _ body: ([ObjectSnapshot]) throws -> Void) throws

    /// As ``fetch(ids:)``, for an export: the to-many relationships that no JSON key path
    /// maps and that an import therefore never reads either
    /// (``ResolvedEntity/importSkippableToManyIndexes``: a power's characters, the inverse
    /// of Character.powers) may come back empty instead of loaded. The exporter drops the
    /// objects it fetched this way after each batch, so no caller ever sees those slots. The
    /// default implementation loads everything.
    func fetchForExport(ids: [ObjectID]) throws -> [ObjectSnapshot]

    /// Writes `changes` (write sessions only) and returns the permanent ID of every
    /// inserted object that had a temporary one.
    /// - Throws: `StoreError` (`.readOnly` in a read session, `.constraintViolation`, …).
    func apply(_ changes: ChangeSet) throws -> [ObjectID: ObjectID]

    // MARK: Metadata

    /// The text stored under `key` in the store's metadata, as of this session's snapshot or
    /// transaction (nil when absent).
    ///
    /// Metadata is a small key → text map kept by the store beside its objects, for callers
    /// that must record something *with* the objects: `TrellisSync` keeps each resource's
    /// checkpoint here, written in the same write session as the page's objects, so both commit
    /// or roll back together. Keys are the caller's (`sync/heroes`); they never collide with the
    /// store's own bookkeeping (the SQLite store keeps them in `trellis_metadata` under the
    /// prefix `user:`, the PostgreSQL store in its metadata table likewise).
    /// - Throws: `StoreError` (`.unsupported` from a store that keeps no metadata).
    func metadataValue(forKey key: String) throws -> String?

    /// Stores `value` under `key` (nil removes the key), inside this write session's
    /// transaction: it is visible to the session at once and commits or rolls back with the
    /// session's object changes.
    /// - Parameters:
    ///   - value: any text (the store keeps it exactly, up to its text length limit).
    ///   - key: a non-empty key chosen by the caller.
    /// - Throws: `StoreError` `.readOnly` in a read session; `.unsupported` from a store that
    ///   keeps no metadata; engine errors.
    func setMetadataValue(_ value: String?, forKey key: String) throws

    /// Serialises this write transaction, until it ends, with the other transactions that
    /// lock the same `scope`: an `exclusive` lock waits for and excludes every other holder;
    /// shared locks exclude only exclusive ones. An import locks the inheritance hierarchy
    /// it imports (`import Character`), exclusively when it deletes what its payload lacks,
    /// so such an import never interleaves with another import of the same objects.
    ///
    /// A store whose writers are serialised anyway (SQLite's single writer, the in-memory
    /// store's lock) does nothing: the default implementation. The PostgreSQL store locks a
    /// row (`SELECT … FOR SHARE` / `FOR UPDATE` in `trellis_locks`), not an advisory lock.
    /// - Throws: `StoreError` (`.readOnly` in a read session).
    func lock(scope: String, exclusive: Bool) throws

    // MARK: Origin and outbox

    /// Where the changes this session applies come from (``ChangeOrigin``). A new session's is
    /// ``ChangeOrigin/import``; ``ObjectContext`` sets it before it applies a save or an import.
    /// While it is ``ChangeOrigin/local``, every ``apply(_:)`` records its changes to objects in
    /// the outbox (`trellis_outbox`) in the same transaction, by ``pushRules`` (see ``OutboxEntry``).
    var origin: ChangeOrigin { get set }

    /// Which entities' local changes are pushable, and their stamp attributes (``PushRules``);
    /// read by ``apply(_:)`` while ``origin`` is ``ChangeOrigin/local``. Default ``PushRules/init(pushableEntities:stampAttributes:)``.
    var pushRules: PushRules { get set }

    /// Every outbox row, by ``OutboxEntry/sequence`` (empty when nothing was recorded).
    /// - Throws: `StoreError` (`.unsupported` from a store that keeps no outbox; engine errors,
    ///   `.engine` for a row that cannot be read).
    func outboxEntries() throws -> [OutboxEntry]

    /// Every tombstone of an acknowledged delete (``Tombstone``), by entity and server identity
    /// (empty when there is none).
    /// - Throws: `StoreError` (`.unsupported` from a store that keeps no outbox; engine errors).
    func tombstoneEntries() throws -> [Tombstone]
}

extension StoreSession {
    /// Evaluates the request in memory over every object of its entity (see ``RequestEvaluator``).
    public func fetch(_ request: ResolvedFetchRequest) throws -> [ObjectSnapshot] {
        let candidates = try fetch(entity: request.entity.name, matching: nil)
        return try RequestEvaluator(request, lookup: { try self.fetch(ids: [$0]).first }).run(candidates)
    }

    /// Evaluates the request in memory over every object of its entity.
    public func count(_ request: ResolvedFetchRequest) throws -> Int {
        let candidates = try fetch(entity: request.entity.name, matching: nil)
        return try RequestEvaluator(request, lookup: { try self.fetch(ids: [$0]).first }).count(candidates)
    }

    /// ``fetch(_:)-(ResolvedFetchRequest)``, then `body` once per slice of `batchSize` snapshots.
    public func fetch(_ request: ResolvedFetchRequest, batchSize: Int, _ body: ([ObjectSnapshot]) throws -> Void) throws {
        let snapshots = try fetch(request)
        let size = max(1, batchSize)
        var start = 0
        while start < snapshots.count {
            let end = min(start + size, snapshots.count)
            try body(Array(snapshots[start..<end]))
            start = end
        }
    }

    /// Loads everything (``fetch(ids:)``).
    public func fetchForExport(ids: [ObjectID]) throws -> [ObjectSnapshot] {
        try fetch(ids: ids)
    }

    /// Loads everything (``fetch(entity:identities:)``).
    public func fetchForImport(entity: String, identities: [[AttributeValue]]) throws -> [ObjectSnapshot] {
        try fetch(entity: entity, identities: identities)
    }

    /// Throws `.unsupported`: a store that keeps metadata implements it (the in-memory and
    /// SQLite stores do).
    public func metadataValue(forKey key: String) throws -> String? {
        throw StoreError(.unsupported, message: "this store keeps no metadata (\(type(of: self)))")
    }

    /// Throws `.unsupported`: a store that keeps metadata implements it.
    public func setMetadataValue(_ value: String?, forKey key: String) throws {
        throw StoreError(.unsupported, message: "this store keeps no metadata (\(type(of: self)))")
    }

    /// Throws `.unsupported`: a store that keeps an outbox implements it (the in-memory, SQLite
    /// and PostgreSQL stores do).
    public func outboxEntries() throws -> [OutboxEntry] {
        throw StoreError(.unsupported, message: "this store keeps no outbox (\(type(of: self)))")
    }

    /// Throws `.unsupported`: a store that keeps an outbox implements it.
    public func tombstoneEntries() throws -> [Tombstone] {
        throw StoreError(.unsupported, message: "this store keeps no outbox (\(type(of: self)))")
    }

    /// Nothing: writers of this store are serialised already (see ``StoreSession/lock(scope:exclusive:)``).
    public func lock(scope: String, exclusive: Bool) throws {}
}

extension PersistentStore {
    /// The store's outbox: every row, by sequence, as one read session sees it
    /// (``StoreSession/outboxEntries()``). Each row is one local change waiting to be pushed
    /// (``OutboxEntry``: entity and object, server identity, operation, changed fields, base
    /// stamp, idempotency key, state, attempts, last error).
    ///
    ///     try context.save()                       // a context of origin .local (the default)
    ///     let rows = try store.outbox()            // [OutboxEntry(operation: .update, fields: ["name"], state: .pending, …)]
    ///
    /// - Throws: as ``StoreSession/outboxEntries()``.
    public func outbox() throws -> [OutboxEntry] {
        try read { try $0.outboxEntries() }
    }

    /// The store's tombstones of acknowledged deletes (``StoreSession/tombstoneEntries()``):
    /// what keeps a pull from bringing a deleted object back until the watermark passes it.
    ///
    ///     let report = try synchronizer.push()     // a local delete acknowledged
    ///     try store.tombstones()                   // [Tombstone(entityName: "Hero", serverIdentity: ["h00042"], stamp: "2024-…Z", …)]
    ///
    /// - Throws: as ``StoreSession/tombstoneEntries()``.
    public func tombstones() throws -> [Tombstone] {
        try read { try $0.tombstoneEntries() }
    }
}

/// A store failure, with the engine's facts kept as fields (as GRDB's `DatabaseError` and
/// PostgresNIO's `PSQLError` keep them): the engine's own code (SQLite's extended result code,
/// https://sqlite.org/rescode.html; PostgreSQL's SQLSTATE,
/// https://www.postgresql.org/docs/current/errcodes-appendix.html), the SQL text, and the
/// constraint, table, column and hint the engine names. ``description`` renders them after
/// the message:
///
///     catch let error as StoreError where error.code == .constraintViolation {
///         error.engineCode     // .sqlState("23505")
///         error.constraint     // "Hero_identity"
///         print(error)         // duplicate key value violates … (SQLSTATE 23505; constraint "Hero_identity"; table "Hero"; SQL: INSERT …)
///     }
///
/// Bound values are never kept (they may be secrets or personal data): the SQL text has
/// placeholders, and PostgreSQL's DETAIL field, which quotes values, is left out.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A write in a read session or on a read-only store file.
        public static let readOnly = Code(rawValue: "readOnly")
        /// A uniqueness, not-null or foreign-key constraint failed.
        public static let constraintViolation = Code(rawValue: "constraintViolation")
        /// The store's recorded schema cannot be migrated to the model.
        public static let incompatibleSchema = Code(rawValue: "incompatibleSchema")
        /// The file is not a store (not a database, or not one Trellis made).
        public static let notAStore = Code(rawValue: "notAStore")
        /// An object ID or entity the store does not know.
        public static let unknownObject = Code(rawValue: "unknownObject")
        /// The database is locked by another writer beyond the busy timeout.
        public static let busy = Code(rawValue: "busy")
        /// A write failed for lack of space: the disk or file system is full, or a quota or
        /// file size limit (`ulimit -f`) was reached. The transaction was rolled back.
        public static let diskFull = Code(rawValue: "diskFull")
        /// A text or binary value (or a row) is larger than the store accepts (SQLite: the
        /// length limit, 1,000,000,000 bytes unless configured lower).
        public static let valueTooLarge = Code(rawValue: "valueTooLarge")
        /// The store does not implement the operation (e.g. metadata in a store that keeps none).
        public static let unsupported = Code(rawValue: "unsupported")

        /// The database server cannot be reached, refused the connection (a wrong password, an
        /// unknown role or database), or the connection was lost; an open transaction was not
        /// committed (PostgreSQL).
        public static let unavailable = Code(rawValue: "unavailable")
        /// The transaction conflicted with concurrent ones (a serialization failure or a
        /// deadlock, PostgreSQL SQLSTATE 40001 / 40P01) as many times as the store retries it,
        /// and was rolled back; running it again later may succeed.
        public static let transactionConflict = Code(rawValue: "transactionConflict")
        /// The database role lacks a privilege the operation needs (PostgreSQL SQLSTATE
        /// 42501: CREATE on the schema, SELECT or INSERT on a table); the message names it.
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// A value the store's engine cannot hold (PostgreSQL: text containing U+0000, a
        /// date outside `timestamptz`'s range); the message names the entity and attribute.
        public static let unsupportedValue = Code(rawValue: "unsupportedValue")
        /// Any other engine error.
        public static let engine = Code(rawValue: "engine")

        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StoreError)?.code == code
        }
    }

    /// The engine's own code for a failure, kept as the engine gave it.
    public enum EngineCode: Sendable, Hashable, CustomStringConvertible {
        /// An SQLite result code (primary or extended: 2067 is `SQLITE_CONSTRAINT_UNIQUE`)
        /// and its text (`sqlite3_errstr`: "constraint failed").
        case sqlite(Int32, name: String)
        /// A PostgreSQL SQLSTATE (`23505`).
        case sqlState(String)

        /// `SQLite result code 2067 (constraint failed)`, `SQLSTATE 23505`.
        public var description: String {
            switch self {
            case .sqlite(let code, let name): return "SQLite result code \(code) (\(name))"
            case .sqlState(let state): return "SQLSTATE \(state)"
            }
        }
    }

    public let code: Code
    public let message: String
    /// The engine's code, when the engine reported the failure.
    public let engineCode: EngineCode?
    /// The SQL text of the failed statement (placeholders, never values).
    public let sql: String?
    /// The constraint, table and column the engine names (PostgreSQL's error fields).
    public let constraint: String?
    public let table: String?
    public let column: String?
    /// The engine's hint (PostgreSQL's HINT field).
    public let hint: String?
    /// Anything else worth saying that is not a fact above; never bound values.
    public let details: String?

    public init(
        _ code: Code, message: String, details: String? = nil, engineCode: EngineCode? = nil, sql: String? = nil,
        constraint: String? = nil, table: String? = nil, column: String? = nil, hint: String? = nil
    ) {
        self.code = code
        self.message = message
        self.details = details
        self.engineCode = engineCode
        self.sql = sql
        self.constraint = constraint
        self.table = table
        self.column = column
        self.hint = hint
    }

    /// The same failure (code and facts) said with `message` (a caller adding what it was doing).
    public func withMessage(_ message: String) -> StoreError {
        withCode(code, message: message)
    }

    /// The same facts under another code and `message`.
    public func withCode(_ code: Code, message: String) -> StoreError {
        StoreError(
            code, message: message, details: details, engineCode: engineCode, sql: sql, constraint: constraint, table: table,
            column: column, hint: hint)
    }

    /// The facts after the message, in parentheses: `message (SQLSTATE 23505; constraint
    /// "c"; table "t"; column "x"; hint: …; details; SQL: …)`; SQLite's as `message (SQLite
    /// result code 2067 (constraint failed); SQL: …)`.
    public var description: String {
        var facts: [String] = []
        if let engineCode { facts.append(engineCode.description) }
        if let constraint { facts.append("constraint \(Self.quoted(constraint))") }
        if let table { facts.append("table \(Self.quoted(table))") }
        if let column { facts.append("column \(Self.quoted(column))") }
        if let hint { facts.append("hint: \(hint)") }
        if let details { facts.append(details) }
        if let sql { facts.append("SQL: \(sql)") }
        return facts.isEmpty ? message : "\(message) (\(facts.joined(separator: "; ")))"
    }

    /// `name` in double quotes, inner quotes doubled (as SQL writes an identifier).
    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
