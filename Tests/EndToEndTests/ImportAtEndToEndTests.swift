import Foundation
import Testing
import TrellisTestSupport

/// What `--at` (or the whole document) is read as: an array, an object of objects only
/// with `--key-attribute` / `--value-key`, otherwise one object; a scalar or null is an error.
/// JSON member order never changes the reading.
@Suite struct ImportAtEndToEndTests {
    static let model = ["--model", "Examples/twitter/model.json", "--entity", "Status"]

    static func workspace(_ files: [String: String]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try directory.copyExample("twitter/model.json")
        try directory.copyExample("twitter/twitter.json")
        for (name, text) in files {
            try Data(text.utf8).write(to: directory.url.appendingPathComponent(name))
        }
        return directory
    }

    static func lines(_ result: TrellisProcess.Result) -> [String] {
        Array(result.stdout.split(separator: "\n").map(String.init).prefix(3))
    }

    /// A status whose first member is its user (an object holding `id`) is one status, not
    /// an object of objects (it used to insert Statuses 5, 1, 3 and 0).
    @Test func singleStatusWhoseFirstMemberIsItsUser() throws {
        let status = #"{"user":{"id":5,"name":"alice","lang":"en"},"id":1,"retweet_count":3,"favorite_count":0}"#
        let directory = try Self.workspace(["status.json": status])
        defer { directory.remove() }
        let result = try TrellisProcess.run(["import", "status.json"] + Self.model, in: directory.url)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "")
        #expect(
            Self.lines(result) == [
                "entity  inserted   updated  unchanged   deleted",
                "Status         1         0          0         0",
                "User           1         0          0         0",
            ])
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        #expect(try SQLiteShell.query(store, "SELECT id, retweetCount, favoriteCount FROM Status") == "1|3|0")
        #expect(try SQLiteShell.query(store, "SELECT id, name, lang FROM User") == "5|alice|en")
    }

    /// The same with a retweet (it used to fail with a misleading error).
    @Test func singleRetweetWhoseFirstMemberIsItsUser() throws {
        let status =
            #"{"user":{"id":5,"name":"alice"},"id":1,"retweet_count":3,"#
            + #""retweeted_status":{"user":{"id":6,"name":"bob"},"id":2,"retweet_count":3}}"#
        let directory = try Self.workspace(["status.json": status])
        defer { directory.remove() }
        let result = try TrellisProcess.run(["import", "status.json"] + Self.model, in: directory.url)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "")
        #expect(
            Self.lines(result) == [
                "entity  inserted   updated  unchanged   deleted",
                "Status         2         0          0         0",
                "User           2         0          0         0",
            ])
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        #expect(try SQLiteShell.query(store, "SELECT id FROM Status ORDER BY id") == "1\n2")
        #expect(try SQLiteShell.query(store, "SELECT id, name FROM User ORDER BY id") == "5|alice\n6|bob")
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var stderr: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let refusals: [Refusal] = [
        Refusal(
            arguments: ["Examples/twitter/twitter.json", "--at", "search_metadata.count"],
            stderr: "error: Examples/twitter/twitter.json: $.search_metadata.count: expected an array or object of Status objects, found a number\n"),
        Refusal(
            arguments: ["Examples/twitter/twitter.json", "--at", "search_metadata.max_id_str"],
            stderr: "error: Examples/twitter/twitter.json: $.search_metadata.max_id_str: expected an array or object of Status objects, found a string\n"),
        Refusal(
            arguments: ["null.json", "--at", "a"],
            stderr: "error: null.json: $.a: expected an array or object of Status objects, found null\n"),
        Refusal(
            arguments: ["number.json"],
            stderr: "error: number.json: $: expected an array or object of Status objects, found a number\n"),
    ]

    /// A scalar or null where the collection should be is an error naming its path, and
    /// nothing is written (it used to insert an empty placeholder Status 100).
    @Test(arguments: refusals)
    func scalarOrNullIsAnErrorNamingItsPath(_ c: Refusal) throws {
        let directory = try Self.workspace(["null.json": #"{"a": null}"#, "number.json": "100"])
        defer { directory.remove() }
        let result = try TrellisProcess.run(["import"] + c.arguments + Self.model, in: directory.url)
        #expect(result == TrellisProcess.Result(status: 1, stdout: "", stderr: c.stderr))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("trellis.sqlite").path))
    }

    /// Into an existing store, the refusal leaves it unchanged.
    @Test func scalarAtKeyPathLeavesTheStoreUnchanged() throws {
        let directory = try Self.workspace([:])
        defer { directory.remove() }
        let first = try TrellisProcess.run(["import", "Examples/twitter/twitter.json", "--at", "statuses"] + Self.model, in: directory.url)
        #expect(first.status == 0, "\(first)")
        let result = try TrellisProcess.run(
            ["import", "Examples/twitter/twitter.json", "--at", "search_metadata.count"] + Self.model,
            in: directory.url)
        #expect(result.status == 1)
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Status") == "115")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Status WHERE id = 100") == "0")
    }
}
