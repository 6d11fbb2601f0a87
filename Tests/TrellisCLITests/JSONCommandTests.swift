import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisCLI

/// Runs `trellis json …` in-process and compares stdout, stderr and the exit status exactly.
@Suite struct JSONCommandTests {
    typealias Outcome = CommandResult

    static func run(_ arguments: [String], stdin: String = "") -> Outcome {
        trellis(arguments: ["json"] + arguments, stdin: stdin)
    }

    /// A fresh directory holding `files` (name → contents).
    static func directory(_ files: [String: String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, contents) in files {
            try Data(contents.utf8).write(to: url.appendingPathComponent(name))
        }
        return url
    }

    // MARK: - check

    @Test func checkValidFilesPrintsNothing() throws {
        let dir = try Self.directory(["a.json": #"{"a": [1, 2]}"#, "b.json": "  42\n"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let outcome = Self.run(["check", dir.appendingPathComponent("a.json").path, dir.appendingPathComponent("b.json").path])
        #expect(outcome == Outcome(status: 0, stdout: "", stderr: ""))
    }

    @Test func checkReportsEveryProblemWithLocation() throws {
        let dir = try Self.directory(["good.json": "[]", "bad.json": "{\n  \"a\": 1 2\n}", "worse.json": "[1,]"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.json").path
        let bad = dir.appendingPathComponent("bad.json").path
        let worse = dir.appendingPathComponent("worse.json").path
        let missing = dir.appendingPathComponent("missing.json").path
        let outcome = Self.run(["check", good, bad, missing, worse])
        #expect(
            outcome
                == Outcome(
                    status: 1, stdout: "",
                    stderr: """
                        error: \(bad):2:10: expected ',' or '}' after object member
                        error: \(missing): no such file
                        error: \(worse):1:4: expected a JSON value, found ']'

                        """))
    }

    @Test func checkReadsStandardInput() {
        #expect(Self.run(["check", "-"], stdin: "{\"x\": true}") == Outcome(status: 0, stdout: "", stderr: ""))
        #expect(
            Self.run(["check", "-"], stdin: "{\"x\": tru}") == Outcome(status: 1, stdout: "", stderr: "error: <stdin>:1:10: invalid literal, expected 'true'\n")
        )
    }

    @Test func checkAcceptsTheCorpus() {
        let files = ["corpus/twitter.json", "corpus/citm_catalog.json"].map { Fixtures.url($0).path }
        #expect(Self.run(["check"] + files) == Outcome(status: 0, stdout: "", stderr: ""))
    }

    static let checkUsage = "usage: trellis json check <file>... [--format <format>]\n  See 'trellis json check --help' for more information.\n"

    @Test func checkUsageErrors() {
        #expect(Self.run(["check"]) == Outcome(status: 64, stdout: "", stderr: "error: missing expected argument '<file>'\n" + Self.checkUsage))
        #expect(
            Self.run(["check", "--strict", "a.json"])
                == Outcome(
                    status: 64, stdout: "", stderr: "error: unknown option '--strict'\n" + Self.checkUsage))
    }

    // MARK: - format

    static let unformatted = #"{"b": [1, {"c": null}, []], "a": "x\u00e9", "n": 505874924095815681, "d": 1.50}"#

    @Test func formatIsPrettyByDefault() throws {
        let dir = try Self.directory(["in.json": Self.unformatted])
        defer { try? FileManager.default.removeItem(at: dir) }
        let outcome = Self.run(["format", dir.appendingPathComponent("in.json").path])
        #expect(
            outcome
                == Outcome(
                    status: 0,
                    stdout: """
                        {
                          "b": [
                            1,
                            {
                              "c": null
                            },
                            []
                          ],
                          "a": "xé",
                          "n": 505874924095815681,
                          "d": 1.50
                        }

                        """, stderr: ""))
    }

    @Test func formatCompactAndSortedFromStandardInput() {
        #expect(
            Self.run(["format", "--compact", "--sort-keys", "-"], stdin: Self.unformatted)
                == Outcome(
                    status: 0, stdout: #"{"a":"xé","b":[1,{"c":null},[]],"d":1.50,"n":505874924095815681}"# + "\n", stderr: ""))
        #expect(
            Self.run(["format", "--sort-keys", "-"], stdin: #"{"b": 1, "a": {}}"#)
                == Outcome(
                    status: 0, stdout: "{\n  \"a\": {},\n  \"b\": 1\n}\n", stderr: ""))
    }

    @Test func formatFailures() throws {
        let dir = try Self.directory(["bad.json": "[1, 2"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.json").path
        #expect(
            Self.run(["format", bad])
                == Outcome(status: 1, stdout: "", stderr: "error: \(bad):1:6: expected ',' or ']' after array element, found end of input\n"))
        #expect(Self.run(["format", "/nonexistent/x.json"]) == Outcome(status: 1, stdout: "", stderr: "error: /nonexistent/x.json: no such file\n"))
        #expect(
            Self.run(["format", "-"], stdin: "")
                == Outcome(
                    status: 1, stdout: "", stderr: "error: <stdin>:1:1: expected a JSON value, found end of input\n"))
    }

    @Test func formatUsageErrors() {
        let usage =
            "usage: trellis json format <file> [--compact] [--sort-keys] [--format <format>]\n  See 'trellis json format --help' for more information.\n"
        #expect(Self.run(["format"]) == Outcome(status: 64, stdout: "", stderr: "error: missing expected argument '<file>'\n" + usage))
        #expect(Self.run(["format", "a", "b"]) == Outcome(status: 64, stdout: "", stderr: "error: unexpected argument 'b'\n" + usage))
        #expect(Self.run(["format", "--pretty", "a"]) == Outcome(status: 64, stdout: "", stderr: "error: unknown option '--pretty'\n" + usage))
        #expect(
            Self.run(["format", "--compact", "--compact", "a"])
                == Outcome(
                    status: 64, stdout: "", stderr: "error: option '--compact' is given more than once\n" + usage))
    }

    @Test func formatRoundTripsTheCorpus() throws {
        let path = Fixtures.url("corpus/twitter.json").path
        let outcome = Self.run(["format", "--compact", path])
        #expect(outcome.status == 0 && outcome.stderr == "")
        let expected = try JSONWriter.string(for: JSONReader.parse(Fixtures.data("corpus/twitter.json"))) + "\n"
        #expect(outcome.stdout == expected)
    }
}
