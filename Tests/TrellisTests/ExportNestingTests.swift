import Foundation
import Testing

@testable import Trellis

/// `relationshipStyle = .nested` on densely linked graphs: each object is written in full
/// at most once per exported top-level object, later occurrences as its identifier.
@Suite struct ExportNestingTests {
    /// People whose unordered to-many `friends` (no inverse) link everyone to everyone else.
    static func friends(_ count: Int) throws -> ObjectContext {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Person", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [GraphFixture.relationship("friends", "Person", toMany: true, key: "friends")],
                userInfo: ["identityAttributes": "id"])
        ])
        let context = ObjectContext(store: InMemoryStore(model: model))
        let people: [JSONValue] = (1...count).map { i in
            [
                "id": .number(JSONNumber(Int64(i))),
                "friends": .array((1...count).filter { $0 != i }.map { .number(JSONNumber(Int64($0))) }),
            ]
        }
        _ = try context.importObjects(from: .array(people), entity: "Person")
        return context
    }

    static func export(_ context: ObjectContext) throws -> String {
        let people = try context.fetch("Person").sorted(by: ObjectExporter.identityOrder)
        return try JSONWriter.string(for: try context.exportJSON(people))
    }

    @Test func threeMutualFriendsAreEachWrittenOncePerExportedObject() throws {
        #expect(
            try Self.export(try Self.friends(3)) == "["
                + #"{"id":1,"friends":[{"id":2,"friends":[1,{"id":3,"friends":[1,2]}]},3]},"#
                + #"{"id":2,"friends":[{"id":1,"friends":[2,{"id":3,"friends":[1,2]}]},3]},"#
                + #"{"id":3,"friends":[{"id":1,"friends":[{"id":2,"friends":[1,3]},3]},2]}"#
                + "]")
    }

    /// 12 mutual friends used to never finish (every path was written, cut only on cycles).
    @Test func twelveMutualFriendsExportInCubicSize() throws {
        let text = try Self.export(try Self.friends(12))
        // Per exported person: 12 people in full, their 12 × 11 links of which 11 nested, 121 identifiers.
        #expect(text.utf8.count(where: { $0 == UInt8(ascii: "{") }) == 12 * 12)
        #expect(text.utf8.count == 6_328)
    }
}
