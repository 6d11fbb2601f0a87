import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Issue 23, point 1: local changes append outbox rows in the transaction that makes them,
/// merged by the rules of `OutboxEntry`, on every store.
@Suite struct OutboxRecordingTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Character",
                attributes: [
                    AttributeDescription(name: "id", type: .string, userInfo: ["JSONKeyPath": "id"]),
                    AttributeDescription(name: "name", type: .string, userInfo: ["JSONKeyPath": "name"]),
                    AttributeDescription(name: "rating", type: .integer64, userInfo: ["JSONKeyPath": "rating"]),
                    AttributeDescription(name: "updatedAt", type: .string, userInfo: ["JSONKeyPath": "updatedAt"]),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "publisher", destinationEntity: "Publisher",
                        inverseName: "characters",
                        userInfo: ["JSONKeyPath": "publisher"])
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Publisher",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64, userInfo: ["JSONKeyPath": "id"]),
                    AttributeDescription(name: "name", type: .string, userInfo: ["JSONKeyPath": "name"]),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "characters", destinationEntity: "Character",
                        inverseName: "publisher", isToMany: true)
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Note",
                attributes: [AttributeDescription(name: "text", type: .string, userInfo: ["JSONKeyPath": "text"])]),
        ])
    }

    struct Failure: Error {}

    /// A store holding Character "1" (Batman, rating 5, stamp `s1`), imported (origin import: no row).
    func storeWithBatman(_ kind: StoreKind) throws -> TestStore {
        let store = try kind.makeStore(model: try Self.model())
        let json = try JSONReader.parse(#"[{"id": "1", "name": "Batman", "rating": 5, "updatedAt": "s1"}]"#)
        _ = try ObjectContext(store: store.store).importObjects(from: json, entity: "Character")
        #expect(try store.store.outbox() == [])
        return store
    }

    func batman(_ context: ObjectContext) throws -> ManagedObject {
        try #require(try context.fetch("Character", id: .string("1")))
    }

    /// Sets a row's state (and attempts) as the sender will, through the stores' package API.
    func setState(_ store: TestStore, sequence: Int64, _ state: OutboxEntry.State, attempts: Int = 1) throws {
        try store.store.write { session in
            let storage = try #require(session as? any OutboxStorage)
            var row = try #require(try session.outboxEntries().first { $0.sequence == sequence })
            row.state = state
            row.attempts = attempts
            try storage.updateOutboxRows([row])
        }
    }

    /// The rows without their keys and dates, as comparable text:
    /// `1 update Character/1 ["1"] [name,rating] base=s1 pending 0`.
    func summary(_ store: TestStore) throws -> [String] {
        try store.store.outbox().map { row in
            "\(row.sequence) \(row.operation.rawValue) \(row.object) \(row.serverIdentityText ?? "nil") "
                + "[\(row.fields.joined(separator: ","))] base=\(row.base ?? "nil") \(row.state.rawValue) \(row.attempts)"
                + (row.lastError.map { " error=\($0)" } ?? "")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSavedInsertIsAPendingCreateWithAKeyAndNoServerIdentity(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let before = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        let context = ObjectContext(store: store.store)
        let robin = try context.insert("Character")
        try robin.setValue(.string("2"), forKey: "id")
        try robin.setValue(.string("Robin"), forKey: "name")
        try context.save()
        #expect(try summary(store) == ["1 create Character/1 nil [id,name] base=nil pending 0"])
        let row = try #require(try store.store.outbox().first)
        #expect(row.object == robin.objectID)
        #expect(row.lastError == nil)
        #expect(row.enqueuedAt >= before && row.enqueuedAt <= Date().addingTimeInterval(1))
        // Each row has a key of its own.
        let other = try context.insert("Character")
        try other.setValue(.string("3"), forKey: "id")
        try context.save()
        let keys = try store.store.outbox().map(\.key)
        #expect(keys.count == 2 && Set(keys).count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func updateThenUpdateUnionsTheFieldsAndKeepsTheFirstBase(kind: StoreKind) throws {
        let store = try storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        try batman(context).setValue(.string("Bruce"), forKey: "name")
        try context.save()
        #expect(try summary(store) == [#"1 update Character/1 ["1"] [name] base=s1 pending 0"#])
        try batman(context).setValue(.integer(6), forKey: "rating")
        try batman(context).setValue(.string("s2"), forKey: "updatedAt")
        try context.save()
        #expect(try summary(store) == [#"1 update Character/1 ["1"] [name,rating,updatedAt] base=s1 pending 0"#])
    }

    @Test(arguments: StoreKind.allCases)
    func createThenUpdateStaysACreate(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let context = ObjectContext(store: store.store)
        let robin = try context.insert("Character")
        try robin.setValue(.string("2"), forKey: "id")
        try context.save()
        let key = try #require(try store.store.outbox().first?.key)
        try robin.setValue(.integer(3), forKey: "rating")
        try context.save()
        #expect(try summary(store) == ["1 create Character/1 nil [id,rating] base=nil pending 0"])
        #expect(try store.store.outbox().first?.key == key)
    }

    @Test(arguments: StoreKind.allCases)
    func createThenDeleteBeforeAnythingWasSentLeavesNothing(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let context = ObjectContext(store: store.store)
        let robin = try context.insert("Character")
        try robin.setValue(.string("2"), forKey: "id")
        try context.save()
        try context.delete(robin)
        try context.save()
        #expect(try store.store.outbox() == [])
        #expect(try store.objectCount() == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func createThenDeleteAfterAnAttemptBecomesADeleteWithTheCreatesKey(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let context = ObjectContext(store: store.store)
        let robin = try context.insert("Character")
        try robin.setValue(.string("2"), forKey: "id")
        try context.save()
        let key = try #require(try store.store.outbox().first?.key)
        try setState(store, sequence: 1, .pending, attempts: 1)  // sent once, back to pending (a 503)
        try context.delete(robin)
        try context.save()
        #expect(try summary(store) == ["1 delete Character/1 nil [] base=nil pending 1"])
        #expect(try store.store.outbox().first?.key == key)
    }

    @Test(arguments: StoreKind.allCases)
    func updateThenDeleteIsADeleteKeepingIdentityAndBase(kind: StoreKind) throws {
        let store = try storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        try batman(context).setValue(.string("Bruce"), forKey: "name")
        try context.save()
        try context.delete(try batman(context))
        try context.save()
        #expect(try summary(store) == [#"1 delete Character/1 ["1"] [] base=s1 pending 0"#])
    }

    @Test(arguments: StoreKind.allCases)
    func aDeleteOfAStoredObjectRecordsItsIdentity(kind: StoreKind) throws {
        let store = try storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        try context.delete(try batman(context))
        try context.save()
        #expect(try summary(store) == [#"1 delete Character/1 ["1"] [] base=s1 pending 0"#])
    }

    @Test(arguments: StoreKind.allCases)
    func deleteThenRecreateOfOneIdentityIsAnUpdateOfEveryField(kind: StoreKind) throws {
        let store = try storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        try context.delete(try batman(context))
        try context.save()
        let again = try context.insert("Character")
        try again.setValue(.string("1"), forKey: "id")
        try again.setValue(.string("Batman Beyond"), forKey: "name")
        try context.save()
        #expect(try summary(store) == [#"1 update \#(again.objectID) ["1"] [id,name,rating,updatedAt,publisher] base=s1 pending 0"#])
    }

    @Test(arguments: [OutboxEntry.State.sending, .uncertain])
    func aRowBeingSentIsNeverMergedInto(state: OutboxEntry.State) throws {
        for kind in StoreKind.allCases {
            let store = try storeWithBatman(kind)
            let context = ObjectContext(store: store.store)
            try batman(context).setValue(.string("Bruce"), forKey: "name")
            try context.save()
            try setState(store, sequence: 1, state)
            try batman(context).setValue(.integer(7), forKey: "rating")
            try context.save()
            try batman(context).setValue(.string("Bruce Wayne"), forKey: "name")
            try context.save()
            // The later edits share one pending row of their own, after the row in flight.
            #expect(
                try summary(store) == [
                    #"1 update Character/1 ["1"] [name] base=s1 \#(state.rawValue) 1"#,
                    #"2 update Character/1 ["1"] [name,rating] base=s1 pending 0"#,
                ], "\(kind)")
            try context.delete(try batman(context))
            try context.save()
            #expect(
                try summary(store) == [
                    #"1 update Character/1 ["1"] [name] base=s1 \#(state.rawValue) 1"#,
                    #"2 delete Character/1 ["1"] [] base=s1 pending 0"#,
                ], "\(kind)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anEditOfAnObjectWhoseCreateIsInFlightHasNoServerIdentity(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let context = ObjectContext(store: store.store)
        let robin = try context.insert("Character")
        try robin.setValue(.string("2"), forKey: "id")
        try context.save()
        try setState(store, sequence: 1, .sending)
        try robin.setValue(.integer(4), forKey: "rating")
        try context.save()
        try context.delete(robin)
        try context.save()
        #expect(
            try summary(store) == [
                "1 create Character/1 nil [id] base=nil sending 1",
                "2 delete Character/1 nil [] base=nil pending 0",
            ])
    }

    @Test(arguments: StoreKind.allCases)
    func rowsOfADeletedObjectDoNotSpeakForANewObjectWithItsKey(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let context = ObjectContext(store: store.store)
        let robin = try context.insert("Character")
        try robin.setValue(.string("2"), forKey: "id")
        try context.save()
        try setState(store, sequence: 1, .sending)
        try context.delete(robin)
        try context.save()
        let alfred = try context.insert("Character")  // SQLite gives it Robin's key again
        try alfred.setValue(.string("3"), forKey: "id")
        try context.save()
        // Alfred's create is acknowledged (its row removed, as the sender will); then he is edited.
        try store.store.write { session in
            try #require(session as? any OutboxStorage).deleteOutboxRows(sequences: [3])
        }
        try alfred.setValue(.integer(9), forKey: "rating")
        try context.save()
        #expect(
            try summary(store) == [
                "1 create Character/1 nil [id] base=nil sending 1",
                "2 delete Character/1 nil [] base=nil pending 0",
                #"4 update \#(alfred.objectID) ["3"] [rating] base=nil pending 0"#,
            ])
    }

    @Test(arguments: StoreKind.allCases)
    func importAndSyncOriginsWriteNoRow(kind: StoreKind) throws {
        let store = try storeWithBatman(kind)
        let json = try JSONReader.parse(#"[{"id": "1", "name": "Bruce"}, {"id": "2", "name": "Robin"}]"#)
        _ = try ObjectContext(store: store.store).importObjects(from: json, entity: "Character")
        var options = ImportOptions()
        options.origin = .sync
        let more = try JSONReader.parse(#"[{"id": "3", "name": "Alfred"}]"#)
        _ = try ObjectContext(store: store.store).importObjects(from: more, entity: "Character", options: options)
        let syncing = ObjectContext(store: store.store, origin: .sync)
        try batman(syncing).setValue(.integer(1), forKey: "rating")
        try syncing.save()
        let local = ObjectContext(store: store.store)
        try batman(local).setValue(.integer(2), forKey: "rating")
        try local.save(origin: .import) { _ in }
        try store.store.write { session in  // a raw session: origin import
            _ = try session.apply(ChangeSet(deleted: [ObjectID(entityName: "Character", primaryKey: 2)]))
        }
        #expect(try store.store.outbox() == [])
        #expect(try store.objectCount() == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aLocalImportRecordsCreatesAndUpdates(kind: StoreKind) throws {
        let store = try storeWithBatman(kind)
        var options = ImportOptions()
        options.origin = .local
        let json = try JSONReader.parse(#"[{"id": "1", "name": "Bruce", "rating": 5}, {"id": "2", "name": "Robin", "publisher": 10}]"#)
        _ = try ObjectContext(store: store.store).importObjects(from: json, entity: "Character", options: options)
        // Batman's rating was 5 already; the publisher is a placeholder (the server's object): no row.
        #expect(
            try summary(store) == [
                #"1 update Character/1 ["1"] [name] base=s1 pending 0"#,
                "2 create Character/2 nil [id,name,publisher] base=nil pending 0",
            ])
    }

    @Test(arguments: StoreKind.allCases)
    func unsavedLocalChangesKeepTheirOriginWhenAnImportWritesThem(kind: StoreKind) throws {
        let store = try storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        try batman(context).setValue(.string("Bruce"), forKey: "name")
        let json = try JSONReader.parse(#"[{"id": "2", "name": "Robin"}]"#)
        _ = try context.importObjects(from: json, entity: "Character")
        #expect(try summary(store) == [#"1 update Character/1 ["1"] [name] base=s1 pending 0"#])
        #expect(try store.objectCount() == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aSaveThatRollsBackLeavesNoRow(kind: StoreKind) throws {
        let store = try storeWithBatman(kind)
        let before = try store.dump()
        let context = ObjectContext(store: store.store)
        try batman(context).setValue(.string("Bruce"), forKey: "name")
        let robin = try context.insert("Character")
        try robin.setValue(.string("2"), forKey: "id")
        #expect(throws: Failure.self) { try context.save { _ in throw Failure() } }
        #expect(try store.store.outbox() == [])
        #expect(try store.dump() == before)
        // A local import whose second batch fails after the first batch recorded its row.
        var options = ImportOptions()
        options.origin = .local
        options.batchSize = 1
        let json = try JSONReader.parse(#"[{"id": "3", "name": "Alfred"}, {"id": "4", "rating": "many"}]"#)
        #expect(throws: ImportError.self) {
            try ObjectContext(store: store.store).importObjects(from: json, entity: "Character", options: options)
        }
        #expect(try store.store.outbox() == [])
        #expect(try store.dump() == before)
        // The first context saves its changes once it can.
        try context.save()
        #expect(try summary(store).count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func changesOfEntitiesThatAreNotPushableAreKeptAsRejectedRows(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let context = ObjectContext(store: store.store)
        let note = try context.insert("Note")
        try note.setValue(.string("buy milk"), forKey: "text")
        try context.save()
        try note.setValue(.string("buy oat milk"), forKey: "text")
        try context.save()
        let reason = "entity Note is not pushable: it has no identity attributes"
        #expect(try summary(store) == ["1 create Note/1 nil [text] base=nil rejected 0 error=\(reason)"])
        // Named pushable entities: the others are not pushable.
        let named = ObjectContext(store: store.store, pushRules: PushRules(pushableEntities: ["Publisher"]))
        let robin = try named.insert("Character")
        try robin.setValue(.string("2"), forKey: "id")
        let dc = try named.insert("Publisher")
        try dc.setValue(.integer(10), forKey: "id")
        try named.save()
        #expect(
            try summary(store) == [
                "1 create Note/1 nil [text] base=nil rejected 0 error=\(reason)",
                "2 create Character/1 nil [id] base=nil rejected 0 error=entity Character is not pushable: it is not one of the pushable entities",
                "3 create Publisher/1 nil [id] base=nil pending 0",
            ])
    }

    @Test(arguments: StoreKind.allCases)
    func relationshipChangesNameTheRelationshipOnBothSides(kind: StoreKind) throws {
        let store = try storeWithBatman(kind)
        let json = try JSONReader.parse(#"[{"id": 10, "name": "DC"}]"#)
        _ = try ObjectContext(store: store.store).importObjects(from: json, entity: "Publisher")
        let context = ObjectContext(store: store.store, pushRules: PushRules(stampAttributes: ["Character": "name"]))
        let dc = try #require(try context.fetch("Publisher", id: .integer(10)))
        try batman(context).setDestination(dc, forKey: "publisher")
        try context.save()
        let rows = try summary(store)
        #expect(rows.first == #"1 update Character/1 ["1"] [publisher] base=Batman pending 0"#)
        #expect(rows.dropFirst().allSatisfy { $0.hasSuffix("[characters] base=nil pending 0") && $0.contains("Publisher/1 [10]") })
        // Deleting the publisher (nullify) clears Batman's to-one: his row gains nothing new, the publisher's is a delete.
        try context.delete(dc)
        try context.save()
        #expect(try summary(store).first == #"1 update Character/1 ["1"] [publisher] base=Batman pending 0"#)
        #expect(try summary(store).last == #"2 delete Publisher/1 [10] [] base=nil pending 0"#)
        #expect(try summary(store).count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aNullifiedToOneIsAnUpdateOfTheObjectThatStays(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let json = try JSONReader.parse(#"[{"id": "1", "name": "Batman", "updatedAt": "s1", "publisher": {"id": 10}}]"#)
        _ = try ObjectContext(store: store.store).importObjects(from: json, entity: "Character")
        let context = ObjectContext(store: store.store)
        try context.delete(try #require(try context.fetch("Publisher", id: .integer(10))))
        try context.save()
        #expect(
            try summary(store) == [
                #"1 delete Publisher/1 [10] [] base=nil pending 0"#,
                #"2 update Character/1 ["1"] [publisher] base=s1 pending 0"#,
            ])
    }
}
