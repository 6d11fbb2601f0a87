import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Issue 23, point 7: the tombstone of an acknowledged delete keeps a pull (origin sync) from
/// bringing the object back, unless the server stamped it after the tombstone, on every store;
/// and a page's bare identifier of a deleted object makes no placeholder of it.
@Suite struct TombstoneTests {
    let recording = OutboxRecordingTests()
    let guarding = PullGuardTests()

    /// A store whose Batman (stamp `2024-01-01T00:00:01.000Z`) was deleted here and the delete
    /// acknowledged: the outbox row removed and a tombstone stamped `stamp` written, as the
    /// pusher's recording transaction does.
    func storeWithATombstone(_ kind: StoreKind, stamp: String = "2024-01-01T00:00:05.000Z") throws -> TestStore {
        let store = try kind.makeStore(model: try OutboxRecordingTests.model())
        let json = try JSONReader.parse(#"[{"id": "1", "name": "Batman", "rating": 5, "updatedAt": "2024-01-01T00:00:01.000Z"}]"#)
        _ = try ObjectContext(store: store.store).importObjects(from: json, entity: "Character")
        let context = ObjectContext(store: store.store)
        try context.delete(try recording.batman(context))
        try context.save()
        #expect(try store.store.tombstones() == [])
        try store.store.write { session in
            let storage = try #require(session as? any OutboxStorage)
            try storage.deleteOutboxRows(sequences: try session.outboxEntries().map(\.sequence))
            try storage.writeTombstones([
                Tombstone(
                    entityName: "Character", serverIdentity: ["1"], stamp: stamp, acknowledgedAt: Date(timeIntervalSince1970: 1_704_067_205))
            ])
        }
        #expect(try store.store.outbox() == [])
        return store
    }

    func summary(_ store: TestStore) throws -> [String] {
        try store.store.tombstones().map { "\($0.entityName) \($0.serverIdentityText) \($0.stamp) \($0.acknowledgedAtMilliseconds)" }
    }

    @Test(arguments: StoreKind.allCases)
    func aTombstoneIsReadBackAsWritten(kind: StoreKind) throws {
        let store = try storeWithATombstone(kind)
        #expect(try summary(store) == [#"Character ["1"] 2024-01-01T00:00:05.000Z 1704067205000"#])
        // Written again: replaced, not doubled.
        try store.store.write { session in
            try #require(session as? any OutboxStorage).writeTombstones([
                Tombstone(
                    entityName: "Character", serverIdentity: ["1"], stamp: "2024-01-01T00:00:06.000Z",
                    acknowledgedAt: Date(timeIntervalSince1970: 1_704_067_206))
            ])
        }
        #expect(try summary(store) == [#"Character ["1"] 2024-01-01T00:00:06.000Z 1704067206000"#])
    }

    @Test(arguments: StoreKind.allCases)
    func aPullOfACopyStampedAtOrBeforeTheTombstoneDoesNotBringItBack(kind: StoreKind) throws {
        let store = try storeWithATombstone(kind)
        try guarding.pull(
            store,
            #"[{"id": "1", "name": "Batman", "rating": 5, "updatedAt": "2024-01-01T00:00:03.000Z"}, {"id": "3", "name": "Alfred"}]"#)
        try guarding.pull(store, #"[{"id": "1", "name": "Batman", "updatedAt": "2024-01-01T00:00:05.000Z"}]"#)
        // Without a stamp to compare, the tombstone holds.
        try guarding.pull(store, #"[{"id": "1", "name": "Batman"}]"#)
        #expect(try guarding.stored(store) == ["3 Alfred nil nil"])
        #expect(try store.store.outbox() == [])
        #expect(try summary(store) == [#"Character ["1"] 2024-01-01T00:00:05.000Z 1704067205000"#])
    }

    @Test(arguments: StoreKind.allCases)
    func aCopyStampedAfterTheTombstoneIsTheObjectMadeAgainAndComesBack(kind: StoreKind) throws {
        let store = try storeWithATombstone(kind)
        try guarding.pull(store, #"[{"id": "1", "name": "Batman again", "rating": 8, "updatedAt": "2024-01-01T00:00:05.001Z"}]"#)
        #expect(try guarding.stored(store) == ["1 Batman again 8 2024-01-01T00:00:05.001Z"])
        #expect(try summary(store) == [])
        #expect(try store.store.outbox() == [])
    }

    @Test(arguments: StoreKind.allCases)
    func anImportOfAnotherOriginIsNotGuarded(kind: StoreKind) throws {
        let store = try storeWithATombstone(kind)
        let json = try JSONReader.parse(#"[{"id": "1", "name": "Batman", "updatedAt": "2024-01-01T00:00:03.000Z"}]"#)
        _ = try ObjectContext(store: store.store).importObjects(from: json, entity: "Character")
        #expect(try guarding.stored(store) == ["1 Batman nil 2024-01-01T00:00:03.000Z"])
        #expect(try summary(store).count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aTombstoneWrittenInAWriteThatFailsIsGone(kind: StoreKind) throws {
        let store = try storeWithATombstone(kind)
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.store.write { session in
                try #require(session as? any OutboxStorage).writeTombstones([
                    Tombstone(entityName: "Character", serverIdentity: ["2"], stamp: "2024-01-01T00:00:09.000Z", acknowledgedAt: Date())
                ])
                throw Abort()
            }
        }
        #expect(try summary(store) == [#"Character ["1"] 2024-01-01T00:00:05.000Z 1704067205000"#])
    }

    @Test(arguments: StoreKind.allCases)
    func aBareIdentifierOfAPendingOrAcknowledgedDeleteMakesNoPlaceholder(kind: StoreKind) throws {
        let store = try storeWithATombstone(kind)
        let publishers = try JSONReader.parse(#"[{"id": 7, "name": "DC"}, {"id": 8, "name": "Marvel"}]"#)
        _ = try ObjectContext(store: store.store).importObjects(from: publishers, entity: "Publisher")
        let context = ObjectContext(store: store.store)
        try context.delete(try #require(try context.fetch("Publisher", id: .integer(7))))
        try context.save()
        let row = try #require(try store.store.outbox().first)
        #expect("\(row.operation) \(row.serverIdentityText ?? "nil") \(row.state)" == "delete [7] pending")
        try store.store.write { session in
            try #require(session as? any OutboxStorage).writeTombstones([
                Tombstone(entityName: "Publisher", serverIdentity: [9], stamp: "2024-01-01T00:00:05.000Z", acknowledgedAt: Date())
            ])
        }
        // A page pointing at a pending delete (7), an acknowledged one (9) and a stored publisher (8).
        try guarding.pull(
            store, #"[{"id": "3", "name": "Alfred", "publisher": 7}, {"id": "4", "name": "Jim", "publisher": 9}, {"id": "5", "name": "Ann", "publisher": 8}]"#)
        let all = try store.snapshots(of: "Character") + (try store.snapshots(of: "Publisher"))
        #expect(
            all.map { "\($0.id.entityName) \($0.attributes[0].map(\.description) ?? "nil") \($0.isPlaceholder)" }.sorted() == [
                #"Character "3" false"#, #"Character "4" false"#, #"Character "5" false"#, "Publisher 8 false",
            ])
        let reader = ObjectContext(store: store.store)
        var publisherOf: [String] = []
        for id in ["3", "4", "5"] {
            let character = try #require(try reader.fetch("Character", id: .string(id)))
            publisherOf.append("\(id) \(try character.destination(forKey: "publisher").map { "\(try $0.value(forKey: "id")!)" } ?? "nil")")
        }
        #expect(publisherOf == ["3 nil", "4 nil", "5 8"])
        #expect(try store.store.outbox().map(\.sequence) == [row.sequence])
        #expect(try summary(store).count == 2)
    }
}
