import CLibPQ
import Foundation
import Trellis

/// One libpq connection (`PGconn`, https://www.postgresql.org/docs/15/libpq-connect.html) with
/// its prepared statements.
///
/// Not thread-safe and deliberately not `Sendable`: ``PostgresStore`` owns one and reaches it
/// only while holding its lock, for the duration of one session.
///
/// Every statement with parameters is prepared once per connection (`PQprepare`, named
/// `trellis_1`, `trellis_2`, … and cached by SQL text) and run with binary parameters and
/// binary results (`PQexecPrepared`). ``pipeline(_:)`` sends several statements before
/// reading any result (libpq pipeline mode,
/// https://www.postgresql.org/docs/15/libpq-pipeline-mode.html): one network round trip
/// for all of them.
final class PostgresConnection {
    private(set) var handle: OpaquePointer
    let connectionString: ConnectionString
    /// `postgresql://user@host:port/dbname` as libpq resolved it (no password).
    private(set) var display: String
    private var prepared: [String: String] = [:]
    private var preparedCount = 0
    /// The SQLSTATE of the last failed statement (nil after a success or a client-side failure).
    private(set) var lastSQLState: String?

    /// Connects. Parameters the string leaves out come from `PG*` variables and `~/.pgpass`;
    /// the client encoding is UTF-8 whatever they say; `connect_timeout` defaults to 10 s
    /// (unless `PGCONNECT_TIMEOUT` or the string sets it).
    /// `applicationName` is the `application_name` the server shows (`pg_stat_activity`)
    /// unless the string or `PGAPPNAME` sets one (cut to 63 bytes, as the server would).
    /// - Throws: `StoreError` `.unavailable` (unreachable server, refused credentials,
    ///   unknown database), with libpq's reason; never the password.
    init(_ connectionString: ConnectionString, applicationName: String = "trellis") throws(StoreError) {
        self.connectionString = connectionString
        var name = ""
        for character in applicationName where name.utf8.count + String(character).utf8.count <= 63 { name.append(character) }
        var keywords: [String] = ["fallback_application_name"]
        var values: [String] = [name]
        if ProcessInfo.processInfo.environment["PGCONNECT_TIMEOUT"] == nil {
            keywords.append("connect_timeout")
            values.append("10")
        }
        keywords += ["dbname", "client_encoding"]
        values += [connectionString.text, "UTF8"]
        let connection = PostgresConnection.connect(keywords: keywords, values: values)
        guard let connection else {
            throw StoreError(.unavailable, message: "cannot connect to \(connectionString.displayWithSchema): out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = PostgresConnection.reason(connection)
            PQfinish(connection)
            throw StoreError(.unavailable, message: "cannot connect to \(connectionString.displayWithSchema): \(reason)")
        }
        self.handle = connection
        self.display = ConnectionString.display(of: connection)
        PostgresConnection.silenceNotices(connection)
    }

    deinit { PQfinish(handle) }

    private static func connect(keywords: [String], values: [String]) -> OpaquePointer? {
        let k = keywords.map { strdup($0) }
        let v = values.map { strdup($0) }
        defer {
            for pointer in k + v { free(pointer) }
        }
        let kp: [UnsafePointer<CChar>?] = k.map { UnsafePointer($0) } + [nil]
        let vp: [UnsafePointer<CChar>?] = v.map { UnsafePointer($0) } + [nil]
        return kp.withUnsafeBufferPointer { kb in
            vp.withUnsafeBufferPointer { vb in PQconnectdbParams(kb.baseAddress, vb.baseAddress, 1) }
        }
    }

    /// Notices (`NOTICE: … skipping`) would go to stderr; the store has nothing to say with them.
    private static func silenceNotices(_ connection: OpaquePointer) {
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    /// libpq's message for a connection, on one line.
    static func reason(_ connection: OpaquePointer) -> String {
        String(cString: PQerrorMessage(connection))
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }

    /// `true` while the connection is usable.
    var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// `true` inside a transaction block (also a failed one).
    var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Connects again after the connection was lost (a server restart); prepared statements
    /// are gone with the old session and are prepared again on use.
    /// - Throws: `.unavailable` when the server still cannot be reached.
    func reconnectIfNeeded() throws(StoreError) {
        guard !isConnected else { return }
        PQreset(handle)
        prepared.removeAll()
        guard isConnected else {
            let name = display + (connectionString.schema.map { "?schema=" + $0 } ?? "")
            throw StoreError(.unavailable, message: "cannot connect to \(name): \(PostgresConnection.reason(handle))")
        }
        PostgresConnection.silenceNotices(handle)
    }

    // MARK: - Running statements

    /// Runs `sql` (one or more statements, no parameters, text results): DDL, BEGIN, COMMIT.
    func execute(_ sql: String) throws(StoreError) {
        _ = try executeReturning(sql)
    }

    /// ``execute(_:)``, returning the last statement's result (text format).
    func executeReturning(_ sql: String) throws(StoreError) -> PostgresResult {
        try check(PQexec(handle, sql), sql: sql)
    }

    /// The SQL of every prepared statement.
    var preparedSQL: [String] { Array(prepared.keys) }

    /// `COMMIT`, refusing a transaction that already failed (PostgreSQL answers the COMMIT of
    /// a failed transaction with a ROLLBACK, without an error).
    /// - Throws: `.unavailable` when the connection is lost (the outcome is then unknown if
    ///   COMMIT was sent); `.engine` for a transaction that had failed; a serialization failure.
    func commit() throws(StoreError) {
        if !isConnected {
            throw StoreError(.unavailable, message: "the connection to \(display) was lost; the open transaction was not committed")
        }
        let result = try check(PQexec(handle, "COMMIT"), sql: "COMMIT")
        if let status = PQcmdStatus(result.handle), String(cString: status) == "ROLLBACK" {
            throw StoreError(
                .engine,
                message: "the transaction had failed (an error inside it was caught and not rethrown); "
                    + "it was rolled back")
        }
    }

    /// Runs `sql` with `parameters` (prepared on first use), binary results.
    @discardableResult
    func run(_ sql: String, _ parameters: PostgresParameters = PostgresParameters()) throws(StoreError) -> PostgresResult {
        let name = try statementName(sql, parameters)
        let result: OpaquePointer? = parameters.withPointers { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
        }
        return try check(result, sql: sql)
    }

    /// One statement of a ``pipeline(_:)``.
    struct Query {
        var sql: String
        var parameters: PostgresParameters
    }

    /// Runs `queries` in order in one round trip (pipeline mode) and returns their results.
    /// The first failure stops the rest (the server skips them) and is thrown.
    func pipeline(_ queries: [Query]) throws(StoreError) -> [PostgresResult] {
        if queries.count == 1 { return [try run(queries[0].sql, queries[0].parameters)] }
        if queries.isEmpty { return [] }
        var names: [String] = []
        names.reserveCapacity(queries.count)
        for query in queries { names.append(try statementName(query.sql, query.parameters)) }
        guard PQenterPipelineMode(handle) == 1 else { throw lost(sql: nil) }
        var sent = 0
        for (query, name) in zip(queries, names) {
            let ok = query.parameters.withPointers { values, lengths, formats in
                PQsendQueryPrepared(handle, name, Int32(query.parameters.count), values, lengths, formats, 1)
            }
            guard ok == 1 else { break }
            sent += 1
        }
        let synced = PQpipelineSync(handle) == 1
        var results: [PostgresResult] = []
        var failure: StoreError?
        for index in 0..<sent {
            // Each query gives one result, then NULL.
            var result: OpaquePointer?
            while let next = PQgetResult(handle) {
                if result == nil { result = next } else { PQclear(next) }
            }
            guard let result else {
                failure = failure ?? lost(sql: queries[index].sql)
                break
            }
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK {
                results.append(PostgresResult(result))
            } else if status == PGRES_PIPELINE_ABORTED {
                PQclear(result)
            } else {
                if failure == nil { failure = resultError(result, sql: queries[index].sql) }
                PQclear(result)
            }
        }
        // The sync point, then back to normal mode.
        if synced {
            while let next = PQgetResult(handle) {
                let isSync = PQresultStatus(next) == PGRES_PIPELINE_SYNC
                PQclear(next)
                if isSync { break }
            }
        }
        PQexitPipelineMode(handle)
        if let failure { throw failure }
        if sent < queries.count || !synced { throw lost(sql: queries[min(sent, queries.count - 1)].sql) }
        lastSQLState = nil
        return results
    }

    // MARK: - Internals

    private func statementName(_ sql: String, _ parameters: PostgresParameters) throws(StoreError) -> String {
        if let name = prepared[sql] { return name }
        preparedCount += 1
        let name = "trellis_\(preparedCount)"
        let result = parameters.types.withUnsafeBufferPointer { types in
            PQprepare(handle, name, sql, Int32(parameters.count), types.baseAddress)
        }
        _ = try check(result, sql: sql)
        prepared[sql] = name
        return name
    }

    private func check(_ result: OpaquePointer?, sql: String) throws(StoreError) -> PostgresResult {
        guard let result else { throw lost(sql: sql) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            let error = resultError(result, sql: sql)
            PQclear(result)
            throw error
        }
        lastSQLState = nil
        return PostgresResult(result)
    }

    private func resultError(_ result: OpaquePointer, sql: String) -> StoreError {
        if !isConnected { return lost(sql: sql) }
        let (error, sqlState) = PostgresError.error(from: result, sql: sql)
        // The server ends the session (shutdown, restart, pg_terminate_backend): the
        // connection is gone even if libpq has not noticed yet.
        if sqlState.hasPrefix("57P") || sqlState.hasPrefix("08") { return lost(sql: sql, reason: error.message) }
        lastSQLState = sqlState
        return error
    }

    /// The error for a connection that broke (or a result libpq could not produce).
    private func lost(sql: String?, reason given: String? = nil) -> StoreError {
        lastSQLState = "08006"
        let reason = given ?? PostgresConnection.reason(handle)
        let during =
            sql == "COMMIT"
            ? " during COMMIT: whether the transaction committed is not known"
            : "; the open transaction was not committed"
        return StoreError(
            .unavailable, message: "the connection to \(display) was lost\(during) (\(reason))",
            details: sql.map { "SQL: \($0)" })
    }
}

@available(*, unavailable, message: "a connection is confined to its store's lock")
extension PostgresConnection: Sendable {}
