import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisTestSupport

/// Issue 23, points 5 and 11: `trellis sync --push-only` killed with SIGKILL at each named
/// point of a push (the test-only hook `TRELLIS_TEST_PUSH_KILL` makes the child kill itself
/// there), then run again: the server holds every local change exactly once (no duplicate
/// create, none lost), the outbox is empty and the store is intact; on SQLite and PostgreSQL.
@Suite struct PushCrashEndToEndTests {
    static let model = Fixtures.url("sync/push.model.json")

    struct Case: CustomStringConvertible, Sendable {
        var point: String
        var createKey: String
        var description: String { "\(point) \(createKey)" }
    }

    static let cases: [Case] = [
        Case(point: "afterMarking", createKey: "clientId"), Case(point: "afterMarking:2", createKey: "requestId"),
        Case(point: "midSend", createKey: "clientId"), Case(point: "midSend", createKey: "requestId"),
        Case(point: "afterResponse", createKey: "clientId"), Case(point: "afterResponse:2", createKey: "requestId"),
        Case(point: "afterResponse", createKey: "lookupField:clientKey"),
        Case(point: "whileRecording", createKey: "clientId"), Case(point: "whileRecording:2", createKey: "requestId"),
    ]

    static func source(_ server: TestServer, createKey: String) -> String {
        #"""
        {"format": "trellis-source", "formatVersion": 1,
         "client": {"baseURL": "\#(server.base)/parse/", "dialect": "parse", "headers": {"X-Parse-Application-Id": "test-app"},
                    "timeoutSeconds": 10},
         "resources": [
           {"name": "teams", "entity": "Team", "path": "classes/Team", "incremental": {"cursor": "updatedAt"},
            "push": {"createKey": "\#(createKey)"}},
           {"name": "heroes", "entity": "Hero", "path": "classes/Hero", "params": {"limit": 100}, "incremental": {"cursor": "updatedAt"},
            "push": {"createKey": "\#(createKey)", "batchSize": 3}}]}
        """#
    }

    @Test(arguments: StoreKind.persistent, cases)
    func aKilledPushLeavesEveryChangeOnTheServerExactlyOnceAfterTheNextRun(kind: StoreKind, testCase: Case) throws {
        let server = try TestServer(["--heroes", "8", "--ties", "0"])
        try server.configure(["allowCustomObjectId": true])
        var modelFile = try String(contentsOf: Self.model, encoding: .utf8)
        if testCase.createKey.hasPrefix("lookupField") {
            modelFile = modelFile.replacingOccurrences(
                of: #"{"name": "createdAt", "type": "date", "jsonKeyPath": "createdAt"}"#,
                with: #"{"name": "createdAt", "type": "date", "jsonKeyPath": "createdAt"}, {"name": "clientKey", "type": "string", "jsonKeyPath": "clientKey"}"#
            )
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try modelFile.write(to: directory.url.appendingPathComponent("push.model.json"), atomically: true, encoding: .utf8)
        let model = try ModelFile.read(from: directory.url.appendingPathComponent("push.model.json")).model
        try Self.source(server, createKey: testCase.createKey).write(
            to: directory.url.appendingPathComponent("push.source.json"),
            atomically: true, encoding: .utf8)
        let made = try kind.makeStore(model: model)
        let location = try #require(made.location)
        let pull = try TrellisProcess.run(
            ["sync", "push.source.json", "--model", "push.model.json", "--store", location, "--pull-only"],
            in: directory.url)
        #expect(pull.status == 0, "\(pull)")

        // Local changes: 4 renames (two batches of updates), a delete, a new team and two heroes in it.
        let ids = Array(try server.data("Hero").compactMap { $0["objectId"]?.stringValue }.prefix(5))
        do {
            let store = try kind.reopen(location, model: model)
            let context = ObjectContext(store: store)
            for id in ids.prefix(4) { try #require(try context.fetch("Hero", id: .string(id))).setValue(.string("\(id) edited"), forKey: "name") }
            _ = try context.delete(try #require(try context.fetch("Hero", id: .string(ids[4]))))
            let team = try context.insert("Team")
            try team.setValue(.string("New team"), forKey: "name")
            for name in ["Ann", "Bo"] {
                let hero = try context.insert("Hero")
                try hero.setValue(.string(name), forKey: "name")
                try hero.setDestination(team, forKey: "team")
            }
            try context.save()
            #expect(try store.outbox().count == 8)
        }
        if testCase.point == "midSend" {
            try server.faults([["method": "*", "match": "/parse/", "delay": 2, "times": 1]])
        }
        let push = ["sync", "push.source.json", "--store", location, "--push-only"]
        let killed = try TrellisProcess.run(push, in: directory.url, launcher: ["/usr/bin/env", "TRELLIS_TEST_PUSH_KILL=\(testCase.point)"])
        #expect(killed.status == SIGKILL, "\(killed)")
        if testCase.point == "midSend" { Thread.sleep(forTimeInterval: 2.5) }  // the held request is applied meanwhile
        let again = try TrellisProcess.run(push + ["--report", "json"], in: directory.url)
        #expect(again.status == 0, "\(again)")
        let report = try JSONReader.parse(again.stdout)
        #expect(report["push"]?["rejected"] == 0)
        #expect(report["push"]?["problems"] == [])

        let store = try kind.reopen(location, model: model)
        #expect(try store.outbox() == [])
        let hero = try #require(model.entity(named: "Hero"))
        var local: [String: String] = [:]
        for snapshot in try store.read({ try $0.fetch(entity: "Hero", matching: nil) }) where !snapshot.isPlaceholder {
            local[snapshot.attributes[hero.attributeIndex(of: "objectId")!]?.stringValue ?? "none"] =
                snapshot.attributes[hero.attributeIndex(of: "name")!]?.stringValue
        }
        var remote: [String: String] = [:]
        for record in try server.data("Hero") { remote[record["objectId"]?.stringValue ?? "?"] = record["name"]?.stringValue }
        #expect(remote == local)
        #expect(remote.values.filter { $0 == "Ann" || $0 == "Bo" }.count == 2)  // no duplicate create
        #expect(remote.values.filter { $0.hasSuffix("edited") }.count == 4)
        #expect(try server.data("Team").filter { $0["name"] == "New team" }.count == 1)
        if kind == .sqlite {
            #expect(try SQLiteShell.query(URL(fileURLWithPath: location), "PRAGMA integrity_check") == "ok")
        }
    }

    @Test func pushOnlyPrintsThePushLineAndItsRejectionsAndPullOnlyLeavesTheOutbox() throws {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.source(server, createKey: "clientId").write(to: directory.url.appendingPathComponent("push.source.json"), atomically: true, encoding: .utf8)
        let pull = try TrellisProcess.run(["sync", "push.source.json", "--model", Self.model.path, "--store", "s.sqlite", "--pull-only"], in: directory.url)
        #expect(pull.status == 0, "\(pull)")
        #expect(!pull.stdout.contains("push:"))
        let model = try ModelFile.read(from: Self.model).model
        let ids = Array(try server.data("Hero").compactMap { $0["objectId"]?.stringValue }.prefix(3))
        do {
            let store = try StoreKind.sqlite.reopen(directory.url.appendingPathComponent("s.sqlite").path, model: model)
            let context = ObjectContext(store: store)
            for id in ids { try #require(try context.fetch("Hero", id: .string(id))).setValue(.string("\(id) edited"), forKey: "name") }
            try context.save()
        }
        let both = try TrellisProcess.run(["sync", "push.source.json", "--store", "s.sqlite", "--push-only", "--pull-only"], in: directory.url)
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("error: '--push-only' and '--pull-only' cannot be combined\nusage: trellis sync <source>"))
        let pullOnly = try TrellisProcess.run(["sync", "push.source.json", "--store", "s.sqlite", "--pull-only"], in: directory.url)
        #expect(pullOnly.status == 0, "\(pullOnly)")
        #expect(try server.writes() == [])

        try server.faults([["match": "batch", "method": "POST", "opError": ["index": 2, "code": 142, "error": "name is invalid"]]])
        let push = try TrellisProcess.run(["sync", "push.source.json", "--store", "s.sqlite", "--push-only"], in: directory.url)
        #expect(push.status == 0, "\(push)")
        #expect(
            push.stdout == """
                push: 3 operations sent in 1 batch (2 requests); acknowledged 2, retried 0, reconciled 0, resent 0, conflicts 0, rejected 1
                  Hero \(ids[2]) update rejected: 142 name is invalid

                """)
        #expect(try server.writes().count == 2)

        // --status shows the outbox per resource; --dry-run the requests it would send.
        let status = try TrellisProcess.run(["sync", "push.source.json", "--store", "s.sqlite", "--status"], in: directory.url)
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("outbox of teams → Team: 0 pending (create 0, update 0, delete 0), 0 sending, 0 uncertain, 0 conflicts, 0 rejected\n"))
        #expect(
            status.stdout.hasSuffix(
                "outbox of heroes → Hero: 0 pending (create 0, update 0, delete 0), 0 sending, 0 uncertain, "
                    + "0 conflicts, 1 rejected\n  Hero \(ids[2]) update rejected: 142 name is invalid\n"))
        do {
            let store = try StoreKind.sqlite.reopen(directory.url.appendingPathComponent("s.sqlite").path, model: model)
            let context = ObjectContext(store: store)
            try #require(try context.fetch("Hero", id: .string(ids[0]))).setValue(.string("Dry"), forKey: "name")
            try context.save()
        }
        let dry = try TrellisProcess.run(["sync", "push.source.json", "--store", "s.sqlite", "--dry-run"], in: directory.url)
        #expect(dry.status == 0, "\(dry)")
        #expect(
            dry.stdout.hasPrefix(
                """
                push (dry run, nothing sent): 1 request now, 1 operation waits for a later round or cannot be pushed
                  PUT \(server.base)/parse/classes/Hero/\(ids[0]) {"name":"Dry"}

                """))
        #expect(try server.writes().count == 2)
    }
}
