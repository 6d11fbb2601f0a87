import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// `trellis export` → `trellis import` with the real binary and default options, on the
/// Twitter example: the same store reports every object unchanged and keeps every row; an
/// empty store ends up exporting the same objects. And `null` elements in the summary.
@Suite struct RoundTripEndToEndTests {
    static let model = "Examples/twitter/model.json"
    static let entities = ["Status", "User", "Hashtag"]

    /// Every row of every table, read with the `sqlite3` shell.
    static func rows(_ store: URL) throws -> String {
        try (entities + ["Status.hashtags", "Status.mentionedUsers"]).map { table in
            table + ":\n" + (try SQLiteShell.query(store, "SELECT * FROM \"\(table)\" ORDER BY 1, 2"))
        }.joined(separator: "\n")
    }

    /// The export of each entity in `store`, as the set of its objects' JSON texts.
    static func exports(_ store: String, in directory: TemporaryDirectory) throws -> [String: [String]] {
        var exports: [String: [String]] = [:]
        for entity in entities {
            let result = try TrellisProcess.run(["export", "--model", model, "--entity", entity, "--store", store], in: directory.url)
            try #require(result.status == 0, "\(result)")
            try Data(result.stdout.utf8).write(to: directory.url.appendingPathComponent("\(store)-\(entity).json"))
            exports[entity] = try #require(try JSONReader.parse(result.stdout).arrayValue).map { try JSONWriter.string(for: $0) }.sorted()
        }
        return exports
    }

    @Test func exportsImportBackUnchangedAndIntoAnEmptyStoreAsTheSameObjects() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.copyExample("twitter/model.json")
        try directory.copyExample("twitter/twitter.json")
        let imported = try TrellisProcess.run(
            [
                "import", "Examples/twitter/twitter.json", "--model", Self.model, "--entity", "Status",
                "--at", "statuses",
            ], in: directory.url)
        try #require(imported.status == 0, "\(imported)")
        let original = try Self.exports("trellis.sqlite", in: directory)
        #expect(original.mapValues(\.count) == ["Status": 115, "User": 127, "Hashtag": 7])
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        let rows = try Self.rows(store)

        for entity in Self.entities {
            let again = try TrellisProcess.run(
                [
                    "import", "trellis.sqlite-\(entity).json", "--model", Self.model, "--entity", entity,
                    "--report", "json",
                ], in: directory.url)
            #expect(again.status == 0, "\(again)")
            let counts = try #require(try JSONReader.parse(again.stdout)["entities"]?.objectValue)
            for (name, count) in counts {
                #expect(count["inserted"] == 0 && count["updated"] == 0 && count["deleted"] == 0, "\(entity) export: \(name) \(count)")
            }
            #expect(counts[entity]?["unchanged"] == .number(JSONNumber(Int64(original[entity]!.count))), "\(entity)")
        }
        #expect(try Self.rows(store) == rows)

        for entity in Self.entities {
            let copy = try TrellisProcess.run(
                [
                    "import", "trellis.sqlite-\(entity).json", "--model", Self.model, "--entity", entity,
                    "--store", "copy.sqlite",
                ], in: directory.url)
            #expect(copy.status == 0, "\(copy)")
        }
        #expect(try Self.exports("copy.sqlite", in: directory) == original)
    }

    /// `null` elements are skipped and counted; the summary says where.
    @Test func skippedNullElementsAreInTheSummary() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.copyExample("twitter/model.json")
        try Data(#"[{"id": 1, "entities": {"hashtags": [{"text": "a"}, null]}}, null]"#.utf8)
            .write(to: directory.url.appendingPathComponent("nulls.json"))
        let arguments = ["import", "nulls.json", "--model", Self.model, "--entity", "Status"]
        let text = try TrellisProcess.run(arguments + ["--dry-run"], in: directory.url)
        #expect(text.status == 0 && text.stderr == "", "\(text)")
        #expect(
            text.stdout.replacingOccurrences(of: #" in [0-9]+\.[0-9]{2} s"#, with: " in T s", options: .regularExpression) == """
                entity   inserted   updated  unchanged   deleted
                Status          1         0          0         0
                Hashtag         1         0          0         0
                skipped 2 null elements: $[0].entities.hashtags[1], $[1]
                dry run: 2 elements from 1 file checked against trellis.sqlite in T s; nothing was written

                """)
        let json = try TrellisProcess.run(arguments + ["--report", "json"], in: directory.url)
        #expect(json.status == 0, "\(json)")
        let report = try JSONReader.parse(json.stdout)
        #expect(report.objectValue?.keys == ["entities", "nullElementsSkipped", "seconds"])
        #expect(report["nullElementsSkipped"] == 2)
        #expect(
            report["entities"] == [
                "Status": ["inserted": 1, "updated": 0, "unchanged": 0, "deleted": 0],
                "Hashtag": ["inserted": 1, "updated": 0, "unchanged": 0, "deleted": 0],
            ])
    }
}
