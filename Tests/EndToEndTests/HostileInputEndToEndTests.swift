import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Hostile input through the `trellis` binary and a real SQLite store: a 100 MB string,
/// nesting 100,000 deep, invalid UTF-8, a 10,000-digit number, NUL characters, identity
/// values of several JSON types, and names that are SQL keywords or hold quotes and
/// semicolons. A failed import exits 1 with a located message and leaves the store's
/// bytes as they were. (Missing directories, read-only and full disks are in
/// ``BadInputEndToEndTests``.)
@Suite struct HostileInputEndToEndTests {
    static let notes = """
        {"format": "trellis-model", "formatVersion": 1, "entities": [
          {"name": "Note", "identityAttributes": ["id"], "attributes": [
            {"name": "id", "type": "string", "jsonKeyPath": "id"},
            {"name": "body", "type": "string", "jsonKeyPath": "body"},
            {"name": "count", "type": "integer64", "jsonKeyPath": "count"}]}]}
        """

    /// A workspace with `notes.json` (the model) and a store holding one note.
    static func workspace() throws -> (TemporaryDirectory, store: URL) {
        let directory = try TemporaryDirectory()
        try write(notes, to: "notes.json", in: directory)
        try write(#"[{"id": "a", "body": "first", "count": 1}]"#, to: "first.json", in: directory)
        let result = try TrellisProcess.run(["import", "first.json", "--model", "notes.json", "--entity", "Note"], in: directory.url)
        try #require(result.status == 0, "\(result)")
        return (directory, directory.url.appendingPathComponent("trellis.sqlite"))
    }

    static func write(_ text: String, to name: String, in directory: TemporaryDirectory) throws {
        try write(Data(text.utf8), to: name, in: directory)
    }

    static func write(_ data: Data, to name: String, in directory: TemporaryDirectory) throws {
        try data.write(to: directory.url.appendingPathComponent(name))
    }

    static func importNotes(_ file: String, _ extra: [String] = [], in directory: TemporaryDirectory) throws -> TrellisProcess.Result {
        try TrellisProcess.run(["import", file, "--model", "notes.json", "--entity", "Note"] + extra, in: directory.url)
    }

    /// Runs `import` with `file`, expects exit 1 with exactly `message`, and the store's
    /// bytes, integrity and rows unchanged.
    static func expectRefused(
        _ file: String, _ extra: [String] = [], message: String, in directory: TemporaryDirectory,
        store: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try Data(contentsOf: store)
        let result = try importNotes(file, extra, in: directory)
        #expect(result == TrellisProcess.Result(status: 1, stdout: "", stderr: "error: \(message)\n"), sourceLocation: sourceLocation)
        #expect(try Data(contentsOf: store) == before, sourceLocation: sourceLocation)
        #expect(try SQLiteShell.query(store, "PRAGMA integrity_check") == "ok", sourceLocation: sourceLocation)
        #expect(try SQLiteShell.query(store, #"SELECT id, body, count FROM "Note""#) == "a|first|1", sourceLocation: sourceLocation)
    }

    // MARK: - A 100 MB string

    /// The input is exactly what `export` writes, so the export must equal it byte for byte.
    /// Written and compared in chunks (`cmp`), so the test process never holds 100 MB.
    @Test func hundredMegabyteStringImportsAndExportsByteForByte() throws {
        let (directory, store) = try Self.workspace()
        defer { directory.remove() }
        let input = directory.url.appendingPathComponent("big.json")
        _ = FileManager.default.createFile(atPath: input.path, contents: nil)
        let handle = try FileHandle(forWritingTo: input)
        try handle.write(contentsOf: Data(#"[{"id":"a","body":""#.utf8))
        let chunk = Data((0..<1_000_000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        for _ in 0..<100 { try handle.write(contentsOf: chunk) }
        try handle.write(contentsOf: Data(#"","count":1}]"#.utf8) + Data("\n".utf8))
        try handle.close()

        let result = try Self.importNotes("big.json", ["--report", "json"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try JSONReader.parse(result.stdout)["entities"] == ["Note": ["inserted": 0, "updated": 1, "unchanged": 0, "deleted": 0]])
        #expect(
            try SQLiteShell.query(store, #"SELECT length(CAST(body AS BLOB)), length(body), substr(body, 99999990) FROM "Note""#)
                == "100000000|100000000|defghijklmn")

        let output = directory.url.appendingPathComponent("out.json")
        let export = try TrellisProcess.run(["export", "--model", "notes.json", "--entity", "Note"], in: directory.url, standardOutput: output)
        #expect(export == TrellisProcess.Result(status: 0, stdout: "", stderr: ""))
        #expect(try Self.sameFiles(input, output))
    }

    /// `cmp -s`: whether two files have the same bytes.
    static func sameFiles(_ a: URL, _ b: URL) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["cmp", "-s", a.path, b.path]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    // MARK: - Nesting, UTF-8, numbers

    @Test func nestingHundredThousandDeepIsALocatedErrorAndTheStoreIsUnchanged() throws {
        let (directory, store) = try Self.workspace()
        defer { directory.remove() }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        try Self.write(#"[{"id": "b", "body": "x"},"# + "\n" + #"{"id":"c","body":"# + deep + "}]", to: "deep.json", in: directory)
        // The outer array and the object are levels 1 and 2: the 511th bracket is level 513.
        try Self.expectRefused(
            "deep.json", message: "deep.json:2:528: arrays and objects nested deeper than 512 levels",
            in: directory, store: store)
        try Self.write(#"{"id": "b", "body": "x"}"# + "\n" + #"{"id":"c","body":"# + deep + "}\n", to: "deep.ndjson", in: directory)
        try Self.expectRefused(
            "deep.ndjson", ["--format", "ndjson"],
            message: "deep.ndjson:2:529: arrays and objects nested deeper than 512 levels", in: directory, store: store)
        // The collection's key path runs through 100,000 nested objects.
        try Self.write(
            String(repeating: #"{"a":"#, count: 100_000) + "[]" + String(repeating: "}", count: 100_000), to: "objects.json",
            in: directory)
        try Self.expectRefused(
            "objects.json", ["--at", Array(repeating: "a", count: 1_000).joined(separator: ".")],
            message: "objects.json:1:2561: arrays and objects nested deeper than 512 levels", in: directory, store: store)
    }

    @Test func invalidUTF8IsALocatedErrorAndTheStoreIsUnchanged() throws {
        let (directory, store) = try Self.workspace()
        defer { directory.remove() }
        try Self.write(
            Data((#"[{"id": "b", "body": "ok"},"# + "\n" + #"{"id":"c","body":"caf"#).utf8) + Data([0xC3, 0x28])
                + Data(#""}]"#.utf8), to: "bad.json", in: directory)
        try Self.expectRefused("bad.json", message: "bad.json:2:22: invalid UTF-8 byte 0xC3 in string", in: directory, store: store)
        try Self.write(
            Data((#"{"id": "b"}"# + "\n" + #"{"id":"c","body":""#).utf8) + Data([0xFF]) + Data("\"}\n".utf8),
            to: "bad.ndjson", in: directory)
        try Self.expectRefused(
            "bad.ndjson", ["--format", "ndjson"], message: "bad.ndjson:2:19: invalid UTF-8 byte 0xFF in string",
            in: directory, store: store)
        // In a key.
        try Self.write(Data(#"[{"id": "b", "bo"#.utf8) + Data([0xED, 0xA0, 0x80]) + Data(#"dy": "x"}]"#.utf8), to: "key.json", in: directory)
        try Self.expectRefused("key.json", message: "key.json:1:17: invalid UTF-8 byte 0xED in string", in: directory, store: store)
    }

    @Test func tenThousandDigitNumberIsRefusedWithItsPathEntityAndAttribute() throws {
        let (directory, store) = try Self.workspace()
        defer { directory.remove() }
        try Self.write(
            #"[{"id": "b", "count": 2}, {"id": "c", "count": "# + String(repeating: "9", count: 10_000) + "}]", to: "n.json",
            in: directory)
        try Self.expectRefused(
            "n.json",
            message: "n.json: $[1].count: cannot store \(String(repeating: "9", count: 40))… in Note.count "
                + "(integer64): out of range -9223372036854775808...9223372036854775807", in: directory, store: store)
        // Written with 10,000 digits, a value that fits is stored exactly.
        try Self.write(
            #"[{"id": "b", "count": 9223372036854775807."# + String(repeating: "0", count: 9_981) + "}]", to: "fits.json",
            in: directory)
        #expect(try Self.importNotes("fits.json", in: directory).status == 0)
        #expect(try SQLiteShell.query(store, #"SELECT id, count FROM "Note" ORDER BY _pk"#) == "a|1\nb|9223372036854775807")
    }

    // MARK: - NUL characters, identities

    @Test func nulCharactersRoundTripThroughSQLiteByteForByte() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.write(
            #"""
            {"format": "trellis-model", "formatVersion": 1, "entities": [
              {"name": "K", "identityAttributes": ["id"], "attributes": [
                {"name": "id", "type": "string", "jsonKeyPath": "id"},
                {"name": "v", "type": "string", "jsonKeyPath": "a\u0000b"},
                {"name": "j", "type": "json", "jsonKeyPath": "j"}]}]}
            """#, to: "model.json", in: directory)
        let text = #"[{"id":"x\u0000y","a\u0000b":"\u0000v\u0000","j":{"k\u0000":"\u0000"}},{"id":"x","a\u0000b":"","j":null}]"# + "\n"
        try Self.write(text, to: "nul.json", in: directory)
        let imported = try TrellisProcess.run(["import", "nul.json", "--model", "model.json", "--entity", "K", "--report", "json"], in: directory.url)
        #expect(try JSONReader.parse(imported.stdout)["entities"] == ["K": ["inserted": 2, "updated": 0, "unchanged": 0, "deleted": 0]])
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        #expect(
            try SQLiteShell.query(store, "SELECT hex(id), hex(v), j FROM K ORDER BY _pk")
                == #"780079|007600|{"k\u0000":"\u0000"}"# + "\n78||")
        let exported = try TrellisProcess.run(["export", "--model", "model.json", "--entity", "K"], in: directory.url)
        #expect(exported == TrellisProcess.Result(status: 0, stdout: text, stderr: ""))
        let again = try TrellisProcess.run(["import", "nul.json", "--model", "model.json", "--entity", "K", "--report", "json"], in: directory.url)
        #expect(try JSONReader.parse(again.stdout)["entities"] == ["K": ["inserted": 0, "updated": 0, "unchanged": 2, "deleted": 0]])
    }

    /// SQLite's unique index admits several NULLs, as the importer inserts every object
    /// without an identity value; 42 and "42" are one string identity, `true` is "true".
    @Test func identityValuesOfSeveralTypesInTheStore() throws {
        let (directory, store) = try Self.workspace()
        defer { directory.remove() }
        try Self.write(
            #"[{"id": null, "body": "n1"}, {"id": null, "body": "n2"}, {"id": 42, "body": "number"}, {"id": "42", "body": "string"}, "#
                + #"{"id": true, "body": "bool"}, {"id": 4.0, "body": "decimal"}]"#, to: "ids.json", in: directory)
        #expect(try Self.importNotes("ids.json", in: directory).status == 0)
        #expect(
            try SQLiteShell.query(store, #"SELECT quote(id), body FROM "Note" ORDER BY _pk"#)
                == "'a'|first\nNULL|n1\nNULL|n2\n'42'|string\n'true'|bool\n'4.0'|decimal")
        try Self.write(#"[{"id": [1], "body": "array"}]"#, to: "array.json", in: directory)
        let before = try Data(contentsOf: store)
        let result = try Self.importNotes("array.json", in: directory)
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: "error: array.json: $[0].id: cannot store [1] in Note.id (string): expected a string, a number or a boolean\n"))
        #expect(try Data(contentsOf: store) == before)
    }

    /// "é" precomposed and decomposed: two identities (as for SQLite's `=`), and a change
    /// from one to the other is written.
    @Test func canonicallyEquivalentTextIsStoredAsGiven() throws {
        let (directory, store) = try Self.workspace()
        defer { directory.remove() }
        try Self.write(
            Data(#"[{"id": "\#u{E9}", "body": "nfc"}, {"id": "e\#u{301}", "body": "nfd"}, {"id": "a", "body": "\#u{E9}"}]"#.utf8),
            to: "both.json", in: directory)
        let both = try Self.importNotes("both.json", ["--report", "json"], in: directory)
        #expect(try JSONReader.parse(both.stdout)["entities"] == ["Note": ["inserted": 2, "updated": 1, "unchanged": 0, "deleted": 0]])
        try Self.write(Data(#"[{"id": "a", "body": "e\#u{301}"}]"#.utf8), to: "changed.json", in: directory)
        let changed = try Self.importNotes("changed.json", ["--report", "json"], in: directory)
        #expect(try JSONReader.parse(changed.stdout)["entities"] == ["Note": ["inserted": 0, "updated": 1, "unchanged": 0, "deleted": 0]])
        #expect(try SQLiteShell.query(store, #"SELECT hex(id), hex(body) FROM "Note" ORDER BY _pk"#) == "61|65CC81\nC3A9|6E6663\n65CC81|6E6664")
    }

    // MARK: - Names that are SQL keywords or hold quotes and semicolons

    static let keywordModel = #"""
        {"format": "trellis-model", "formatVersion": 1,
         "entities": [
          {"name": "Order", "identityAttributes": ["select"],
           "attributes": [
             {"name": "select", "type": "integer64", "jsonKeyPath": "select"},
             {"name": "group", "type": "string", "jsonKeyPath": "group"},
             {"name": "a\"b", "type": "string", "jsonKeyPath": "a\"b"},
             {"name": "x; DROP TABLE y", "type": "string", "jsonKeyPath": "x; DROP TABLE y"}],
           "relationships": [
             {"name": "from", "destination": "Table", "jsonKeyPath": "from"},
             {"name": "values", "destination": "Table", "toMany": true, "jsonKeyPath": "values"}]},
          {"name": "Table", "identityAttributes": "index",
           "attributes": [{"name": "index", "type": "string", "jsonKeyPath": "index"}]},
          {"name": "Vehicle'); DROP TABLE \"Order\"; --", "entityMapper": "Kind",
           "attributes": [
             {"name": "plate", "type": "string", "jsonKeyPath": "plate"},
             {"name": "kind", "type": "string", "jsonKeyPath": "kind"}]},
          {"name": "Car's", "parent": "Vehicle'); DROP TABLE \"Order\"; --", "identityAttributes": ["plate"]},
          {"name": "Bike", "parent": "Vehicle'); DROP TABLE \"Order\"; --"}
         ],
         "bindings": {"entityMappers": {"Kind": {"keyPath": "kind", "entities": {"car": "Car's", "bike": "Bike"}}}}}
        """#

    static let keywordSchema = #"""
        CREATE TABLE "trellis_metadata" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);
        CREATE TABLE "Order" (
          "_pk" INTEGER PRIMARY KEY,
          "_entity" TEXT NOT NULL,
          "_placeholder" INTEGER NOT NULL DEFAULT 0,
          "select" INTEGER,
          "group" TEXT,
          "a""b" TEXT,
          "x; DROP TABLE y" TEXT,
          "from" INTEGER REFERENCES "Table"("_pk") ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED
        );
        CREATE TABLE "Table" (
          "_pk" INTEGER PRIMARY KEY,
          "_entity" TEXT NOT NULL,
          "_placeholder" INTEGER NOT NULL DEFAULT 0,
          "index" TEXT
        );
        CREATE TABLE "Vehicle'); DROP TABLE ""Order""; --" (
          "_pk" INTEGER PRIMARY KEY,
          "_entity" TEXT NOT NULL,
          "_placeholder" INTEGER NOT NULL DEFAULT 0,
          "plate" TEXT,
          "kind" TEXT
        );
        CREATE TABLE "Order.values" (
          "source" INTEGER NOT NULL REFERENCES "Order"("_pk") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
          "destination" INTEGER NOT NULL,
          PRIMARY KEY ("source", "destination")
        ) WITHOUT ROWID;
        CREATE INDEX "Order(from)" ON "Order"("from");
        CREATE UNIQUE INDEX "Order identity" ON "Order"("select");
        CREATE UNIQUE INDEX "Table identity" ON "Table"("index");
        CREATE UNIQUE INDEX "Car's identity" ON "Vehicle'); DROP TABLE ""Order""; --"("plate") WHERE "_entity" IN ('Car''s');

        """#

    /// Identifiers are always double-quoted (a `"` doubled) and values bound, so these names
    /// work end to end: schema, import, export, `--where`, re-import and migration.
    @Test func sqlKeywordsQuotesAndSemicolonsInNamesWorkEndToEnd() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.write(Self.keywordModel, to: "model.json", in: directory)
        let vehicle = "Vehicle'); DROP TABLE \"Order\"; --"
        let schema = try TrellisProcess.run(["schema", "--model", "model.json"], in: directory.url)
        #expect(schema == TrellisProcess.Result(status: 0, stdout: Self.keywordSchema, stderr: ""))

        try Self.write(
            #"""
            [{"select": 1, "group": "g", "a\"b": "quote", "x; DROP TABLE y": "semi", "from": "t1", "values": ["t2", {"index": "t3"}]},
             {"select": 2, "group": null, "a\"b": "'; DROP TABLE \"Table\"; --", "from": {"index": "t1"}, "values": []}]
            """#, to: "orders.json", in: directory)
        let orders = try TrellisProcess.run(
            ["import", "orders.json", "--model", "model.json", "--entity", "Order", "--report", "json"],
            in: directory.url)
        #expect(
            try JSONReader.parse(orders.stdout)["entities"] == [
                "Order": ["inserted": 2, "updated": 0, "unchanged": 0, "deleted": 0],
                "Table": ["inserted": 3, "updated": 0, "unchanged": 0, "deleted": 0],
            ])
        try Self.write(
            #"[{"plate": "P1", "kind": "car"}, {"plate": "P1", "kind": "car"}, {"plate": "P1", "kind": "bike"}, {"plate": "P1", "kind": "bike"}]"#,
            to: "vehicles.json", in: directory)
        let vehicles = try TrellisProcess.run(
            ["import", "vehicles.json", "--model", "model.json", "--entity", vehicle, "--report", "json"],
            in: directory.url)
        // The partial identity index ('Car''s') makes cars unique by plate, not bikes.
        #expect(
            try JSONReader.parse(vehicles.stdout)["entities"] == [
                vehicle: ["inserted": 0, "updated": 0, "unchanged": 0, "deleted": 0],
                "Car's": ["inserted": 1, "updated": 0, "unchanged": 0, "deleted": 0],
                "Bike": ["inserted": 2, "updated": 0, "unchanged": 0, "deleted": 0],
            ])

        let store = directory.url.appendingPathComponent("trellis.sqlite")
        #expect(
            try SQLiteShell.query(store, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                == "Order\nOrder.values\nTable\n\(vehicle)\ntrellis_commits\ntrellis_metadata")
        #expect(
            try SQLiteShell.query(store, #"SELECT "select", quote("group"), "a""b", quote("x; DROP TABLE y") FROM "Order" ORDER BY "_pk""#)
                == "1|'g'|quote|'semi'\n2|NULL|'; DROP TABLE \"Table\"; --|NULL")
        let exported = try TrellisProcess.run(["export", "--model", "model.json", "--entity", "Order"], in: directory.url)
        // Nested (the default): t2 is a placeholder, so its identifier.
        #expect(
            exported.stdout == #"[{"select":1,"group":"g","a\"b":"quote","x; DROP TABLE y":"semi","from":{"index":"t1"},"values":["t2",{"index":"t3"}]},"#
                + #"{"select":2,"group":null,"a\"b":"'; DROP TABLE \"Table\"; --","x; DROP TABLE y":null,"from":{"index":"t1"},"values":[]}]"# + "\n")
        let selected = try TrellisProcess.run(
            ["export", "--model", "model.json", "--entity", "Order", "--where", "x; DROP TABLE y=semi"],
            in: directory.url)
        #expect(
            selected.stdout == #"[{"select":1,"group":"g","a\"b":"quote","x; DROP TABLE y":"semi","from":{"index":"t1"},"values":["t2",{"index":"t3"}]}]"#
                + "\n")
        let cars = try TrellisProcess.run(["export", "--model", "model.json", "--entity", "Car's"], in: directory.url)
        #expect(cars.stdout == #"[{"plate":"P1","kind":"car"}]"# + "\n")
        let again = try TrellisProcess.run(
            ["import", "orders.json", "--model", "model.json", "--entity", "Order", "--report", "json"],
            in: directory.url)
        #expect(try JSONReader.parse(again.stdout)["entities"]?["Order"] == ["inserted": 0, "updated": 0, "unchanged": 2, "deleted": 0])

        // A migration adding such names: ALTER TABLE … ADD COLUMN and CREATE TABLE, quoted.
        var model = try JSONReader.parse(Self.keywordModel)
        var attributes = try #require(model["entities"]?[0]?["attributes"]?.arrayValue)
        attributes.append(["name": #""); DROP TABLE "Order"; --"#, "type": "string", "jsonKeyPath": "new"])
        try JSONKeyPath(parsing: "entities.0.attributes").set(.array(attributes), in: &model)
        var entities = try #require(model["entities"]?.arrayValue)
        entities.append(["name": #"Table"; DROP TABLE "Table"; --"#, "attributes": [["name": "n", "type": "integer64"]]])
        try JSONKeyPath(parsing: "entities").set(.array(entities), in: &model)
        try Self.write(Data(JSONWriter.bytes(for: model)), to: "model2.json", in: directory)
        try Self.write(#"[{"select": 1, "new": "added"}]"#, to: "new.json", in: directory)
        let migrated = try TrellisProcess.run(["import", "new.json", "--model", "model2.json", "--entity", "Order"], in: directory.url)
        #expect(migrated.status == 0, "\(migrated)")
        #expect(
            try SQLiteShell.query(store, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                == "Order\nOrder.values\nTable\nTable\"; DROP TABLE \"Table\"; --\n\(vehicle)\ntrellis_commits\ntrellis_metadata")
        #expect(
            try SQLiteShell.query(store, #"SELECT "select", quote("""); DROP TABLE ""Order""; --") FROM "Order" ORDER BY "_pk""#)
                == "1|'added'\n2|NULL")
        #expect(try SQLiteShell.query(store, "PRAGMA integrity_check") == "ok")
    }
}
