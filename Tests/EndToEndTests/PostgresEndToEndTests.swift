import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisPostgres
import TrellisTestSupport

/// `trellis` on a PostgreSQL store (`--store postgresql://…`): several processes importing
/// at once, a killed client, and bad input, each checked in what the database holds.
@Suite(.enabled(if: PostgresTestServer.isEnabled, "TRELLIS_SKIP_POSTGRES=1"))
struct PostgresEndToEndTests {
    /// A workspace with the records model, and a schema of its own (dropped at the end).
    final class Workspace {
        let directory: TemporaryDirectory
        let schema = PostgresTestServer.makeSchemaName()
        let store: String

        init() throws {
            directory = try TemporaryDirectory()
            try Data(RecordsWorkload.modelFile.utf8).write(to: directory.url.appendingPathComponent("model.json"))
            store = try PostgresTestServer.connectionString(schema: schema)
        }

        deinit {
            directory.remove()
            PostgresTestServer.dropSchema(schema)
        }

        func write(_ data: Data, _ name: String) throws {
            try data.write(to: directory.url.appendingPathComponent(name))
        }

        func importArguments(_ payload: String, _ extra: [String] = []) -> [String] {
            ["import", payload, "--model", "model.json", "--entity", "Record", "--report", "json", "--store", store] + extra
        }

        /// Rows of `sql` in the workspace's schema, `|` between columns, one row per line.
        func query(_ sql: String) throws -> String {
            try PostgresTestServer.execute("SET search_path TO \"\(schema)\"; " + sql)
                .map { $0.map { $0 ?? "" }.joined(separator: "|") }.joined(separator: "\n")
        }

        /// ``RecordsWorkload/stateQuery``, in PostgreSQL (booleans as `f`).
        func state() throws -> String {
            try [
                #"SELECT count(*), count(DISTINCT "id"), min("id"), max("id") FROM "Record""#,
                #"SELECT "version", count(*) FROM "Record" GROUP BY "version" ORDER BY 1"#,
                #"""
                SELECT count(*) FROM "Record" AS r JOIN "Category" AS c ON c."_pk" = r."category"
                  WHERE c."id" = r."id" % 10 AND c."version" = r."version" AND r."name" = 'record ' || r."id"
                    AND r."score" = r."id" * 7 AND NOT r."_placeholder" AND NOT c."_placeholder"
                """#,
                #"SELECT "version", count(*) FROM "Category" GROUP BY "version" ORDER BY 1"#,
            ].map(query).joined(separator: "\n")
        }
    }

    /// Four processes import 25,000 records each at once, neighbours overlapping by 10,000
    /// (process i: records 15,000·i ..< 15,000·i + 25,000 at version i + 1). Conflicting
    /// transactions are rolled back and run again; at the end every record exists once, each
    /// holds the version of one import that wrote it (its own range's outside the overlaps),
    /// every record is linked to its category, and the imports inserted 70,000 records in all.
    @Test func fourProcessesImportOverlappingRecordsWithoutDuplicates() throws {
        let workspace = try Workspace()
        let workload = RecordsWorkload(capacity: 70_001)
        for i in 0..<4 { try workspace.write(workload.payload((15_000 * i)..<(15_000 * i + 25_000), version: i + 1), "p\(i).json") }
        let processes = try (0..<4).map { try TrellisProcess.start(workspace.importArguments("p\($0).json"), in: workspace.directory.url) }
        let results = processes.map { $0.wait() }
        for (i, result) in results.enumerated() {
            try #require(result.status == 0 && result.stderr == "", "process \(i): \(result)")
        }
        #expect(try workspace.query(#"SELECT count(*), count(DISTINCT "id"), min("id"), max("id") FROM "Record""#) == "70000|70000|0|69999")
        #expect(try workspace.query(#"SELECT count(*), count(DISTINCT "id") FROM "Category""#) == "10|10")
        // Records only one process wrote carry its version.
        for (i, range) in [(0, 0..<15_000), (1, 25_000..<30_000), (2, 40_000..<45_000), (3, 55_000..<70_000)] {
            #expect(
                try workspace.query(
                    #"SELECT "version", count(*) FROM "Record" WHERE "id" >= \#(range.lowerBound) "#
                        + #"AND "id" < \#(range.upperBound) GROUP BY 1"#)
                    == "\(RecordsWorkload.versionText(i + 1))|\(range.count)")
        }
        // Records two processes wrote carry one of their versions.
        for (i, range) in [(0, 15_000..<25_000), (1, 30_000..<40_000), (2, 45_000..<55_000)] {
            let versions = try workspace.query(
                #"SELECT "version" FROM "Record" WHERE "id" >= \#(range.lowerBound) "#
                    + #"AND "id" < \#(range.upperBound) GROUP BY 1"#)
            #expect(
                Set(versions.split(separator: "\n").map(String.init))
                    .isSubset(of: [RecordsWorkload.versionText(i + 1), RecordsWorkload.versionText(i + 2)]), "\(versions)")
        }
        #expect(
            try workspace.query(
                #"""
                SELECT count(*) FROM "Record" AS r JOIN "Category" AS c ON c."_pk" = r."category"
                WHERE c."id" = r."id" % 10 AND r."name" = 'record ' || r."id" AND r."score" = r."id" * 7 AND NOT r."_placeholder"
                """#) == "70000")
        // Each record was inserted by exactly one import; the others found it and updated it or left it.
        let inserted = results.compactMap { try? JSONReader.parse($0.stdout)["entities"]?["Record"]?["inserted"]?.intValue }
        #expect(inserted.count == 4 && inserted.reduce(0, +) == 70_000, "\(inserted)")
    }

    /// An import killed mid-transaction (SIGKILL, no chance to roll back) leaves exactly what
    /// was committed before: the server rolls the open transaction back when the client goes.
    @Test func aKilledImportLeavesNothingHalfWritten() throws {
        let workspace = try Workspace()
        let workload = RecordsWorkload(capacity: 100_001)
        try workspace.write(workload.payload(0..<1_000, version: 1), "v1.json")
        try workspace.write(workload.payload(0..<100_000, version: 2), "v2.json")
        let first = try TrellisProcess.run(workspace.importArguments("v1.json"), in: workspace.directory.url)
        try #require(first.status == 0, "\(first)")
        let importing = try TrellisProcess.start(workspace.importArguments("v2.json"), in: workspace.directory.url)
        // Once its first batches are written into the transaction (rows locked or inserted).
        var seen = false
        for _ in 0..<20_000 where !seen && importing.isRunning {
            seen =
                try PostgresTestServer.execute(
                    "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                        + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(workspace.schema)' "
                        + "AND l.mode = 'RowExclusiveLock' AND c.relname = 'Record'") != [["0"]]
            if !seen { usleep(2_000) }
        }
        importing.kill()
        let result = importing.wait()
        try #require(seen, "the import finished before it could be killed: \(result)")
        // The server notices the client went and rolls back; wait for its backend to end.
        for _ in 0..<5_000 {
            let open = try PostgresTestServer.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'trellis' "
                    + "AND state LIKE 'idle in transaction%'")
            if open == [["0"]] { break }
            usleep(2_000)
        }
        #expect(try workspace.state() == "1000|1000|0|999\nv001|1000\n1000\nv001|10")
    }

    /// A dry run against a new schema creates nothing (the tables are made inside the rolled-back
    /// transaction); a real import then creates and fills them.
    @Test func aDryRunIntoANewSchemaCreatesNothing() throws {
        let workspace = try Workspace()
        try workspace.write(RecordsWorkload(capacity: 101).payload(0..<100, version: 1), "v1.json")
        let dry = try TrellisProcess.run(workspace.importArguments("v1.json", ["--dry-run"]), in: workspace.directory.url)
        #expect(dry.status == 0 && RecordsWorkload.counts(inReport: dry.stdout) == "Record 100 0 0 0, Category 10 0 0 0", "\(dry)")
        #expect(try PostgresTestServer.execute("SELECT count(*) FROM pg_tables WHERE schemaname = '\(workspace.schema)'") == [["0"]])
        let real = try TrellisProcess.run(workspace.importArguments("v1.json"), in: workspace.directory.url)
        #expect(real.status == 0, "\(real)")
        #expect(try workspace.state() == "100|100|0|99\nv001|100\n100\nv001|10")
        let export = try TrellisProcess.run(
            [
                "export", "--model", "model.json", "--entity", "Record", "--store", workspace.store,
                "--where", "id=42", "--relationships", "ids",
            ], in: workspace.directory.url)
        #expect(export == TrellisProcess.Result(status: 0, stdout: "[" + RecordsWorkload.exportedRecord(42, version: 1) + "]\n", stderr: ""))
    }

    /// `trellis watch --store postgresql://…` prints another process's import (woken by its
    /// NOTIFY, or found by the poll): the first line the current results, then the change.
    @Test func watchPrintsAnotherProcesssImport() throws {
        let workspace = try Workspace()
        try workspace.write(RecordsWorkload(capacity: 11).payload(0..<10, version: 1), "v1.json")
        try workspace.write(RecordsWorkload(capacity: 11).payload(10..<11, version: 1), "ten.json")
        let first = try TrellisProcess.run(workspace.importArguments("v1.json"), in: workspace.directory.url)
        #expect(first.status == 0, "\(first)")
        let watch = try TrellisProcess.start(
            [
                "watch", "--model", "model.json", "--entity", "Record", "--store", workspace.store,
                "--where", "id >= 9", "--updates", "1",
            ], in: workspace.directory.url)
        // The first line (the current results), at most 30 s.
        for _ in 0..<3000 where !watch.standardOutputSoFar.contains("\n") && watch.isRunning { Thread.sleep(forTimeInterval: 0.01) }
        let second = try TrellisProcess.run(workspace.importArguments("ten.json"), in: workspace.directory.url)
        #expect(second.status == 0, "\(second)")
        // The change line ends the watch (--updates 1); a watch that misses it is killed after 30 s.
        for _ in 0..<3000 where watch.isRunning { Thread.sleep(forTimeInterval: 0.01) }
        if watch.isRunning { watch.kill() }
        let result = watch.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(result.stdout)")
        guard lines.count == 2 else { return }
        let initial = try JSONReader.parse(lines[0])
        #expect(initial["sequence"] == 1 && initial["count"] == 1)
        #expect(initial["objects"]?[0]?["id"] == 9)
        let change = try JSONReader.parse(lines[1])
        #expect(change["sequence"] == 2 && change["count"] == 2)
        #expect(change["inserted"]?[0]?["index"] == 1)
        #expect(change["inserted"]?[0]?["object"]?["id"] == 10)
        #expect(change["updated"] == [] && change["deleted"] == [])
    }

    /// Bad input through the CLI: exit 1, a message naming the server without its password,
    /// and the database as it was.
    @Test func badStoresAreErrorsThatNeverShowThePassword() throws {
        let workspace = try Workspace()
        try workspace.write(RecordsWorkload(capacity: 11).payload(0..<10, version: 1), "v1.json")
        let run = { (store: String) throws -> TrellisProcess.Result in
            try TrellisProcess.run(
                ["import", "v1.json", "--model", "model.json", "--entity", "Record", "--store", store],
                in: workspace.directory.url)
        }
        let unreachable = try run("postgresql://trellis:s3cret@127.0.0.1:1/postgres")
        #expect(unreachable.status == 1 && unreachable.stdout == "")
        #expect(
            unreachable.stderr.hasPrefix("error: cannot connect to postgresql://trellis@127.0.0.1:1/postgres: ")
                && unreachable.stderr.contains("Connection refused") && !unreachable.stderr.contains("s3cret"), "\(unreachable)")
        let inSchema = try run("postgresql://trellis:s3cret@127.0.0.1:1/postgres?schema=catalog")
        #expect(inSchema.status == 1)
        #expect(inSchema.stderr.hasPrefix("error: cannot connect to postgresql://trellis@127.0.0.1:1/postgres?schema=catalog: "), "\(inSchema)")

        try PostgresTestServer.execute("CREATE SCHEMA \"\(workspace.schema)\"; CREATE TABLE \"\(workspace.schema)\".\"ledger\" (\"n\" int)")
        let notAStore = try run(workspace.store)
        let name = PostgresStore.describe(connection: workspace.store) + "?schema=" + workspace.schema
        #expect(
            notAStore
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: "error: \(name): not a Trellis store: schema \(workspace.schema) of \(PostgresStore.describe(connection: workspace.store)) "
                        + "holds tables (\"ledger\") but no Trellis store (it has no trellis_metadata table)\n"))
        #expect(try workspace.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()") == "ledger")
    }

    /// `trellis schema --dialect postgresql` and `--store postgresql://…?schema=…` print the
    /// statements the store runs; `--dialect sqlite` with such a store is bad usage.
    @Test func schemaPrintsThePostgreSQLStatements() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(RecordsWorkload.modelFile.utf8).write(to: directory.url.appendingPathComponent("model.json"))
        let model = try ModelFile.read(from: directory.url.appendingPathComponent("model.json")).model
        let expected = try PostgresStore.schemaStatements(for: model).map { $0 + ";\n" }.joined()
        #expect(
            try TrellisProcess.run(["schema", "--model", "model.json", "--dialect", "postgresql"], in: directory.url)
                == TrellisProcess.Result(status: 0, stdout: expected, stderr: ""))
        let inSchema = try PostgresStore.schemaStatements(for: model, schema: "cat").map { $0 + ";\n" }.joined()
        #expect(
            try TrellisProcess.run(["schema", "--model", "model.json", "--store", "postgresql://db/x?schema=cat"], in: directory.url)
                == TrellisProcess.Result(status: 0, stdout: inSchema, stderr: ""))
        let contradiction = try TrellisProcess.run(
            ["schema", "--model", "model.json", "--dialect", "sqlite", "--store", "host=db"],
            in: directory.url)
        #expect(
            contradiction.status == 64
                && contradiction.stderr.hasPrefix(
                    "error: --dialect sqlite contradicts --store, which is a PostgreSQL connection string\n"),
            "\(contradiction)")
    }

    /// Without --model, an import into a fresh PostgreSQL schema infers the model from the
    /// payload and records it in the store, as on SQLite: the second import uses the recorded
    /// model, `model show` and `export` read it, and the password never appears.
    @Test func anImportWithoutAModelInfersAndRecordsIt() throws {
        let workspace = try Workspace()
        try workspace.directory.copyExample("twitter/twitter.json")
        let name = PostgresStore.describe(connection: workspace.store) + "?schema=" + workspace.schema
        let arguments = ["import", "Examples/twitter/twitter.json", "--at", "statuses", "--entity", "Status", "--store", workspace.store]
        let first = try TrellisProcess.run(arguments, in: workspace.directory.url)
        #expect(first.status == 0 && first.stderr == "", "\(first)")
        #expect(
            first.stdout.hasSuffix(
                "model: inferred from the payload (5 entities, 88 attributes, 16 relationships) and recorded in "
                    + "\(name); print it with: trellis model show \(name)\n"), "\(first)")
        #expect(try workspace.query(#"SELECT count(*) FROM "Status""#) == "115")
        #expect(try workspace.query(#"SELECT count(*) FROM "User""#) == "127")
        let convert = try TrellisProcess.run(["model", "convert", workspace.store, "-o", "model.json"], in: workspace.directory.url)
        #expect(
            convert
                == TrellisProcess.Result(
                    status: 0, stdout: "wrote model.json: 5 entities, 88 attributes, 16 relationships\n",
                    stderr: ""), "\(convert)")
        let golden = try String(contentsOf: Fixtures.url("inference/twitter.model.json"), encoding: .utf8)
        #expect(try String(contentsOf: workspace.directory.url.appendingPathComponent("model.json"), encoding: .utf8) == golden)

        let second = try TrellisProcess.run(arguments, in: workspace.directory.url)
        #expect(second.status == 0 && second.stderr == "", "\(second)")
        #expect(second.stdout.contains("Status          0         0        115         0\n"), "\(second)")
        #expect(second.stdout.hasSuffix("model: the one recorded in \(name)\n"), "\(second)")

        let show = try TrellisProcess.run(["model", "show", workspace.store], in: workspace.directory.url)
        #expect(show.status == 0 && show.stderr == "", "\(show)")
        #expect(
            show.stdout.hasPrefix("model: \(name) (the model recorded in the store)\n5 entities, 88 attributes, 16 relationships\n"),
            "\(show)")
        let count = try TrellisProcess.run(["count", "--entity", "User", "--store", workspace.store], in: workspace.directory.url)
        #expect(count == TrellisProcess.Result(status: 0, stdout: "127\n", stderr: ""), "\(count)")

        // A schema with no store yet records no model: model show says so.
        let emptySchema = PostgresTestServer.makeSchemaName()
        defer { PostgresTestServer.dropSchema(emptySchema) }
        let empty = try PostgresTestServer.connectionString(schema: emptySchema)
        let none = try TrellisProcess.run(["model", "show", empty], in: workspace.directory.url)
        #expect(
            none
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: "error: \(PostgresStore.describe(connection: empty))?schema=\(emptySchema): no store there yet, so it records no "
                        + "model; give the model with --model\n"), "\(none)")
    }

    /// Eight first imports into one empty schema at once, each without --model: schema
    /// creation is serialized (an advisory lock taken before each creating transaction
    /// begins), so none fails on `CREATE TABLE` and every record exists once.
    @Test func eightFirstImportsAtOnceCreateTheStoreOnce() throws {
        let workspace = try Workspace()
        let workload = RecordsWorkload(capacity: 8_001)
        for i in 0..<8 { try workspace.write(workload.payload((1_000 * i)..<(1_000 * i + 1_000), version: 1), "p\(i).json") }
        let processes = try (0..<8).map {
            try TrellisProcess.start(["import", "p\($0).json", "--entity", "Record", "--store", workspace.store], in: workspace.directory.url)
        }
        for (i, result) in processes.map({ $0.wait() }).enumerated() {
            #expect(result.status == 0 && result.stderr == "", "process \(i): \(result)")
        }
        #expect(try workspace.query(#"SELECT count(*), count(DISTINCT "id"), min("id"), max("id") FROM "Record""#) == "8000|8000|0|7999")
        #expect(try workspace.query(#"SELECT count(*), count(DISTINCT "id") FROM "Category""#) == "10|10")
        #expect(try workspace.query(#"SELECT count(*) FROM "trellis_metadata" WHERE "key" = 'model'"#) == "1")
    }
}
