import Foundation
import Testing
import Trellis

@testable import TrellisSQLite

/// Upsert conflicts are told from inserts by `sqlite3_last_insert_rowid`, which is the
/// connection's last insert into any table: it is cleared before each insert, so a row just
/// inserted into another table with the same key cannot pass for this one.
@Suite struct UpsertConflictDetectionTests {
    /// ``EntityConflictTests/model()`` (Animal, Dog, Cat in one table) and Toy (identity `id`) in another.
    static func model() throws -> ObjectModel {
        try ObjectModel(
            entities: try EntityConflictTests.model().entities + [
                EntityDescription(name: "Toy", attributes: [AttributeDescription(name: "id", type: .integer64)], userInfo: ["identityAttributes": "id"])
            ])
    }

    /// A store holding Dog 1 (key 1) and a Toy (key 1): the next keys are 2 in both tables.
    func storeWithRexAndAToy(_ directory: TemporaryDirectory) throws -> SQLiteStore {
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Dog", 1), isPlaceholder: false, attributes: [.integer(1), .string("Rex"), .bool(true)], relationships: []),
                    ObjectSnapshot(id: tid("Toy", 2), isPlaceholder: false, attributes: [.integer(100)], relationships: []),
                ]))
        }
        return store
    }

    /// A Toy inserted just before, with the key reserved for the Cat, hid the conflict: the
    /// Cat was dropped silently and mapped to a row that does not exist.
    @Test func aCatWithADogsIdentityFailsEvenAfterAnInsertIntoAnotherTableWithTheSameKey() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try storeWithRexAndAToy(directory)
        let error = #expect(throws: StoreError.self) {
            try store.write {
                try $0.apply(
                    ChangeSet(inserted: [
                        ObjectSnapshot(id: tid("Toy", 3), isPlaceholder: false, attributes: [.integer(101)], relationships: []),
                        ObjectSnapshot(id: tid("Cat", 4), isPlaceholder: false, attributes: [.integer(1), .string("Tom"), .integer(9)], relationships: []),
                    ]))
            }
        }
        #expect(error?.code == .constraintViolation)
        #expect(error?.message == "cannot insert Cat (1): the store holds Dog/1 with the same identity, and an object cannot change its entity")
        #expect(try store.rows(#"SELECT "_pk", "_entity", "id", "name" FROM "Animal" ORDER BY "_pk""#) == [["1", "Dog", "1", "Rex"]])
        #expect(try store.rows(#"SELECT "id" FROM "Toy" ORDER BY "_pk""#) == [["100"]])
    }

    /// The same coincidence with a Dog of the stored identity: the upsert updates row 1, but the
    /// returned permanent ID is the reserved key 2, which no row has.
    @Test func anUpsertAfterAnInsertIntoAnotherTableWithTheSameKeyMapsToTheStoredObject() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try storeWithRexAndAToy(directory)
        let mapping = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Toy", 3), isPlaceholder: false, attributes: [.integer(101)], relationships: []),
                    ObjectSnapshot(id: tid("Dog", 4), isPlaceholder: false, attributes: [.integer(1), .string("Rex II"), .bool(false)], relationships: []),
                ]))
        }
        #expect(mapping[tid("Dog", 4)] == ObjectID(entityName: "Dog", primaryKey: 1))
        #expect(try store.rows(#"SELECT "_pk", "_entity", "id", "name", "barks" FROM "Animal" ORDER BY "_pk""#) == [["1", "Dog", "1", "Rex II", "0"]])
    }

    /// New attributes with defaults of several types reach the stored objects and read back.
    @Test func newAttributesWithDefaultsOfEveryKindReadBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let first = try SQLiteStore(path: path, model: try Self.model())
        _ = try first.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Dog", 1), isPlaceholder: false, attributes: [.integer(1), .string("Rex"), .bool(true)], relationships: []),
                    ObjectSnapshot(id: tid("Cat", 2), isPlaceholder: false, attributes: [.integer(2), .string("Tom"), .integer(9)], relationships: []),
                ]))
        }
        var entities = try Self.model().entities
        let date = Date(timeIntervalSince1970: 1_409_444_155)
        entities[2].attributes += [
            AttributeDescription(name: "born", type: .date, isOptional: false, defaultValue: .date(date)),
            AttributeDescription(name: "weight", type: .decimal, defaultValue: .decimal(Decimal(string: "4.25")!)),
            AttributeDescription(name: "indoor", type: .boolean, defaultValue: .bool(false)),
            AttributeDescription(name: "name 2", type: .string, defaultValue: .string("x")),
        ]
        // Dog gets an attribute named like Cat's ("lives") — a qualified column.
        entities[1].attributes += [AttributeDescription(name: "lives", type: .integer64, defaultValue: .integer(1))]
        let store = try SQLiteStore(path: path, model: try ObjectModel(entities: entities))
        let animals = try store.read { try $0.fetch(entity: "Animal", matching: nil) }
        #expect(animals.first { $0.id.entityName == "Dog" }?.attributes == [.integer(1), .string("Rex"), .bool(true), .integer(1)])
        #expect(
            animals.first { $0.id.entityName == "Cat" }?.attributes == [
                .integer(2), .string("Tom"), .integer(9), .date(date), .decimal(Decimal(string: "4.25")!), .bool(false), .string("x"),
            ])
    }

    /// Through a context: saving a new Toy and a new Cat with the identity of a stored Dog, when
    /// the Toy's key equals the Cat's reserved key, fails and leaves the store as it was.
    @Test func aContextSavingAToyAndACatWithADogsIdentityFails() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try storeWithRexAndAToy(directory)
        let context = ObjectContext(store: store)
        let toy = try context.insert("Toy")
        try toy.setValue(.integer(101), forKey: "id")
        let cat = try context.insert("Cat")
        try cat.setValue(.integer(1), forKey: "id")
        try cat.setValue(.string("Tom"), forKey: "name")
        #expect(throws: StoreError.self) { try context.save() }
        #expect(cat.objectID.isTemporary)
        #expect(try store.rows(#"SELECT "_pk", "_entity", "id", "name" FROM "Animal" ORDER BY "_pk""#) == [["1", "Dog", "1", "Rex"]])
    }
}
