import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisSQLite
import TrellisTestSupport

/// Several `trellis` processes on one store at once (issue 7, concurrent writers and
/// readers): imports wait for each other's write lock and merge by identity (no duplicate
/// identities, no lost updates), a failed import never takes another's store with it, and an
/// export sees one committed state.
@Suite struct ConcurrencyEndToEndTests {
    static func workspace() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try Data(RecordsWorkload.modelFile.utf8).write(to: directory.url.appendingPathComponent("model.json"))
        return directory
    }

    static func importArguments(_ payload: String, _ extra: [String] = []) -> [String] {
        ["import", payload, "--model", "model.json", "--entity", "Record", "--report", "json"] + extra
    }

    static func write(_ data: Data, _ name: String, in directory: TemporaryDirectory) throws {
        try data.write(to: directory.url.appendingPathComponent(name))
    }

    /// Files SQLite or Trellis left next to the store (hidden staging files, `-wal`, `-shm`);
    /// check before reading the store with `sqlite3`, whose read-only connection leaves
    /// `-wal` and `-shm` files behind.
    static func leftovers(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { $0.hasPrefix(".") || $0.hasSuffix("-wal") || $0.hasSuffix("-shm") || $0.hasSuffix("-journal") }
    }

    /// `stderr` without the line an import writes when it has waited a second for another
    /// writer's lock (which of two concurrent imports waits is up to the scheduler).
    static func withoutWaitNotice(_ stderr: String) -> String {
        stderr.replacingOccurrences(of: "waiting for another import to finish…\n", with: "")
    }

    // MARK: - Waiting for the write lock

    /// Another connection holds the write lock for 6.5 s, longer than SQLite's 5 s default in
    /// the library; `trellis import` waits (default `--busy-timeout` 60 s), then applies.
    @Test func importWaitsForAnotherWriterLongerThanFiveSeconds() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let workload = RecordsWorkload(capacity: 1_001)
        try Self.write(workload.payload(0..<1_000, version: 1), "v1.json", in: directory)
        try Self.write(workload.payload(0..<1_000, version: 2), "v2.json", in: directory)
        #expect(try TrellisProcess.run(Self.importArguments("v1.json"), in: directory.url).status == 0)
        let storeURL = directory.url.appendingPathComponent("trellis.sqlite")
        let model = try ModelFile.read(from: directory.url.appendingPathComponent("model.json")).model
        let holder = try SQLiteStore(path: storeURL.path, model: model)
        var waitedPastTheLock = false
        let child = try holder.write { _ in
            let child = try TrellisProcess.start(Self.importArguments("v2.json"), in: directory.url)
            Thread.sleep(forTimeInterval: 6.5)
            waitedPastTheLock = child.isRunning
            return child
        }
        let result = child.wait()
        #expect(waitedPastTheLock, "the import ended while another connection held the write lock: \(result)")
        #expect(result.status == 0 && result.stderr == "waiting for another import to finish…\n", "\(result)")
        #expect(RecordsWorkload.counts(inReport: result.stdout) == "Record 0 1000 0 0, Category 0 10 0 0")
        #expect(try RecordsWorkload.state(of: storeURL) == RecordsWorkload.expectedState(count: 1_000, version: 2))
    }

    /// With `--busy-timeout 0.5` the import gives up, says why and how to wait longer, and
    /// writes nothing.
    @Test func importGivesUpAfterTheBusyTimeout() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let workload = RecordsWorkload(capacity: 101)
        try Self.write(workload.payload(0..<100, version: 1), "v1.json", in: directory)
        try Self.write(workload.payload(0..<100, version: 2), "v2.json", in: directory)
        #expect(try TrellisProcess.run(Self.importArguments("v1.json"), in: directory.url).status == 0)
        let storeURL = directory.url.appendingPathComponent("trellis.sqlite")
        let model = try ModelFile.read(from: directory.url.appendingPathComponent("model.json")).model
        let holder = try SQLiteStore(path: storeURL.path, model: model)
        let result = try holder.write { _ in
            try TrellisProcess.start(Self.importArguments("v2.json", ["--busy-timeout", "0.5"]), in: directory.url).wait()
        }
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: "error: trellis.sqlite: the store is locked by another writer (gave up after 0.5 s; see --busy-timeout): "
                        + "database is locked\n"))
        #expect(try RecordsWorkload.state(of: storeURL) == RecordsWorkload.expectedState(count: 100, version: 1))
    }

    // MARK: - Two writers

    /// Two imports started together on one store: A writes `v002` into records 0..<70 000, B
    /// writes `v003` into 30 000..<100 000. Both succeed, one after the other (whichever took
    /// the write lock first); the store then has each record once, A's records at A's
    /// version, B's at B's, and the 40 000 records both wrote all at the version of the import
    /// that committed last, which found them stored and counted them as updated.
    @Test(arguments: [false, true]) func overlappingImportsBothApply(intoNewStore: Bool) throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let workload = RecordsWorkload(capacity: 100_001)
        let storeURL = directory.url.appendingPathComponent("trellis.sqlite")
        if !intoNewStore {
            try Self.write(workload.payload(0..<10, version: 1), "base.json", in: directory)
            #expect(try TrellisProcess.run(Self.importArguments("base.json"), in: directory.url).status == 0)
        }
        try Self.write(workload.payload(0..<70_000, version: 2), "a.json", in: directory)
        try Self.write(workload.payload(30_000..<100_000, version: 3), "b.json", in: directory)
        let a = try TrellisProcess.start(Self.importArguments("a.json"), in: directory.url)
        let b = try TrellisProcess.start(Self.importArguments("b.json"), in: directory.url)
        let resultA = a.wait()
        let resultB = b.wait()
        // Whichever waited for the other's write lock for a second or more said so.
        try #require(resultA.status == 0 && Self.withoutWaitNotice(resultA.stderr) == "", "\(resultA)")
        try #require(resultB.status == 0 && Self.withoutWaitNotice(resultB.stderr) == "", "\(resultB)")
        // Before sqlite3 opens the store (a read-only connection leaves -wal and -shm files).
        #expect(try Self.leftovers(in: directory) == [])

        #expect(
            try SQLiteShell.query(storeURL, #"SELECT count(*), count(DISTINCT "id"), min("id"), max("id") FROM "Record""#)
                == "100000|100000|0|99999")
        let overlap = try SQLiteShell.query(storeURL, #"SELECT "version", count(*) FROM "Record" WHERE "id" BETWEEN 30000 AND 69999 GROUP BY 1"#)
        #expect(overlap == "v002|40000" || overlap == "v003|40000", "the records both imports wrote: \(overlap)")
        let aLast = overlap.hasPrefix("v002")
        let last = aLast ? "v002" : "v003"
        #expect(try SQLiteShell.query(storeURL, #"SELECT "version", count(*) FROM "Record" WHERE "id" < 30000 GROUP BY 1"#) == "v002|30000")
        #expect(try SQLiteShell.query(storeURL, #"SELECT "version", count(*) FROM "Record" WHERE "id" >= 70000 GROUP BY 1"#) == "v003|30000")
        #expect(try SQLiteShell.query(storeURL, #"SELECT "version", count(*) FROM "Category" GROUP BY 1"#) == "\(last)|10")
        #expect(
            try SQLiteShell.query(
                storeURL,
                #"""
                SELECT count(*) FROM "Record" AS r JOIN "Category" AS c ON c."_pk" = r."category"
                WHERE c."id" = r."id" % 10 AND r."name" = 'record ' || r."id" AND r."score" = r."id" * 7
                """#) == "100000")

        // Each import found exactly what the other had committed before it.
        let (first, second) = aLast ? (resultB, resultA) : (resultA, resultB)
        let base = intoNewStore ? 0 : 10
        let categories = intoNewStore ? "Category 10 0 0 0" : "Category 0 10 0 0"
        if aLast {
            #expect(RecordsWorkload.counts(inReport: first.stdout) == "Record 70000 0 0 0, \(categories)")
            #expect(RecordsWorkload.counts(inReport: second.stdout) == "Record \(30_000 - base) \(40_000 + base) 0 0, Category 0 10 0 0")
        } else {
            #expect(RecordsWorkload.counts(inReport: first.stdout) == "Record \(70_000 - base) \(base) 0 0, \(categories)")
            #expect(RecordsWorkload.counts(inReport: second.stdout) == "Record 30000 40000 0 0, Category 0 10 0 0")
        }
        #expect(try SQLiteShell.query(storeURL, "PRAGMA integrity_check") == "ok")
    }

    /// An import that fails must not delete a store that another import created and wrote
    /// while it ran. (It did: the failing import had created the file, so it removed it, with
    /// the other import's committed records; the other process went on writing into the
    /// deleted file and reported success.)
    @Test func failedImportKeepsTheStoreAnotherImportWrote() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let workload = RecordsWorkload(capacity: 100_001)
        var bad = workload.payload(0..<100_000, version: 2)
        bad.removeLast(2)  // "]\n"
        bad.append(contentsOf: ",\n{\"id\":100000,\"score\":\"many\"}]\n".utf8)
        try Self.write(bad, "bad.json", in: directory)
        try Self.write(workload.payload(0..<1_000, version: 1), "good.json", in: directory)

        // The failing import runs first; the good one starts once the failing one has begun writing.
        let failing = try TrellisProcess.start(Self.importArguments("bad.json"), in: directory.url)
        while failing.isRunning, (failing.bytesWritten ?? 0) < 64 << 10 { usleep(1_000) }
        let good = try TrellisProcess.start(Self.importArguments("good.json"), in: directory.url)
        let goodResult = good.wait()
        let failingResult = failing.wait()
        #expect(
            failingResult
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: "error: bad.json: $[100000].score: cannot store \"many\" in Record.score (integer64): not a decimal number\n"))
        #expect(goodResult.status == 0 && Self.withoutWaitNotice(goodResult.stderr) == "", "\(goodResult)")
        #expect(RecordsWorkload.counts(inReport: goodResult.stdout) == "Record 1000 0 0 0, Category 10 0 0 0")
        let storeURL = directory.url.appendingPathComponent("trellis.sqlite")
        try #require(FileManager.default.fileExists(atPath: storeURL.path), "the store the good import wrote is gone")
        #expect(try Self.leftovers(in: directory) == [])
        #expect(try RecordsWorkload.state(of: storeURL) == RecordsWorkload.expectedState(count: 1_000, version: 1))
    }

    // MARK: - A reader during a write

    /// `trellis export --relationships nested` run again and again while an import rewrites
    /// every record and category: each export is exactly the state before the import (20 000
    /// records at `v001`) or after it (20 100 at `v002`), records and nested categories alike.
    @Test func exportDuringAnImportSeesOneCommittedState() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let workload = RecordsWorkload(capacity: 20_101)
        try Self.write(workload.payload(0..<20_000, version: 1), "v1.json", in: directory)
        try Self.write(workload.payload(0..<20_100, version: 2), "v2.json", in: directory)
        #expect(try TrellisProcess.run(Self.importArguments("v1.json"), in: directory.url).status == 0)
        let exportArguments = ["export", "--model", "model.json", "--entity", "Record", "--relationships", "nested"]

        let importing = try TrellisProcess.start(Self.importArguments("v2.json"), in: directory.url)
        var seen: [String] = []
        var exportsDuringImport = 0
        repeat {
            let startedDuringImport = importing.isRunning
            let export = try TrellisProcess.run(exportArguments, in: directory.url)
            try #require(export.status == 0 && export.stderr == "", "\(export)")
            let state = try Self.versions(inExport: export.stdout)
            #expect(state == "20000 records at v001" || state == "20100 records at v002", "\(state)")
            if startedDuringImport {
                exportsDuringImport += 1
                seen.append(state)
            }
        } while importing.isRunning
        let result = importing.wait()
        #expect(result.status == 0, "\(result)")
        #expect(exportsDuringImport >= 1)
        let after = try TrellisProcess.run(exportArguments, in: directory.url)
        #expect(try Self.versions(inExport: after.stdout) == "20100 records at v002")
        print("export during import: \(exportsDuringImport) exports overlapped the import, seeing \(seen)")
    }

    /// `N records at vK` when every record and its nested category have version `vK`; else
    /// every version seen.
    static func versions(inExport text: String) throws -> String {
        guard case .array(let records) = try JSONReader.parse(text) else { return "not an array" }
        var versions: Set<String> = []
        for record in records {
            versions.insert(record["version"]?.stringValue ?? "none")
            versions.insert(record["category"]?["version"]?.stringValue ?? "none")
        }
        guard versions.count == 1, let version = versions.first else {
            return "\(records.count) records mixing \(versions.sorted())"
        }
        return "\(records.count) records at \(version)"
    }
}
