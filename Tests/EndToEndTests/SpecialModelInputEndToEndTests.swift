import Foundation
import Testing
import TrellisTestSupport

/// Model files, bindings files and sync source files are read as `import` reads its
/// inputs: a device (`/dev/null`) as empty text, a FIFO or process substitution
/// (`--model <(cat model.json)`) to its end, and a directory named as one; before, each
/// was "cannot be read" (or, for a sync source, "You don't have permission").
@Suite struct SpecialModelInputEndToEndTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let stderr: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let importArguments = ["import", "Examples/twitter/twitter.json", "--entity", "Status", "--at", "statuses"]

    static let cases: [Case] = [
        Case(arguments: ["model", "show", "/dev/null"], stderr: "error: /dev/null:1:1: expected a JSON value, found end of input\n"),
        Case(
            arguments: ["model", "show", "adir"],
            stderr: "error: adir: is a directory, not a model file: give a Trellis JSON model file, a .xcdatamodeld bundle "
                + "or a .xcdatamodel directory\n"),
        Case(arguments: importArguments + ["--model", "/dev/null"], stderr: "error: /dev/null:1:1: expected a JSON value, found end of input\n"),
        Case(
            arguments: importArguments + ["--model", "Examples/twitter/model.json", "--bindings", "adir"],
            stderr: "error: adir: is a directory, not a bindings file\n"),
        Case(
            arguments: importArguments + ["--model", "Examples/twitter/model.json", "--bindings", "/dev/null"],
            stderr: "error: /dev/null:1:1: expected a JSON value, found end of input\n"),
        Case(arguments: ["sync", "adir", "--status"], stderr: "error: adir: is a directory, not a source file\n"),
        Case(arguments: ["sync", "nope.json", "--status"], stderr: "error: nope.json: no such file\n"),
        Case(arguments: ["sync", "/dev/null", "--status"], stderr: "error: /dev/null:1:1: not JSON: expected a JSON value, found end of input\n"),
    ]

    static func workspace() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        for file in ["twitter/twitter.json", "twitter/model.json"] { try directory.copyExample(file) }
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("adir"), withIntermediateDirectories: false)
        return directory
    }

    @Test(arguments: cases) func aSpecialFileGetsAPreciseError(_ c: Case) throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let result = try TrellisProcess.run(c.arguments, in: directory.url)
        #expect(result == TrellisProcess.Result(status: 1, stdout: "", stderr: c.stderr))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("trellis.sqlite").path))
    }

    /// `--model <(cat model.json)`: the model read from a pipe, its first bytes not taken by
    /// the check for a store's SQLite header.
    @Test func aModelFromAProcessSubstitutionIsRead() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let launcher = ["/bin/bash", "-c", #"exec "$0" "$@" --model <(cat Examples/twitter/model.json)"#]
        let result = try TrellisProcess.run(Self.importArguments + ["--report", "json"], in: directory.url, launcher: launcher)
        #expect(result.status == 0 && result.stderr == "", "\(result)")
        #expect(
            result.stdout.hasPrefix(
                #"{"entities":{"Status":{"inserted":115,"updated":0,"unchanged":0,"deleted":0},"#
                    + #""User":{"inserted":127,"updated":0,"unchanged":0,"deleted":0},"#
                    + #""Hashtag":{"inserted":7,"updated":0,"unchanged":0,"deleted":0}}"#), "\(result)")
    }
}
