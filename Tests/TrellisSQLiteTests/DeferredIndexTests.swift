import Foundation
import Testing
import Trellis

@testable import TrellisSQLite

/// Bulk runs (`SQLiteStore+DeferredIndexes.swift`): a run that inserts many objects drops the
/// secondary indexes with a mark in the same transaction and rebuilds them at its end; the
/// uniqueness rules and every query answer hold meanwhile; a store whose run died is repaired
/// by the next store that opens it; a small run into a large store keeps its indexes.
@Suite struct DeferredIndexTests {
    static let allIndexes = [
        "Character identity", "Character(publisher)", "Character.powers(destination)",
        "Power identity", "Publisher identity",
    ]
    static let uniqueIndexes = ["Character identity", "Power identity", "Publisher identity"]
    static let markQuery = "SELECT value FROM trellis_metadata WHERE key = 'deferredIndexes'"
    static let mark = [
        [
            "[{\"name\":\"Character(publisher)\",\"sql\":\"CREATE INDEX \\\"Character(publisher)\\\" ON \\\"Character\\\"(\\\"publisher\\\")\"},"
                + "{\"name\":\"Character.powers(destination)\",\"sql\":\"CREATE INDEX \\\"Character.powers(destination)\\\" "
                + "ON \\\"Character.powers\\\"(\\\"destination\\\")\"}]"
        ]
    ]

    /// Characters `ids`, as ``BulkLoadTests/payload(badAt:)`` builds them: powers i % 5 + 1 and
    /// (i + 1) % 5 + 1, publisher i % 3 + 1.
    static func payload(_ ids: ClosedRange<Int>) -> JSONValue {
        .array(
            ids.map { (i: Int) -> JSONValue in
                [
                    "id": .number(JSONNumber(Int64(i))), "name": .string("C\(i)"),
                    "powers": [["id": .number(JSONNumber(Int64(i % 5 + 1)))], ["id": .number(JSONNumber(Int64((i + 1) % 5 + 1)))]],
                    "publisher": ["id": .number(JSONNumber(Int64(i % 3 + 1)))],
                ]
            })
    }

    static func indexNames(_ store: SQLiteStore) throws -> [String] {
        // The outbox's own indexes (a local delete creates the outbox) are not the model's.
        try store.rows(BulkLoadTests.indexQuery).map { $0[0] ?? "" }.filter { !$0.hasPrefix("trellis_outbox") }
    }

    /// What the tests compare between a deferred and a repaired store: per publisher and per
    /// power, its characters' ids (inverse relationships, read through the dropped indexes'
    /// columns), and the count of characters of publisher 2.
    static func answers(_ store: SQLiteStore) throws -> [String] {
        let context = ObjectContext(store: store)
        var lines: [String] = []
        for (entity, ids) in [("Publisher", 1...3), ("Power", 1...5)] {
            for id in ids {
                let object = try #require(try context.fetch(entity, id: .integer(Int64(id))))
                let characters = try object.destinations(forKey: "characters").compactMap { $0["id"]?.integerValue }.sorted()
                lines.append("\(entity) \(id): \(characters.count) characters, first \(characters.prefix(3)), last \(characters.suffix(2))")
            }
        }
        let publisher = try #require(try context.fetch("Publisher", id: .integer(2))).objectID
        let count = try store.read { try $0.count(entity: "Character", matching: .relatedTo(relationship: "publisher", destination: publisher)) }
        lines.append("publisher 2: \(count)")
        return lines
    }

    func expected(_ n: Int) -> [String] {
        var lines: [String] = []
        let all = Array(1...n).map(Int64.init)
        for p: Int64 in 1...3 {
            let c = all.filter { $0 % 3 + 1 == p }
            lines.append("Publisher \(p): \(c.count) characters, first \(c.prefix(3)), last \(c.suffix(2))")
        }
        for p: Int64 in 1...5 {
            let c = all.filter { $0 % 5 + 1 == p || ($0 + 1) % 5 + 1 == p }
            lines.append("Power \(p): \(c.count) characters, first \(c.prefix(3)), last \(c.suffix(2))")
        }
        lines.append("publisher 2: \(all.filter { $0 % 3 + 1 == 2 }.count)")
        return lines
    }

    @Test func aRunDefersTheSecondaryIndexesKeepsTheRulesAndRebuildsAtItsEnd() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let store = try SQLiteStore(path: path, model: try BulkLoadTests.model())
        #expect(try Self.indexNames(store) == Self.allIndexes)
        try store.withBulkRun {
            _ = try ObjectContext(store: store).importObjects(from: Self.payload(1...1200), entity: "Character")
            // Committed with the page: the indexes dropped, the mark, the run's lock file.
            #expect(try Self.indexNames(store) == Self.uniqueIndexes)
            let mark = try store.rows(Self.markQuery)
            #expect(mark == Self.mark, "\(mark)")
            #expect(FileManager.default.fileExists(atPath: path + "-trellis-run"))

            // Uniqueness holds: the same identities update (here: nothing changed), a raw
            // duplicate is refused.
            let again = try ObjectContext(store: store).importObjects(from: Self.payload(1...1200), entity: "Character")
            #expect(again.counts(for: "Character") == .init(unchanged: 1200))
            #expect(throws: StoreError.self) {
                try store.execute("INSERT INTO \"Character\"(\"_entity\", \"id\") VALUES ('Character', 7)")
            }
            _ = try ObjectContext(store: store).importObjects(from: Self.payload(1201...1500), entity: "Character")
            #expect(try Self.answers(store) == expected(1500))

            // Another store on the file meanwhile: the run is alive, nothing is repaired, and it
            // reads the same answers.
            let reader = try SQLiteStore(path: path, model: try BulkLoadTests.model(), configuration: .init(isReadOnly: true))
            #expect(reader.repairedDeferredIndexes == 0)
            #expect(try Self.answers(reader) == expected(1500))
            #expect(try Self.indexNames(store) == Self.uniqueIndexes)
        }
        #expect(try Self.indexNames(store) == Self.allIndexes)
        #expect(try store.rows(Self.markQuery) == [])
        #expect(try store.rows("PRAGMA integrity_check") == [["ok"]])
        #expect(!FileManager.default.fileExists(atPath: path + "-trellis-run"))
        #expect(try Self.answers(store) == expected(1500))
    }

    @Test func aStoreWhoseRunDiedIsRepairedByTheNextStoreThatOpensIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let store = try SQLiteStore(path: path, model: try BulkLoadTests.model())
        let copies = ["writer.sqlite", "reader.sqlite", "unrepaired.sqlite"].map { directory.path($0) }
        try store.withBulkRun {
            _ = try ObjectContext(store: store).importObjects(from: Self.payload(1...1200), entity: "Character")
            // The file as a process killed now leaves it: the mark, and no process holding the run lock.
            try store.withConnection { connection in
                for copy in copies { try connection.copy(into: try Connection(path: copy, readOnly: false)) }
            }
        }
        let unrepaired = try SQLiteStore(
            path: copies[2], model: try BulkLoadTests.model(),
            configuration: .init(repairsDeferredIndexes: false))
        #expect(unrepaired.repairedDeferredIndexes == 0)
        #expect(try Self.indexNames(unrepaired) == Self.uniqueIndexes)
        #expect(try Self.answers(unrepaired) == expected(1200))

        let writer = try SQLiteStore(path: copies[0], model: try BulkLoadTests.model())
        let reader = try SQLiteStore(path: copies[1], model: try BulkLoadTests.model(), configuration: .init(isReadOnly: true))
        for repaired in [writer, reader] {
            #expect(repaired.repairedDeferredIndexes == 2)
            #expect(try Self.indexNames(repaired) == Self.allIndexes)
            #expect(try repaired.rows(Self.markQuery) == [])
            #expect(try repaired.rows("PRAGMA integrity_check") == [["ok"]])
            #expect(try Self.answers(repaired) == expected(1200))
        }
        #expect(try SQLiteStore(path: copies[0], model: try BulkLoadTests.model()).repairedDeferredIndexes == 0)
    }

    @Test func deletionsRebuildTheIndexesFirstAndTheRunKeepsThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try BulkLoadTests.model())
        try store.withBulkRun {
            _ = try ObjectContext(store: store).importObjects(from: Self.payload(1...1200), entity: "Character")
            #expect(try Self.indexNames(store) == Self.uniqueIndexes)
            let context = ObjectContext(store: store)
            try context.delete(try #require(try context.fetch("Publisher", id: .integer(2))))
            try context.save()
            let names = try Self.indexNames(store)
            let left = try store.rows(Self.markQuery)
            #expect(names == Self.allIndexes, "\(names) \(left)")
            #expect(try store.rows(Self.markQuery) == [])
            // ON DELETE SET NULL cleared the deleted publisher's characters.
            #expect(try store.rows("SELECT count(*) FROM \"Character\" WHERE \"publisher\" IS NULL") == [["400"]])
            _ = try ObjectContext(store: store).importObjects(from: Self.payload(1201...3000), entity: "Character")
            #expect(try Self.indexNames(store) == Self.allIndexes)
        }
        #expect(try Self.indexNames(store) == Self.allIndexes)
        #expect(try store.rows("PRAGMA integrity_check") == [["ok"]])
    }

    @Test func aSmallRunIntoALargerStoreKeepsItsIndexes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let store = try SQLiteStore(path: path, model: try BulkLoadTests.model())
        _ = try ObjectContext(store: store).importObjects(from: Self.payload(1...1500), entity: "Character")
        try store.withBulkRun {
            for start in stride(from: 1501, to: 2900, by: 200) {
                _ = try ObjectContext(store: store).importObjects(from: Self.payload(start...(start + 199)), entity: "Character")
                #expect(try Self.indexNames(store) == Self.allIndexes)
            }
            // 1,400 objects inserted by the run, fewer than the 1,508 the store held: then
            // 200 more reach them, and the indexes are deferred.
            _ = try ObjectContext(store: store).importObjects(from: Self.payload(2901...3100), entity: "Character")
            #expect(try Self.indexNames(store) == Self.uniqueIndexes)
        }
        #expect(try Self.indexNames(store) == Self.allIndexes)
        #expect(try Self.answers(store) == expected(3100))
        #expect(!FileManager.default.fileExists(atPath: path + "-trellis-run"))
    }

    @Test func anUnreadableMarkIsAClearError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        do {
            let store = try SQLiteStore(path: path, model: try BulkLoadTests.model())
            try store.execute("INSERT INTO trellis_metadata(key, value) VALUES ('deferredIndexes', 'nonsense')")
        }
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, model: try BulkLoadTests.model()) }
        #expect(error?.code == .engine)
        #expect(error?.message.hasPrefix("trellis_metadata key 'deferredIndexes' (the secondary indexes a sync run deferred) is not readable: ") == true)
        #expect(error?.message.hasSuffix("(export the objects and import them into a new store)") == true)
    }
}
