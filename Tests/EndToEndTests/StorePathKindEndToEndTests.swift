import Foundation
import Testing
import TrellisTestSupport

/// A `--store` that exists but is no regular file is an error naming it, for every command
/// that opens a store: before, `--store /dev/null` failed an import with SQLite's "disk I/O
/// error (…; SQL: COMMIT)" and exported `[]`, and `count --store DIR` gave SQLite's
/// "unable to open database file".
@Suite struct StorePathKindEndToEndTests {
    static let model = ["--model", "Examples/twitter/model.json", "--entity", "Status"]
    static let commands: [[String]] = [
        ["import", "Examples/twitter/twitter.json", "--at", "statuses"] + model,
        ["export"] + model,
        ["count"] + model,
        ["watch", "--updates", "1"] + model,
    ]

    static let cases: [(arguments: [String], stderr: String)] = commands.flatMap { command in
        [
            (
                command + ["--store", "/dev/null"],
                "error: /dev/null: not a store file: it is a device, a FIFO or a socket, not a regular file\n"
            ),
            (command + ["--store", "adir"], "error: adir: is a directory, not a store\n"),
        ]
    }

    @Test(arguments: 0..<cases.count) func aStorePathThatIsNoFileIsNamed(_ index: Int) throws {
        let c = Self.cases[index]
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for file in ["twitter/twitter.json", "twitter/model.json"] { try directory.copyExample(file) }
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("adir"), withIntermediateDirectories: false)
        let result = try TrellisProcess.run(c.arguments, in: directory.url)
        #expect(result == TrellisProcess.Result(status: 1, stdout: "", stderr: c.stderr), "\(c.arguments)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.appendingPathComponent("adir").path) == [])
    }
}
