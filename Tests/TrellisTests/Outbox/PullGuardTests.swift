import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Issue 23, point 7: a pull (origin sync) never overwrites a field with a live outbox row,
/// never brings back a pending delete and never undoes a pending create, on every store.
@Suite struct PullGuardTests {
    let recording = OutboxRecordingTests()

    /// Imports `json` as a pulled page (origin sync).
    func pull(_ store: TestStore, _ json: String) throws {
        var options = ImportOptions()
        options.origin = .sync
        _ = try ObjectContext(store: store.store).importObjects(from: try JSONReader.parse(json), entity: "Character", options: options)
    }

    func stored(_ store: TestStore) throws -> [String] {
        let context = ObjectContext(store: store.store)
        return try context.fetch("Character").map { object in
            let values = try ["id", "name", "rating", "updatedAt"].map { key -> String in
                switch try object.value(forKey: key) {
                case .string(let text)?: return text
                case .integer(let number)?: return String(number)
                case nil: return "nil"
                case let other?: return "\(other)"
                }
            }
            return values.joined(separator: " ")
        }.sorted()
    }

    @Test(arguments: StoreKind.allCases)
    func aPullKeepsTheLocalValueAndRecordsTheNewBase(kind: StoreKind) throws {
        let store = try recording.storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        try recording.batman(context).setValue(.string("Bruce"), forKey: "name")
        try context.save()
        // The server moved rating and its stamp, not name.
        try pull(store, #"[{"id": "1", "name": "Batman", "rating": 7, "updatedAt": "s2"}]"#)
        #expect(try stored(store) == ["1 Bruce 7 s2"])
        #expect(try recording.summary(store) == [#"1 update Character/1 ["1"] [name] base=s2 pending 0"#])
    }

    @Test(arguments: StoreKind.allCases)
    func theServerMovingTheSameFieldMakesTheRowAConflict(kind: StoreKind) throws {
        let store = try recording.storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        try recording.batman(context).setValue(.string("Bruce"), forKey: "name")
        try context.save()
        try pull(store, #"[{"id": "1", "name": "Joker", "updatedAt": "s2"}]"#)
        #expect(try stored(store) == ["1 Bruce 5 s2"])
        #expect(try recording.summary(store) == [#"1 update Character/1 ["1"] [name] base=s2 conflict 0"#])
    }

    @Test(arguments: StoreKind.allCases)
    func aPullDoesNotBringBackAPendingDelete(kind: StoreKind) throws {
        let store = try recording.storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        try context.delete(try recording.batman(context))
        try context.save()
        try pull(store, #"[{"id": "1", "name": "Batman", "rating": 5, "updatedAt": "s1"}, {"id": "3", "name": "Alfred"}]"#)
        #expect(try stored(store) == ["3 Alfred nil nil"])
        #expect(try recording.summary(store) == [#"1 delete Character/1 ["1"] [] base=s1 pending 0"#])
    }

    @Test(arguments: StoreKind.allCases)
    func aPullDeleteDoesNotUndoAPendingCreate(kind: StoreKind) throws {
        let store = try recording.storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        let robin = try context.insert("Character")
        try robin.setValue(.string("2"), forKey: "id")
        try context.save()
        let batmanID = try recording.batman(context).objectID
        try store.store.write { session in
            session.origin = .sync
            _ = try session.apply(ChangeSet(deleted: [robin.objectID, batmanID]))
        }
        #expect(try stored(store) == ["2 nil nil nil"])
        #expect(try recording.summary(store) == ["1 create Character/2 nil [id] base=nil pending 0"])
    }

    @Test(arguments: StoreKind.allCases)
    func pushWritesAreNeitherRecordedNorGuarded(kind: StoreKind) throws {
        let store = try recording.storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        try recording.batman(context).setValue(.string("Bruce"), forKey: "name")
        try context.save()
        let batmanID = try recording.batman(context).objectID
        try store.store.write { session in
            session.origin = .push
            _ = try session.apply(ChangeSet(updated: [ObjectChange(id: batmanID, attributes: [AttributeChange(index: 1, value: .string("Wayne"))])]))
        }
        #expect(try stored(store) == ["1 Wayne 5 s1"])
        #expect(try recording.summary(store) == [#"1 update Character/1 ["1"] [name] base=s1 pending 0"#])
    }
}
