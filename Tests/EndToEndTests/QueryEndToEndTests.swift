import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// The issue's own attempts, as a new user would type them, on the twitter example (100
/// statuses and 15 retweeted ones; the counts agree with plain SQL on the file); and
/// `trellis watch` seeing another process's import.
@Suite struct QueryEndToEndTests {
    static let model = "Examples/twitter/model.json"

    static func workspace() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try directory.copyExample("twitter/model.json")
        try directory.copyExample("twitter/twitter.json")
        let imported = try TrellisProcess.run(
            ["import", "Examples/twitter/twitter.json", "--model", "Examples/twitter/model.json", "--entity", "Status", "--at", "statuses"],
            in: directory.url)
        try #require(imported.status == 0, "\(imported)")
        return directory
    }

    static func count(_ wheres: [String], in directory: TemporaryDirectory) throws -> TrellisProcess.Result {
        try TrellisProcess.run(
            ["count", "--model", "Examples/twitter/model.json", "--entity", "Status"] + wheres.flatMap { ["--where", $0] }, in: directory.url)
    }

    @Test func predicatesANewUserTries() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try Self.count(["retweetCount>5"], in: directory) == .init(status: 0, stdout: "76\n", stderr: ""))
        #expect(try Self.count(["inReplyToStatusID=null"], in: directory) == .init(status: 0, stdout: "107\n", stderr: ""))
        #expect(try Self.count(["retweetCount>5", "inReplyToStatusID == nil"], in: directory).stdout == "75\n")
        #expect(try Self.count(["user.screenName=ayuu0123"], in: directory).stdout == "1\n")
        let top = try TrellisProcess.run(
            [
                "export", "--model", "Examples/twitter/model.json", "--entity", "Status", "--where", "retweetCount > 58",
                "--sort", "-retweetCount,id", "--limit", "3",
            ], in: directory.url)
        #expect(top.status == 0)
        #expect(try JSONReader.parse(top.stdout).arrayValue?.map { $0["retweet_count"]?.int64Value ?? -1 } == [3291, 3291, 221])
        let bad = try TrellisProcess.run(
            ["export", "--model", "Examples/twitter/model.json", "--entity", "Status", "--where", "retweetCount >"],
            in: directory.url)
        #expect(bad.status == 64)
        #expect(
            bad.stderr.hasPrefix(
                "error: invalid predicate for '--where' (retweetCount >): column 15: expected a value after >, "
                    + "found the end of the predicate\nusage: trellis export "))
    }

    @Test func watchPrintsAnotherProcesssImport() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let watch = try TrellisProcess.start(
            [
                "watch", "--model", "Examples/twitter/model.json", "--entity", "Status", "--where", "retweetCount >= 1000000",
                "--updates", "1",
            ], in: directory.url)
        // Wait for the first line (the current results: the observer is registered), at most 60 s.
        let started = Date().addingTimeInterval(60)
        while !watch.standardOutputSoFar.contains("\n"), watch.isRunning, Date() < started { Thread.sleep(forTimeInterval: 0.01) }
        try Data(#"{"statuses": [{"id": 42, "text": "viral", "retweet_count": 1000001, "user": {"id": 7, "screen_name": "x"}}]}"#.utf8)
            .write(to: directory.url.appendingPathComponent("viral.json"))
        let imported = try TrellisProcess.run(
            ["import", "viral.json", "--model", "Examples/twitter/model.json", "--entity", "Status", "--at", "statuses"],
            in: directory.url)
        #expect(imported.status == 0)
        // The change line ends the watch (--updates 1); a watch that misses it is killed after 60 s.
        let delivered = Date().addingTimeInterval(60)
        while watch.isRunning, Date() < delivered { Thread.sleep(forTimeInterval: 0.01) }
        if watch.isRunning { watch.kill() }
        let result = watch.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        guard lines.count == 2 else { return }
        #expect(lines[0] == #"{"sequence":1,"count":0,"objects":[]}"#)
        let change = try JSONReader.parse(lines[1])
        #expect(change["sequence"] == 2)
        #expect(change["count"] == 1)
        #expect(change["inserted"]?[0]?["index"] == 0)
        #expect(change["inserted"]?[0]?["object"]?["id"] == 42)
        #expect(change["inserted"]?[0]?["object"]?["retweet_count"] == 1_000_001)
        #expect(change["updated"] == [])
        #expect(change["deleted"] == [])
    }
}
