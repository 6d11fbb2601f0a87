import Foundation
import Testing

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
        #expect(result == TrellisProcess.Result(
            status: 64, stdout: "",
            stderr: "error: missing required option '--model <model>'\nusage: trellis schema --model <model> [--bindings <file>]\n"
                + "  See 'trellis schema --help' for more information.\n"))
    }

    @Test func unknownEntityExits1ListingTheModelsEntities() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.copyExample("twitter/model.json")
        try directory.copyExample("twitter/twitter.json")
        let result = try TrellisProcess.run(["import", "Examples/twitter/twitter.json", "--model", "Examples/twitter/model.json",
                                             "--entity", "Tweet", "--at", "statuses"], in: directory.url)
        #expect(result == TrellisProcess.Result(
            status: 1, stdout: "",
            stderr: "error: unknown entity 'Tweet' in Examples/twitter/model.json; the model has: Status, User, Hashtag\n"))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("trellis.sqlite").path))
    }
}
