import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisTestSupport

/// Issue 23, point 10: `Examples/twoway/README.md` runs as written. Its first `sh` block
/// starts the Parse emulator (checked here, and started by ``TestServer`` on a free port);
/// every line of its second block runs in order, in a copy of the example whose source file
/// and lines name that port: the pull, a local edit and a local delete, another client's
/// `PUT` with curl, `--status`, `--dry-run`, the push-and-pull and a second sync. Each
/// output is checked, and at the end the server and the store hold the same heroes.
@Suite struct TwoWayExampleEndToEndTests {
    static let readme = Fixtures.repositoryRoot().appendingPathComponent("Examples/twoway/README.md")

    /// The README's `sh` blocks, each as its lines.
    static func blocks() throws -> [[String]] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        return text.components(separatedBy: "```sh\n").dropFirst().map { block in
            (block.components(separatedBy: "```").first ?? "").split(separator: "\n").map(String.init)
        }
    }

    /// A command line split into words as `sh` does for these lines: spaces separate words,
    /// single quotes keep what they hold.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quoted = false
        var inWord = false
        for character in line {
            if character == "'" {
                quoted.toggle()
                inWord = true
            } else if character == " " && !quoted {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    static func curl(_ arguments: [String]) throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func theReadmeRunsAsWrittenAndLeavesServerAndStoreEqual() throws {
        let blocks = try Self.blocks()
        try #require(blocks.count == 2)
        #expect(blocks[0] == ["python3 Tests/TrellisSyncTests/Servers/sync_test_server.py --port 8765 --heroes 6 --ties 0"])
        let server = try TestServer(["--heroes", "6", "--ties", "0"])
        let port = "127.0.0.1:\(server.port)"

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let copy = directory.url.appendingPathComponent("Examples/twoway")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.readme.deletingLastPathComponent(), to: copy)
        let source = copy.appendingPathComponent("heroes.source.json")
        let sourceText = try String(contentsOf: source, encoding: .utf8)
        #expect(sourceText.contains("\"baseURL\": \"http://127.0.0.1:8765/parse/\""))
        try sourceText.replacingOccurrences(of: "127.0.0.1:8765", with: port).write(to: source, atomically: true, encoding: .utf8)

        var results: [TrellisProcess.Result] = []
        for line in blocks[1] {
            let words = Self.words(line.replacingOccurrences(of: "127.0.0.1:8765", with: port))
            if words.first == "curl" {
                let answer = try Self.curl(Array(words.dropFirst()))
                #expect(answer.status == 0)
                #expect(answer.stdout.hasPrefix(#"{"updatedAt":"#), "\(answer)")
                continue
            }
            try #require(words.first == "trellis", "\(line)")
            let result = try TrellisProcess.run(Array(words.dropFirst()), in: directory.url)
            #expect(result.status == 0, "\(line)\n\(result)")
            results.append(result)
        }
        try #require(results.count == 7)
        #expect(
            results[0].stdout == """
                push: 0 operations sent in 0 batches (0 requests); acknowledged 0, retried 0, reconciled 0, resent 0, conflicts 0, rejected 0
                teams → Team: 2 pages (1 changed, 0 not modified), 12 records; inserted 12, updated 0, unchanged 0, deleted 0
                  watermark 2024-01-01T00:00:00.011Z; walk complete; 2 requests, 0 retries
                heroes → Hero: 2 pages (1 changed, 0 not modified), 6 records; inserted 6, updated 0, unchanged 0, deleted 0
                  watermark 2024-01-01T00:00:01.005Z; walk complete; 2 requests, 0 retries

                """)
        #expect(results[1].stdout.hasPrefix("entity  inserted   updated  unchanged   deleted\nHero           1         1          0         0\n"))
        #expect(results[2].stdout.hasPrefix("entity   deleted\nHero           1\nnullified 1 link\n"))
        let status = results[3].stdout.split(separator: "\n").map(String.init)
        #expect(status.contains("outbox of teams → Team: 0 pending (create 0, update 0, delete 0), 0 sending, 0 uncertain, 0 conflicts, 0 rejected"))
        #expect(
            status.contains {
                $0.hasPrefix("outbox of heroes → Hero: 3 pending (create 1, update 1, delete 1; oldest ")
                    && $0.hasSuffix("), 0 sending, 0 uncertain, 0 conflicts, 0 rejected")
            }, "\(results[3])")
        let dryRun = results[4].stdout.split(separator: "\n").map(String.init)
        #expect(
            Array(dryRun.prefix(4)) == [
                "push (dry run, nothing sent): 2 requests now, 1 operation waits for a later round or cannot be pushed",
                #"  POST http://\#(port)/parse/classes/Hero {"name":"Nova","power":12,"team":{"__type":"Pointer","className":"Team","objectId":"team03"}}"#,
                #"  PUT http://\#(port)/parse/classes/Hero/h00000 {"name":"Hero 0, renamed on this device","power":99}"#,
                "dry run: nothing was written to heroes.sqlite",
            ])
        #expect(
            results[5].stdout == """
                push: 3 operations sent in 3 batches (5 requests); acknowledged 3, retried 0, reconciled 0, resent 0, conflicts 0, rejected 0
                teams → Team: 1 page (0 changed, 0 not modified), 0 records; inserted 0, updated 0, unchanged 0, deleted 0
                  watermark 2024-01-01T00:00:00.011Z; walk complete; 1 request, 0 retries
                heroes → Hero: 2 pages (1 changed, 0 not modified), 3 records; inserted 0, updated 1, unchanged 2, deleted 0
                  watermark 2024-01-01T02:46:40.021Z; walk complete; 2 requests, 0 retries

                """)
        #expect(results[6].stdout.hasPrefix("push: 0 operations sent in 0 batches (0 requests)"))
        #expect(results[6].stdout.contains("heroes → Hero: 1 page (0 changed, 0 not modified), 0 records; inserted 0, updated 0, unchanged 0, deleted 0"))

        // Both sides hold the same heroes: name and power by objectId.
        var remote: [String: String] = [:]
        for record in try server.data("Hero") {
            remote[record["objectId"]?.stringValue ?? "?"] = "\(record["name"]?.stringValue ?? "?") \(record["power"]?.intValue ?? -1)"
        }
        let model = try ModelFile.read(from: copy.appendingPathComponent("model.json")).model
        let store = try StoreKind.sqlite.reopen(directory.url.appendingPathComponent("heroes.sqlite").path, model: model)
        #expect(try store.outbox() == [])
        let hero = try #require(model.entity(named: "Hero"))
        var local: [String: String] = [:]
        for snapshot in try store.read({ try $0.fetch(entity: "Hero", matching: nil) }) {
            let objectId = snapshot.attributes[hero.attributeIndex(of: "objectId")!]?.stringValue ?? "none"
            let name = snapshot.attributes[hero.attributeIndex(of: "name")!]?.stringValue ?? "?"
            local[objectId] = "\(name) \(snapshot.attributes[hero.attributeIndex(of: "power")!]?.integerValue ?? -1)"
        }
        #expect(local == remote)
        #expect(remote["h00000"] == "Hero 0, renamed on this device 99")
        #expect(remote["h15838"] == "Hero 2 50")
        #expect(remote.values.filter { $0 == "Nova 12" }.count == 1)
        #expect(!remote.values.contains { $0.hasPrefix("Hero 1 ") })
        #expect(remote.count == 6)
    }
}
