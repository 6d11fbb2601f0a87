import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisTestSupport

/// Issue 23, point 6: `trellis sync SOURCE --resolve ENTITY:ID --take local|server` settles a
/// conflict the `manual` policy left in the outbox, then pushes; bad uses are usage errors.
@Suite struct ResolveEndToEndTests {
    static let model = Fixtures.url("sync/push.model.json")

    static func source(_ server: TestServer) -> String {
        #"""
        {"format": "trellis-source", "formatVersion": 1,
         "client": {"baseURL": "\#(server.base)/parse/", "dialect": "parse", "headers": {"X-Parse-Application-Id": "test-app"},
                    "timeoutSeconds": 10},
         "resources": [
           {"name": "heroes", "entity": "Hero", "path": "classes/Hero", "params": {"limit": 100}, "incremental": {"cursor": "updatedAt"},
            "push": {"createKey": "clientId", "conflicts": {"detect": "check", "policy": "manual"}}}]}
        """#
    }

    @Test func aManualConflictIsResolvedForEachSide() throws {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.source(server).write(to: directory.url.appendingPathComponent("push.source.json"), atomically: true, encoding: .utf8)
        let run = { (arguments: [String]) in
            try TrellisProcess.run(["sync", "push.source.json", "--store", "s.sqlite"] + arguments, in: directory.url)
        }
        let pull = try TrellisProcess.run(["sync", "push.source.json", "--model", Self.model.path, "--store", "s.sqlite", "--pull-only"], in: directory.url)
        #expect(pull.status == 0, "\(pull)")
        let model = try ModelFile.read(from: Self.model).model
        let ids = Array(try server.data("Hero").compactMap { $0["objectId"]?.stringValue }.prefix(2))
        // Both edited here after the server renamed them: two conflicts, left for the user.
        try server.mutate(.array(ids.map { ["op": "update", "class": "Hero", "objectId": .string($0), "set": ["name": "Server name"]] }))
        do {
            let store = try StoreKind.sqlite.reopen(directory.url.appendingPathComponent("s.sqlite").path, model: model)
            let context = ObjectContext(store: store)
            for id in ids { try #require(try context.fetch("Hero", id: .string(id))).setValue(.string("\(id) edited"), forKey: "name") }
            try context.save()
        }
        let push = try run(["--push-only"])
        #expect(push.status == 0, "\(push)")
        #expect(
            push.stdout.hasPrefix(
                "push: 0 operations sent in 0 batches (2 requests); acknowledged 0, retried 0, reconciled 0, resent 0, conflicts 2 (manual 2), rejected 0\n"))
        #expect(push.stdout.contains("  Hero \(ids[0]) update conflict: the server changed Hero \(ids[0]) since the change was made"))

        let missing = try run(["--resolve", "Hero:\(ids[0])"])
        #expect(missing.status == 64)
        #expect(missing.stderr.hasPrefix("error: '--resolve' needs '--take local' or '--take server'\nusage: trellis sync <source>"))
        let badSide = try run(["--resolve", "Hero:\(ids[0])", "--take", "mine"])
        #expect(badSide.status == 64)
        #expect(badSide.stderr.hasPrefix("error: invalid value 'mine' for '--take'; expected one of: local, server\n"))
        let badTarget = try run(["--resolve", "Hero", "--take", "local"])
        #expect(badTarget.status == 64)
        #expect(
            badTarget.stderr.hasPrefix(
                "error: invalid value 'Hero' for '--resolve'; expected ENTITY:ID, an entity and an object's server identity (Hero:h00042)\n"))
        let withPull = try run(["--resolve", "Hero:\(ids[0])", "--take", "local", "--pull-only"])
        #expect(withPull.status == 64)
        #expect(withPull.stderr.hasPrefix("error: '--resolve' settles one conflict and pushes; it does not take '--pull-only'\n"))
        let unknown = try run(["--resolve", "Hero:nope", "--take", "local"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("the outbox holds no conflict of Hero:nope (its conflicts: Hero:\(ids[0]), Hero:\(ids[1]))"))

        let local = try run(["--resolve", "Hero:\(ids[0])", "--take", "local"])
        #expect(local.status == 0, "\(local)")
        #expect(
            local.stdout.hasPrefix(
                """
                resolved Hero:\(ids[0]) for the local side (1 outbox row)
                push: 1 operation sent in 1 batch (2 requests); acknowledged 1, retried 0, reconciled 0, resent 0, conflicts 0, rejected 0

                """))
        #expect(try server.data("Hero").first { $0["objectId"]?.stringValue == ids[0] }?["name"] == .string("\(ids[0]) edited"))

        let serverSide = try run(["--resolve", "Hero:\(ids[1])", "--take", "server", "--report", "json"])
        #expect(serverSide.status == 0, "\(serverSide)")
        let report = try JSONReader.parse(Data(serverSide.stdout.utf8))
        #expect(report["push"]?["overridden"]?[0]?["objectId"] == .string(ids[1]))
        #expect(report["push"]?["problems"] == [])
        #expect(try server.data("Hero").first { $0["objectId"]?.stringValue == ids[1] }?["name"] == "Server name")
        do {
            let store = try StoreKind.sqlite.reopen(directory.url.appendingPathComponent("s.sqlite").path, model: model)
            #expect(try store.outbox() == [])
            let context = ObjectContext(store: store)
            #expect(try context.fetch("Hero", id: .string(ids[1]))?.value(forKey: "name") == .string("Server name"))
            #expect(try context.fetch("Hero", id: .string(ids[0]))?.value(forKey: "name") == .string("\(ids[0]) edited"))
        }
    }

    /// Killed (SIGKILL) inside the transaction that writes the server's copy over a conflicting
    /// change (serverWins), then run again: the change is settled once, the local object is the
    /// server's copy, the outbox is empty and the store intact; on SQLite and PostgreSQL.
    @Test(arguments: StoreKind.persistent)
    func aPushKilledWhileSettlingAConflictSettlesItOnTheNextRun(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.source(server).replacingOccurrences(of: #""policy": "manual""#, with: #""policy": "serverWins""#).write(
            to: directory.url.appendingPathComponent("push.source.json"), atomically: true, encoding: .utf8)
        let model = try ModelFile.read(from: Self.model).model
        let made = try kind.makeStore(model: model)
        let location = try #require(made.location)
        let pull = try TrellisProcess.run(["sync", "push.source.json", "--model", Self.model.path, "--store", location, "--pull-only"], in: directory.url)
        #expect(pull.status == 0, "\(pull)")
        let ids = Array(try server.data("Hero").compactMap { $0["objectId"]?.stringValue }.prefix(2))
        try server.mutate([["op": "update", "class": "Hero", "objectId": .string(ids[0]), "set": ["name": "Server name"]]])
        do {
            let store = try kind.reopen(location, model: model)
            let context = ObjectContext(store: store)
            for id in ids { try #require(try context.fetch("Hero", id: .string(id))).setValue(.string("\(id) edited"), forKey: "name") }
            try context.save()
        }
        let push = ["sync", "push.source.json", "--store", location, "--push-only"]
        let killed = try TrellisProcess.run(push, in: directory.url, launcher: ["/usr/bin/env", "TRELLIS_TEST_PUSH_KILL=whileSettling"])
        #expect(killed.status == SIGKILL, "\(killed)")
        do {
            let store = try kind.reopen(location, model: model)
            #expect(try store.outbox().map(\.serverIdentity) == [[.string(ids[0])], [.string(ids[1])]])  // nothing committed
        }
        let again = try TrellisProcess.run(push + ["--report", "json"], in: directory.url)
        #expect(again.status == 0, "\(again)")
        let report = try JSONReader.parse(again.stdout)
        #expect(report["push"]?["conflictsByPolicy"]?["serverWins"] == 1)
        #expect(report["push"]?["acknowledged"] == 1)
        let store = try kind.reopen(location, model: model)
        #expect(try store.outbox() == [])
        let context = ObjectContext(store: store)
        #expect(try context.fetch("Hero", id: .string(ids[0]))?.value(forKey: "name") == .string("Server name"))
        #expect(try context.fetch("Hero", id: .string(ids[1]))?.value(forKey: "name") == .string("\(ids[1]) edited"))
        let names = Dictionary(uniqueKeysWithValues: try server.data("Hero").map { ($0["objectId"]?.stringValue ?? "?", $0["name"]?.stringValue ?? "") })
        #expect(names[ids[0]] == "Server name" && names[ids[1]] == "\(ids[1]) edited")
        #expect(try server.writes().count == 1)  // the current change, once
        if kind == .sqlite {
            #expect(try SQLiteShell.query(URL(fileURLWithPath: location), "PRAGMA integrity_check") == "ok")
        }
    }
}
