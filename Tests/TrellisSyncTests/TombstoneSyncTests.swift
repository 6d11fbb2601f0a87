import Foundation
import Testing
import Trellis
import TrellisSync
import TrellisTestSupport

/// Issue 23, point 7: an acknowledged delete leaves a tombstone until the pull's watermark has
/// passed it, against the loopback Parse emulator, on every store. A page that still holds the
/// object (a replica that has not applied the delete yet) does not bring it back; a later page
/// whose watermark passes the tombstone's stamp removes it; an object the server makes again
/// after the delete comes back.
@Suite struct TombstoneSyncTests {
    /// `entity identity stamp` of every tombstone.
    static func tombstones(_ store: TestStore) throws -> [String] {
        try store.store.tombstones().map { "\($0.entityName) \($0.serverIdentityText) \($0.stamp)" }
    }

    /// Deletes hero `id` here and pushes the delete; returns the push's report.
    static func deleteAndPush(_ id: String, _ store: TestStore, _ synchronizer: Synchronizer) throws -> PushReport {
        let context = ObjectContext(store: store.store)
        try context.delete(try #require(try context.fetch("Hero", id: .string(id))))
        try context.save()
        return try synchronizer.push()
    }

    /// The server's record of hero `id`.
    static func record(_ server: TestServer, _ id: String) throws -> JSONObject {
        try #require(try server.data("Hero").first { $0["objectId"]?.stringValue == id }?.objectValue)
    }

    @Test(arguments: StoreKind.allCases)
    func aPageThatStillHoldsAnAcknowledgedDeleteDoesNotBringItBackUntilTheWatermarkPassesIt(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "12", "--ties", "0"])
        let (store, synchronizer) = try PushTests.pulled(kind, server)
        let ids = try PushTests.heroIDs(server, 3)
        let doomed = ids[0]
        // Another client renames the hero just before this side's delete reaches the server.
        try server.mutate([["op": "update", "class": "Hero", "objectId": .string(doomed), "set": ["name": "renamed elsewhere"]]])
        let copy = try Self.record(server, doomed)
        let stamp = try #require(copy["updatedAt"]?.stringValue)

        let report = try Self.deleteAndPush(doomed, store, synchronizer)
        #expect(report.acknowledged == 1 && report.problems == [])
        #expect(try server.data("Hero").contains { $0["objectId"]?.stringValue == doomed } == false)
        #expect(try store.store.outbox() == [])
        // Stamped with the latest server stamp known for the object: the pre-read's.
        #expect(try Self.tombstones(store) == [#"Hero [""# + doomed + #""] "# + stamp])

        // A replica that has not applied the delete serves the renamed copy to the next pull.
        var stale = copy
        stale["objectId"] = nil
        stale["updatedAt"] = nil
        try server.mutate([["op": "insert", "class": "Hero", "objectId": .string(doomed), "set": .object(stale), "updatedAt": .string(stamp)]])
        let lagging = try synchronizer.run()
        #expect(lagging.resource("heroes")?.records == 1)
        #expect(try PushTests.localNames(store)[doomed] == nil)
        #expect(try store.snapshots(of: "Hero").count == 11)
        #expect(try store.store.outbox() == [])
        // The page's watermark is the stale copy's stamp, not past it: the tombstone stays.
        #expect(lagging.resource("heroes")?.watermark == stamp)
        #expect(try Self.tombstones(store) == [#"Hero [""# + doomed + #""] "# + stamp])

        // A later change on the server moves the watermark past the tombstone: it goes, and the
        // deleted hero stays deleted (an incremental pull no longer asks for it).
        try server.mutate([["op": "update", "class": "Hero", "objectId": .string(ids[1]), "set": ["name": "later"]]])
        let later = try synchronizer.run()
        #expect(later.resource("heroes")?.counts.updated == 1)
        #expect(try Self.tombstones(store) == [])
        #expect(try PushTests.localNames(store)[doomed] == nil)
        #expect(try PushTests.localNames(store)[ids[1]] == "later")
        #expect(try store.store.outbox() == [])
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectTheServerMakesAgainAfterTheDeleteComesBack(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "12", "--ties", "0"])
        let (store, synchronizer) = try PushTests.pulled(kind, server)
        let doomed = try PushTests.heroIDs(server, 1)[0]
        let copy = try Self.record(server, doomed)
        _ = try Self.deleteAndPush(doomed, store, synchronizer)
        let tombstone = try #require(try store.store.tombstones().first)
        #expect(try store.store.tombstones().count == 1)

        // Another client makes the hero again (same objectId), stamped after the delete.
        var again = copy
        again["objectId"] = nil
        again["updatedAt"] = nil
        again["createdAt"] = nil
        again["name"] = "made again"
        try server.mutate([["op": "insert", "class": "Hero", "objectId": .string(doomed), "set": .object(again)]])
        let made = try #require(try Self.record(server, doomed)["updatedAt"]?.stringValue)
        #expect(try #require(SyncInstant(rfc3339: made)) > (try #require(SyncInstant(rfc3339: tombstone.stamp))))

        let pull = try synchronizer.run()
        #expect(pull.resource("heroes")?.counts.inserted == 1)
        #expect(try PushTests.localNames(store)[doomed] == "made again")
        #expect(try Self.tombstones(store) == [])
        #expect(try store.store.outbox() == [])
        #expect(try PushTests.serverNames(server) == (try PushTests.localNames(store)))
    }
}
