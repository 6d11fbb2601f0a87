import Foundation
import Testing
import Trellis
import TrellisPostgres
import TrellisTestSupport

/// `trellis sync … --store postgresql://…` against the loopback Parse emulator, as a role
/// that logs in with a password over TCP: the stored rows and the checkpoint committed with
/// them, an unchanged second run, `--status`, and a wrong password; the password never
/// appears in what the command prints.
@Suite(.enabled(if: PostgresTestServer.isEnabled, "TRELLIS_SKIP_POSTGRES=1"))
struct PostgresSyncEndToEndTests {
    static let model = Fixtures.url("sync/heroes.model.json")
    static let password = "pw-\(UInt32.random(in: 0...UInt32.max))-never-shown"

    func source(_ server: TestServer) -> String {
        #"""
        {"format": "trellis-source", "formatVersion": 1,
         "client": {"baseURL": "\#(server.base)/parse/", "dialect": "parse",
                    "headers": {"X-Parse-Application-Id": "${env:PARSE_APP_ID}"}},
         "resources": [{"name": "heroes", "entity": "Hero", "path": "classes/Hero", "params": {"limit": 100},
                        "incremental": {"cursor": "updatedAt"}, "deletions": {"type": "fullScan"}}]}
        """#
    }

    /// Rows of `sql` in `schema`, `|` between columns, one row per line.
    func query(_ sql: String, schema: String) throws -> String {
        try PostgresTestServer.execute("SET search_path TO \"\(schema)\"; " + sql)
            .map { $0.map { $0 ?? "" }.joined(separator: "|") }.joined(separator: "\n")
    }

    @Test func syncStoresThePagesWithTheirCheckpointAndReportsStatus() throws {
        let port = try #require(PostgresTestServer.tcpPort, "the server's TCP port")
        let role = "trellis_sync_\(UInt32.random(in: 0...UInt32.max))"
        let schema = PostgresTestServer.makeSchemaName()
        try PostgresTestServer.execute("CREATE ROLE \(role) LOGIN PASSWORD '\(Self.password)'; GRANT CREATE ON DATABASE postgres TO \(role)")
        defer { _ = try? PostgresTestServer.execute("DROP OWNED BY \(role); DROP ROLE \(role)") }
        let store = "postgresql://\(role):\(Self.password)@127.0.0.1:\(port)/postgres?schema=\(schema)"

        let server = try TestServer(["--heroes", "300", "--ties", "100"])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try source(server).write(to: directory.url.appendingPathComponent("heroes.source.json"), atomically: true, encoding: .utf8)
        setenv("PARSE_APP_ID", "test-app", 1)
        let arguments = ["sync", "heroes.source.json", "--model", Self.model.path, "--store", store]

        let first = try TrellisProcess.run(arguments, in: directory.url)
        #expect(first.status == 0, "\(first)")
        #expect(
            first.stdout.hasPrefix(
                "heroes → Hero: 4 pages (3 changed, 0 not modified), 300 records; inserted 300, updated 0, "
                    + "unchanged 0, deleted 0\n"), "\(first)")
        #expect(first.stderr == "")
        #expect(!first.stdout.contains(Self.password))

        // The stored rows are the server's records, each once.
        let records = try server.data("Hero")
        let expected = records.map { "\($0["objectId"]!.stringValue!)|\($0["name"]!.stringValue!)" }.sorted().joined(separator: "\n")
        #expect(
            try query(
                #"SELECT "objectId", "name" FROM "Hero" WHERE NOT "_placeholder" ORDER BY "objectId" COLLATE "C""#,
                schema: schema) == expected)
        #expect(try query(#"SELECT count(*), count(DISTINCT "objectId") FROM "Hero""#, schema: schema) == "300|300")
        // The checkpoint, in trellis_metadata with the rows: the walk is complete, its
        // watermark the newest record's stamp.
        let text = try query(#"SELECT "value" FROM "trellis_metadata" WHERE "key" = 'user:sync/heroes'"#, schema: schema)
        let checkpoint = try JSONReader.parse(text)
        #expect(checkpoint["totalPages"] == 4)
        #expect(checkpoint["totalRecords"] == 300)
        #expect(checkpoint["nextPage"] == nil || checkpoint["nextPage"] == .null)
        #expect(text.contains(try #require(records.last?["updatedAt"]?.stringValue)))

        // Again: the server has not changed, so no page changes and nothing is written.
        let again = try TrellisProcess.run(arguments + ["--report", "json"], in: directory.url)
        #expect(again.status == 0, "\(again)")
        let report = try JSONReader.parse(again.stdout)
        #expect(report["resources"]?[0]?["pagesChanged"] == 0)
        #expect(report["resources"]?[0]?["records"] == 0)
        #expect(!again.stdout.contains(Self.password) && again.stderr == "")

        let status = try TrellisProcess.run(
            ["sync", "heroes.source.json", "--status", "--store", store, "--report", "json"],
            in: directory.url)
        #expect(status.status == 0, "\(status)")
        let resource = try #require(try JSONReader.parse(status.stdout)["resources"]?[0])
        #expect(resource["lastRun"]?["status"] == "completed")
        #expect(resource["watermark"]?["text"] == records.last?["updatedAt"])
        #expect(resource["totalPages"] == 5)
        #expect(resource["totalRecords"] == 300)
        let statusText = try TrellisProcess.run(["sync", "heroes.source.json", "--status", "--store", store], in: directory.url)
        #expect(statusText.status == 0 && statusText.stdout.contains("heroes → Hero: last run completed"), "\(statusText)")
        #expect(!statusText.stdout.contains(Self.password) && !statusText.stderr.contains(Self.password))

        // A wrong password: exit 1, the server named without it.
        let wrong = store.replacingOccurrences(of: Self.password, with: "wrong-" + Self.password)
        let refused = try TrellisProcess.run(
            ["sync", "heroes.source.json", "--model", Self.model.path, "--store", wrong],
            in: directory.url)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.hasPrefix("error: cannot connect to postgresql://\(role)@127.0.0.1:\(port)/postgres?schema=\(schema): "), "\(refused)")
        #expect(!refused.stderr.contains(Self.password) && refused.stdout == "")
        let refusedStatus = try TrellisProcess.run(["sync", "heroes.source.json", "--status", "--store", wrong], in: directory.url)
        #expect(refusedStatus.status == 1 && !refusedStatus.stderr.contains(Self.password), "\(refusedStatus)")
    }

    /// Without --model a sync into a schema with no store yet is bad usage (there is no
    /// recorded model to use, as for a new SQLite store); `--status` of such a schema reports
    /// nothing synced.
    @Test func withoutAModelIsBadUsageAndAnEmptySchemaHasNoStatus() throws {
        let server = try TestServer(["--heroes", "3"])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try source(server).write(to: directory.url.appendingPathComponent("heroes.source.json"), atomically: true, encoding: .utf8)
        setenv("PARSE_APP_ID", "test-app", 1)
        let schema = PostgresTestServer.makeSchemaName()
        let store = try PostgresTestServer.connectionString(schema: schema)
        let noModel = try TrellisProcess.run(["sync", "heroes.source.json", "--store", store], in: directory.url)
        #expect(noModel.status == 64)
        let name = PostgresStore.describe(connection: store) + "?schema=" + schema
        #expect(
            noModel.stderr.hasPrefix(
                "error: missing option '--model <model>': the store \(name) does not exist yet, "
                    + "so it records no model\nusage: trellis sync"), "\(noModel)")
        let status = try TrellisProcess.run(
            ["sync", "heroes.source.json", "--status", "--store", store, "--report", "json"],
            in: directory.url)
        #expect(status.status == 0, "\(status)")
        #expect(try JSONReader.parse(status.stdout)["resources"]?[0]?["lastRun"] == .null)
        #expect(try PostgresTestServer.execute("SELECT count(*) FROM pg_namespace WHERE nspname = '\(schema)'") == [["0"]])
    }

    /// Eight first syncs into one empty schema at once: schema creation is serialized, so
    /// every process succeeds and every record exists once; the model is recorded, so a later
    /// sync without --model uses it and finds nothing changed.
    @Test func eightFirstSyncsAtOnceAndASyncWithTheRecordedModel() throws {
        let server = try TestServer(["--heroes", "120"])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try source(server).write(to: directory.url.appendingPathComponent("heroes.source.json"), atomically: true, encoding: .utf8)
        setenv("PARSE_APP_ID", "test-app", 1)
        let schema = PostgresTestServer.makeSchemaName()
        defer { PostgresTestServer.dropSchema(schema) }
        let store = try PostgresTestServer.connectionString(schema: schema)
        let processes = try (0..<8).map { _ in
            try TrellisProcess.start(["sync", "heroes.source.json", "--model", Self.model.path, "--store", store], in: directory.url)
        }
        for (i, result) in processes.map({ $0.wait() }).enumerated() {
            #expect(result.status == 0 && result.stderr == "", "process \(i): \(result)")
        }
        #expect(try query(#"SELECT count(*), count(DISTINCT "objectId") FROM "Hero""#, schema: schema) == "120|120")
        let recorded = try query(#"SELECT "value" FROM "trellis_metadata" WHERE "key" = 'model'"#, schema: schema)
        #expect(try JSONReader.parse(recorded)["entities"]?[0]?["name"] == "Hero", "\(recorded)")

        let again = try TrellisProcess.run(["sync", "heroes.source.json", "--store", store, "--report", "json"], in: directory.url)
        #expect(again.status == 0 && again.stderr == "", "\(again)")
        #expect(try JSONReader.parse(again.stdout)["resources"]?[0]?["records"] == 0, "\(again)")
    }

    /// A source of eight resources: the heroes split by power into eight ranges, pages of 10.
    func eightResources(_ server: TestServer) -> String {
        let bounds = [0, 12, 24, 36, 48, 60, 72, 84, 97]
        let resources = (0..<8).map { i in
            #"{"name": "r\#(i)", "entity": "Hero", "path": "classes/Hero", "#
                + #""params": {"limit": 10, "where": {"power": {"$gte": \#(bounds[i]), "$lt": \#(bounds[i + 1])}}}, "#
                + #""incremental": {"cursor": "updatedAt"}}"#
        }
        return #"{"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "\#(server.base)/parse/", "dialect": "parse", "#
            + #""headers": {"X-Parse-Application-Id": "${env:PARSE_APP_ID}"}}, "resources": [\#(resources.joined(separator: ", "))]}"#
    }

    /// Four `trellis sync` processes share eight resources through the store's leases; one is
    /// killed with SIGKILL while it holds a resource it has committed pages of, and a lease
    /// row left by a worker of another machine expires after 2 s: every resource is
    /// completed, every hero stored once, the killed worker's resource taken over and resumed
    /// from its last committed page (the new holder reads fewer records than the resource
    /// has), the foreign lease taken over after its expiry; `--status` names the workers.
    @Test func fourWorkersSplitEightResourcesAndTakeOverAKilledOne() throws {
        let server = try TestServer(["--heroes", "480"])
        try server.faults([["match": "/parse/classes/Hero", "times": 100_000, "delay": 0.15]])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try eightResources(server).write(to: directory.url.appendingPathComponent("heroes.source.json"), atomically: true, encoding: .utf8)
        setenv("PARSE_APP_ID", "test-app", 1)
        let schema = PostgresTestServer.makeSchemaName()
        defer { PostgresTestServer.dropSchema(schema) }
        let store = try PostgresTestServer.connectionString(schema: schema)
        // A worker on another machine holds r7 for 2 more seconds (and will never renew it).
        try PostgresTestServer.execute(
            #"CREATE SCHEMA "\#(schema)"; CREATE TABLE "\#(schema)"."trellis_sync_leases" ("#
                + #""resource" text PRIMARY KEY, "holder" text, "expires_at" timestamptz, "claimed_at" timestamptz, "#
                + #""finished_at" timestamptz, "finished_by" text); INSERT INTO "\#(schema)"."trellis_sync_leases" "#
                + #"VALUES ('r7', 'elsewhere:4242', now() + interval '2 seconds', now(), NULL, NULL)"#)
        let arguments = ["sync", "heroes.source.json", "--model", Self.model.path, "--store", store, "--lease-seconds", "2", "--report", "json"]
        let workers = try (0..<4).map { _ in try TrellisProcess.start(arguments, in: directory.url) }
        let host = ProcessInfo.processInfo.hostName
        let victim = workers[0]
        let victimHolder = "\(host):\(victim.processIdentifier)"

        // Wait until the victim holds a resource of which it committed a page, then kill it.
        var killedResource: String?
        let deadline = Date().addingTimeInterval(30)
        while killedResource == nil, Date() < deadline, victim.isRunning {
            // (Nothing to read until the first page created the store's tables.)
            let held =
                (try? query(
                    #"SELECT l."resource" FROM "trellis_sync_leases" l JOIN "trellis_metadata" m "#
                        + #"ON m."key" = 'user:sync/' || l."resource" WHERE l."holder" = '\#(victimHolder)' "#
                        + #"AND (m."value"::jsonb ->> 'totalPages')::int >= 1"#, schema: schema)) ?? ""
            if !held.isEmpty { killedResource = held } else { Thread.sleep(forTimeInterval: 0.01) }
        }
        let killed = try #require(killedResource, "the first worker never held a resource with a committed page")
        victim.kill()
        #expect(victim.wait().status == SIGKILL || victim.wasKilled)

        var reports: [JSONValue] = []
        for (i, worker) in workers.dropFirst().enumerated() {
            let result = worker.wait()
            #expect(result.status == 0 && result.stderr == "", "worker \(i + 1): \(result)")
            reports += try JSONReader.parse(result.stdout)["resources"]?.arrayValue ?? []
        }
        // Every hero once; every resource completed by one of the three that lived.
        #expect(try query(#"SELECT count(*), count(DISTINCT "objectId") FROM "Hero""#, schema: schema) == "480|480")
        let survivors = Set(workers.dropFirst().map { "\(host):\($0.processIdentifier)" })
        let leases = try query(
            #"SELECT "resource", coalesce("holder", ''), coalesce("finished_by", '') FROM "trellis_sync_leases" "#
                + #"ORDER BY "resource""#, schema: schema
        ).split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false) }
        #expect(leases.map { String($0[0]) } == (0..<8).map { "r\($0)" })
        for lease in leases {
            #expect(lease[1] == "" && survivors.contains(String(lease[2])), "\(lease)")
        }
        for i in 0..<8 {
            let text = try query(#"SELECT "value" FROM "trellis_metadata" WHERE "key" = 'user:sync/r\#(i)'"#, schema: schema)
            #expect(try JSONReader.parse(text)["lastRun"]?["status"] == "completed", "r\(i): \(text)")
        }
        // The killed worker's resource: taken over, resumed after the pages it committed.
        let heroes = try server.data("Hero")
        let bounds = [0, 12, 24, 36, 48, 60, 72, 84, 97]
        let index = try #require(Int(killed.dropFirst()))
        let inRange = heroes.filter { ($0["power"]?.intValue).map { bounds[index] <= $0 && $0 < bounds[index + 1] } ?? false }.count
        let takeover = try #require(reports.first { $0["name"]?.stringValue == killed }, "\(reports)")
        #expect(takeover["tookOverFrom"]?.stringValue == victimHolder, "\(takeover)")
        #expect((takeover["records"]?.intValue ?? 0) <= inRange - 10, "\(takeover) of \(inRange)")
        // The foreign worker's r7, taken over once its lease expired.
        if killed != "r7" {
            let r7 = try #require(reports.first { $0["name"] == "r7" }, "\(reports)")
            #expect(r7["tookOverFrom"] == "elsewhere:4242", "\(r7)")
        }

        let status = try TrellisProcess.run(["sync", "heroes.source.json", "--status", "--store", store], in: directory.url)
        #expect(status.status == 0 && status.stdout.contains("r0 → Hero: last run completed"), "\(status)")
        #expect(status.stdout.components(separatedBy: "  last finished by worker \(host):").count == 9, "\(status)")
    }

    /// `--workers 4` in one process: four threads, each its own connection and holder name,
    /// split the eight resources; the summary lists each resource once, in source order.
    @Test func fourWorkersInOneProcess() throws {
        let server = try TestServer(["--heroes", "240"])
        try server.faults([["match": "/parse/classes/Hero", "times": 100_000, "delay": 0.1]])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try eightResources(server).write(to: directory.url.appendingPathComponent("heroes.source.json"), atomically: true, encoding: .utf8)
        setenv("PARSE_APP_ID", "test-app", 1)
        let schema = PostgresTestServer.makeSchemaName()
        defer { PostgresTestServer.dropSchema(schema) }
        let store = try PostgresTestServer.connectionString(schema: schema)
        let run = try TrellisProcess.run(
            [
                "sync", "heroes.source.json", "--model", Self.model.path, "--store", store, "--workers", "4",
                "--report", "json",
            ], in: directory.url)
        #expect(run.status == 0 && run.stderr == "", "\(run)")
        let resources = try JSONReader.parse(run.stdout)["resources"]?.arrayValue ?? []
        #expect(resources.compactMap { $0["name"]?.stringValue } == (0..<8).map { "r\($0)" })
        #expect(resources.reduce(0) { $0 + ($1["inserted"]?.intValue ?? 0) } == 240)
        let pid = try #require(
            try query(#"SELECT DISTINCT "finished_by" FROM "trellis_sync_leases""#, schema: schema)
                .split(separator: "\n").first.map(String.init))
        let base = String(pid.prefix { $0 != "#" })
        #expect(Set(resources.compactMap { $0["worker"]?.stringValue }) == [base, base + "#2", base + "#3", base + "#4"], "\(resources)")
        #expect(try query(#"SELECT count(*), count(DISTINCT "objectId") FROM "Hero""#, schema: schema) == "240|240")

        // SQLite has no leases: --workers there is bad usage.
        let sqlite = try TrellisProcess.run(
            ["sync", "heroes.source.json", "--model", Self.model.path, "--store", "h.sqlite", "--workers", "2"],
            in: directory.url)
        #expect(
            sqlite.status == 64
                && sqlite.stderr.hasPrefix(
                    "error: '--workers' needs a PostgreSQL store: workers split the resources "
                        + "through leases kept in it\n"),
            "\(sqlite)")
    }
}
