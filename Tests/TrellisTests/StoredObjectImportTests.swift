import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// Stored objects of the imported entity are compared with the JSON before they are
/// registered (`Importer`'s `StoredObject`): these tests pin that the outcome is the one of
/// registering every object first — values, links, counts and diagnostics.
/// On every store (``StoreKind/allCases``): each test runs once per store kind, on a fresh
/// store of that kind (``use(_:)``).
@Suite final class StoredObjectImportTests {
    let model: ObjectModel
    let stores = TestStores()
    private(set) var store: any PersistentStore
    private(set) var context: ObjectContext

    init() throws {
        model = try GraphFixture.grootModel(powersOrdered: false)
        store = InMemoryStore(model: model)
        context = ObjectContext(store: store)
    }

    /// Makes the suite's store a fresh one of `kind` (with a context on it).
    func use(_ kind: StoreKind) throws {
        store = try stores.make(kind, model: model)
        context = ObjectContext(store: store)
        _ = try context.importObjects(from: Self.characters(), entity: "Character")
    }

    /// Batman (powers 4, 9; publisher 10), Superman (power 1; publisher 10), Hulk (power 2; publisher 11).
    static func characters(batmanName: String = "Batman", batmanPowers: [JSONValue] = ["4", "9"]) -> JSONValue {
        [
            [
                "id": "1699", "name": .string(batmanName), "real_name": "Bruce Wayne",
                "powers": .array(batmanPowers.map { ["id": $0, "name": .string("P\($0.stringValue ?? "")")] }),
                "publisher": ["id": "10", "name": "DC Comics"],
            ],
            [
                "id": "1700", "name": "Superman", "real_name": "Clark Kent",
                "powers": [["id": "1", "name": "P1"]], "publisher": ["id": "10", "name": "DC Comics"],
            ],
            [
                "id": "1701", "name": "Hulk", "real_name": "Bruce Banner",
                "powers": [["id": "2", "name": "P2"]], "publisher": ["id": "11", "name": "Marvel"],
            ],
        ]
    }

    /// identity → name of the stored characters.
    func names() throws -> [Int64: String] {
        var names: [Int64: String] = [:]
        for row in try GraphFixture.rows(store, "Character") {
            if case .integer(let id) = row.attributes[0], case .string(let name) = row.attributes[1] { names[id] = name }
        }
        return names
    }

    /// The identities of Batman's stored powers, sorted.
    func batmanPowers() throws -> [String] {
        let powers = try GraphFixture.rows(store, "Power")
        let batman = try #require(try GraphFixture.rows(store, "Character").first { $0.attributes[0] == .integer(1699) })
        return batman.relationships[0].compactMap { id in powers.first { $0.id == id }?.attributes[0]?.description }.sorted()
    }

    @Test(arguments: StoreKind.allCases)
    func anUnchangedReimportWritesNothingAndCountsEveryObjectUnchanged(kind: StoreKind) throws {
        try use(kind)
        let report = try context.importObjects(from: Self.characters(), entity: "Character")
        #expect(report.counts(for: "Character") == .init(unchanged: 3))
        #expect(report.counts(for: "Power") == .init(unchanged: 4))
        #expect(report.counts(for: "Publisher") == .init(unchanged: 2))
        #expect(context.registered.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func oneChangedAttributeUpdatesThatObjectOnly(kind: StoreKind) throws {
        try use(kind)
        let report = try context.importObjects(from: Self.characters(batmanName: "The Batman"), entity: "Character")
        #expect(report.counts(for: "Character") == .init(updated: 1, unchanged: 2))
        #expect(try names() == [1699: "The Batman", 1700: "Superman", 1701: "Hulk"])
    }

    @Test(arguments: StoreKind.allCases)
    func aChangedToManyAloneUpdatesTheObject(kind: StoreKind) throws {
        try use(kind)
        let report = try context.importObjects(from: Self.characters(batmanPowers: ["4"]), entity: "Character")
        #expect(report.counts(for: "Character") == .init(updated: 1, unchanged: 2))
        #expect(try batmanPowers() == ["4"])
        // The same links in another order: an unordered to-many is unchanged.
        let reordered = try context.importObjects(from: Self.characters(batmanPowers: ["4"]), entity: "Character")
        #expect(reordered.counts(for: "Character") == .init(unchanged: 3))
        _ = try context.importObjects(from: Self.characters(batmanPowers: ["9", "4"]), entity: "Character")
        let swapped = try context.importObjects(from: Self.characters(batmanPowers: ["4", "9"]), entity: "Character")
        #expect(swapped.counts(for: "Character") == .init(unchanged: 3))
        #expect(try batmanPowers() == ["4", "9"])
    }

    @Test(arguments: StoreKind.allCases)
    func aChangedToOneAloneUpdatesTheObject(kind: StoreKind) throws {
        try use(kind)
        guard case .array(var elements) = Self.characters(), case .object(var first) = elements[0] else { return }
        first["publisher"] = ["id": "11", "name": "Marvel"]
        elements[0] = .object(first)
        let payload = JSONValue.array(elements)
        let report = try context.importObjects(from: payload, entity: "Character")
        #expect(report.counts(for: "Character") == .init(updated: 1, unchanged: 2))
        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        #expect(try batman.destination(forKey: "publisher")?["name"] == .string("Marvel"))
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectRepeatedInABatchTakesItsLastValueAndIsDiagnosed(kind: StoreKind) throws {
        try use(kind)
        let payload: JSONValue = [["id": "1699", "name": "Batman"], ["id": "1699", "name": "Dark Knight"]]
        let report = try context.importObjects(from: payload, entity: "Character")
        #expect(report.counts(for: "Character") == .init(updated: 1))
        #expect(report.diagnostics.map(\.code) == [.duplicateIdentity])
        #expect(try names() == [1699: "Dark Knight", 1700: "Superman", 1701: "Hulk"])

        // Changed first, then back to the stored value: the last value is stored.
        let back: JSONValue = [["id": "1699", "name": "Batman"], ["id": "1699", "name": "Dark Knight"]]
        _ = try context.importObjects(from: [["id": "1699", "name": "Robin"]], entity: "Character")
        _ = try context.importObjects(from: back, entity: "Character")
        #expect(try names() == [1699: "Dark Knight", 1700: "Superman", 1701: "Hulk"])
    }

    @Test(arguments: StoreKind.allCases)
    func anAppendingToManyIsUnchangedByLinksItHasAndUpdatedByNewOnes(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Character", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [
                    GraphFixture.relationship(
                        "powers", "Power", inverse: "characters", toMany: true, key: "powers",
                        merge: "append")
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Power", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [GraphFixture.relationship("characters", "Character", inverse: "powers", toMany: true)],
                userInfo: ["identityAttributes": "id"]),
        ])
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        _ = try context.importObjects(from: [["id": 1, "powers": [4, 9]]], entity: "Character")
        let subset = try context.importObjects(from: [["id": 1, "powers": [9]]], entity: "Character")
        #expect(subset.counts(for: "Character") == .init(unchanged: 1))
        let more = try context.importObjects(from: [["id": 1, "powers": [5]]], entity: "Character")
        #expect(more.counts(for: "Character") == .init(updated: 1))
        let character = try #require(try context.fetch("Character", id: .integer(1)))
        #expect(
            try character.destinations(forKey: "powers").compactMap { $0["id"] }.sorted { $0.description < $1.description }
                == [.integer(4), .integer(5), .integer(9)])
    }

    // MARK: - Objects of the imported entity nested in the payload

    static func peopleModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Person",
                attributes: [GraphFixture.attribute("id", .integer64, key: "id"), GraphFixture.attribute("name", .string, key: "name")],
                relationships: [
                    GraphFixture.relationship("friends", "Person", toMany: true, key: "friends"),
                    GraphFixture.relationship("mentor", "Person", key: "mentor"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
    }

    @Test(arguments: StoreKind.allCases)
    func aBareIdentifierLinksToTheStoredObjectInsteadOfAPlaceholder(kind: StoreKind) throws {
        try use(kind)
        let store = try stores.make(kind, model: try Self.peopleModel())
        let context = ObjectContext(store: store)
        _ = try context.importObjects(from: [["id": 1, "name": "Ada"], ["id": 2, "name": "Bob"]], entity: "Person")
        let report = try context.importObjects(from: [["id": 1, "name": "Ada", "friends": [2], "mentor": 2]], entity: "Person")
        #expect(report.counts(for: "Person") == .init(updated: 1))
        #expect(report.diagnostics.isEmpty)
        let people = try GraphFixture.rows(store, "Person")
        #expect(people.count == 2)
        #expect(people.map(\.isPlaceholder) == [false, false])
        let ada = try #require(people.first { $0.attributes[0] == .integer(1) })
        let bob = try #require(people.first { $0.attributes[0] == .integer(2) })
        #expect(ada.relationships == [[bob.id], [bob.id]])
        #expect(bob.attributes[1] == .string("Bob"))
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectNestedInItselfTakesTheNestedValuesAsWhenRegisteredFirst(kind: StoreKind) throws {
        try use(kind)
        let store = try stores.make(kind, model: try Self.peopleModel())
        let context = ObjectContext(store: store)
        _ = try context.importObjects(from: [["id": 1, "name": "Ada"]], entity: "Person")
        // The outer object's values are set before its nested objects are applied, so the
        // nested occurrence of the same person wins; its mentor link is the outer one's.
        let payload: JSONValue = [["id": 1, "name": "Ada", "mentor": ["id": 1, "name": "Ada Lovelace"]]]
        let report = try context.importObjects(from: payload, entity: "Person")
        #expect(report.counts(for: "Person") == .init(updated: 1))
        let people = try GraphFixture.rows(store, "Person")
        #expect(people.count == 1)
        #expect(people[0].attributes[1] == .string("Ada Lovelace"))
        #expect(people[0].relationships == [[], [people[0].id]])
        // Again: everything as stored.
        let again = try context.importObjects(from: payload, entity: "Person")
        #expect(again.counts(for: "Person") == .init(unchanged: 1))
    }
}
