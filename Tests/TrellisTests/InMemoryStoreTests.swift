import Foundation
import Synchronization
import Testing

@testable import Trellis

@Suite struct InMemoryStoreTests {
    let model: ObjectModel
    let store: InMemoryStore

    init() throws {
        var entities = try GraphFixture.grootModel().entities
        entities.append(
            EntityDescription(
                name: "Villain", parentName: "Character",
                attributes: [GraphFixture.attribute("lair", .string, key: "lair")]))
        model = try ObjectModel(entities: entities)
        store = InMemoryStore(model: model)
    }

    static func temp(_ entity: String, _ key: Int64) -> ObjectID { ObjectID(entityName: entity, primaryKey: -key) }
    static func id(_ entity: String, _ key: Int64) -> ObjectID { ObjectID(entityName: entity, primaryKey: key) }

    func character(
        _ temp: Int64, id: Int64, name: String? = nil, entity: String = "Character",
        powers: [ObjectID] = [], publisher: [ObjectID] = []
    ) -> ObjectSnapshot {
        var attributes: [AttributeValue?] = [.integer(id), name.map(AttributeValue.string), nil]
        if entity == "Villain" { attributes.append(nil) }
        return ObjectSnapshot(
            id: Self.temp(entity, temp), isPlaceholder: false, attributes: attributes,
            relationships: [powers, publisher])
    }

    func power(_ temp: Int64, id: Int64) -> ObjectSnapshot {
        ObjectSnapshot(id: Self.temp("Power", temp), isPlaceholder: false, attributes: [.integer(id), nil], relationships: [[]])
    }

    @Test func appliesInsertsWithTemporaryIDsAndKeepsInversesSorted() throws {
        let mapping = try store.write { session in
            try session.apply(
                ChangeSet(inserted: [
                    power(1, id: 4), power(2, id: 9),
                    character(3, id: 1699, powers: [Self.temp("Power", 2), Self.temp("Power", 1)]),
                    character(4, id: 7, powers: [Self.temp("Power", 2)]),
                ]))
        }
        #expect(
            mapping == [
                Self.temp("Power", 1): Self.id("Power", 1), Self.temp("Power", 2): Self.id("Power", 2),
                Self.temp("Character", 3): Self.id("Character", 1), Self.temp("Character", 4): Self.id("Character", 2),
            ])
        let characters = try store.read { try $0.fetch(entity: "Character", matching: nil) }
        // Character.powers is ordered (kept as given); Power.characters is not (sorted by object ID).
        #expect(characters.map(\.relationships[0]) == [[Self.id("Power", 2), Self.id("Power", 1)], [Self.id("Power", 2)]])
        let powers = try store.read { try $0.fetch(ids: [Self.id("Power", 2), Self.id("Power", 1), Self.id("Power", 5)]) }
        #expect(powers.map(\.id.primaryKey) == [2, 1])
        #expect(powers[0].relationships == [[Self.id("Character", 1), Self.id("Character", 2)]])
        #expect(try store.read { try $0.count(entity: "Character", matching: nil) } == 2)
        #expect(
            try store.read { try $0.fetch(entity: "Character", identities: [[.integer(7)], [.integer(8)]]) }.map(\.id)
                == [Self.id("Character", 2)])
    }

    @Test func identityValuesAreUniquePerHierarchy() throws {
        _ = try store.write { try $0.apply(ChangeSet(inserted: [character(1, id: 1)])) }
        for snapshot in [character(2, id: 1), character(3, id: 1, entity: "Villain")] {
            do {
                _ = try store.write { try $0.apply(ChangeSet(inserted: [snapshot])) }
                Issue.record("expected an error")
            } catch let error as StoreError {
                #expect(error.code == .constraintViolation)
                #expect(error.description == "another Character already has identity 1 (existing Character/1)")
            }
        }
        // Another hierarchy may use the same value.
        _ = try store.write { try $0.apply(ChangeSet(inserted: [power(1, id: 1)])) }
        // A villain is found through its parent entity.
        _ = try store.write { try $0.apply(ChangeSet(inserted: [character(4, id: 2, entity: "Villain")])) }
        #expect(try store.read { try $0.fetch(entity: "Character", identities: [[.integer(2)]]) }.map(\.id) == [Self.id("Villain", 2)])
        #expect(try store.read { try $0.fetch(entity: "Villain", identities: [[.integer(1)]]) }.isEmpty)
        #expect(store.objectCount == 3)
    }

    @Test func aWriteThatThrowsKeepsNothing() throws {
        struct Stop: Error {}
        do {
            _ = try store.write { session -> Int in
                _ = try session.apply(ChangeSet(inserted: [character(1, id: 1)]))
                #expect(try session.count(entity: "Character", matching: nil) == 1)
                throw Stop()
            }
        } catch is Stop {}
        #expect(store.objectCount == 0)
    }

    @Test func aFailedApplyPoisonsTheSessionEvenIfTheErrorIsCaught() throws {
        _ = try store.write { try $0.apply(ChangeSet(inserted: [character(1, id: 1)])) }
        do {
            try store.write { session in
                _ = try session.apply(ChangeSet(inserted: [character(2, id: 2)]))
                _ = try? session.apply(ChangeSet(inserted: [character(3, id: 1)]))  // fails half-way; caught
            }
            Issue.record("expected an error")
        } catch let error as StoreError {
            #expect(error.code == .constraintViolation)
        }
        #expect(store.objectCount == 1)
    }

    @Test func readSessionsSeeASnapshotAndCannotWrite() throws {
        _ = try store.write { try $0.apply(ChangeSet(inserted: [character(1, id: 1, name: "Before")])) }
        try store.read { session in
            try store.write { write in
                _ = try write.apply(
                    ChangeSet(updated: [
                        ObjectChange(
                            id: Self.id("Character", 1),
                            attributes: [AttributeChange(index: 1, value: .string("After"))])
                    ]))
            }
            #expect(try session.fetch(ids: [Self.id("Character", 1)]).first?.attributes[1] == .string("Before"))
            #expect(throws: StoreError.self) { try session.apply(ChangeSet()) }
        }
        #expect(try store.read { try $0.fetch(ids: [Self.id("Character", 1)]) }.first?.attributes[1] == .string("After"))
    }

    @Test func linksMustPointAtExistingObjectsOfTheRightEntity() throws {
        for destination in [Self.id("Power", 9), Self.id("Publisher", 1)] {
            do {
                _ = try store.write { try $0.apply(ChangeSet(inserted: [character(1, id: 1, powers: [destination])])) }
                Issue.record("expected an error")
            } catch let error as StoreError {
                #expect(error.code == .constraintViolation)
            }
        }
        #expect(throws: StoreError.self) {
            _ = try store.write { try $0.apply(ChangeSet(updated: [ObjectChange(id: Self.id("Character", 5), isPlaceholder: false)])) }
        }
        #expect(store.objectCount == 0)
    }

    @Test func deletionRemovesTheObjectFromInverses() throws {
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    power(1, id: 4),
                    ObjectSnapshot(id: Self.temp("Publisher", 2), isPlaceholder: false, attributes: [.integer(10), nil], relationships: [[]]),
                    character(3, id: 1, powers: [Self.temp("Power", 1)], publisher: [Self.temp("Publisher", 2)]),
                ]))
        }
        #expect(try store.read { try $0.fetch(ids: [Self.id("Publisher", 1)]) }.first?.relationships == [[Self.id("Character", 1)]])
        _ = try store.write { try $0.apply(ChangeSet(deleted: [Self.id("Character", 1)])) }
        #expect(try store.read { try $0.fetch(ids: [Self.id("Publisher", 1), Self.id("Power", 1)]) }.map(\.relationships) == [[[]], [[]]])
        // The identity is free again.
        _ = try store.write { try $0.apply(ChangeSet(inserted: [character(4, id: 1)])) }
        #expect(store.objectCount == 3)
    }

    @Test func predicatesFilterAndOrderByObjectID() throws {
        _ = try store.write {
            try $0.apply(ChangeSet(inserted: [character(1, id: 1, name: "A"), character(2, id: 2, name: "B"), character(3, id: 3, name: "A")]))
        }
        let result = try store.read {
            try $0.fetch(
                entity: "Character",
                matching: .and([
                    .equals(attribute: "name", value: .string("A")),
                    .not(.oneOf(attribute: "id", values: [.integer(3)])),
                ]))
        }
        #expect(result.map(\.id) == [Self.id("Character", 1)])
        #expect(try store.read { try $0.count(entity: "Character", matching: .equals(attribute: "realName", value: nil)) } == 3)
        #expect(throws: StoreError.self) { try store.read { try $0.fetch(entity: "Character", matching: .equals(attribute: "x", value: nil)) } }
    }
}

extension InMemoryStoreTests {
    /// Writers from several threads are serialised; readers always see whole writes.
    @Test func concurrentWritersAndReadersSeeWholeTransactions() throws {
        let store = self.store
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<25 {
                let base = Int64(thread * 1000 + i * 2)
                do {
                    _ = try store.write { session in
                        try session.apply(
                            ChangeSet(inserted: [
                                ObjectSnapshot(
                                    id: ObjectID(entityName: "Power", primaryKey: -1), isPlaceholder: false,
                                    attributes: [.integer(base), nil], relationships: [[]]),
                                ObjectSnapshot(
                                    id: ObjectID(entityName: "Power", primaryKey: -2), isPlaceholder: false,
                                    attributes: [.integer(base + 1), nil], relationships: [[]]),
                            ]))
                    }
                    let count = try store.read { try $0.count(entity: "Power", matching: nil) }
                    if count % 2 != 0 { failures.withLock { $0 += 1 } }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(store.objectCount == 400)
        let keys = try store.read { try $0.fetch(entity: "Power", matching: nil) }.map(\.id.primaryKey)
        #expect(keys == Array(1...400))
    }
}
