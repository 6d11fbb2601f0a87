import Foundation
import Testing
import Trellis
import TrellisSQLite
import TrellisTestSupport

@testable import TrellisCLI

/// `trellis import` without `--model` on the inputs `import` reads in other ways: NDJSON
/// records (errors name their line), tables read with `--key-attribute` / `--value-key`, and
/// standard input (its copy). docs/CLI.md, "Imports without a model".
@Suite struct ImportWithoutModelInputTests {
    struct LineCase: CustomTestStringConvertible, Sendable {
        /// A first NDJSON import (nil: none), then the failing one.
        var first: String?
        var second: String
        var stderr: String
        var testDescription: String { second }
    }

    /// A value of an NDJSON record is located by its line, as the import locates it
    /// (`events.ndjson:3: $[2].id: …`): inference's errors and the recorded model's conflicts too.
    static let lineCases: [LineCase] = [
        LineCase(
            first: nil, second: "{\"id\": 1}\n\n[1, 2]\n",
            stderr: "error: e.ndjson:3: $[1][0]: expected an object (each element becomes an Event), found a number\n"),
        LineCase(
            first: nil, second: "{\"id\": 1}\n7\n",
            stderr: "error: e.ndjson:2: $[1]: expected an object (each element becomes an Event), found a number\n"),
        LineCase(
            first: "{\"id\": 1, \"name\": \"a\"}\n", second: "{\"id\": 2, \"name\": \"b\"}\n\n{\"id\": 3, \"name\": {\"first\": \"c\"}}\n",
            stderr: "error: e.ndjson:3: $[1].name: entity Event, property name (key name): the recorded model has type string, "
                + "but the payload has an object here; the store was not changed\n"),
        LineCase(
            first: "{\"id\": 1, \"n\": 5}\n", second: "{\"id\": 2, \"n\": 5}\n{\"id\": 3, \"n\": \"five\"}\n",
            stderr: "error: e.ndjson:2: $[1].n: entity Event, property n (key n): the recorded model has type integer64, "
                + "but the payload has a string here (their type would be string); the store was not changed\n"),
    ]

    @Test(arguments: lineCases)
    func errorsInNDJSONRecordsNameTheLine(_ c: LineCase) throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        if let first = c.first {
            try w.write("first.ndjson", first)
            #expect(w.run("import", "first.ndjson", "--format", "ndjson", "--entity", "Event").status == 0)
        }
        let store = w.url.appendingPathComponent("trellis.sqlite")
        let before = c.first == nil ? nil : try Data(contentsOf: store)
        try w.write("e.ndjson", c.second)
        #expect(w.run("import", "e.ndjson", "--format", "ndjson", "--entity", "Event") == CommandResult(status: 1, stdout: "", stderr: c.stderr))
        if let before {
            #expect(try Data(contentsOf: store) == before)
        } else {
            #expect(!w.exists("trellis.sqlite"))
            // model infer reads the same records and says the same.
            if c.stderr.contains("expected an object") {
                #expect(w.run("model", "infer", "e.ndjson", "--format", "ndjson", "--entity", "Event").stderr == c.stderr)
            }
        }
    }

    static let catalog = #"""
        {"areaNames": {"205705993": "Arrière-scène central", "205705994": "1er balcon central"},
         "venueNames": {"PLEYEL_PLEYEL": "Salle Pleyel"},
         "events": {"138586341": {"id": 138586341, "name": "Bach"}}}
        """#

    /// A table read with `--key-attribute` and `--value-key` infers the entity the import
    /// fills: each member's key at the key attribute, each value at the value key.
    @Test func aTableReadWithKeyAttributeAndValueKeyInfersThoseAttributes() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("catalog.json", Self.catalog)
        let areas = w.run(
            "import", "catalog.json", "--at", "areaNames", "--entity", "Area", "--key-attribute", "id", "--value-key", "name",
            "--store", "c.sqlite")
        #expect(areas.stderr == "")
        #expect(areas.status == 0)
        #expect(areas.stdout.hasPrefix("entity  inserted   updated  unchanged   deleted\nArea           2         0          0         0\n"))
        let store = w.url.appendingPathComponent("c.sqlite")
        #expect(
            try SQLiteShell.query(store, "SELECT id, typeof(id), name FROM Area ORDER BY id")
                == "205705993|integer|Arrière-scène central\n205705994|integer|1er balcon central")
        let again = w.run(
            "import", "catalog.json", "--at", "areaNames", "--entity", "Area", "--key-attribute", "id", "--value-key", "name",
            "--store", "c.sqlite")
        #expect(again.stdout.hasPrefix("entity  inserted   updated  unchanged   deleted\nArea           0         0          2         0\n"))
        #expect(again.stdout.hasSuffix("model: the one recorded in c.sqlite\n"))

        // Into the same store: a new entity keyed by a string code; members that carry their
        // key already (events) keep their own.
        let venues = w.run(
            "import", "catalog.json", "--at", "venueNames", "--entity", "Venue", "--key-attribute", "code",
            "--value-key", "name", "--store", "c.sqlite")
        #expect(venues.status == 0)
        #expect(venues.stdout.contains("extended: new entity Venue;"))
        #expect(try SQLiteShell.query(store, "SELECT code, name FROM Venue") == "PLEYEL_PLEYEL|Salle Pleyel")
        let events = w.run("import", "catalog.json", "--at", "events", "--entity", "Event", "--key-attribute", "id", "--store", "c.sqlite")
        #expect(events.status == 0)
        #expect(try SQLiteShell.query(store, "SELECT id, name FROM Event") == "138586341|Bach")
    }

    /// The copy of standard input is the user's only, and copies left by killed processes
    /// are removed by the next import from standard input (running processes' are kept).
    @Test func theCopyOfStandardInputIsPrivateAndAbandonedCopiesAreRemoved() throws {
        let directory = FileManager.default.temporaryDirectory
        // No process has this ID (above Linux's and Darwin's largest).
        let abandoned = directory.appendingPathComponent("\(InputFile.spoolPrefix)2147483646-\(UUID().uuidString).json")
        let running = directory.appendingPathComponent("\(InputFile.spoolPrefix)1-\(UUID().uuidString).json")  // init runs
        try Data("[]".utf8).write(to: abandoned)
        try Data("[]".utf8).write(to: running)
        defer { try? FileManager.default.removeItem(at: running) }

        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data(#"[{"id": 1}]"#.utf8))
        try pipe.fileHandleForWriting.close()
        let spooled = try InputFile(name: "<stdin>", url: nil, standardInput: pipe.fileHandleForReading).spooled()
        let copy = try #require(spooled.input.url)
        #expect(try String(contentsOf: copy, encoding: .utf8) == #"[{"id": 1}]"#)
        let permissions = try FileManager.default.attributesOfItem(atPath: copy.path)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600)
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(FileManager.default.fileExists(atPath: running.path))
        spooled.cleanup()
        #expect(!FileManager.default.fileExists(atPath: copy.path))
    }
}
