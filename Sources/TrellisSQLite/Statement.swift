import CSQLite
import Foundation
import Trellis

/// A prepared statement (https://sqlite.org/c3ref/stmt.html): positional binds, stepping,
/// typed column reads.
///
/// Text and blobs are bound with `SQLITE_TRANSIENT` (SQLite copies them during the bind
/// call), so no Swift buffer has to outlive the call. Parameter and column indexes
/// follow SQLite: parameters start at 1, columns at 0.
///
/// Owned by a ``Connection`` (cached statements) or by the code that made it; never
/// shared between threads.
final class Statement {
    let handle: OpaquePointer
    /// The SQL text, for error details.
    let sql: String
    private let database: OpaquePointer
    private var isFinalized = false

    init(handle: OpaquePointer, database: OpaquePointer, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit { finalize() }

    func finalize() {
        if !isFinalized {
            sqlite3_finalize(handle)
            isFinalized = true
        }
    }

    // MARK: - Running

    /// Resets the statement and clears its bindings (unbound parameters are NULL).
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Steps once: `true` when a row is available, `false` when done.
    /// - Throws: `StoreError` mapped from the result code, with this statement's SQL.
    @inline(__always)
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw failure(rc)
    }

    /// Steps to completion (ignoring rows) and resets, keeping bindings.
    func run() throws(StoreError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Steps once, expects a row and returns its first column as an integer, then steps
    /// to completion and resets (for `… RETURNING "_pk"` and `SELECT count(*)`).
    /// Returns nil when the statement produced no row.
    func runReturningInt64() throws(StoreError) -> Int64? {
        defer { sqlite3_reset(handle) }
        guard try step() else { return nil }
        let value = sqlite3_column_int64(handle, 0)
        while try step() {}
        return value
    }

    func failure(_ rc: Int32) -> StoreError {
        let threadErrno = errno
        let code = sqlite3_extended_errcode(database)
        let message = String(cString: sqlite3_errmsg(database))
        let systemErrno = SQLiteResult.systemErrno(database, threadErrno: threadErrno)
        sqlite3_reset(handle)
        return SQLiteResult.error(code: code == SQLITE_OK ? rc : code, message: message, sql: sql, systemErrno: systemErrno)
    }

    // MARK: - Binding

    var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    @inline(__always)
    func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }

    @inline(__always)
    func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }

    @inline(__always)
    func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }

    /// Binds `value` as TEXT with its exact UTF-8 length (NUL characters included).
    /// - Throws: `StoreError` `.valueTooLarge` when the text is longer than the store's
    ///   length limit (the value is never cut or replaced by NULL).
    @inline(__always)
    func bind(_ value: String, at index: Int32) throws(StoreError) {
        var value = value
        let rc = value.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                guard let count = Int32(exactly: text.count) else { return SQLITE_TOOBIG }
                return trellis_bind_text_transient(handle, index, text.baseAddress, count)
            }
        }
        if rc != SQLITE_OK { throw bindFailure(rc, bytes: value.utf8.count, kind: "text") }
    }

    /// Binds `value` as a BLOB; an empty `Data` becomes a zero-length BLOB, not NULL.
    /// - Throws: `StoreError` `.valueTooLarge` beyond the store's length limit.
    func bind(_ value: Data, at index: Int32) throws(StoreError) {
        if value.isEmpty {
            sqlite3_bind_zeroblob(handle, index, 0)
            return
        }
        let rc = value.withUnsafeBytes { buffer in
            guard let count = Int32(exactly: buffer.count) else { return SQLITE_TOOBIG }
            return trellis_bind_blob_transient(handle, index, buffer.baseAddress, count)
        }
        if rc != SQLITE_OK { throw bindFailure(rc, bytes: value.count, kind: "binary") }
    }

    /// Binds raw UTF-8 bytes as TEXT.
    /// - Throws: `StoreError` `.valueTooLarge` beyond the store's length limit.
    func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws(StoreError) {
        guard let count = Int32(exactly: bytes.count) else { throw bindFailure(SQLITE_TOOBIG, bytes: bytes.count, kind: "text") }
        let rc = trellis_bind_text_transient(handle, index, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), count)
        if rc != SQLITE_OK { throw bindFailure(rc, bytes: bytes.count, kind: "text") }
    }

    /// The error for a failed text or blob bind: `SQLITE_TOOBIG` (longer than
    /// `SQLITE_LIMIT_LENGTH`, https://sqlite.org/limits.html#max_length, or than 2³¹ − 1
    /// bytes) names the size and the limit.
    private func bindFailure(_ rc: Int32, bytes: Int, kind: String) -> StoreError {
        guard rc == SQLITE_TOOBIG else {
            return SQLiteResult.error(code: rc, message: String(cString: sqlite3_errstr(rc)), sql: sql)
        }
        let limit = sqlite3_limit(database, SQLITE_LIMIT_LENGTH, -1)
        return StoreError(
            .valueTooLarge, message: "a \(kind) value of \(bytes) bytes is larger than the store's limit of \(limit) bytes",
            engineCode: SQLiteResult.engineCode(rc), sql: sql)
    }

    // MARK: - Columns

    /// Number of result columns.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    @inline(__always)
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    @inline(__always)
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    @inline(__always)
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// The column as text (exact byte length, so embedded NULs survive).
    @inline(__always)
    func string(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The column as bytes (an empty BLOB gives empty `Data`).
    func data(_ column: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }
}
