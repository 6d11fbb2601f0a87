import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisSQLite
import TrellisTestSupport

/// `trellis sync` as a process against the loopback Parse emulator: summaries, `--status`,
/// bad source files, and a `kill -9` in the middle of a run followed by a second run.
@Suite struct SyncEndToEndTests {
    static let model = Fixtures.url("sync/heroes.model.json")

    func source(_ server: TestServer, limit: Int = 100) -> String {
        #"""
        {"format": "trellis-source", "formatVersion": 1,
         "client": {"baseURL": "\#(server.base)/parse/", "dialect": "parse",
                    "headers": {"X-Parse-Application-Id": "${env:PARSE_APP_ID}"}},
         "resources": [{"name": "heroes", "entity": "Hero", "path": "classes/Hero", "params": {"limit": \#(limit)},
                        "incremental": {"cursor": "updatedAt"}, "deletions": {"type": "fullScan"}}]}
        """#
    }

    /// The objectIds and stamps of the stored heroes against the server's: empty when equal.
    func differences(store path: URL, server: TestServer) throws -> [String] {
        let model = try ModelFile.read(from: Self.model).model
        let store = try SQLiteStore(path: path.path, model: model)
        let entity = try #require(model.entity(named: "Hero"))
        var stored: [String: String] = [:]
        var problems: [String] = []
        for snapshot in try store.read({ try $0.fetch(entity: "Hero", matching: nil) }) where !snapshot.isPlaceholder {
            let id = snapshot.attributes[entity.attributeIndex(of: "objectId")!]?.stringValue ?? "?"
            if stored[id] != nil { problems.append("\(id) twice") }
            stored[id] = snapshot.attributes[entity.attributeIndex(of: "name")!]?.stringValue
        }
        for record in try server.data("Hero") {
            let id = record["objectId"]!.stringValue!
            guard let name = stored.removeValue(forKey: id) else {
                problems.append("\(id) missing")
                continue
            }
            if name != record["name"]?.stringValue { problems.append("\(id) is \(name)") }
        }
        return problems + stored.keys.sorted().map { "\($0) not on the server" }
    }

    @Test func syncReportsStatusAndAnUnchangedServerChangesNoPage() throws {
        let server = try TestServer(["--heroes", "300", "--ties", "100"])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try source(server).write(to: directory.url.appendingPathComponent("heroes.source.json"), atomically: true, encoding: .utf8)
        setenv("PARSE_APP_ID", "test-app", 1)
        let arguments = ["sync", "heroes.source.json", "--model", Self.model.path, "--store", "heroes.sqlite"]
        let first = try TrellisProcess.run(arguments + ["--stage", "staged"], in: directory.url)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.hasPrefix("heroes → Hero: 4 pages (3 changed, 0 not modified), 300 records; inserted 300, updated 0, unchanged 0, deleted 0\n"))
        #expect(first.stderr == "")
        #expect(try differences(store: directory.url.appendingPathComponent("heroes.sqlite"), server: server) == [])

        // Again, without --model: the store records the model it was synced with.
        let again = try TrellisProcess.run(["sync", "heroes.source.json", "--store", "heroes.sqlite", "--report", "json"], in: directory.url)
        #expect(again.status == 0, "\(again)")
        let report = try JSONReader.parse(again.stdout)
        #expect(report["resources"]?[0]?["pages"] == 1)
        #expect(report["resources"]?[0]?["pagesChanged"] == 0)
        #expect(report["resources"]?[0]?["records"] == 0)

        // The staged pages replay into another store without the network.
        let replay = try TrellisProcess.run(
            [
                "sync", "heroes.source.json", "--model", Self.model.path, "--store", "replayed.sqlite",
                "--replay", "staged",
            ], in: directory.url)
        #expect(replay.status == 0, "\(replay)")
        #expect(replay.stdout.hasPrefix("heroes → Hero: 4 pages (3 changed, 0 not modified), 300 records; inserted 300"))
        #expect(try differences(store: directory.url.appendingPathComponent("replayed.sqlite"), server: server) == [])

        let status = try TrellisProcess.run(["sync", "heroes.source.json", "--status", "--store", "heroes.sqlite", "--report", "json"], in: directory.url)
        #expect(status.status == 0, "\(status)")
        let resource = try #require(try JSONReader.parse(status.stdout)["resources"]?[0])
        #expect(resource["lastRun"]?["status"] == "completed")
        #expect(resource["watermark"]?["text"] == (try server.data("Hero")).last?["updatedAt"])
        #expect(resource["nextPage"] == .null)
        #expect(resource["totalPages"] == 5)
        #expect(resource["totalRecords"] == 300)
    }

    @Test func aBadSourceFileIsLocatedAndExitsOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try #"{"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://127.0.0.1:9/", "retries": 3}, "resources": []}"#
            .write(to: directory.url.appendingPathComponent("bad.source.json"), atomically: true, encoding: .utf8)
        let result = try TrellisProcess.run(["sync", "bad.source.json", "--model", Self.model.path], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr == "error: bad.source.json: $.client.retries: unknown key 'retries' in the client; allowed keys: baseURL, "
                + "headers, auth, dialect, timeoutSeconds, maxAttempts, minIntervalSeconds, maxRateLimitWaitSeconds, allowedHosts\n")
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("trellis.sqlite").path))
        let usage = try TrellisProcess.run(["sync", "bad.source.json", "--max-pages", "0", "--model", Self.model.path], in: directory.url)
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("error: invalid value '0' for '--max-pages'; expected a count of 1 or more\nusage: trellis sync <source>"))
        let budgetedReplay = try TrellisProcess.run(
            ["sync", "bad.source.json", "--replay", "pages", "--max-pages", "2", "--model", Self.model.path], in: directory.url)
        #expect(budgetedReplay.status == 64)
        #expect(
            budgetedReplay.stderr.hasPrefix(
                "error: '--max-pages' and '--replay' cannot be combined (a replay imports every staged page)\nusage: trellis sync <source>"))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("trellis.sqlite").path))
        let noModel = try TrellisProcess.run(["sync", "bad.source.json", "--store", "new.sqlite"], in: directory.url)
        #expect(noModel.status == 64)
        #expect(noModel.stderr.hasPrefix("error: missing option '--model <model>': the store new.sqlite does not exist yet, so it records no model\n"))
    }

    @Test func aKillInTheMiddleOfARunLosesNothingAndTheNextRunFetchesOnlyWhatWasInFlight() throws {
        let server = try TestServer(["--heroes", "2500", "--ties", "500"])
        // Slow pages, so the kill lands mid-run.
        try server.faults([["match": "classes/Hero", "delay": 0.25, "times": 1000]])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try source(server).write(to: directory.url.appendingPathComponent("heroes.source.json"), atomically: true, encoding: .utf8)
        setenv("PARSE_APP_ID", "test-app", 1)
        let storeURL = directory.url.appendingPathComponent("heroes.sqlite")
        let arguments = ["sync", "heroes.source.json", "--model", Self.model.path, "--store", "heroes.sqlite"]
        let running = try TrellisProcess.start(arguments, in: directory.url)
        var committed = 0
        let deadline = Date().addingTimeInterval(120)
        while committed < 5, Date() < deadline, running.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
            if FileManager.default.fileExists(atPath: storeURL.path),
                let metadata = try? SQLiteStore.userMetadata(atPath: storeURL.path), let text = metadata["sync/heroes"],
                let pages = try? JSONReader.parse(text)["totalPages"]?.intValue
            {
                committed = pages
            }
        }
        running.kill()
        let killed = running.wait()
        #expect(running.wasKilled, "\(killed)")
        #expect(committed >= 5)
        let firstRun = Set(try server.requestedPaths())

        try server.faults([])
        try server.resetLog()
        let second = try TrellisProcess.run(arguments, in: directory.url)
        #expect(second.status == 0, "\(second)")
        #expect(try differences(store: storeURL, server: server) == [])
        // The second run resumes at the first page not committed: of what it asks for, only the
        // pages that were in flight (the one being imported and the one being fetched) were asked before.
        let again = try server.requestedPaths().filter { !$0.contains("keys=") }
        #expect(again.filter(firstRun.contains).count <= 2)
        #expect(again.count + firstRun.count - again.filter(firstRun.contains).count == 26)
        let status = try TrellisProcess.run(["sync", "heroes.source.json", "--status", "--store", "heroes.sqlite"], in: directory.url)
        #expect(status.stdout.contains("heroes → Hero: last run completed"))
    }
}
