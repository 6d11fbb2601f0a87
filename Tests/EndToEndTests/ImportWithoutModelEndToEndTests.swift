import Foundation
import Testing
import TrellisTestSupport

/// `trellis import` without `--model` through the built binary (issue 14, point 2): on a fresh
/// clone, the Twitter example imports with no model written by hand.
@Suite struct ImportWithoutModelEndToEndTests {
    @Test func theTwitterExampleImportsWithoutAModel() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.copyExample("twitter/twitter.json")
        let arguments = ["import", "Examples/twitter/twitter.json", "--at", "statuses", "--entity", "Status", "--store", "t.sqlite"]
        let first = try TrellisProcess.run(arguments, in: directory.url)
        #expect(first.status == 0, "\(first)")
        #expect(first.stderr == "")
        let lines = first.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.last == "model: inferred from the payload (5 entities, 88 attributes, 16 relationships) and recorded in t.sqlite; "
                + "print it with: trellis model show t.sqlite")

        // The counts, computed from the payload: statuses with the retweeted ones, users with the mentioned ones.
        let statuses = try #require(
            (try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.url.appendingPathComponent("Examples/twitter/twitter.json"))) as? [String: Any])?["statuses"]
                as? [[String: Any]])
        let all = statuses + statuses.compactMap { $0["retweeted_status"] as? [String: Any] }
        let statusIDs = Set(all.compactMap { ($0["id"] as? NSNumber)?.int64Value })
        var userIDs = Set(all.compactMap { (($0["user"] as? [String: Any])?["id"] as? NSNumber)?.int64Value })
        for status in all {
            for mention in (status["entities"] as? [String: Any])?["user_mentions"] as? [[String: Any]] ?? [] {
                if let id = (mention["id"] as? NSNumber)?.int64Value { userIDs.insert(id) }
            }
        }
        #expect(statusIDs.count == 115 && userIDs.count == 127)
        let store = directory.url.appendingPathComponent("t.sqlite")
        #expect(try SQLiteShell.query(store, "select count(*) from Status") == "\(statusIDs.count)")
        #expect(try SQLiteShell.query(store, "select count(*) from User") == "\(userIDs.count)")
        #expect(try SQLiteShell.query(store, "select count(*) from Status where id = 505874924095815681") == "1")

        let second = try TrellisProcess.run(arguments, in: directory.url)
        #expect(second.status == 0)
        #expect(second.stdout.contains("Status          0         0        115         0\n"))
        #expect(second.stdout.hasSuffix("model: the one recorded in t.sqlite\n"))

        let show = try TrellisProcess.run(["model", "show", "t.sqlite"], in: directory.url)
        #expect(show.status == 0)
        #expect(show.stdout.hasPrefix("model: t.sqlite (the model recorded in the store)\n5 entities, 88 attributes, 16 relationships\n"))
        let convert = try TrellisProcess.run(["model", "convert", "t.sqlite", "-o", "model.json"], in: directory.url)
        #expect(
            convert
                == TrellisProcess.Result(
                    status: 0, stdout: "wrote model.json: 5 entities, 88 attributes, 16 relationships\n",
                    stderr: ""))
        let golden = try String(contentsOf: Fixtures.url("inference/twitter.model.json"), encoding: .utf8)
        #expect(try String(contentsOf: directory.url.appendingPathComponent("model.json"), encoding: .utf8) == golden)
    }

    /// A catalogue keyed by id, then its performances: the second import extends the
    /// recorded model, and `eventId` links performances to the events.
    /// A 0-byte store is an empty store (the model is inferred and recorded in it); a store file
    /// that is not an SQLite database is refused as a store, never read as a model file.
    @Test func anEmptyStoreFileIsEmptyAndAnotherFileIsNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try #"[{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}]"#.write(
            to: directory.url.appendingPathComponent("people.json"), atomically: true, encoding: .utf8)
        try Data().write(to: directory.url.appendingPathComponent("empty.sqlite"))
        let empty = try TrellisProcess.run(["import", "people.json", "--entity", "Person", "--store", "empty.sqlite"], in: directory.url)
        #expect(empty.status == 0, "\(empty)")
        #expect(empty.stdout.contains("Person         2         0          0         0\n"))
        #expect(try SQLiteShell.query(directory.url.appendingPathComponent("empty.sqlite"), "select count(*) from Person") == "2")

        let text = directory.url.appendingPathComponent("notes.sqlite")
        try "hello\n".write(to: text, atomically: true, encoding: .utf8)
        let other = try TrellisProcess.run(["import", "people.json", "--entity", "Person", "--store", "notes.sqlite"], in: directory.url)
        #expect(other.status == 1)
        #expect(other.stdout == "")
        #expect(other.stderr == "error: notes.sqlite: not an SQLite store, so it records no model; give the model with --model\n")
        #expect(try String(contentsOf: text, encoding: .utf8) == "hello\n")
    }

    @Test func theCitmCatalogueImportsInTwoSteps() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let catalog = Fixtures.url("corpus/citm_catalog.json").path
        let events = try TrellisProcess.run(["import", catalog, "--at", "events", "--entity", "Event", "--store", "c.sqlite"], in: directory.url)
        #expect(events.status == 0, "\(events)")
        let performances = try TrellisProcess.run(
            [
                "import", catalog, "--at", "performances", "--entity", "Performance",
                "--store", "c.sqlite",
            ], in: directory.url)
        #expect(performances.status == 0, "\(performances)")
        #expect(
            performances.stdout.hasSuffix(
                "\nmodel: the one recorded in c.sqlite, extended: new entity Performance, "
                    + "new entity Price, new entity SeatCategory, new entity Area, new relationship Event.performances; "
                    + "print it with: trellis model show c.sqlite\n"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Fixtures.url("corpus/citm_catalog.json"))) as? [String: Any])
        let eventCount = try #require(json["events"] as? [String: Any]).count
        let list = try #require(json["performances"] as? [[String: Any]])
        let store = directory.url.appendingPathComponent("c.sqlite")
        #expect(eventCount == 184 && list.count == 243)
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Event") == "\(eventCount)")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Event WHERE _placeholder <> 0") == "0")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Performance") == "\(list.count)")
        // Every performance links to the event its eventId names.
        let pairs = list.compactMap { p -> String? in
            guard let id = (p["id"] as? NSNumber)?.int64Value, let event = (p["eventId"] as? NSNumber)?.int64Value else { return nil }
            return "\(id):\(event)"
        }.sorted()
        let linked = try SQLiteShell.query(store, "SELECT p.id || ':' || e.id FROM Performance p JOIN Event e ON e._pk = p.event")
        #expect(pairs.count == list.count)
        #expect(linked.split(separator: "\n").map(String.init).sorted() == pairs)
    }
}
