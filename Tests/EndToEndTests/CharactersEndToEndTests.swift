import Foundation
import Testing
import TrellisTestSupport

/// The Characters example (issue 14, point 4): `Examples/characters` holds Groot's Character /
/// Power / Publisher graph as a Core Data model written the way Xcode writes it, its
/// bindings file and payloads with ids as strings into Integer 64, run through the binary.
@Suite struct CharactersEndToEndTests {
    static func workspace() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        for file in [
            "Characters.xcdatamodeld/.xccurrentversion", "Characters.xcdatamodeld/Characters.xcdatamodel/contents",
            "bindings.json", "characters.json", "characters-update.json",
        ] {
            try directory.copyExample("characters/" + file)
        }
        for file in ["twitter/twitter.json", "twitter/model.json"] { try directory.copyExample(file) }
        return directory
    }

    /// As `Examples/characters/README.md` gives them (its own store).
    static let model = [
        "--model", "Examples/characters/Characters.xcdatamodeld", "--bindings", "Examples/characters/bindings.json",
        "--store", "characters.sqlite",
    ]

    /// The README's commands, run after the quick start (which fills `trellis.sqlite` with
    /// the Twitter model's statuses), as a newcomer runs them.
    @Test func importsUpdatesAndExportsThroughTheCoreDataModel() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let quickStart = try TrellisProcess.run(
            [
                "import", "Examples/twitter/twitter.json", "--model", "Examples/twitter/model.json",
                "--entity", "Status", "--at", "statuses",
            ], in: directory.url)
        #expect(quickStart.status == 0, "\(quickStart)")
        let first = try TrellisProcess.run(
            ["import", "Examples/characters/characters.json", "--entity", "Character"] + Self.model,
            in: directory.url)
        #expect(first.status == 0, "\(first)")
        #expect(first.stderr == "")
        #expect(
            first.stdout.hasPrefix(
                """
                entity     inserted   updated  unchanged   deleted
                Character         4         0          0         0
                Power             6         0          0         0
                Publisher         2         0          0         0

                """))
        let store = directory.url.appendingPathComponent("characters.sqlite")
        // Ids are strings in the JSON and integers in the store ("1699" → 1699).
        #expect(
            try SQLiteShell.query(store, "SELECT identifier, typeof(identifier), name, realName FROM Character ORDER BY identifier") == """
                1443|integer|Spider-Man|Peter Parker
                1686|integer|Robin|Dick Grayson
                1699|integer|Batman|Bruce Wayne
                1807|integer|Superman|Clark Kent
                """)
        #expect(
            try SQLiteShell.query(
                store,
                "SELECT p.identifier, p.name FROM Character c JOIN Publisher p ON p._pk = c.publisher "
                    + "WHERE c.identifier = 1443") == "31|Marvel")

        // Groot's update: bare identifiers link existing objects, a new power is created, an
        // unknown publisher id would be a placeholder.
        let update = try TrellisProcess.run(
            ["import", "Examples/characters/characters-update.json", "--entity", "Character"] + Self.model,
            in: directory.url)
        #expect(update.status == 0, "\(update)")
        let exported = try TrellisProcess.run(
            ["export", "--entity", "Character", "--relationships", "nested", "--where", "identifier=1699"]
                + Self.model, in: directory.url)
        #expect(
            exported
                == TrellisProcess.Result(
                    status: 0,
                    stdout: #"""
                        [{"id":"1699","name":"Batman","real_name":"Bruce Thomas Wayne","powers":[{"id":"4","name":"Agility"},{"id":"9","name":"Insanely Rich"},{"id":"12","name":"Gadgets"}],"publisher":{"id":"10","name":"DC Comics"}}]

                        """#, stderr: ""))
        #expect(try SQLiteShell.query(store, "SELECT name FROM Character WHERE identifier = 1700") == "Alfred Pennyworth")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Power") == "7")
    }

    /// Inference gives the same graph from the payload alone: Character, Power, Publisher,
    /// string ids into Integer 64 with `integer-from-string`, as the hand-made model has them.
    @Test func theInferredModelIsTheCharactersGraph() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let inferred = try TrellisProcess.run(["model", "infer", "Examples/characters/characters.json", "--entity", "Character"], in: directory.url)
        #expect(inferred.status == 0)
        #expect(inferred.stdout == (try String(contentsOf: Fixtures.url("inference/characters.model.json"), encoding: .utf8)))
        let show = try TrellisProcess.run(
            [
                "model", "show", "Examples/characters/Characters.xcdatamodeld", "--bindings",
                "Examples/characters/bindings.json",
            ], in: directory.url)
        #expect(show.status == 0)
        #expect(show.stdout.contains("  attribute identifier: integer64, required, default 0, key path id, transformer StringToInteger\n"))

        let imported = try TrellisProcess.run(
            [
                "import", "Examples/characters/characters.json", "--entity", "Character",
                "--store", "inferred.sqlite",
            ], in: directory.url)
        #expect(imported.status == 0)
        #expect(
            imported.stdout.hasPrefix(
                """
                entity     inserted   updated  unchanged   deleted
                Character         4         0          0         0
                Power             6         0          0         0
                Publisher         2         0          0         0

                """))
        let store = directory.url.appendingPathComponent("inferred.sqlite")
        #expect(try SQLiteShell.query(store, "SELECT id, typeof(id) FROM Character ORDER BY id LIMIT 1") == "1443|integer")
    }
}
