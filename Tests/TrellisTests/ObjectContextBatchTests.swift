import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// The context's batch doors, `objects(with:)` and `fetch(_:identities:)`, on every store:
/// registered objects as they are, the rest in one store fetch, in the caller's order;
/// missing, deleted and repeated ones handled alike everywhere.
@Suite struct ObjectContextBatchTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64, userInfo: ["JSONKeyPath": "id"]),
                    AttributeDescription(name: "name", type: .string, userInfo: ["JSONKeyPath": "name"]),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Pair",
                attributes: [
                    AttributeDescription(name: "left", type: .string, userInfo: ["JSONKeyPath": "left"]),
                    AttributeDescription(name: "right", type: .integer64, userInfo: ["JSONKeyPath": "right"]),
                ],
                userInfo: ["identityAttributes": "left, right"]),
        ])
    }

    /// A store with items 1…`count` (named `item N`) and pairs (a, 1), (a, 2), (b, 1).
    static func filled(_ kind: StoreKind, count: Int) throws -> TestStore {
        let store = try kind.makeStore(model: try model())
        let context = ObjectContext(store: store.store)
        _ = try context.importObjects(from: .array((1...count).map { ["id": JSONValue($0), "name": .string("item \($0)")] }), entity: "Item")
        _ = try context.importObjects(from: [["left": "a", "right": 1], ["left": "a", "right": 2], ["left": "b", "right": 1]], entity: "Pair")
        return store
    }

    static func ids(_ objects: [ManagedObject]) -> [Int64] { objects.compactMap { $0["id"]?.integerValue } }

    @Test(arguments: StoreKind.allCases)
    func objectsWithIDsComeInTheirOrderRegisteredOrNot(kind: StoreKind) throws {
        let store = try Self.filled(kind, count: 3000)
        let context = ObjectContext(store: store.store)
        let all = try context.fetch("Item")
        let byID = Dictionary(uniqueKeysWithValues: all.map { ($0["id"]!.integerValue!, $0.objectID) })
        let fresh = ObjectContext(store: store.store)
        let registered = try #require(try fresh.fetch("Item", id: .integer(7)))
        try registered.setValue(.string("changed"), forKey: "name")  // unsaved: the registered instance comes back
        let deleted = try #require(try fresh.fetch("Item", id: .integer(8)))
        try fresh.delete(deleted)
        let inserted = try fresh.insert("Item")
        let gone = ObjectID(entityName: "Item", primaryKey: 9_999_999)
        // Every stored item from the last down (beyond any parameter limit), with the
        // registered, deleted, inserted, missing and repeated ones mixed in.
        let asked = [byID[7]!, byID[8]!, inserted.objectID, gone, byID[3]!] + (1...3000).reversed().map { byID[Int64($0)]! } + [byID[3]!]
        let objects = try fresh.objects(with: asked)
        #expect(objects.count == 2999 + 1)  // 3,000 items but the deleted one, and the inserted one
        #expect(objects[0] === registered)
        #expect(objects[0]["name"] == .string("changed"))
        #expect(objects[1] === inserted)
        #expect(Self.ids(Array(objects[2...5])) == [3, 3000, 2999, 2998])
        #expect(Set(objects.map(\.objectID)).count == objects.count)
        #expect(!objects.contains { $0 === deleted })
        // The faulted-in objects are registered: asking again hands back the same instances.
        #expect(try fresh.objects(with: [byID[3000]!]).first === objects[3])
        #expect(try fresh.objects(with: []).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func fetchByManyIdentitiesIsOneBatch(kind: StoreKind) throws {
        let store = try Self.filled(kind, count: 3000)
        let context = ObjectContext(store: store.store)
        let seven = try #require(try context.fetch("Item", id: .integer(7)))
        let doomed = try #require(try context.fetch("Item", id: .integer(8)))
        try context.delete(doomed)
        let identities: [[AttributeValue]] =
            [[.integer(7)], [.integer(8)], [.integer(123_456)]] + (1...3000).reversed().map { [.integer(Int64($0))] }
            + [[.integer(7)]]
        let objects = try context.fetch("Item", identities: identities)
        #expect(objects.count == 2999)
        #expect(objects.first === seven)
        #expect(Self.ids(Array(objects.prefix(4))) == [7, 3000, 2999, 2998])
        #expect(!objects.contains { $0 === doomed })
        #expect(Set(Self.ids(objects)).count == 2999)
        // Composite identities.
        let pairs = try context.fetch("Pair", identities: [[.string("b"), .integer(1)], [.string("a"), .integer(2)], [.string("c"), .integer(1)]])
        #expect(pairs.map { "\($0["left"]?.stringValue ?? "")\($0["right"]?.integerValue ?? 0)" } == ["b1", "a2"])
    }

    @Test(arguments: StoreKind.allCases)
    func identitiesThatDoNotFitAreErrorsNamingTheAttribute(kind: StoreKind) throws {
        let store = try Self.filled(kind, count: 3)
        let context = ObjectContext(store: store.store)
        let arity = try #require(throws: ContextError.self) { try context.fetch("Pair", identities: [[.string("a")]]) }
        #expect(arity.code == .invalidIdentity)
        #expect(arity.message == "Pair has 2 identity attribute(s); got 1 value(s)")
        let type = try #require(throws: ContextError.self) { try context.fetch("Item", identities: [[.integer(1)], [.string("2")]]) }
        #expect(type.code == .invalidIdentity)
        #expect(type.property == "id")
        #expect(type.message == "\"2\" is not a value of type integer64")
        #expect(try context.fetch("Item", identities: []).isEmpty)
    }
}
