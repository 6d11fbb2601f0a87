import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// The CITM catalog example: the import commands of `Examples/citm/README.md`, run as
/// written there, checked against counts computed independently with Python.
@Suite struct CatalogEndToEndTests {
    /// The `swift run trellis import …` lines of the README, with `$P` and `$M` expanded.
    static func readmeImports() throws -> [[String]] {
        let readme = try String(contentsOf: Fixtures.repositoryRoot().appendingPathComponent("Examples/citm/README.md"), encoding: .utf8)
        return readme.split(separator: "\n").filter { $0.hasPrefix("swift run trellis import") }.map { line in
            line.replacingOccurrences(of: "$P", with: "Examples/citm/citm_catalog.json")
                .replacingOccurrences(of: "$M", with: "--model Examples/citm/model.json --store citm.sqlite")
                .split(separator: " ").dropFirst(3).map(String.init)
        }
    }

    static func importedWorkspace() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try directory.copyExample("citm/model.json")
        try directory.copyExample("citm/citm_catalog.json")
        for arguments in try readmeImports() {
            let result = try TrellisProcess.run(arguments, in: directory.url)
            try #require(result.status == 0, "\(arguments.joined(separator: " ")): \(result)")
        }
        return directory
    }

    @Test func readmeHasTheImportCommands() throws {
        let commands = try Self.readmeImports()
        #expect(commands.count == 8)
        #expect(
            commands.first == [
                "import", "Examples/citm/citm_catalog.json", "--model", "Examples/citm/model.json",
                "--store", "citm.sqlite", "--entity", "Event", "--at", "events", "--key-attribute", "id",
            ])
    }

    @Test func importsEventsPerformancesAndNameTables() throws {
        let directory = try Self.importedWorkspace()
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("citm.sqlite")
        // python3 -c 'import json; c=json.load(open("Examples/citm/citm_catalog.json")); print(len(c["events"]), len(c["performances"]))'
        // → 184 243
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Event") == "184")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Performance") == "243")
        // python3 -c 'import json; c=json.load(open("Examples/citm/citm_catalog.json")); p=c["performances"]; print(len({s["seatCategoryId"] for x in p for s in x["seatCategories"]} | set(map(int, c["seatCategoryNames"]))), len({a["areaId"] for x in p for s in x["seatCategories"] for a in s["areas"]} | set(map(int, c["areaNames"]))))'
        // → 64 17
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM SeatCategory") == "64")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Area") == "17")
        // python3 -c 'import json; c=json.load(open("Examples/citm/citm_catalog.json")); e=c["events"].values(); print(len({i for x in e for i in x["topicIds"]} | set(map(int, c["topicNames"]))), len({i for x in e for i in x["subTopicIds"]} | set(map(int, c["subTopicNames"]))))'
        // → 4 19
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Topic") == "4")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM SubTopic") == "19")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Venue") == "1")
        // Every placeholder (an event, topic, … known first by id) was completed by a later import.
        for table in ["Event", "Performance", "SeatCategory", "Area", "Topic", "SubTopic", "Venue"] {
            #expect(try SQLiteShell.query(store, "SELECT count(*) FROM \(table) WHERE _placeholder <> 0") == "0", "\(table)")
        }
        // …and every named entity got its name from its table.
        for table in ["Event", "SeatCategory", "Area", "Topic", "SubTopic", "Venue"] {
            #expect(try SQLiteShell.query(store, "SELECT count(*) FROM \(table) WHERE name IS NULL") == "0", "\(table)")
        }
    }

    @Test func performancesLinkToTheirEventsByIdentifier() throws {
        let directory = try Self.importedWorkspace()
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("citm.sqlite")
        // python3 -c 'import json; c=json.load(open("Examples/citm/citm_catalog.json")); print(sum(1 for p in c["performances"] if p["eventId"] == 138586341))'
        // → 1
        #expect(
            try SQLiteShell.query(
                store,
                """
                SELECT p.id FROM Performance p JOIN Event e ON p.event = e._pk WHERE e.id = 138586341
                """) == "339887544")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Performance WHERE event IS NULL") == "0")
        #expect(try SQLiteShell.query(store, "SELECT name FROM Event WHERE id = 138586341") == "30th Anniversary Tour")
        // Names from the id → name tables reach the objects first created from nested identifiers.
        #expect(try SQLiteShell.query(store, "SELECT name FROM Area WHERE id = 205705993") == "Arrière-scène central")
        #expect(try SQLiteShell.query(store, "SELECT name FROM Venue WHERE code = 'PLEYEL_PLEYEL'") == "Salle Pleyel")
    }

    @Test func reimportingTheCatalogChangesNothing() throws {
        let directory = try Self.importedWorkspace()
        defer { directory.remove() }
        let result = try TrellisProcess.run(
            [
                "import", "Examples/citm/citm_catalog.json", "--model", "Examples/citm/model.json",
                "--store", "citm.sqlite", "--entity", "Performance", "--at", "performances",
                "--report", "json",
            ], in: directory.url)
        #expect(result.status == 0, "\(result)")
        let report = try JSONReader.parse(result.stdout)
        // Events and venues are linked by identifier only (not counted); nested seat categories
        // and their areas are in the payload, unchanged.
        #expect(
            report["entities"] == [
                "Performance": ["inserted": 0, "updated": 0, "unchanged": 243, "deleted": 0],
                "SeatCategory": ["inserted": 0, "updated": 0, "unchanged": 64, "deleted": 0],
                "Area": ["inserted": 0, "updated": 0, "unchanged": 17, "deleted": 0],
            ])
    }
}
