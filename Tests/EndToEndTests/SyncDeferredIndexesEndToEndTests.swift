import Foundation
import Testing
import Trellis
import TrellisSQLite
import TrellisTestSupport

/// `trellis sync` killed with SIGKILL while its run holds the store's secondary indexes
/// deferred (`SQLiteStore+DeferredIndexes.swift`): the file keeps the mark, queries answer
/// the same while a run is alive (scanning), the next command repairs the indexes and says so
/// on stderr, the answers stay identical, and the next sync completes the store.
@Suite struct SyncDeferredIndexesEndToEndTests {
    static let mark = "SELECT value FROM trellis_metadata WHERE key = 'deferredIndexes'"
    static let indexes = "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"

    @Test func aKilledRunLeavesAStoreTheNextCommandRepairs() throws {
        let helpers = SyncEndToEndTests()
        let server = try TestServer(["--heroes", "2500", "--ties", "500"])
        // Slow pages, so the kill lands mid-run (the run defers its indexes after 1,000 objects).
        try server.faults([["match": "classes/Hero", "delay": 0.2, "times": 1000]])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try helpers.source(server).write(to: directory.url.appendingPathComponent("heroes.source.json"), atomically: true, encoding: .utf8)
        setenv("PARSE_APP_ID", "test-app", 1)
        let storeURL = directory.url.appendingPathComponent("heroes.sqlite")
        let arguments = ["sync", "heroes.source.json", "--model", SyncEndToEndTests.model.path, "--store", "heroes.sqlite"]
        let running = try TrellisProcess.start(arguments, in: directory.url)
        var marked = ""
        let deadline = Date().addingTimeInterval(120)
        while marked.isEmpty, Date() < deadline, running.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
            if FileManager.default.fileExists(atPath: storeURL.path) {
                marked = (try? SQLiteShell.query(storeURL, Self.mark)) ?? ""
            }
        }
        #expect(running.isRunning, "the run ended before its indexes were deferred")
        kill(running.processIdentifier, SIGKILL)
        _ = running.wait()
        #expect(marked == #"[{"name":"Hero(team)","sql":"CREATE INDEX \"Hero(team)\" ON \"Hero\"(\"team\")"}]"#)
        #expect(try SQLiteShell.query(storeURL, Self.mark) == marked)
        #expect(try SQLiteShell.query(storeURL, Self.indexes) == "Hero identity\nTeam identity")

        let queries = [
            ["count", "--model", SyncEndToEndTests.model.path, "--store", "heroes.sqlite", "--entity", "Hero", "--where", "team.objectId == 'team03'"],
            ["count", "--model", SyncEndToEndTests.model.path, "--store", "heroes.sqlite", "--entity", "Team", "--where", "heroes.@count >= 1"],
            [
                "export", "--model", SyncEndToEndTests.model.path, "--store", "heroes.sqlite", "--entity", "Hero", "--sort", "objectId",
                "--where", "team.name == 'Team 5'",
            ],
        ]
        // While a run holds the run lock (here this test, as a live sync would), nothing is
        // repaired: the queries answer by scanning.
        let lock = open(storeURL.path + "-trellis-run", O_RDWR | O_CREAT, 0o644)
        #expect(lock >= 0 && flock(lock, LOCK_SH | LOCK_NB) == 0)
        var answers: [TrellisProcess.Result] = []
        for query in queries { answers.append(try TrellisProcess.run(query, in: directory.url)) }
        close(lock)
        for answer in answers { #expect(answer.status == 0 && answer.stderr == "", "\(answer)") }
        #expect(try SQLiteShell.query(storeURL, Self.mark) == marked)
        let committed = Int(answers[0].stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(committed > 0, "\(answers[0])")

        // The run's process is gone: the next command repairs, says so, and answers the same.
        let first = try TrellisProcess.run(queries[0], in: directory.url)
        #expect(
            first
                == TrellisProcess.Result(
                    status: 0, stdout: answers[0].stdout,
                    stderr: "note: heroes.sqlite: rebuilt 1 index a sync run left deferred (it was interrupted)\n"))
        for (query, answer) in zip(queries, answers) {
            #expect(try TrellisProcess.run(query, in: directory.url) == answer)
        }
        #expect(try SQLiteShell.query(storeURL, Self.mark) == "")
        #expect(try SQLiteShell.query(storeURL, Self.indexes) == "Hero identity\nHero(team)\nTeam identity")
        #expect(try SQLiteShell.query(storeURL, "PRAGMA integrity_check") == "ok")
        #expect(!FileManager.default.fileExists(atPath: storeURL.path + "-trellis-run"))

        // The next sync completes the store; its run rebuilds what it deferred.
        try server.faults([])
        let second = try TrellisProcess.run(arguments, in: directory.url)
        #expect(second.status == 0 && second.stderr == "", "\(second)")
        #expect(try helpers.differences(store: storeURL, server: server) == [])
        #expect(try SQLiteShell.query(storeURL, Self.mark) == "")
        #expect(try SQLiteShell.query(storeURL, Self.indexes) == "Hero identity\nHero(team)\nTeam identity")
        #expect(try SQLiteShell.query(storeURL, "PRAGMA integrity_check") == "ok")
    }
}
