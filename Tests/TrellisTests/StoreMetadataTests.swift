import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// The store's metadata (a checkpoint beside the objects), committed and rolled back with
/// the objects of the same write session, on every store.
@Suite struct StoreMetadataTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Cat",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64, userInfo: ["JSONKeyPath": "id"]),
                    AttributeDescription(name: "name", type: .string, userInfo: ["JSONKeyPath": "name"]),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
    }

    struct Failure: Error {}

    func value(_ store: TestStore, _ key: String = "sync/cats") throws -> String? {
        try store.store.read { try $0.metadataValue(forKey: key) }
    }

    @Test(arguments: StoreKind.allCases)
    func valuesCommitWithTheirSessionAndNilRemovesThem(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        #expect(try value(store) == nil)
        try store.store.write { session in
            try session.setMetadataValue("{\"page\": 1}", forKey: "sync/cats")
            #expect(try session.metadataValue(forKey: "sync/cats") == "{\"page\": 1}")  // visible inside the session
        }
        #expect(try value(store) == "{\"page\": 1}")
        #expect(try value(store, "sync/dogs") == nil)
        try store.store.write { try $0.setMetadataValue(nil, forKey: "sync/cats") }
        #expect(try value(store) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func aSessionThatThrowsKeepsNoMetadata(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        try store.store.write { try $0.setMetadataValue("before", forKey: "sync/cats") }
        #expect(throws: Failure.self) {
            try store.store.write { session in
                try session.setMetadataValue("after", forKey: "sync/cats")
                throw Failure()
            }
        }
        #expect(try value(store) == "before")
    }

    @Test(arguments: StoreKind.allCases)
    func aReadSessionCannotSetMetadata(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let error = try #require(throws: StoreError.self) { try store.store.read { try $0.setMetadataValue("x", forKey: "k") } }
        #expect(error.code == .readOnly)
    }

    @Test(arguments: StoreKind.allCases)
    func anImportCommitsItsTransactionWorkWithItsObjects(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let context = ObjectContext(store: store.store)
        var source = JSONImportSource(array: [["id": 1, "name": "Tom"], ["id": 2, "name": "Felix"]])
        let report = try context.importObjects(from: &source, entity: "Cat") { session, report in
            try session.setMetadataValue("after \(report.counts(for: "Cat").inserted) cats", forKey: "sync/cats")
        }
        #expect(report.counts(for: "Cat").inserted == 2)
        #expect(try value(store) == "after 2 cats")
        #expect(try store.snapshots(of: "Cat").count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func transactionWorkThatThrowsRollsTheImportBack(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let context = ObjectContext(store: store.store)
        let before = try store.dump()
        var source = JSONImportSource(array: [["id": 1, "name": "Tom"]])
        #expect(throws: Failure.self) {
            try context.importObjects(from: &source, entity: "Cat") { session, _ in
                try session.setMetadataValue("page 1", forKey: "sync/cats")
                throw Failure()
            }
        }
        #expect(try store.dump() == before)
        #expect(try value(store) == nil)
        #expect(context.registeredObjectCount == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func aDryRunImportKeepsNeitherObjectsNorMetadata(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        var options = ImportOptions()
        options.dryRun = true
        var ran = false
        var source = JSONImportSource(array: [["id": 1, "name": "Tom"]])
        let report = try ObjectContext(store: store.store).importObjects(from: &source, entity: "Cat", options: options) { session, _ in
            try session.setMetadataValue("page 1", forKey: "sync/cats")
            ran = true
        }
        #expect(ran)
        #expect(report.isDryRun)
        #expect(try store.dump() == "")
        #expect(try value(store) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func aSaveCommitsItsTransactionWorkWithItsChanges(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let context = ObjectContext(store: store.store)
        var source = JSONImportSource(array: [["id": 1, "name": "Tom"], ["id": 2, "name": "Felix"]])
        _ = try context.importObjects(from: &source, entity: "Cat")
        let tom = try #require(try context.fetch("Cat", id: .integer(1)))
        try context.delete(tom)
        #expect(throws: Failure.self) { try context.save { _ in throw Failure() } }
        #expect(try store.snapshots(of: "Cat").count == 2)  // nothing written
        #expect(context.hasChanges)  // the deletion is still pending
        try context.save { session in try session.setMetadataValue("deleted 1", forKey: "sync/cats") }
        #expect(try store.snapshots(of: "Cat").count == 1)
        #expect(try value(store) == "deleted 1")
        try context.save { session in try session.setMetadataValue("nothing to save", forKey: "sync/cats") }
        #expect(try value(store) == "nothing to save")
    }
}
