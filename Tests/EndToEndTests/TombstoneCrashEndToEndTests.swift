import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisTestSupport

/// Issue 23, point 7: the tombstone of an acknowledged delete is written in the transaction that
/// records the acknowledgement and removes the outbox row. `trellis sync --push-only` killed with
/// SIGKILL after the server's answer or inside that transaction leaves the row and no tombstone;
/// the next run leaves the tombstone and no row; on SQLite and PostgreSQL.
@Suite struct TombstoneCrashEndToEndTests {
    @Test(arguments: StoreKind.persistent, ["afterResponse", "whileRecording"])
    func aPushKilledWhileAcknowledgingADeleteLeavesTheRowOrTheTombstoneNeverBothNorNeither(kind: StoreKind, point: String) throws {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.copyItem(at: PushCrashEndToEndTests.model, to: directory.url.appendingPathComponent("push.model.json"))
        let model = try ModelFile.read(from: PushCrashEndToEndTests.model).model
        try PushCrashEndToEndTests.source(server, createKey: "clientId").write(
            to: directory.url.appendingPathComponent("push.source.json"), atomically: true, encoding: .utf8)
        let made = try kind.makeStore(model: model)
        let location = try #require(made.location)
        let pull = try TrellisProcess.run(
            ["sync", "push.source.json", "--model", "push.model.json", "--store", location, "--pull-only"], in: directory.url)
        #expect(pull.status == 0, "\(pull)")
        let doomed = try #require(try server.data("Hero").first?["objectId"]?.stringValue)
        do {
            let store = try kind.reopen(location, model: model)
            let context = ObjectContext(store: store)
            _ = try context.delete(try #require(try context.fetch("Hero", id: .string(doomed))))
            try context.save()
            #expect(try store.outbox().map(\.operation) == [.delete])
        }

        let push = ["sync", "push.source.json", "--store", location, "--push-only"]
        let killed = try TrellisProcess.run(push, in: directory.url, launcher: ["/usr/bin/env", "TRELLIS_TEST_PUSH_KILL=\(point)"])
        #expect(killed.status == SIGKILL, "\(killed)")
        #expect(try server.data("Hero").contains { $0["objectId"]?.stringValue == doomed } == false)
        do {
            let store = try kind.reopen(location, model: model)
            #expect(try store.outbox().map { "\($0.operation) \($0.state)" } == ["delete sending"])
            #expect(try store.tombstones() == [])
        }

        let again = try TrellisProcess.run(push, in: directory.url)
        #expect(again.status == 0, "\(again)")
        let store = try kind.reopen(location, model: model)
        #expect(try store.outbox() == [])
        #expect(try store.tombstones().map { "\($0.entityName) \($0.serverIdentityText)" } == [#"Hero [""# + doomed + #""]"#])
        if kind == .sqlite {
            #expect(try SQLiteShell.query(URL(fileURLWithPath: location), "PRAGMA integrity_check") == "ok")
        }
    }
}
