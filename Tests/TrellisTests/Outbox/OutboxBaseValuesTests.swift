import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Issue 23, points 6 and 7: an update row keeps the values its attributes held before the
/// first local change (`OutboxEntry.baseValues`), on every store, and a store whose outbox was
/// made before the column keeps opening.
@Suite struct OutboxBaseValuesTests {
    let recording = OutboxRecordingTests()

    /// `name=… rating=…` of every row, keys sorted.
    func baseValues(_ store: TestStore) throws -> [String] {
        try store.store.outbox().map { row in
            row.baseValues.keys.sorted().map { "\($0)=\(try! JSONWriter.string(for: row.baseValues[$0]!))" }.joined(separator: " ")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateRecordsTheOldValuesAndAMergeKeepsTheOlderOne(kind: StoreKind) throws {
        let store = try recording.storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        try recording.batman(context).setValue(.string("Bruce"), forKey: "name")
        try context.save()
        #expect(try baseValues(store) == [#"name="Batman""#])
        // A second change of name keeps the first base; rating is new to the row and adds its own.
        try recording.batman(context).setValue(.string("Wayne"), forKey: "name")
        try recording.batman(context).setValue(.integer(6), forKey: "rating")
        try context.save()
        #expect(try baseValues(store) == [#"name="Batman" rating=5"#])
        let row = try #require(try store.store.outbox().first)
        #expect(row.baseValues == ["name": .string("Batman"), "rating": .number(JSONNumber(Int64(5)))])
        #expect(row.baseValuesText == #"{"name":"Batman","rating":5}"#)
    }

    @Test(arguments: StoreKind.allCases)
    func anAttributeWithoutAValueHasANullBaseAndARelationshipNone(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try OutboxRecordingTests.model())
        let json = try JSONReader.parse(#"[{"id": "1", "name": "Batman"}]"#)
        _ = try ObjectContext(store: store.store).importObjects(from: json, entity: "Character")
        let publishers = try JSONReader.parse(#"[{"id": 7, "name": "DC"}]"#)
        _ = try ObjectContext(store: store.store).importObjects(from: publishers, entity: "Publisher")
        let context = ObjectContext(store: store.store)
        let batman = try recording.batman(context)
        try batman.setValue(.integer(9), forKey: "rating")
        let dc = try #require(try context.fetch("Publisher", id: .integer(7)))
        try batman.setDestination(dc, forKey: "publisher")
        try context.save()
        let rows = try store.store.outbox().filter { $0.object.entityName == "Character" }
        #expect(rows.map(\.fields) == [["rating", "publisher"]])
        #expect(rows.map(\.baseValues) == [["rating": .null]])
    }

    @Test(arguments: StoreKind.allCases)
    func aCreateAndADeleteHaveNoBaseValues(kind: StoreKind) throws {
        let store = try recording.storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        let robin = try context.insert("Character")
        try robin.setValue(.string("2"), forKey: "id")
        try context.delete(try recording.batman(context))
        try context.save()
        #expect(try store.store.outbox().map { "\($0.operation.rawValue) \($0.baseValues)" } == ["delete [:]", "create [:]"])
    }

    @Test(arguments: StoreKind.persistent)
    func anOutboxMadeBeforeTheColumnReadsEmptyBaseValuesAndGetsTheColumn(kind: StoreKind) throws {
        let store = try recording.storeWithBatman(kind)
        let context = ObjectContext(store: store.store)
        try recording.batman(context).setValue(.string("Bruce"), forKey: "name")
        try context.save()
        _ = try store.rows(#"ALTER TABLE "trellis_outbox" DROP COLUMN "base_values""#)
        let location = try #require(store.location)
        let reopened = try kind.reopen(location, model: try OutboxRecordingTests.model())
        #expect(try reopened.outbox().map { "\($0.operation.rawValue) \($0.fields) \($0.baseValues)" } == [#"update ["name"] [:]"#])
        let again = ObjectContext(store: reopened)
        try #require(try again.fetch("Character", id: .string("1"))).setValue(.integer(6), forKey: "rating")
        try again.save()
        #expect(try reopened.outbox().map(\.baseValues) == [["rating": .number(JSONNumber(Int64(5)))]])
        #expect(try store.rows(#"SELECT "base_values" FROM "trellis_outbox""#) == [[#"{"rating":5}"#]])
    }
}
