import CSQLite
import Foundation
import Trellis

/// One open SQLite database connection (https://sqlite.org/c3ref/sqlite3.html) and its
/// cache of prepared statements.
///
/// A connection is not thread-safe and is deliberately not `Sendable`: ``SQLiteStore``
/// owns exactly one and reaches it only while holding its lock, for the duration of one
/// session.
///
/// Statements are cached by SQL text and prepared with `SQLITE_PREPARE_PERSISTENT`
/// (https://sqlite.org/c3ref/c_prepare_normalize.html), so a statement that runs once
/// per object is compiled once per connection.
final class Connection {
    /// The `sqlite3*` handle; valid until `deinit`.
    let handle: OpaquePointer
    /// The database file path, for messages.
    let path: String
    /// `true` when the connection was opened for reading only, or SQLite opened the file
    /// read-only (`sqlite3_db_readonly`) because the file or its directory is not writable.
    let isReadOnly: Bool

    private var statements: [String: Statement] = [:]
    /// Statements of queries compiled from predicates (``cachedQueryStatement(_:)``), by SQL,
    /// and their SQL from the least to the most recently used.
    private var queryStatements: [String: Statement] = [:]
    private var queryStatementUse: [String] = []

    /// How many query statements stay prepared: a query's SQL follows its predicate's shape
    /// (and the lengths of its literal lists), so an unbounded cache would grow with every
    /// new shape a long-running process is asked (`trellis watch`, an app's search field).
    static let queryStatementCapacity = 64

    /// Opens (or creates, unless `readOnly`) the database file at `path`.
    ///
    /// A read-only connection leaves no file behind that was not there: reading a WAL-mode
    /// database opens its `-wal` and `-shm` files, creating them when missing, and only a
    /// connection that may write deletes them when it is the last to close
    /// (https://sqlite.org/wal.html, "The WAL file" and "Read-only databases"). So when
    /// neither they nor a rollback `-journal` exist and the file and its directory are
    /// writable, a read-only connection is opened read-write with `PRAGMA query_only`
    /// (https://sqlite.org/pragma.html#pragma_query_only): it writes no data, and closing it
    /// last removes the files its reads created. Otherwise it is `SQLITE_OPEN_READONLY`, and
    /// the files someone else created stay theirs. A WAL-mode database whose directory cannot
    /// be written and that has neither file (a store shipped read-only: an app bundle, a
    /// read-only mount) cannot be read that way, because SQLite must create its `-shm` file;
    /// it is opened `immutable=1` instead (https://sqlite.org/wal.html#readonly, "or the
    /// database is immutable"; https://sqlite.org/uri.html#uriimmutable): nothing can have
    /// written a WAL beside it, so its file is all of it.
    ///
    /// - Throws: `StoreError` `.notAStore` when the file cannot be opened as a database,
    ///   `.readOnly` when a read-only file must be created, `.engine` otherwise.
    init(path: String, readOnly: Bool) throws(StoreError) {
        var db: OpaquePointer?
        let queryOnly = readOnly && Connection.opensLeavingNoFiles(path)
        let immutable = readOnly && !queryOnly && Connection.isUnwritableWALDatabase(path)
        let flags =
            (readOnly && !queryOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE)
            | (readOnly ? 0 : SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
            | (immutable ? SQLITE_OPEN_URI : 0)
        let rc = sqlite3_open_v2(immutable ? Connection.immutableURI(path) : path, &db, flags, nil)
        guard let db else {
            throw StoreError(.engine, message: "cannot open \(path): out of memory", engineCode: SQLiteResult.engineCode(rc))
        }
        guard rc == SQLITE_OK else {
            let systemErrno = SQLiteResult.systemErrno(db, threadErrno: errno)
            let message = String(cString: sqlite3_errmsg(db))
            sqlite3_close_v2(db)
            throw SQLiteResult.error(code: rc, message: "cannot open \(path): \(message)", sql: nil, systemErrno: systemErrno)
        }
        self.handle = db
        self.path = path
        self.isReadOnly = readOnly || sqlite3_db_readonly(db, "main") == 1
        SQLiteTextFunction.register(on: db)
        SQLiteDecimalCollation.register(on: db)
        if queryOnly { try execute("PRAGMA query_only = ON") }
    }

    /// Whether a read-only connection to `path` may be opened read-write (`query_only`) so
    /// that closing it removes the `-wal` and `-shm` files its reads create: none of them,
    /// nor a `-journal`, exists now (another connection's, or a crashed writer's, stay as
    /// they are), and the file and its directory are writable.
    private static func opensLeavingNoFiles(_ path: String) -> Bool {
        guard let directory = fileWithoutSideFiles(path) else { return false }
        return access(path, W_OK) == 0 && access(directory, W_OK) == 0
    }

    /// Whether `path` is a WAL-mode database (its header's read and write versions are 2,
    /// https://sqlite.org/fileformat2.html#the_database_header) with no `-wal`, `-shm` or
    /// `-journal` beside it, in a directory this process cannot write.
    private static func isUnwritableWALDatabase(_ path: String) -> Bool {
        guard let directory = fileWithoutSideFiles(path), access(directory, W_OK) != 0 else { return false }
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        guard let header = try? file.read(upToCount: 20), header.count == 20 else { return false }
        return header[header.startIndex + 18] == 2 && header[header.startIndex + 19] == 2
    }

    /// The directory of the database file `path` (`.` for a bare name) when none of its
    /// `-wal`, `-shm` or `-journal` files exists; nil for those, and for URIs, `:memory:` and
    /// temporary databases (an empty path).
    private static func fileWithoutSideFiles(_ path: String) -> String? {
        guard !path.isEmpty, !path.hasPrefix("file:"), path != ":memory:" else { return nil }
        let manager = FileManager.default
        for suffix in ["-wal", "-shm", "-journal"] where manager.fileExists(atPath: path + suffix) { return nil }
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    /// `file:PATH?immutable=1`, the path's `%`, `?` and `#` percent-encoded (https://sqlite.org/uri.html).
    private static func immutableURI(_ path: String) -> String {
        var encoded = ""
        for character in path {
            switch character {
            case "%": encoded += "%25"
            case "?": encoded += "%3f"
            case "#": encoded += "%23"
            default: encoded.append(character)
            }
        }
        return "file:" + encoded + "?immutable=1"
    }

    deinit {
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        for statement in queryStatements.values { statement.finalize() }
        queryStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: - Running SQL

    /// Runs one or more `;`-separated statements without results (DDL, PRAGMAs, BEGIN/COMMIT).
    /// Never pass text containing values: `execute` binds nothing.
    func execute(_ sql: String) throws(StoreError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let threadErrno = errno
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw SQLiteResult.error(
                code: sqlite3_extended_errcode(handle), message: message, sql: sql,
                systemErrno: SQLiteResult.systemErrno(handle, threadErrno: threadErrno))
        }
    }

    /// The cached prepared statement for `sql`, reset and with its bindings cleared
    /// (prepared on first use with `SQLITE_PREPARE_PERSISTENT`).
    func cachedStatement(_ sql: String) throws(StoreError) -> Statement {
        if let statement = statements[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql, persistent: true)
        statements[sql] = statement
        return statement
    }

    /// As ``cachedStatement(_:)``, for the SQL of a query compiled from a predicate: at most
    /// ``queryStatementCapacity`` of them stay prepared, the least recently used is released
    /// first (and finalized once its last user lets it go).
    func cachedQueryStatement(_ sql: String) throws(StoreError) -> Statement {
        if let statement = queryStatements[sql] {
            statement.reset()
            if queryStatementUse.last != sql, let i = queryStatementUse.lastIndex(of: sql) {
                queryStatementUse.remove(at: i)
                queryStatementUse.append(sql)
            }
            return statement
        }
        let statement = try prepare(sql, persistent: true)
        queryStatements[sql] = statement
        queryStatementUse.append(sql)
        if queryStatementUse.count > Connection.queryStatementCapacity {
            queryStatements[queryStatementUse.removeFirst()] = nil
        }
        return statement
    }

    /// Rows stepped through in full table scans so far by the cached statements whose SQL
    /// starts with `prefix` (`sqlite3_stmt_status(…, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0)`,
    /// https://sqlite.org/c3ref/c_stmtstatus_counter.html). An `INSERT` that scans is one
    /// checking deferred foreign keys against an unindexed child column (``InsertOrder``).
    func fullScanSteps(ofStatementsStartingWith prefix: String) -> Int {
        var steps = 0
        for (sql, statement) in statements where sql.hasPrefix(prefix) {
            steps += Int(sqlite3_stmt_status(statement.handle, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0))
        }
        return steps
    }

    /// A new, uncached statement for `sql`; finalized when released.
    func makeStatement(_ sql: String) throws(StoreError) -> Statement {
        try prepare(sql, persistent: false)
    }

    /// The SQL text of the cached statements (for tests and diagnostics).
    var cachedSQL: [String] { Array(statements.keys) + queryStatementUse }

    /// Finalizes every cached statement (needed before schema changes are seen by
    /// old statements; SQLite re-prepares them itself, this just frees memory).
    func clearStatementCache() {
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        for statement in queryStatements.values { statement.finalize() }
        queryStatements.removeAll()
        queryStatementUse.removeAll()
    }

    /// Copies the whole database into `destination` (an empty database) with the online
    /// backup API (https://sqlite.org/backup.html), in one step: the copy is one committed
    /// state of this database, read in one read transaction.
    /// - Throws: `StoreError` for SQLite's result (`.busy` when a lock could not be had).
    func copy(into destination: Connection) throws(StoreError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw SQLiteResult.error(
                code: sqlite3_extended_errcode(destination.handle),
                message: "cannot copy \(path): " + String(cString: sqlite3_errmsg(destination.handle)), sql: nil)
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        let rc = stepped == SQLITE_DONE ? finished : stepped
        guard rc == SQLITE_OK || rc == SQLITE_DONE else {
            throw SQLiteResult.error(
                code: rc, message: "cannot copy \(path): " + String(cString: sqlite3_errstr(rc)), sql: nil,
                systemErrno: SQLiteResult.systemErrno(handle, threadErrno: errno))
        }
    }

    /// The rowid of the last row inserted on this connection (https://sqlite.org/c3ref/last_insert_rowid.html).
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Sets ``lastInsertRowID`` to 0 (https://sqlite.org/c3ref/set_last_insert_rowid.html): the
    /// value is the connection's, across tables, so an insert that inserts nothing would
    /// otherwise leave the rowid of the previous insert into any table.
    func clearLastInsertRowID() { sqlite3_set_last_insert_rowid(handle, 0) }

    /// Rows changed by the last INSERT/UPDATE/DELETE (https://sqlite.org/c3ref/changes.html).
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Rows changed since the connection opened (https://sqlite.org/c3ref/total_changes.html).
    var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

    /// `true` while a transaction is open (https://sqlite.org/c3ref/get_autocommit.html).
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: - Internals

    private func prepare(_ sql: String, persistent: Bool) throws(StoreError) -> Statement {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sql.withCString { sqlite3_prepare_v3(handle, $0, -1, flags, &statement, nil) }
        guard rc == SQLITE_OK, let statement else {
            throw SQLiteResult.error(
                code: rc == SQLITE_OK ? SQLITE_MISUSE : sqlite3_extended_errcode(handle),
                message: rc == SQLITE_OK ? "empty SQL statement" : String(cString: sqlite3_errmsg(handle)),
                sql: sql, systemErrno: SQLiteResult.systemErrno(handle, threadErrno: errno))
        }
        return Statement(handle: statement, database: handle, sql: sql)
    }
}

@available(*, unavailable, message: "a Connection is confined to its store's lock")
extension Connection: Sendable {}

/// Maps SQLite result codes (https://sqlite.org/rescode.html) to ``StoreError``.
enum SQLiteResult {
    /// The `StoreError` for result code `code` (primary or extended): `SQLITE_BUSY` and
    /// `SQLITE_LOCKED` → `.busy`, `SQLITE_CONSTRAINT` → `.constraintViolation`,
    /// `SQLITE_READONLY` → `.readOnly`, `SQLITE_NOTADB` → `.notAStore`, `SQLITE_FULL` (and
    /// an I/O error whose system error is `ENOSPC`, `EDQUOT` or `EFBIG`) → `.diskFull`,
    /// `SQLITE_TOOBIG` → `.valueTooLarge`, anything else → `.engine`. The error keeps the
    /// result code and its name (``StoreError/engineCode``) and the SQL text, never values.
    ///
    /// `systemErrno` is `sqlite3_system_errno` (https://sqlite.org/c3ref/system_errno.html):
    /// for an I/O or cannot-open error the operating system's reason is added to
    /// the message (`disk I/O error: File too large`), since SQLite's own message does not
    /// say what failed.
    static func error(code: Int32, message: String, sql: String?, systemErrno: Int32 = 0) -> StoreError {
        let primary = code & 0xff
        let storeCode: StoreError.Code
        switch primary {
        case SQLITE_BUSY, SQLITE_LOCKED: storeCode = .busy
        case SQLITE_CONSTRAINT: storeCode = .constraintViolation
        case SQLITE_READONLY: storeCode = .readOnly
        case SQLITE_NOTADB: storeCode = .notAStore
        case SQLITE_FULL: storeCode = .diskFull
        case SQLITE_TOOBIG: storeCode = .valueTooLarge
        case SQLITE_IOERR where systemErrno == ENOSPC || systemErrno == EDQUOT || systemErrno == EFBIG: storeCode = .diskFull
        default: storeCode = .engine
        }
        var message = message
        // SQLite records the system error for I/O and cannot-open errors only (for
        // SQLITE_FULL it may be stale).
        if systemErrno != 0, primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN {
            message += ": " + String(cString: strerror(systemErrno))
        }
        return StoreError(storeCode, message: message, engineCode: engineCode(code), sql: sql)
    }

    /// The operating system's error behind the connection's last I/O error:
    /// `sqlite3_system_errno`, or, when SQLite did not record one (it does not for a
    /// failed `COMMIT`), the thread's `errno` read right after the failing call if that is
    /// a lack of space (`ENOSPC`, `EDQUOT`, `EFBIG`), which only a failed write sets.
    static func systemErrno(_ db: OpaquePointer, threadErrno: Int32) -> Int32 {
        let recorded = sqlite3_system_errno(db)
        if recorded != 0 { return recorded }
        return threadErrno == ENOSPC || threadErrno == EDQUOT || threadErrno == EFBIG ? threadErrno : 0
    }

    /// The result code `code` and its text (`sqlite3_errstr`), as ``StoreError`` keeps it.
    static func engineCode(_ code: Int32) -> StoreError.EngineCode {
        .sqlite(code, name: String(cString: sqlite3_errstr(code)))
    }
}
