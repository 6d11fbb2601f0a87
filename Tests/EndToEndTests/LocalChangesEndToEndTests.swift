import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisTestSupport

/// `trellis import … --local` and `trellis delete … --local` (issue 23, points 1 and 2): the
/// changes are recorded in the store's outbox in the command's transaction; without `--local`
/// nothing is. On SQLite and PostgreSQL, with the model and store of ``DeleteEndToEndTests``.
@Suite struct LocalChangesEndToEndTests {
    typealias Workspace = DeleteEndToEndTests.Workspace

    /// The store's outbox rows as text, without keys and dates:
    /// `1 delete Character/3 [3] [] pending 0`.
    func outbox(_ workspace: Workspace, _ kind: StoreKind) throws -> [String] {
        let model = try ModelLoader.load(url: workspace.directory.url.appendingPathComponent("model.json")).model
        let location = kind == .sqlite ? workspace.directory.url.appendingPathComponent(workspace.store).path : workspace.store
        let store = try kind.reopen(location, model: model)
        return try store.outbox().map { row in
            "\(row.sequence) \(row.operation.rawValue) \(row.object) \(row.serverIdentityText ?? "nil") "
                + "[\(row.fields.joined(separator: ","))] \(row.state.rawValue) \(row.attempts)"
        }
    }

    @Test(arguments: StoreKind.persistent)
    func aPlainImportAndDeleteRecordNothing(kind: StoreKind) throws {
        let workspace = try Workspace(kind)
        let result = try workspace.delete("Character", "id == 4")
        #expect(result.status == 0, "\(result)")
        #expect(try outbox(workspace, kind) == [])
    }

    @Test(arguments: StoreKind.persistent)
    func aLocalImportRecordsItsCreatesAndUpdates(kind: StoreKind) throws {
        let workspace = try Workspace(kind)
        try Data(#"[{"id": 4, "name": "c4 renamed"}, {"id": 5, "name": "c5", "powers": [{"id": 3}]}]"#.utf8)
            .write(to: workspace.directory.url.appendingPathComponent("local.json"))
        let result = try workspace.run([
            "import", "local.json", "--model", "model.json", "--entity", "Character",
            "--store", workspace.store, "--local",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            try outbox(workspace, kind) == [
                "1 update Character/4 [4] [name] pending 0",
                "2 create Character/5 nil [id,name,powers] pending 0",
            ])
    }

    @Test(arguments: StoreKind.persistent)
    func aLocalDeleteRecordsTheDeletesOfItsCascade(kind: StoreKind) throws {
        let workspace = try Workspace(kind)
        let result = try workspace.run([
            "delete", "--model", "model.json", "--entity", "Publisher", "--where", "id == 2",
            "--store", workspace.store, "--local",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            workspace.report(result) == """
                entity      deleted
                Publisher         1
                Character         1
                nullified 2 links
                deleted 2 objects

                """)
        #expect(
            try outbox(workspace, kind) == [
                "1 delete Publisher/2 [2] [] pending 0",
                "2 delete Character/3 [3] [] pending 0",
            ])
    }

    @Test(arguments: StoreKind.persistent)
    func aDeniedLocalDeleteRecordsNothing(kind: StoreKind) throws {
        let workspace = try Workspace(kind)
        let result = try workspace.run([
            "delete", "--model", "model.json", "--entity", "Power", "--where", "id == 1",
            "--store", workspace.store, "--local",
        ])
        #expect(result.status == 1, "\(result)")
        #expect(try outbox(workspace, kind) == [])
        #expect(try workspace.counts() == DeleteEndToEndTests.seeded)
    }
}
