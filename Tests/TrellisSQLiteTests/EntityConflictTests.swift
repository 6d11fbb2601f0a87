import Foundation
import Testing
import Trellis

@testable import TrellisSQLite

/// Identities declared on a parent entity are unique across its sub-entities, and an object
/// cannot change its entity: an insert meeting a stored object of another entity with the
/// same identity must fail and leave that object as it was, whoever built the change set.
@Suite struct EntityConflictTests {
    /// Animal (identity `id`, `name`) with sub-entities Dog (`barks`) and Cat (`lives`), in one table.
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Animal",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64), AttributeDescription(name: "name", type: .string),
                ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(name: "Dog", parentName: "Animal", attributes: [AttributeDescription(name: "barks", type: .boolean)]),
            EntityDescription(name: "Cat", parentName: "Animal", attributes: [AttributeDescription(name: "lives", type: .integer64)]),
        ])
    }

    func storeWithRex(_ directory: TemporaryDirectory) throws -> SQLiteStore {
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Dog", 1), isPlaceholder: false, attributes: [.integer(1), .string("Rex"), .bool(true)], relationships: [])
                ]))
        }
        return store
    }

    static let rows = #"SELECT "_entity", "id", "name", "barks", "lives", "_placeholder" FROM "Animal" ORDER BY "_pk""#
    static let rex: [[String?]] = [["Dog", "1", "Rex", "1", nil, "0"]]

    @Test func aNewObjectOfAnotherEntityWithAStoredIdentityFailsAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try storeWithRex(directory)
        let error = #expect(throws: StoreError.self) {
            try store.write {
                try $0.apply(
                    ChangeSet(inserted: [
                        ObjectSnapshot(id: tid("Cat", 1), isPlaceholder: false, attributes: [.integer(1), .string("Tom"), .integer(9)], relationships: [])
                    ]))
            }
        }
        #expect(error?.code == .constraintViolation)
        #expect(error?.message == "cannot insert Cat (1): the store holds Dog/1 with the same identity, and an object cannot change its entity")
        #expect(try store.rows(Self.rows) == Self.rex)
    }

    @Test func aPlaceholderOfAnotherEntityWithAStoredIdentityFails() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try storeWithRex(directory)
        let error = #expect(throws: StoreError.self) {
            try store.write {
                try $0.apply(
                    ChangeSet(inserted: [
                        ObjectSnapshot(id: tid("Cat", 1), isPlaceholder: true, attributes: [.integer(1), nil, nil], relationships: [])
                    ]))
            }
        }
        #expect(error?.code == .constraintViolation)
        #expect(try store.rows(Self.rows) == Self.rex)
    }

    @Test func theSameEntityStillUpdatesTheStoredObject() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try storeWithRex(directory)
        let ids = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Dog", 7), isPlaceholder: false, attributes: [.integer(1), .string("Rex II"), .bool(false)], relationships: [])
                ]))
        }
        #expect(ids == [tid("Dog", 7): ObjectID(entityName: "Dog", primaryKey: 1)])
        #expect(try store.rows(Self.rows) == [["Dog", "1", "Rex II", "0", nil, "0"]])
    }

    @Test func aContextSavingACatWithADogsIdentityFailsAndKeepsTheDog() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try storeWithRex(directory)
        let context = ObjectContext(store: store)
        let cat = try context.insert("Cat")
        try cat.setValue(.integer(1), forKey: "id")
        try cat.setValue(.string("Tom"), forKey: "name")
        let error = #expect(throws: StoreError.self) { try context.save() }
        #expect(error?.code == .constraintViolation)
        #expect(try store.rows(Self.rows) == Self.rex)
    }
}
