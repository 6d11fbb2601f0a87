import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisTestSupport

@testable import TrellisCLI

/// `trellis model infer` in-process (docs/ModelInference.md; docs/CLI.md).
@Suite struct ModelInferCommandTests {
    static let posts =
        #"{"data": {"posts": [{"id": 1, "title": "One", "created_at": "Sun Aug 31 00:29:15 +0000 2014"}, {"id": 2, "title": "Two", "created_at": "Sun Aug 31 00:29:16 +0000 2014"}]}}"#

    @Test func writesTheInferredModelToStandardOutputOrAFile() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        let printed = w.run("model", "infer", "posts.json", "--entity", "Post", "--at", "data.posts")
        #expect(printed.status == 0)
        #expect(printed.stderr == "")
        let inference = ModelInference(rootEntity: "Post")
        try inference.add(contentsOf: w.url.appendingPathComponent("posts.json"), at: "data.posts")
        #expect(printed.stdout == String(decoding: try inference.inferredModel().file.data(), as: UTF8.self))

        let written = w.run("model", "infer", "posts.json", "--entity", "Post", "--at", "data.posts", "-o", "post.json")
        #expect(
            written
                == CommandResult(
                    status: 0, stdout: "wrote post.json: 1 entity, 3 attributes, 0 relationships, inferred from 1 file\n",
                    stderr: ""))
        #expect(try String(contentsOf: w.url.appendingPathComponent("post.json"), encoding: .utf8) == printed.stdout)
    }

    @Test func writesACoreDataBundleWithItsBindingsBeside() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        let result = w.run("model", "infer", "posts.json", "--entity", "Post", "--at", "data.posts", "-o", "Posts.xcdatamodeld")
        #expect(
            result
                == CommandResult(
                    status: 0,
                    stdout: "wrote Posts.xcdatamodeld: 1 entity, 3 attributes, 0 relationships, inferred from 1 file; "
                        + "its bindings in Posts-bindings.json (pass it with --bindings)\n",
                    stderr: ""))
        let bindings = try String(contentsOf: w.url.appendingPathComponent("Posts-bindings.json"), encoding: .utf8)
        #expect(bindings == "{\n  \"transformers\": {\n    \"TwitterDate\": {\n      \"dateFormat\": \"EEE MMM dd HH:mm:ss Z yyyy\"\n    }\n  }\n}\n")
        // The bundle and its bindings import the payload.
        let imported = w.run(
            "import", "posts.json", "--at", "data.posts", "--entity", "Post", "--model", "Posts.xcdatamodeld",
            "--bindings", "Posts-bindings.json")
        #expect(imported.status == 0)
        #expect(imported.stdout.hasPrefix("entity  inserted   updated  unchanged   deleted\nPost           2         0          0         0\n"))
    }

    /// A key XML cannot hold (U+0001) cannot go into a Core Data model: an error naming the
    /// output, entity and property; nothing written (the JSON model holds it fine).
    @Test func aKeyACoreDataModelCannotHoldIsAnError() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("odd.json", #"[{"id": 1, "x\u0001": 2}]"#)
        let result = w.run("model", "infer", "odd.json", "--entity", "Item", "-o", "Odd.xcdatamodeld")
        #expect(
            result
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: Odd.xcdatamodeld: entity Item, property x: its user-info "
                        + "entry JSONKeyPath holds U+0001, a character a Core Data model (XML 1.0) cannot hold\n"))
        #expect(!w.exists("Odd.xcdatamodeld"))
        #expect(w.run("model", "infer", "odd.json", "--entity", "Item", "-o", "odd.model.json").status == 0)
    }

    @Test func severalFilesAndSample() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("a.json", #"[{"id": 1, "a": 1}, {"id": 2, "late": "x"}]"#)
        try w.write("b.json", #"[{"id": 3, "b": true}]"#)
        let both = w.run("model", "infer", "a.json", "b.json", "--entity", "Item")
        #expect(try ModelFile.read(data: Data(both.stdout.utf8)).model.entities[0].attributes.map(\.name) == ["id", "a", "late", "b"])
        let sampled = w.run("model", "infer", "a.json", "b.json", "--entity", "Item", "--sample", "1")
        #expect(try ModelFile.read(data: Data(sampled.stdout.utf8)).model.entities[0].attributes.map(\.name) == ["id", "a", "b"])
    }

    struct UsageCase: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let usageCases: [UsageCase] = [
        UsageCase(arguments: ["model", "infer", "a.json"], message: "error: missing required option '--entity <entity>'"),
        UsageCase(
            arguments: ["model", "infer", "-", "--entity", "A"],
            message: "error: '-' (standard input) is not read by 'model infer'; give the sample files"),
        UsageCase(
            arguments: ["model", "infer", "a.json", "--entity", "A", "--sample", "0"],
            message: "error: invalid value '0' for '--sample'; expected a whole number of elements (1 or more)"),
        UsageCase(
            arguments: ["model", "infer", "a.json", "--entity", "A", "-o", "model.txt", "--to", "xcdatamodel"],
            message: "error: a Core Data model is written to a .xcdatamodeld or .xcdatamodel path, not 'model.txt'"),
    ]

    @Test(arguments: usageCases)
    func badUsage(_ c: UsageCase) throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("a.json", #"[{"id": 1}]"#)
        let result = w.run(c.arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(c.message + "\n"))
    }
}

/// docs/ModelInference.md, "Bad input": both commands, exit 1, no model written, no store created.
@Suite struct InferenceBadInputCommandTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var label: String
        var file: String
        var at: String?
        var lines = false
        var message: String
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "an empty array", file: "[]", message: "in.json: $: no objects to infer Status from: found an empty array"),
        Case(
            label: "an empty array at --at", file: #"{"statuses": []}"#, at: "statuses",
            message: "in.json: $.statuses: no objects to infer Status from: found an empty array"),
        Case(label: "an empty object", file: "{}", message: "in.json: $: no objects to infer Status from: found an empty object"),
        Case(
            label: "no objects at --at", file: #"{"search_metadata": {"count": 100}}"#, at: "search_metadata.count",
            message: "in.json: $.search_metadata.count: expected an array or object of Status objects, found a number"),
        Case(
            label: "scalars only", file: "[1, 2]",
            message: "in.json: $[0]: expected an object (each element becomes a Status), found a number"),
        Case(
            label: "mixed top-level types", file: #"[{"id": 1}, "two", {"id": 3}]"#,
            message: "in.json: $[1]: expected an object (each element becomes a Status), found a string"),
        Case(
            label: "a key path that selects nothing", file: #"{"statuses": [{"id": 1}]}"#, at: "tweets",
            message: "in.json: no value at 'tweets' (--at): key path 'tweets': no key 'tweets' in the object"),
        Case(label: "no NDJSON records", file: "", lines: true, message: "in.json: no objects to infer Status from: found no JSON records"),
        Case(label: "a scalar document", file: "42", message: "in.json: $: expected an array or object of Status objects, found a number"),
        Case(
            label: "a table keyed by numbers", file: #"{"areaNames": {"205705993": "a", "205705994": "b"}}"#, at: "areaNames",
            message: "in.json: $.areaNames: no Status records to infer from: found an object whose keys are all numbers, a table keyed "
                + "by data; read its members as records with trellis import --key-attribute (and --value-key for values that are not objects)"),
        Case(
            label: "an NDJSON record that is not an object", file: "{\"id\": 1}\n\n3\n", lines: true,
            message: "in.json:3: $[1]: expected an object (each element becomes a Status), found a number"),
    ]

    @Test(arguments: cases)
    func modelInfer(_ c: Case) throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("in.json", c.file)
        var arguments = ["model", "infer", "in.json", "--entity", "Status", "-o", "out.json"]
        if let at = c.at { arguments += ["--at", at] }
        if c.lines { arguments += ["--format", "ndjson"] }
        #expect(w.run(arguments) == CommandResult(status: 1, stdout: "", stderr: "error: \(c.message)\n"))
        #expect(!w.exists("out.json"))
    }

    @Test(arguments: cases)
    func importWithoutModel(_ c: Case) throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("in.json", c.file)
        var arguments = ["import", "in.json", "--entity", "Status", "--store", "s.sqlite"]
        if let at = c.at { arguments += ["--at", at] }
        if c.lines { arguments += ["--format", "ndjson"] }
        #expect(w.run(arguments) == CommandResult(status: 1, stdout: "", stderr: "error: \(c.message)\n"))
        #expect(!w.exists("s.sqlite"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: w.url.path).sorted() == ["in.json", "model.json"])
    }
}

extension CommandWorkspace {
    func run(_ arguments: [String]) -> CommandResult { trellis(arguments: arguments, in: url) }
}
