import Foundation
import Trellis
import TrellisPostgres

/// The PostgreSQL server the tests run against, found or started once per test process:
///
/// 1. `TRELLIS_POSTGRES_URL`, when set (`Scripts/with-postgres.sh swift test` sets it, and
///    `TRELLIS_POSTGRES_DIR` with it, which lets tests restart that server);
/// 2. otherwise a temporary cluster this process starts with `Scripts/postgres-server.sh`
///    (so a plain `swift test` works wherever PostgreSQL's server programs are installed),
///    stopped and removed by a watchdog when the process ends.
///
/// Without either, every PostgreSQL test fails with ``Unavailable``, which says how to get a
/// server. `TRELLIS_SKIP_POSTGRES=1` turns them off explicitly: ``StoreKind/allCases`` then
/// leaves `.postgres` out and the PostgreSQL-only suites are disabled (reported as skipped).
///
/// Each test store lives in a schema of its own (``makeSchemaName()``), dropped when the
/// ``TestStore`` is released, so tests run in parallel on one server.
public enum PostgresTestServer {
    /// `false` only with `TRELLIS_SKIP_POSTGRES=1`.
    public static let isEnabled = ProcessInfo.processInfo.environment["TRELLIS_SKIP_POSTGRES"] != "1"

    /// Why no server could be had, and how to get one.
    public struct Unavailable: Error, CustomStringConvertible {
        public let reason: String
        public var description: String {
            "PostgreSQL tests need a server, but \(reason). Install PostgreSQL's server programs (Debian: "
                + "apt-get install -y postgresql, or Scripts/install-dependencies.sh) so the tests start a temporary one, "
                + "or run them with one (Scripts/with-postgres.sh swift test, or TRELLIS_POSTGRES_URL=postgresql://…); "
                + "set TRELLIS_SKIP_POSTGRES=1 to skip them."
        }
    }

    private struct Server: Sendable {
        let url: String
        /// The cluster directory, when this process (or with-postgres.sh) made it.
        let directory: String?
    }

    private static let server: Result<Server, Unavailable> = {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["TRELLIS_POSTGRES_URL"], !url.isEmpty {
            return .success(Server(url: url, directory: environment["TRELLIS_POSTGRES_DIR"]))
        }
        let script = Fixtures.repositoryRoot().appendingPathComponent("Scripts/postgres-server.sh").path
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("trellis-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        let result = run(script, ["start", directory, "--watch", String(getpid())])
        guard result.status == 0, let url = result.output.split(separator: "\n").last.map(String.init), !url.isEmpty else {
            return .failure(
                Unavailable(
                    reason: "no TRELLIS_POSTGRES_URL is set and starting a temporary server failed: "
                        + result.errors.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return .success(Server(url: url, directory: directory))
    }()

    /// The server's connection URI (superuser `trellis`, database `postgres`).
    /// - Throws: ``Unavailable`` with how to get a server.
    public static func connectionString() throws -> String {
        try server.get().url
    }

    /// `true` when the tests may restart the server (it is one this process or
    /// `Scripts/with-postgres.sh` started).
    public static var canRestart: Bool {
        (try? server.get().directory) != nil
    }

    /// Restarts the server (`pg_ctl restart -m fast`): every connection is cut.
    public static func restart() throws {
        guard let directory = try server.get().directory else {
            throw Unavailable(reason: "the server at TRELLIS_POSTGRES_URL was not started by the tests and cannot be restarted")
        }
        let result = run(Fixtures.repositoryRoot().appendingPathComponent("Scripts/postgres-server.sh").path, ["restart", directory])
        guard result.status == 0 else { throw Unavailable(reason: "restarting it failed: \(result.errors)") }
    }

    /// A server of its own (another temporary cluster), for a test that restarts or stops it
    /// without disturbing the tests running beside it on the shared one. Stopped and removed
    /// when released (or by the watchdog when the process ends).
    public final class PrivateServer: Sendable {
        /// Its connection URI (superuser `trellis`, database `postgres`).
        public let url: String
        let directory: String

        init(url: String, directory: String) {
            self.url = url
            self.directory = directory
        }

        /// `pg_ctl restart -m fast`: every connection is cut, the server comes back.
        public func restart() throws {
            let result = PostgresTestServer.run(PostgresTestServer.script, ["restart", directory])
            guard result.status == 0 else { throw Unavailable(reason: "restarting it failed: \(result.errors)") }
        }

        deinit { _ = PostgresTestServer.run(PostgresTestServer.script, ["stop", directory]) }
    }

    /// Starts a ``PrivateServer``.
    /// - Throws: ``Unavailable`` when PostgreSQL's server programs are not installed.
    public static func startPrivateServer() throws -> PrivateServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("trellis-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        let result = run(script, ["start", directory, "--watch", String(getpid())])
        guard result.status == 0, let url = result.output.split(separator: "\n").last.map(String.init), !url.isEmpty else {
            throw Unavailable(reason: "starting a private server failed: \(result.errors)")
        }
        return PrivateServer(url: url, directory: directory)
    }

    static var script: String { Fixtures.repositoryRoot().appendingPathComponent("Scripts/postgres-server.sh").path }

    /// A fresh schema name, `trellis_test_<random>`.
    public static func makeSchemaName() -> String {
        "trellis_test_" + UUID().uuidString.prefix(13).lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// The connection URI for a store in `schema` (the `schema` parameter Trellis reads).
    public static func connectionString(schema: String) throws -> String {
        let url = try connectionString()
        return url + (url.contains("?") ? "&" : "?") + "schema=" + schema
    }

    /// Runs `sql` as the superuser; the last statement's rows as text.
    @discardableResult
    public static func execute(_ sql: String) throws -> [[String?]] {
        try PostgresStore.execute(sql, connection: try connectionString())
    }

    /// Drops `schema` and everything in it (best effort).
    public static func dropSchema(_ schema: String) {
        _ = try? execute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
    }

    /// The port the server listens on at 127.0.0.1 (password authentication), when known.
    public static var tcpPort: Int? {
        guard let directory = try? server.get().directory,
            let text = try? String(contentsOfFile: directory + "/port", encoding: .utf8)
        else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [executable] + arguments
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-pg-run-\(UUID().uuidString)")
        let out = scratch.appendingPathExtension("out")
        let err = scratch.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        do {
            // Files, not pipes: the server started in the background must not hold our pipes open.
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
        } catch {
            return (127, "", "cannot run \(executable): \(error)")
        }
        let output = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        return (process.terminationStatus, output, errors)
    }
}
