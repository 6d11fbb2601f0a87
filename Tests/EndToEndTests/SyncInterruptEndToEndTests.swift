import Foundation
import Testing
import Trellis
import TrellisSQLite
import TrellisTestSupport

/// Ctrl-C in the middle of `trellis sync`: the pages committed stay (with their checkpoints),
/// the message says so on its own line, status 130, and the next run completes the store.
@Suite struct SyncInterruptEndToEndTests {
    @Test func ctrlCKeepsTheCommittedPagesAndSaysSo() throws {
        let helpers = SyncEndToEndTests()
        let server = try TestServer(["--heroes", "2500", "--ties", "500"])
        // Slow pages, so the signal lands mid-run.
        try server.faults([["match": "classes/Hero", "delay": 0.25, "times": 1000]])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try helpers.source(server).write(to: directory.url.appendingPathComponent("heroes.source.json"), atomically: true, encoding: .utf8)
        setenv("PARSE_APP_ID", "test-app", 1)
        let storeURL = directory.url.appendingPathComponent("heroes.sqlite")
        let arguments = ["sync", "heroes.source.json", "--model", SyncEndToEndTests.model.path, "--store", "heroes.sqlite"]
        let running = try TrellisProcess.start(arguments, in: directory.url)
        var committed = 0
        let deadline = Date().addingTimeInterval(120)
        while committed < 2, Date() < deadline, running.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
            if FileManager.default.fileExists(atPath: storeURL.path),
                let metadata = try? SQLiteStore.userMetadata(atPath: storeURL.path), let text = metadata["sync/heroes"],
                let pages = try? JSONReader.parse(text)["totalPages"]?.intValue
            {
                committed = pages
            }
        }
        #expect(committed >= 2 && running.isRunning, "the run ended before it was interrupted")
        kill(running.processIdentifier, SIGINT)
        let interrupted = running.wait()
        #expect(
            interrupted
                == TrellisProcess.Result(
                    status: 130, stdout: "",
                    stderr: "interrupted: the pages committed so far are kept, with their checkpoints; the next run resumes after them\n"))

        try server.faults([])
        let second = try TrellisProcess.run(arguments, in: directory.url)
        #expect(second.status == 0, "\(second)")
        #expect(try helpers.differences(store: storeURL, server: server) == [])
    }
}
