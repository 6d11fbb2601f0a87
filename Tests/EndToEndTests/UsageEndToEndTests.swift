import Foundation
import Testing
import TrellisTestSupport

/// The built binary's exit statuses and streams for help and bad usage.
@Suite struct UsageEndToEndTests {
    @Test func helpGoesToStandardOutputWithStatus0() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try TrellisProcess.run(["import", "--help"], in: directory.url)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout.hasPrefix("OVERVIEW: Import JSON files into a store, merging objects by identity.\n"))
    }

    /// `trellis` alone is the overview (status 0), `--version` the version, and an unknown
    /// help topic is bad usage, not the parent's help.
    @Test func overviewVersionAndUnknownHelpTopics() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let overview = try String(contentsOf: Fixtures.url("help/trellis.txt"), encoding: .utf8)
        #expect(try TrellisProcess.run([], in: directory.url) == TrellisProcess.Result(status: 0, stdout: overview, stderr: ""))
        #expect(
            try TrellisProcess.run(["--version"], in: directory.url)
                == TrellisProcess.Result(
                    status: 0, stdout: "trellis 0.1.0\n", stderr: ""))
        #expect(
            try TrellisProcess.run(["help", "model", "frob"], in: directory.url)
                == TrellisProcess.Result(
                    status: 64, stdout: "",
                    stderr: "error: unknown subcommand 'frob' of 'trellis model'; expected one of: convert, infer, show\n"
                        + "usage: trellis help [<subcommand>...]\n  See 'trellis help --help' for more information.\n"))
    }

    /// `-` is named `<stdin>` in every command's messages.
    @Test func standardInputIsNamedStdinEverywhere() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.copyExample("twitter/model.json")
        let bad = Data("[1,\n 2 3]".utf8)
        for arguments in [
            ["json", "check", "-"], ["json", "format", "-"],
            ["import", "-", "--model", "Examples/twitter/model.json", "--entity", "Status"],
        ] {
            #expect(
                try TrellisProcess.run(arguments, in: directory.url, input: bad)
                    == TrellisProcess.Result(
                        status: 1, stdout: "", stderr: "error: <stdin>:2:4: expected ',' or ']' after array element\n"), "\(arguments)")
        }
    }

    @Test func aChildThatExitsBeforeReadingStandardInputDoesNotEndTheTestRun() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // 8 MB on standard input, far more than a pipe holds; the missing model ends the
        // child before it reads any of it, so the writer meets a closed pipe.
        let input = Data(repeating: UInt8(ascii: " "), count: 8 << 20)
        let result = try TrellisProcess.run(["import", "-", "--model", "missing.json", "--entity", "Status"], in: directory.url, input: input)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("error: missing.json"))
    }

    @Test func badUsageExits64WithUsageLineOnStandardError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try TrellisProcess.run(["schema"], in: directory.url)
        #expect(
            result
                == TrellisProcess.Result(
                    status: 64, stdout: "",
                    stderr:
                        "error: missing required option '--model <model>'\nusage: trellis schema --model <model> [--dialect <dialect>] [--store <path>] [--bindings <file>]\n"
                        + "  See 'trellis schema --help' for more information.\n"))
    }

    @Test func unknownEntityExits1ListingTheModelsEntities() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.copyExample("twitter/model.json")
        try directory.copyExample("twitter/twitter.json")
        let result = try TrellisProcess.run(
            [
                "import", "Examples/twitter/twitter.json", "--model", "Examples/twitter/model.json",
                "--entity", "Tweet", "--at", "statuses",
            ], in: directory.url)
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: "error: unknown entity 'Tweet' in Examples/twitter/model.json; the model has: Status, User, Hashtag\n"))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("trellis.sqlite").path))
    }
}
