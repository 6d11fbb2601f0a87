import Foundation
import Testing
import TrellisTestSupport

/// The first mistakes a new user makes, run with the built binary: each gets the error it
/// always got plus a hint saying what to type, exit 1, and no store.
@Suite struct HintEndToEndTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let stderr: String
        var input: String?
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let twitter = ["Examples/twitter/twitter.json", "--model", "Examples/twitter/model.json"]
    static let citm = ["Examples/citm/citm_catalog.json", "--model", "Examples/citm/model.json"]

    static let collectionCases: [Case] = [
        // Forgetting --at on the Twitter payload.
        Case(
            arguments: ["import"] + twitter + ["--entity", "Status"],
            stderr: "error: Examples/twitter/twitter.json: $.id: Status.id is required; the object has no value at 'id'; "
                + "the payload is an object; its array at 'statuses' has 100 objects with 'id': did you mean --at statuses?\n"),
        // The same from standard input.
        Case(
            arguments: ["import", "-", "--model", "Examples/twitter/model.json", "--entity", "Status"],
            stderr: "error: <stdin>: $.id: Status.id is required; the object has no value at 'id'; "
                + "the payload is an object; its array at 'statuses' has 100 objects with 'id': did you mean --at statuses?\n",
            input: "Examples/twitter/twitter.json"),
        // citm's events are an object of objects: --at and --key-attribute.
        Case(
            arguments: ["import"] + citm + ["--entity", "Event"],
            stderr: "error: Examples/citm/citm_catalog.json: $.id: Event.id is required; the object has no value at 'id'; "
                + "the payload is an object; its object at 'events' has 184 objects with 'id': did you mean --at events --key-attribute id?\n"),
        Case(
            arguments: ["import"] + citm + ["--entity", "Event", "--at", "events"],
            stderr: "error: Examples/citm/citm_catalog.json: $.events.id: Event.id is required; the object has no value at 'id'; "
                + "the value at 'events' is an object; its 184 members are objects with 'id': did you mean --at events --key-attribute id?\n"),
        // Performances also have an 'id', and the events' keys are no performance's.
        Case(
            arguments: ["import"] + citm + ["--entity", "Performance"],
            stderr: "error: Examples/citm/citm_catalog.json: $.id: Performance.id is required; the object has no value at 'id'; "
                + "the payload is an object; its array at 'performances' has 243 objects with 'id': did you mean --at performances?\n"),
        // Statuses have an 'id' but few of a user's keys: no hint rather than a wrong one.
        Case(
            arguments: ["import"] + twitter + ["--entity", "User"],
            stderr: "error: Examples/twitter/twitter.json: $.id: User.id is required; the object has no value at 'id'\n"),
    ]

    static func workspace() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        for file in ["twitter/model.json", "twitter/twitter.json", "citm/model.json", "citm/citm_catalog.json"] {
            try directory.copyExample(file)
        }
        return directory
    }

    @Test(arguments: collectionCases) func aMissingIdentityPointsToTheCollection(_ c: Case) throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let input = try c.input.map { try Data(contentsOf: directory.url.appendingPathComponent($0)) }
        let result = try TrellisProcess.run(c.arguments, in: directory.url, input: input)
        #expect(result == TrellisProcess.Result(status: 1, stdout: "", stderr: c.stderr))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("trellis.sqlite").path))
    }

    static let posts =
        #"{"format": "trellis-model", "formatVersion": 1, "entities": [{"name": "Post", "identityAttributes": ["id"], "#
        + #""attributes": [{"name": "id", "type": "integer64", "jsonKeyPath": "id"}, "#
        + #"{"name": "authorName", "type": "string", "jsonKeyPath": "author_name"}]}]}"#

    static func write(_ text: String, _ name: String, in directory: TemporaryDirectory) throws {
        try Data(text.utf8).write(to: directory.url.appendingPathComponent(name))
    }

    /// `.ndjson` and `.jsonl` files are NDJSON without `--format`; NDJSON in a `.json` file
    /// gets the hint, in `import`, `json check` and `json format` alike.
    @Test func ndjsonIsInferredFromTheExtensionAndHintedOtherwise() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let lines = "{\"id\": 1, \"author_name\": \"ann\"}\n{\"id\": 2}\n"
        for name in ["posts.ndjson", "posts.jsonl", "posts.json"] { try Self.write(lines, name, in: directory) }
        try Self.write(Self.posts, "model.json", in: directory)
        let importArguments = ["--model", "model.json", "--entity", "Post", "--report", "json"]
        for name in ["posts.ndjson", "posts.jsonl"] {
            let result = try TrellisProcess.run(["import", name, "--dry-run"] + importArguments, in: directory.url)
            #expect(result.status == 0 && result.stderr == "", "\(result)")
            #expect(result.stdout.hasPrefix(#"{"entities":{"Post":{"inserted":2,"updated":0,"unchanged":0,"deleted":0}},"#), "\(result)")
            #expect(try TrellisProcess.run(["json", "check", name], in: directory.url) == TrellisProcess.Result(status: 0, stdout: "", stderr: ""))
            #expect(
                try TrellisProcess.run(["json", "format", "--compact", name], in: directory.url)
                    == TrellisProcess.Result(
                        status: 0, stdout: "{\"id\":1,\"author_name\":\"ann\"}\n{\"id\":2}\n", stderr: ""))
        }
        let hint =
            "posts.json:2:1: expected end of input after the JSON value, found '{'; "
            + "one JSON value per line is NDJSON: did you mean --format ndjson?\n"
        for arguments in [["import", "posts.json"] + importArguments, ["json", "check", "posts.json"], ["json", "format", "posts.json"]] {
            #expect(
                try TrellisProcess.run(arguments, in: directory.url)
                    == TrellisProcess.Result(
                        status: 1, stdout: "", stderr: "error: " + hint), "\(arguments)")
        }
        // --format overrides the extension both ways.
        #expect(try TrellisProcess.run(["json", "check", "--format", "ndjson", "posts.json"], in: directory.url).status == 0)
        #expect(try TrellisProcess.run(["json", "check", "--format", "json", "posts.ndjson"], in: directory.url).status == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("trellis.sqlite").path))
    }

    /// A JSON key where an attribute name belongs gets the attribute mapped to it.
    @Test func aJSONKeyForAnAttributeSuggestsTheAttribute() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.write(Self.posts, "model.json", in: directory)
        try Self.write(#"[{"id": 1, "author_name": "ann"}]"#, "posts.json", in: directory)
        #expect(try TrellisProcess.run(["import", "posts.json", "--model", "model.json", "--entity", "Post"], in: directory.url).status == 0)
        let export = ["export", "--model", "model.json", "--entity", "Post"]
        #expect(
            try TrellisProcess.run(export + ["--where", "author_name=ann"], in: directory.url)
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: "error: --where: 'author_name' is not an attribute of Post, but the JSON key of its attribute 'authorName': "
                        + "did you mean --where authorName=ann?\n"))
        #expect(
            try TrellisProcess.run(export + ["--where", "author_name=Ann Lee"], in: directory.url).stderr.hasSuffix(
                "did you mean --where 'authorName=Ann Lee'?\n"))
        #expect(
            try TrellisProcess.run(export + ["--where", "authorname=ann"], in: directory.url)
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: "error: --where: 'authorname' is not an attribute of Post; did you mean --where authorName=ann? Its attributes: id, authorName\n"))
        #expect(
            try TrellisProcess.run(export + ["--where", "rank=1"], in: directory.url)
                == TrellisProcess.Result(
                    status: 1, stdout: "", stderr: "error: --where: 'rank' is not an attribute of Post; its attributes: id, authorName\n"))
        #expect(
            try TrellisProcess.run(
                ["import", "posts.json", "--model", "model.json", "--entity", "Post", "--key-attribute", "author_name"],
                in: directory.url
            ).stderr
                == "error: --key-attribute: 'author_name' is not an attribute of Post, but the JSON key of its attribute 'authorName': "
                + "did you mean --key-attribute authorName?\n")
    }

    /// The same in the predicate language and through to-one relationships: the key path
    /// the user wrote is read as JSON keys, and the property path that maps them is named.
    @Test func aJSONKeyPathInAPredicateSuggestsThePropertyPath() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try TrellisProcess.run(["import"] + Self.twitter + ["--entity", "Status", "--at", "statuses"], in: directory.url).status == 0)
        let export = ["export", "--model", "Examples/twitter/model.json"]
        let usage =
            "usage: trellis export --entity <entity> [--model <model>] [--store <path>] [--busy-timeout <seconds>] [--format <format>] [-o <file>] [--pretty] "
            + "[--where <predicate>]... [--sort <keys>] [--limit <n>] [--offset <n>] [--relationships <mode>] [--placeholders <mode>] [--bindings <file>]\n"
            + "  See 'trellis export --help' for more information.\n"
        let userNames =
            "User has no attribute or relationship 'screen_name'; its attributes: id, name, screenName, location, "
            + "userDescription, followersCount, friendsCount, statusesCount, createdAt, verified, lang, profileImageURL; "
            + "its relationships: statuses, mentioningStatuses"
        #expect(
            try TrellisProcess.run(export + ["--entity", "User", "--where", "screen_name == 'jack'"], in: directory.url)
                == TrellisProcess.Result(
                    status: 64, stdout: "",
                    stderr: "error: invalid predicate for '--where' (screen_name == 'jack'): "
                        + "column 1: \(userNames); 'screen_name' is a JSON key path; the property it maps to is screenName: "
                        + "did you mean screenName?\n" + usage))
        #expect(
            try TrellisProcess.run(export + ["--entity", "Status", "--where", "user.screen_name == 'jack'"], in: directory.url)
                == TrellisProcess.Result(
                    status: 64, stdout: "",
                    stderr: "error: invalid predicate for '--where' (user.screen_name == 'jack'): "
                        + "column 1: \(userNames); 'user.screen_name' is a JSON key path; the property it maps to is user.screenName: "
                        + "did you mean user.screenName?\n" + usage))
        #expect(
            try TrellisProcess.run(export + ["--entity", "Status", "--where", "user.screen_name=jack"], in: directory.url)
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: "error: --where: 'user.screen_name' is not a property path of "
                        + "Status, but the JSON key path of user.screenName: did you mean --where user.screenName=jack?\n"))
        // A name that is no JSON key either gets no hint.
        #expect(
            try TrellisProcess.run(export + ["--entity", "User", "--where", "bogus == 1"], in: directory.url).stderr
                .hasPrefix(
                    "error: invalid predicate for '--where' (bogus == 1): column 1: User has no attribute or relationship 'bogus'; "
                        + "its attributes: id, name, screenName, location, userDescription, followersCount, friendsCount, statusesCount, "
                        + "createdAt, verified, lang, profileImageURL; its relationships: statuses, mentioningStatuses\nusage: "))
    }
}
