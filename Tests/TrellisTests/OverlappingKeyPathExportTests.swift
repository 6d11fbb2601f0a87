import Foundation
import Testing

@testable import Trellis

/// Overlapping key paths in export: a to-one at `owner` and an attribute at `owner.id`.
@Suite struct OverlappingKeyPathExportTests {
    /// Item: `ownerID` at `owner.id`, to-one `owner` at `owner`; Owner has `id` and `name`.
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [GraphFixture.attribute("id", .integer64, key: "id"), GraphFixture.attribute("ownerID", .integer64, key: "owner.id")],
                relationships: [GraphFixture.relationship("owner", "Owner", key: "owner")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Owner",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("name", .string, key: "name"),
                ],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    /// The documented case: the relationship and the attribute both read their part of
    /// `"owner": {"id": 5, "name": "Ann"}`; exporting what was imported must give it back.
    @Test func aNestedObjectAndAnAttributeInsideItRoundTrip() throws {
        let context = ObjectContext(store: InMemoryStore(model: try Self.model()))
        let json: JSONValue = ["id": 1, "owner": ["id": 5, "name": "Ann"]]
        _ = try context.importObjects(from: [json], entity: "Item")
        let item = try #require(try context.fetch("Item", id: .integer(1)))
        #expect(item["ownerID"] == .integer(5))
        #expect(try context.exportJSON(item) == json)
    }

    /// The same with relationships exported as identifiers: the identifier replaces the
    /// `{"id": 5}` the attribute wrote there first.
    @Test func identifierStyleWithAnAttributeInsideTheRelationship() throws {
        let context = ObjectContext(store: InMemoryStore(model: try Self.model()))
        _ = try context.importObjects(from: [["id": 1, "owner": ["id": 5, "name": "Ann"]]], entity: "Item")
        let item = try #require(try context.fetch("Item", id: .integer(1)))
        var options = ExportOptions()
        options.relationshipStyle = .identifiers
        #expect(try context.exportJSON(item, options: options) == ["id": 1, "owner": 5])
    }

    /// No owner and no ownerID: `"owner": null` (the relationship's null replaces the
    /// `{"id": null}` of the attribute), which a re-import reads as no owner, not as an Owner
    /// without identity.
    @Test func neitherValueExportsNullAndReimportsWithoutANewOwner() throws {
        let context = ObjectContext(store: InMemoryStore(model: try Self.model()))
        // (`"owner": null` makes it a full object: `{"id": 1}` alone is a reference, a placeholder.)
        _ = try context.importObjects(from: [["id": 1, "owner": nil]], entity: "Item")
        let item = try #require(try context.fetch("Item", id: .integer(1)))
        let json = try context.exportJSON(item)
        #expect(json == ["id": 1, "owner": nil])
        _ = try context.importObjects(from: [json], entity: "Item")
        #expect(try context.fetch("Owner", matching: nil).count == 0)
    }
}
