import Foundation
import Testing
import Trellis

@testable import TrellisSQLite

/// An import into empty tables drops their secondary indexes (a to-one's foreign key, a
/// many-to-many's `destination`) and builds them again before commit
/// (`SQLiteSession+BulkLoad.swift`). These pin that the file ends with exactly the indexes
/// it had, that reads inside the import (later batches load inverse relationships) still
/// see every link, and that a failed import leaves the indexes and no rows.
@Suite struct BulkLoadTests {
    static func model() throws -> ObjectModel {
        func attribute(_ name: String, _ type: AttributeType) -> AttributeDescription {
            AttributeDescription(name: name, type: type, userInfo: ["JSONKeyPath": name])
        }
        return try ObjectModel(entities: [
            EntityDescription(
                name: "Character", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [
                    RelationshipDescription(
                        name: "powers", destinationEntity: "Power", inverseName: "characters", isToMany: true,
                        userInfo: ["JSONKeyPath": "powers"]),
                    RelationshipDescription(
                        name: "publisher", destinationEntity: "Publisher", inverseName: "characters",
                        userInfo: ["JSONKeyPath": "publisher"]),
                ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Power", attributes: [attribute("id", .integer64)],
                relationships: [
                    RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "powers", isToMany: true)
                ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Publisher", attributes: [attribute("id", .integer64)],
                relationships: [
                    RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "publisher", isToMany: true)
                ], userInfo: ["identityAttributes": "id"]),
        ])
    }

    /// Character i (1…50) has powers i % 5 + 1 and (i + 1) % 5 + 1, and publisher i % 3 + 1;
    /// `badAt` puts a string where Character.id's number belongs.
    static func payload(badAt: Int? = nil) -> JSONValue {
        .array(
            (1...50).map { (i: Int) -> JSONValue in
                let id: JSONValue = i == badAt ? .string("x") : .number(JSONNumber(Int64(i)))
                let first: JSONValue = ["id": .number(JSONNumber(Int64(i % 5 + 1)))]
                let second: JSONValue = ["id": .number(JSONNumber(Int64((i + 1) % 5 + 1)))]
                let publisher: JSONValue = ["id": .number(JSONNumber(Int64(i % 3 + 1)))]
                return ["id": id, "name": .string("C\(i)"), "powers": [first, second], "publisher": publisher]
            })
    }

    static let indexQuery = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"

    func characterIDs(of entity: String, _ id: Int64, in store: SQLiteStore) throws -> [Int64] {
        let context = ObjectContext(store: store)
        let object = try #require(try context.fetch(entity, id: .integer(id)))
        return try object.destinations(forKey: "characters").compactMap { $0["id"]?.integerValue }.sorted()
    }

    @Test func aFreshStoreEndsWithTheSameIndexesAndEveryLink() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        let indexes = try store.rows(Self.indexQuery)
        #expect(
            indexes.map { $0[0] ?? "" } == [
                "Character identity", "Character(publisher)", "Character.powers(destination)",
                "Power identity", "Publisher identity",
            ])
        var options = ImportOptions()
        options.batchSize = 10  // later batches load Power.characters and Publisher.characters
        let report = try ObjectContext(store: store).importObjects(from: Self.payload(), entity: "Character", options: options)
        #expect(report.counts(for: "Character") == .init(inserted: 50))
        #expect(try store.rows(Self.indexQuery) == indexes)
        let all: [Int64] = Array(1...50)
        for power: Int64 in 1...5 {
            let expected = all.filter { $0 % 5 + 1 == power || ($0 + 1) % 5 + 1 == power }
            #expect(try characterIDs(of: "Power", power, in: store) == expected)
        }
        for publisher: Int64 in 1...3 {
            let expected = all.filter { $0 % 3 + 1 == publisher }
            #expect(try characterIDs(of: "Publisher", publisher, in: store) == expected)
        }
        #expect(try store.rows("PRAGMA integrity_check") == [["ok"]])

        // Again, into filled tables: unchanged, same indexes.
        let again = try ObjectContext(store: store).importObjects(from: Self.payload(), entity: "Character", options: options)
        #expect(again.counts(for: "Character") == .init(unchanged: 50))
        #expect(try store.rows(Self.indexQuery) == indexes)
    }

    @Test func aFailedImportIntoAFreshStoreLeavesTheIndexesAndNoRows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        let indexes = try store.rows(Self.indexQuery)
        var options = ImportOptions()
        options.batchSize = 10
        #expect(throws: ImportError.self) {
            try ObjectContext(store: store).importObjects(from: Self.payload(badAt: 35), entity: "Character", options: options)
        }
        #expect(try store.rows(Self.indexQuery) == indexes)
        #expect(try store.rows("SELECT count(*) FROM \"Character\"") == [["0"]])
        #expect(try store.rows("SELECT count(*) FROM \"Character.powers\"") == [["0"]])
    }

    // MARK: - Import fetches skip the inverse to-manys

    @Test func importFetchesLeaveInverseToManysEmptyAndOrdinaryFetchesLoadThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try Self.model()
        #expect(model.entity(named: "Character")?.importSkippableToManyIndexes == [])  // powers is mapped
        #expect(model.entity(named: "Power")?.importSkippableToManyIndexes == [0])
        #expect(model.entity(named: "Publisher")?.importSkippableToManyIndexes == [0])
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: model)
        _ = try ObjectContext(store: store).importObjects(from: Self.payload(), entity: "Character")
        let (forImport, ordinary) = try store.write { session in
            (
                try session.fetchForImport(entity: "Power", identities: [[.integer(1)]]),
                try session.fetch(entity: "Power", identities: [[.integer(1)]])
            )
        }
        #expect(forImport.map(\.relationships) == [[[]]])
        #expect(ordinary.map { $0.relationships[0].count } == [20])
        let characters = try store.write { try $0.fetchForImport(entity: "Character", identities: [[.integer(1)]]) }
        // Character 1's powers 2 and 3, the first two powers inserted (keys 1 and 2).
        #expect(characters.map { $0.relationships[0].map(\.primaryKey) } == [[1, 2]])
    }

    @Test func linksMovedByAnImportShowOnTheInverseSideAfterwards() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        var options = ImportOptions()
        options.batchSize = 10
        _ = try ObjectContext(store: store).importObjects(from: Self.payload(), entity: "Character", options: options)
        // Character 1 (powers 2, 3; publisher 2) moves to power 4 and publisher 1.
        let move: JSONValue = [["id": 1, "powers": [["id": 4]], "publisher": ["id": 1]]]
        let report = try ObjectContext(store: store).importObjects(from: move, entity: "Character")
        #expect(report.counts(for: "Character") == .init(updated: 1))
        let all: [Int64] = Array(1...50)
        for power: Int64 in 1...5 {
            var expected = all.filter { $0 % 5 + 1 == power || ($0 + 1) % 5 + 1 == power }
            if power == 2 || power == 3 { expected.removeAll { $0 == 1 } }
            if power == 4 { expected = ([1] + expected).sorted() }
            #expect(try characterIDs(of: "Power", power, in: store) == expected)
        }
        #expect(try characterIDs(of: "Publisher", 1, in: store) == [1] + all.filter { $0 % 3 + 1 == 1 })
        #expect(try characterIDs(of: "Publisher", 2, in: store) == all.filter { $0 % 3 + 1 == 2 && $0 != 1 })
    }
}
