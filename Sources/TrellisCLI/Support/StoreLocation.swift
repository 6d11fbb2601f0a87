import Foundation
import Trellis
import TrellisPostgres

/// Where `--store` points: an SQLite file (a path, relative to the working directory) or a
/// PostgreSQL database (a libpq connection string, ``PostgresStore/isConnectionString(_:)``:
/// `postgresql://…`, `postgres://…` or `key=value` pairs).
///
/// Commands name stores in messages, check them, open them and word their errors through this
/// one value, instead of testing the string themselves: a new engine is a new case here.
enum StoreLocation: Sendable {
    /// An SQLite store file: the path as given, and its URL.
    case sqlite(path: String, url: URL)
    /// A PostgreSQL store: the connection string as given (it may hold a password).
    case postgres(connection: String)

    /// The location `text` names; relative paths resolve against the command's directory.
    init(_ text: String, environment: CommandEnvironment) {
        self = PostgresStore.isConnectionString(text) ? .postgres(connection: text) : .sqlite(path: text, url: environment.url(for: text))
    }

    /// The text given with `--store`.
    var text: String {
        switch self {
        case .sqlite(let path, _): return path
        case .postgres(let connection): return connection
        }
    }

    /// How summaries and messages name the store: the path as given, or the connection
    /// string without its password (`postgresql://app@db:5432/catalog?schema=s`).
    var name: String {
        switch self {
        case .sqlite(let path, _): return path
        case .postgres(let connection): return PostgresStoreOpening.name(connection)
        }
    }

    /// The store file, or nil for a PostgreSQL store.
    var fileURL: URL? {
        if case .sqlite(_, let url) = self { return url }
        return nil
    }

    /// Whether the store lives in a PostgreSQL server (leases, workers and `--schema` need one).
    var isPostgres: Bool {
        if case .postgres = self { return true }
        return false
    }

    /// The command's message for a store error, naming the store (without a password);
    /// `busyTimeoutMilliseconds` is quoted when an SQLite writer gave up waiting.
    func commandError(_ error: StoreError, busyTimeoutMilliseconds: Int) -> CommandError {
        switch self {
        case .sqlite(let path, _): return StoreOpening.commandError(error, path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        case .postgres(let connection): return PostgresStoreOpening.commandError(error, connection: connection)
        }
    }

    /// Checks that a store can be opened or created here (``check(_:path:)`` for a file).
    /// A PostgreSQL location is checked when it is connected to.
    /// - Throws: ``CommandError`` `.store`.
    func checkCreatable() throws {
        if case .sqlite(let path, let url) = self { try Self.check(url, path: path) }
    }

    /// The store, which must exist, opened for `model`: read-only without writing the file,
    /// or (`readOnly: false`) for writing, the schema work done inside write transactions.
    /// - Throws: ``CommandError`` `.store` (no such store, not a store file, cannot connect).
    func openExisting(
        model: ObjectModel, environment: CommandEnvironment, busyTimeoutMilliseconds: Int, readOnly: Bool = true
    ) throws -> any PersistentStore {
        switch self {
        case .postgres(let connection):
            return try PostgresStoreOpening.open(connection, model: model, readOnly: readOnly)
        case .sqlite(let path, let url):
            try Self.checkFilePath(path)
            guard FileManager.default.fileExists(atPath: url.path) else {
                if let dangling = Self.danglingLink(url) {
                    throw CommandError(.store, "\(path): no such store: \(dangling)")
                }
                throw CommandError(.store, "\(path): no such store")
            }
            try Self.checkExisting(url, path: path)
            return try StoreOpening.open(
                url, path: path, model: model, readOnly: readOnly, migrationPolicy: .inWriteTransactions,
                busyTimeoutMilliseconds: busyTimeoutMilliseconds, notes: environment.notes)
        }
    }

    /// Whether a store is there: a non-empty SQLite file, or a PostgreSQL schema holding the
    /// store's tables (read from the server).
    /// - Throws: ``CommandError`` `.store` when the file is not an SQLite store or the server
    ///   cannot be reached, `.invalidModel` when a PostgreSQL store records no model.
    func holdsStore() throws -> Bool {
        switch self {
        case .postgres(let connection): return try RecordedModel.text(postgres: connection) != nil
        case .sqlite(let path, let url): return try ImportModel.existingSQLiteStore(url, path: path)
        }
    }

    /// Checks a store path can be opened or created, with a message naming what is wrong.
    static func check(_ url: URL, path: String) throws {
        try checkFilePath(path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            try checkExisting(url, path: path)
            return
        }
        if let dangling = danglingLink(url) {
            throw CommandError(.store, "\(path): cannot create the store: \(dangling)")
        }
        let parent = url.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory) else {
            throw CommandError(.store, "\(path): cannot create the store: directory '\(parent.relativePath)' does not exist")
        }
        guard isDirectory.boolValue else {
            throw CommandError(.store, "\(path): cannot create the store: '\(parent.relativePath)' is not a directory")
        }
    }

    /// A store that exists must be a regular file: a directory, or a device, FIFO or socket
    /// (`--store /dev/null`, which SQLite would open and fail to commit to with "disk I/O error"),
    /// is an error naming it.
    static func checkExisting(_ url: URL, path: String) throws {
        switch FileContents.kind(of: url) {
        case .directory: throw CommandError(.store, "\(path): is a directory, not a store")
        case .stream: throw CommandError(.store, "\(path): not a store file: it is a device, a FIFO or a socket, not a regular file")
        case .regular, nil: return
        }
    }

    /// `it is a symbolic link to 'DEST', which does not exist` when `url` is a symbolic link
    /// whose destination does not exist (or a loop of links); nil otherwise. Call it once
    /// `fileExists` (which follows links) said false. A store is not created through such a
    /// link: its staged copy could never be published at the link's path.
    static func danglingLink(_ url: URL) -> String? {
        guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path) else { return nil }
        return "it is a symbolic link to '\(destination)', which does not exist"
    }

    /// A store path ending with `/` names a directory; `URL` would drop the slash and SQLite
    /// open or create a file named like the directory.
    static func checkFilePath(_ path: String) throws {
        if path.hasSuffix("/") { throw CommandError(.store, "\(path): not a store file: the path ends with '/'") }
    }
}
