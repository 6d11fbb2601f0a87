import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// The object graph over every store (``StoreKind/allCases``).
@Suite struct GraphTests {
    let stores = TestStores()

    static func id(_ entity: String, _ key: Int64) -> ObjectID { ObjectID(entityName: entity, primaryKey: key) }

    func make(
        _ kind: StoreKind, publisherRule: RelationshipDescription.DeleteRule = .nullify,
        charactersRule: RelationshipDescription.DeleteRule = .nullify
    ) throws -> (any PersistentStore, ObjectContext) {
        let store = try stores.make(kind, model: try GraphFixture.grootModel(publisherRule: publisherRule, charactersRule: charactersRule))
        return (store, ObjectContext(store: store))
    }

    @Test(arguments: StoreKind.allCases)
    func insertSaveAndTheIdentityMap(kind: StoreKind) throws {
        let (store, context) = try make(kind)
        let batman = try context.insert("Character")
        try batman.setValue(.integer(1699), forKey: "id")
        try batman.setValue(.string("Batman"), forKey: "name")
        #expect(batman.objectID.isTemporary)
        #expect(batman.isInserted && context.hasChanges)
        #expect(try context.fetch("Character", id: .integer(1699)) === batman)
        try context.save()
        #expect(batman.objectID == Self.id("Character", 1))
        #expect(batman.isInserted == false && context.hasChanges == false)
        #expect(try context.object(with: Self.id("Character", 1)) === batman)
        #expect(try context.fetch("Character", id: .integer(1699)) === batman)
        #expect(try GraphFixture.rows(store, "Character").map { GraphFixture.describe($0, store.model) } == [#"id=1699 name="Batman" realName=nil"#])
        // A second context sees the saved object as a different instance.
        let other = ObjectContext(store: store)
        let copy = try #require(try other.fetch("Character", id: .integer(1699)))
        #expect(copy !== batman && copy.objectID == batman.objectID && copy["name"] == .string("Batman"))
        #expect(batman.description == "Character/1 {id: 1699}")
    }

    @Test(arguments: StoreKind.allCases)
    func accessorsRejectUnknownNamesAndWrongTypes(kind: StoreKind) throws {
        let (_, context) = try make(kind)
        let batman = try context.insert("Character")
        #expect(batman["nope"] == nil)
        #expect(throws: ContextError.self) { try batman.value(forKey: "nope") }
        do {
            try batman.setValue(.string("x"), forKey: "id")
            Issue.record("expected an error")
        } catch let error as ContextError {
            #expect(error.code == .typeMismatch)
            #expect(error.description == #"Character.id: "x" is not a value of type integer64"#)
        }
        #expect(throws: ContextError.self) { try batman.destinations(forKey: "publisher") }
        #expect(throws: ContextError.self) { try batman.destination(forKey: "powers") }
        do {
            _ = try context.insert("Nope")
            Issue.record("expected an error")
        } catch let error as ModelError {
            #expect(error.code == .unknownEntity)
        }
        let power = try context.insert("Power")
        #expect(throws: ContextError.self) { try batman.setDestination(power, forKey: "publisher") }
    }

    @Test(arguments: StoreKind.allCases)
    func identityConflictsAreRefused(kind: StoreKind) throws {
        let (_, context) = try make(kind)
        let a = try context.insert("Character")
        try a.setValue(.integer(1), forKey: "id")
        let b = try context.insert("Character")
        do {
            try b.setValue(.integer(1), forKey: "id")
            Issue.record("expected an error")
        } catch let error as ContextError {
            #expect(error.code == .invalidIdentity)
        }
        #expect(b["id"] == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func inversesAreMaintainedOnBothSides(kind: StoreKind) throws {
        let (store, context) = try make(kind)
        let batman = try context.insert("Character")
        try batman.setValue(.integer(1), forKey: "id")
        let dc = try context.insert("Publisher")
        try dc.setValue(.integer(10), forKey: "id")
        let marvel = try context.insert("Publisher")
        try marvel.setValue(.integer(20), forKey: "id")
        let agility = try context.insert("Power")
        try agility.setValue(.integer(4), forKey: "id")

        try batman.setDestination(dc, forKey: "publisher")
        try batman.setDestinations([agility], forKey: "powers")
        #expect(try dc.destinations(forKey: "characters").map(\.objectID) == [batman.objectID])
        #expect(try agility.destinations(forKey: "characters").map(\.objectID) == [batman.objectID])
        try batman.setDestination(marvel, forKey: "publisher")
        #expect(try dc.destinations(forKey: "characters").isEmpty)
        #expect(try marvel.destinations(forKey: "characters").map(\.objectID) == [batman.objectID])
        // Setting the to-many side moves the to-one.
        try dc.setDestinations([batman], forKey: "characters")
        #expect(try batman.destination(forKey: "publisher") === dc)
        #expect(try marvel.destinations(forKey: "characters").isEmpty)
        try context.save()
        let characters = try GraphFixture.rows(store, "Character")
        #expect(characters[0].relationships == [[Self.id("Power", 1)], [Self.id("Publisher", 1)]])
        #expect(try GraphFixture.rows(store, "Publisher").map(\.relationships) == [[[Self.id("Character", 1)]], [[]]])
        #expect(try GraphFixture.rows(store, "Power").map(\.relationships) == [[[Self.id("Character", 1)]]])
    }

    @Test(arguments: StoreKind.allCases)
    func fetchWithAPredicateSeesUnsavedChanges(kind: StoreKind) throws {
        let (_, context) = try make(kind)
        _ = try context.importObjects(from: [["id": 1, "name": "A"], ["id": 2, "name": "B"], ["id": 3, "name": "A"]], entity: "Character")
        let named: StorePredicate = .equals(attribute: "name", value: .string("A"))
        #expect(try context.fetch("Character", matching: named).map { $0["id"] } == [.integer(1), .integer(3)])
        let two = try #require(try context.fetch("Character", id: .integer(2)))
        try two.setValue(.string("A"), forKey: "name")
        let one = try #require(try context.fetch("Character", id: .integer(1)))
        try one.setValue(.string("Z"), forKey: "name")
        let four = try context.insert("Character")
        try four.setValue(.integer(4), forKey: "id")
        try four.setValue(.string("A"), forKey: "name")
        #expect(try context.fetch("Character", matching: named).map { $0["id"] } == [.integer(4), .integer(2), .integer(3)])
        #expect(try context.fetch("Character", matching: .oneOf(attribute: "id", values: [.integer(1), .integer(4)])).count == 2)
        #expect(throws: ContextError.self) { try context.fetch("Character", matching: .equals(attribute: "nope", value: nil)) }
    }

    @Test(arguments: StoreKind.allCases)
    func rollbackReturnsToTheLastSavedState(kind: StoreKind) throws {
        let (store, context) = try make(kind)
        _ = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        let dc = try #require(try batman.destination(forKey: "publisher"))
        try batman.setValue(.string("Changed"), forKey: "name")
        try batman.setDestination(nil, forKey: "publisher")
        let robin = try context.insert("Character")
        try robin.setValue(.integer(2), forKey: "id")
        let agility = try #require(try context.fetch("Power", id: .integer(4)))
        try context.delete(agility)
        #expect(context.changedObjects.map(\.entity.name) == ["Character", "Character", "Power"])
        context.rollback()
        #expect(context.hasChanges == false)
        #expect(batman["name"] == .string("Batman"))
        #expect(try batman.destination(forKey: "publisher") === dc)
        #expect(try dc.destinations(forKey: "characters").map(\.objectID) == [batman.objectID])
        #expect(agility.isDeleted == false)
        #expect(try context.fetch("Power", id: .integer(4)) === agility)
        #expect(try context.fetch("Character", id: .integer(2)) == nil)
        #expect(robin.context == nil)
        try context.save()
        #expect(try store.countObjects() == 4)
    }

    @Test(arguments: StoreKind.allCases)
    func savingUnchangedValuesWritesNothing(kind: StoreKind) throws {
        let counting = CountingStore(try stores.make(kind, model: try GraphFixture.grootModel()))
        let context = ObjectContext(store: counting)
        _ = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        counting.changeSets = []
        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        try batman.setValue(.string("Other"), forKey: "name")
        try batman.setValue(.string("Batman"), forKey: "name")
        try context.save()
        #expect(counting.changeSets.isEmpty)
        try batman.setValue(.string("Dark Knight"), forKey: "name")
        try context.save()
        #expect(
            counting.changeSets.map(\.updated) == [[ObjectChange(id: batman.objectID, attributes: [AttributeChange(index: 1, value: .string("Dark Knight"))])]])
    }

    @Test(arguments: StoreKind.allCases)
    func aMissingRequiredValueStopsTheSave(kind: StoreKind) throws {
        let (store, context) = try make(kind)
        _ = try context.insert("Character")
        do {
            try context.save()
            Issue.record("expected an error")
        } catch let error as ContextError {
            #expect(error.code == .missingRequiredValue)
            #expect(error.description == "Character.id: Character/t1 has no value for required attribute id")
        }
        #expect(try store.countObjects() == 0)
        #expect(context.hasChanges)
    }

    struct DeleteCase: Sendable, CustomTestStringConvertible {
        let rule: RelationshipDescription.DeleteRule
        let remaining: [String: Int]
        let characterPublisher: [ObjectID]?
        var testDescription: String { rule.rawValue }
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            DeleteCase(rule: .nullify, remaining: ["Character": 2, "Publisher": 0], characterPublisher: []),
            DeleteCase(rule: .cascade, remaining: ["Character": 0, "Publisher": 0], characterPublisher: nil),
            DeleteCase(rule: .noAction, remaining: ["Character": 2, "Publisher": 0], characterPublisher: nil),
        ])
    func deleteRulesOfAPublishersCharacters(kind: StoreKind, _ c: DeleteCase) throws {
        let (store, context) = try make(kind, charactersRule: c.rule)
        _ = try context.importObjects(from: [["id": 1, "publisher": ["id": 10]], ["id": 2, "publisher": 10]], entity: "Character")
        let dc = try #require(try context.fetch("Publisher", id: .integer(10)))
        try context.delete(dc)
        #expect(dc.isDeleted)
        #expect(try context.fetch("Publisher", id: .integer(10)) == nil)
        if let expected = c.characterPublisher {
            #expect(try context.fetch("Character", id: .integer(1))?.destinationIDs(forKey: "publisher") == expected)
        }
        try context.save()
        #expect(try GraphFixture.rows(store, "Character").count == c.remaining["Character"])
        #expect(try GraphFixture.rows(store, "Publisher").count == c.remaining["Publisher"])
        // The store never keeps a link to a deleted object.
        #expect(try GraphFixture.rows(store, "Character").allSatisfy { $0.relationships[1].isEmpty })
    }

    @Test(arguments: StoreKind.allCases)
    func denyRefusesWhileDestinationsAreLinked(kind: StoreKind) throws {
        let (store, context) = try make(kind, charactersRule: .deny)
        _ = try context.importObjects(from: [["id": 1, "publisher": ["id": 10]]], entity: "Character")
        let dc = try #require(try context.fetch("Publisher", id: .integer(10)))
        do {
            try context.delete(dc)
            Issue.record("expected an error")
        } catch let error as ContextError {
            #expect(error.code == .deleteDenied)
            #expect(error.description == "Publisher.characters: cannot delete Publisher/1: characters still links Character/1")
        }
        #expect(dc.isDeleted == false && context.hasChanges == false)
        let batman = try #require(try context.fetch("Character", id: .integer(1)))
        try batman.setDestination(nil, forKey: "publisher")
        try context.delete(dc)
        try context.save()
        #expect(try GraphFixture.rows(store, "Publisher").isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func cascadeFollowsChains(kind: StoreKind) throws {
        let (store, context) = try make(kind, publisherRule: .cascade, charactersRule: .cascade)
        _ = try context.importObjects(from: [["id": 1, "publisher": ["id": 10]], ["id": 2, "publisher": 10], ["id": 3]], entity: "Character")
        try context.delete(try #require(try context.fetch("Character", id: .integer(1))))
        try context.save()
        #expect(try GraphFixture.rows(store, "Character").map { $0.attributes[0] } == [.integer(3)])
        #expect(try GraphFixture.rows(store, "Publisher").isEmpty)
    }
}
