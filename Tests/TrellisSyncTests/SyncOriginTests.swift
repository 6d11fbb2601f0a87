import Foundation
import Testing
import Trellis
import TrellisSync
import TrellisTestSupport

/// Issue 23, point 1: what `trellis sync` pulls (pages, and the deletions its tombstones name)
/// is of origin sync and never enters the outbox; a local edit made between syncs stays its one row.
@Suite struct SyncOriginTests {
    @Test(arguments: StoreKind.allCases)
    func pulledPagesAndTombstoneDeletionsWriteNoOutboxRow(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "150", "--ties", "0"])
        let store = try kind.makeStore(model: try SyncTestModels.parse())
        let source = try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/parse/", "headers": {"X-Parse-Application-Id": "test-app"}, "dialect": "parse"},
             "resources": [
               {"name": "heroes", "entity": "Hero", "path": "classes/Hero", "params": {"limit": 100},
                "incremental": {"cursor": "updatedAt"}, "deletions": {"type": "tombstones", "resource": "deletedHeroes"}},
               {"name": "deletedHeroes", "path": "classes/DeletedHero", "incremental": {"cursor": "updatedAt"}}]}
            """#, server: server)
        // The synchronizer's context is of origin local (the default): its pages are sync all the same.
        let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store.store))
        #expect(try synchronizer.run().resource("heroes")?.counts.inserted == 150)
        #expect(try store.store.outbox() == [])

        let heroes = try server.data("Hero")
        let edited = try #require(heroes[0]["objectId"]?.stringValue)
        let context = ObjectContext(store: store.store)
        try #require(try context.fetch("Hero", id: .string(edited))).setValue(.string("Edited here"), forKey: "name")
        try context.save()
        let local = try store.store.outbox()
        #expect(local.map(\.operation) == [.update])
        #expect(local.map(\.fields) == [["name"]])
        #expect(local.first?.serverIdentity == .array([.string(edited)]))
        #expect(local.first?.base != nil)  // the stored updatedAt

        let doomed = try #require(heroes[3]["objectId"])
        try server.mutate([
            ["op": "delete", "objectId": doomed],
            ["op": "insert", "class": "DeletedHero", "objectId": doomed, "set": [:]],
        ])
        let report = try synchronizer.run()
        #expect(report.resource("deletedHeroes")?.counts.deleted == 1)
        #expect(try store.store.outbox() == local)
    }
}
