import Foundation
import Testing
import TrellisTestSupport

/// The commands that only read a store (export, count, model show on a store, sync --status)
/// leave the directory as they found it: no `-wal` or `-shm` beside the store, the store's
/// bytes unchanged (https://sqlite.org/wal.html, "Read-only databases").
@Suite struct ReadOnlyCommandsEndToEndTests {
    static func files(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    static let source = #"""
        {"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://127.0.0.1:9/", "dialect": "parse"},
         "resources": [{"name": "statuses", "entity": "Status", "path": "classes/Status"}]}
        """#

    @Test(arguments: [
        ["export", "--model", "Examples/twitter/model.json", "--entity", "Status"],
        ["export", "--model", "Examples/twitter/model.json", "--entity", "User", "--where", "followersCount > 1000", "--pretty"],
        ["count", "--model", "Examples/twitter/model.json", "--entity", "Status", "--where", "retweetCount > 5"],
        ["model", "show", "trellis.sqlite"],
        ["sync", "statuses.source.json", "--status"],
    ])
    func aReadOnlyCommandLeavesTheDirectoryAsItWas(arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.copyExample("twitter/model.json")
        try directory.copyExample("twitter/twitter.json")
        try Self.source.write(to: directory.url.appendingPathComponent("statuses.source.json"), atomically: true, encoding: .utf8)
        let imported = try TrellisProcess.run(
            [
                "import", "Examples/twitter/twitter.json", "--model", "Examples/twitter/model.json",
                "--entity", "Status", "--at", "statuses",
            ], in: directory.url)
        try #require(imported.status == 0, "\(imported)")
        let before = try Self.files(in: directory)
        #expect(before == ["Examples", "statuses.source.json", "trellis.sqlite"])
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        let bytes = try Data(contentsOf: store)

        let result = try TrellisProcess.run(arguments, in: directory.url)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "")
        #expect(try Self.files(in: directory) == before)
        #expect(try Data(contentsOf: store) == bytes)
    }
}
