import Foundation
import Testing
import Trellis
import TrellisSync
import TrellisTestSupport

/// Issue 23, points 8 and 9: one pusher per store (a lease in the store), the outbox status
/// per resource, and the requests a dry run would send.
@Suite struct PushLeaseAndStatusTests {
    static func lease(_ holder: String, until: Date) -> String {
        #"{"holder":"\#(holder)","expiresAt":\#(Int64(until.timeIntervalSince1970 * 1000))}"#
    }

    @Test(arguments: StoreKind.allCases)
    func aSecondPusherIsToldWhoHoldsTheStoreAndADeadHolderIsTakenOver(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "3", "--ties", "0"])
        let (store, synchronizer) = try PushTests.pulled(kind, server)
        try PushTests.rename(try PushTests.heroIDs(server, 1), in: store)
        try store.store.write { try $0.setMetadataValue(Self.lease("elsewhere:42", until: Date().addingTimeInterval(600)), forKey: "push/lease") }
        do {
            _ = try synchronizer.push()
            Issue.record("expected the push to be refused")
        } catch let error as SyncError {
            #expect(error.code == .pushBusy)
            #expect(error.message.hasPrefix("another push is sending this store's changes: elsewhere:42 holds the push lease until 20"))
        }
        #expect(try store.store.outbox().map(\.state) == [.pending])
        #expect(try server.writes() == [])

        // A holder of this machine whose process is gone is taken over at once, and the lease freed after.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = "\(ProcessInfo.processInfo.hostName):\(gone.processIdentifier)"
        try store.store.write { try $0.setMetadataValue(Self.lease(dead, until: Date().addingTimeInterval(600)), forKey: "push/lease") }
        let report = try synchronizer.push()
        #expect(report.acknowledged == 1)
        #expect(try store.store.outbox() == [])
        #expect(try store.store.read { try $0.metadataValue(forKey: "push/lease") } == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func theStatusCountsTheOutboxPerResource(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "6", "--ties", "0"])
        let (store, synchronizer) = try PushTests.pulled(kind, server, batchSize: 3)
        let ids = try PushTests.heroIDs(server, 3)
        try PushTests.rename(ids, in: store)
        try server.faults([["match": "batch", "method": "POST", "opError": ["index": 0, "code": 142, "error": "name is invalid"]]])
        _ = try synchronizer.push()
        let context = ObjectContext(store: store.store)
        let other = try #require(try PushTests.heroIDs(server, 6).first { !ids.contains($0) })
        _ = try context.delete(try #require(try context.fetch("Hero", id: .string(other))))
        try context.insert("Team").setValue(.string("T"), forKey: "name")
        try context.save()

        let status = OutboxStatus(source: synchronizer.source, model: store.store.model, rows: try store.store.outbox())
        #expect(status.resources.map(\.name) == ["teams", "heroes"])
        let teams = status.resources[0]
        let heroes = status.resources[1]
        #expect([teams.pendingCreates, teams.pendingUpdates, teams.pendingDeletes] == [1, 0, 0] as [Int])
        #expect([heroes.pendingCreates, heroes.pendingUpdates, heroes.pendingDeletes] == [0, 0, 1] as [Int])
        #expect(heroes.rejected == 1 && heroes.conflicts == 0 && heroes.sending == 0 && heroes.uncertain == 0)
        #expect(heroes.problems.map(\.description) == ["Hero \(ids[0]) update rejected: 142 name is invalid"])
        #expect(heroes.oldestPending != nil)
        #expect(status.notPushable == nil)
        #expect(status.json["resources"]?[1]?["pending"] == ["create": 0, "update": 0, "delete": 1])
    }

    @Test(arguments: StoreKind.allCases)
    func aDryRunPrintsTheFirstRoundsRequestsRedactedAndSendsNothing(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let store = try kind.makeStore(model: try PushTests.model())
        let source = try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/parse/", "headers": {"X-Parse-Application-Id": "test-app", "X-Parse-REST-API-Key": "${env:PARSE_KEY}"},
                        "dialect": "parse"},
             "resources": [
               {"name": "teams", "entity": "Team", "path": "classes/Team", "push": {"createKey": "clientId"}},
               {"name": "heroes", "entity": "Hero", "path": "classes/Hero", "incremental": {"cursor": "updatedAt"}, "push": {"createKey": "clientId"}}]}
            """#, server: server, environment: ["PARSE_KEY": "k3y-s3cr3t"])
        let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store.store))
        _ = try synchronizer.run()
        let ids = try PushTests.heroIDs(server, 2)
        let context = ObjectContext(store: store.store)
        try #require(try context.fetch("Hero", id: .string(ids[0]))).setValue(.string("k3y-s3cr3t"), forKey: "name")
        try #require(try context.fetch("Hero", id: .string(ids[1]))).setValue(.string("Plain"), forKey: "name")
        let team = try context.insert("Team")
        try team.setValue(.string("New"), forKey: "name")
        let hero = try context.insert("Hero")
        try hero.setValue(.string("Child"), forKey: "name")
        try hero.setDestination(team, forKey: "team")
        try context.save()
        let before = try store.store.outbox()

        let plan = try synchronizer.plannedPush()
        #expect(
            plan.requests == [
                PlannedRequest(
                    method: "POST", url: "http://127.0.0.1:\(server.port)/parse/batch",
                    body: #"{"requests":[{"method":"PUT","path":"/parse/classes/Hero/\#(ids[0])","body":{"name":"***"}},"#
                        + #"{"method":"PUT","path":"/parse/classes/Hero/\#(ids[1])","body":{"name":"Plain"}}]}"#, operations: 2),
                PlannedRequest(method: "POST", url: "http://127.0.0.1:\(server.port)/parse/classes/Team", body: #"{"name":"New"}"#, operations: 1),
            ])
        #expect(plan.waiting == 1)  // the child waits for its team's objectId
        #expect(try server.writes() == [])
        #expect(try store.store.outbox() == before)
    }
}
