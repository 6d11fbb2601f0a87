import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// `export`, `count` and `watch` without `--model` read the model the store records (the one
/// an import without `--model` inferred, or any import's `--model`); without a store that
/// records one, a clear error saying to give `--model`.
@Suite struct RecordedModelQueryEndToEndTests {
    static func importedWithoutModel() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try directory.copyExample("twitter/twitter.json")
        let imported = try TrellisProcess.run(
            [
                "import", "Examples/twitter/twitter.json", "--at", "statuses", "--entity", "Status",
                "--store", "t.sqlite",
            ], in: directory.url)
        try #require(imported.status == 0, "\(imported)")
        return directory
    }

    @Test func exportCountAndWatchUseTheRecordedModel() throws {
        let directory = try Self.importedWithoutModel()
        defer { directory.remove() }
        // The model the store records, written out: the same answers with it as --model.
        let convert = try TrellisProcess.run(["model", "convert", "t.sqlite", "-o", "model.json"], in: directory.url)
        try #require(convert.status == 0, "\(convert)")
        for model in [[], ["--model", "model.json"]] {
            let count = try TrellisProcess.run(
                ["count", "--entity", "Status", "--store", "t.sqlite", "--where", "retweetCount > 5"] + model,
                in: directory.url)
            #expect(count == .init(status: 0, stdout: "76\n", stderr: ""))
            let export = try TrellisProcess.run(
                ["export", "--entity", "Status", "--store", "t.sqlite", "--where", "id == 505874924095815681"]
                    + model, in: directory.url)
            #expect(export.status == 0, "\(export)")
            let statuses = try #require(try JSONReader.parse(export.stdout).arrayValue)
            #expect(statuses.count == 1)
            #expect(statuses.first?["id"]?.int64Value == 505_874_924_095_815_681)
            #expect(statuses.first?["user"]?["screen_name"] == .string("ayuu0123"))
        }
        let watch = try TrellisProcess.run(
            [
                "watch", "--entity", "Status", "--store", "t.sqlite", "--where", "retweetCount > 3000",
                "--updates", "0",
            ], in: directory.url)
        #expect(watch.status == 0, "\(watch)")
        #expect(watch.stdout.hasPrefix(#"{"sequence":1,"count":2,"#))
    }

    @Test(arguments: [
        (
            [String](),
            "error: trellis.sqlite: no such store, and no --model: give the model with --model, or a store that records one "
                + "(every trellis import records its model)\n"
        ),
        (["--store", "notes.txt"], "error: notes.txt: not an SQLite store, so it records no model; give the model with --model\n"),
        (["--store", "."], "error: .: is a directory, not a store\n"),
        (["--store", "/dev/null"], "error: /dev/null: not a store file: it is a device, a FIFO or a socket, not a regular file\n"),
    ])
    func withoutModelOrRecordedModelItIsAnError(store: [String], stderr: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("not a store".utf8).write(to: directory.url.appendingPathComponent("notes.txt"))
        for command in ["export", "count"] {
            let result = try TrellisProcess.run([command, "--entity", "Status"] + store, in: directory.url)
            #expect(result == .init(status: 1, stdout: "", stderr: stderr))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["notes.txt"])
    }
}
