import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisSQLite

/// Several `trellis` processes on one store at once (issue 7, concurrent writers and
/// readers): an import waits for another's write lock.
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
        #expect(result.status == 0 && result.stderr == "", "\(result)")
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
        #expect(result == TrellisProcess.Result(
            status: 1, stdout: "",
            stderr: "error: trellis.sqlite: the store is locked by another writer (gave up after 0.5 s; see --busy-timeout): "
                + "database is locked\n"))
        #expect(try RecordsWorkload.state(of: storeURL) == RecordsWorkload.expectedState(count: 100, version: 1))
    }
}
