import Foundation
import Testing

@testable import Trellis

@Suite struct ExportTests {
    @Test func valuesTakeTheirTypesJSONForm() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"), GraphFixture.attribute("when", .date, key: "when"),
                    GraphFixture.attribute("price", .decimal, key: "price"), GraphFixture.attribute("blob", .binary, key: "blob"),
                    GraphFixture.attribute("ratio", .float, key: "ratio"), GraphFixture.attribute("note", .string, key: "meta.note"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        let context = ObjectContext(store: InMemoryStore(model: model))
        _ = try context.importObjects(
            from: [
                [
                    "id": 9_007_199_254_740_993, "when": "2011-08-21T20:02:52.249+02:00", "price": "19.90", "blob": "AAEC", "ratio": 0.1,
                ]
            ], entity: "Item")
        let item = try #require(try context.fetch("Item", id: .integer(9_007_199_254_740_993)))
        #expect(
            try context.exportJSON(item) == [
                "id": 9_007_199_254_740_993, "when": "2011-08-21T18:02:52.249Z", "price": .number(JSONNumber(text: "19.9")!),
                "blob": "AAEC", "ratio": .number(JSONNumber(text: "0.1")!), "meta": ["note": nil],
            ])
        var options = ExportOptions()
        options.nilPolicy = .omit
        #expect(try context.exportJSON(item, options: options)["meta"] == nil)
    }

    /// `code` (string) at `code`, `detail` (integer) at `code.detail`, and a to-one `owner` with
    /// `ownerID` at `owner.id`: key paths that run through each other.
    static func overlappingModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"), GraphFixture.attribute("detail", .integer64, key: "code.detail"),
                    GraphFixture.attribute("code", .string, key: "code"), GraphFixture.attribute("ownerID", .integer64, key: "owner.id"),
                ],
                relationships: [GraphFixture.relationship("owner", "Owner", key: "owner")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(name: "Owner", attributes: [GraphFixture.attribute("id", .integer64, key: "id")], userInfo: ["identityAttributes": "id"]),
        ])
    }

    @Test func aNullNeverReplacesNorBlocksAnotherPropertysValue() throws {
        let context = ObjectContext(store: InMemoryStore(model: try Self.overlappingModel()))
        // `code` is a string, so `code.detail` reads as missing; `owner` is absent, `owner.id` is 5.
        _ = try context.importObjects(from: [["id": 1, "code": "x", "owner": ["id": 5]]], entity: "Item")
        let one = try #require(try context.fetch("Item", id: .integer(1)))
        #expect(one["detail"] == nil)
        try one.setValue(nil, forKey: "ownerID")
        #expect(try context.exportJSON(one) == ["id": 1, "code": "x", "owner": ["id": 5]])
        try one.setDestination(nil, forKey: "owner")
        try one.setValue(.integer(6), forKey: "ownerID")
        #expect(try context.exportJSON(one) == ["id": 1, "code": "x", "owner": ["id": 6]])
    }

    @Test func twoValuesAtPathsThatCrossAreAnError() throws {
        let context = ObjectContext(store: InMemoryStore(model: try Self.overlappingModel()))
        let item = try context.insert("Item")
        try item.setValue(.integer(1), forKey: "id")
        try item.setValue(.integer(7), forKey: "detail")
        try item.setValue(.string("x"), forKey: "code")
        let error = #expect(throws: ExportError.self) { try context.exportJSON(item) }
        #expect(error?.code == .keyPathConflict)
    }

    @Test func unorderedToManysAreSortedByIdentity() throws {
        let context = ObjectContext(store: InMemoryStore(model: try GraphFixture.grootModel(powersOrdered: false)))
        _ = try context.importObjects(from: [["id": 1, "powers": [["id": 30], ["id": 4], ["id": 200]], "publisher": nil]], entity: "Character")
        let character = try #require(try context.fetch("Character", id: .integer(1)))
        var options = ExportOptions()
        options.relationshipStyle = .identifiers
        #expect(
            try context.exportJSON(character, options: options) == [
                "id": 1, "name": nil, "real_name": nil, "powers": [4, 30, 200], "publisher": nil,
            ])
    }

    /// A composite identifier is an object of the identity key paths, so the export imports
    /// back (an array of values did not: an import takes objects or single identifiers). An
    /// entity without identity attributes has no identifier: nested in both styles (a `null`
    /// there imported as clearing the link).
    @Test func compositeIdentitiesAreObjectsOfTheirKeyPathsAndEntitiesWithoutIdentityNested() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Hand", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [
                    GraphFixture.relationship("cards", "Card", toMany: true, ordered: true, key: "cards"),
                    GraphFixture.relationship("note", "Note", key: "note"),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Card",
                attributes: [
                    GraphFixture.attribute("suit", .string, key: "suit"),
                    GraphFixture.attribute("value", .string, key: "value"),
                ],
                userInfo: ["identityAttributes": "suit value"]),
            EntityDescription(name: "Note", attributes: [GraphFixture.attribute("text", .string, key: "text")]),
        ])
        let context = ObjectContext(store: InMemoryStore(model: model))
        _ = try context.importObjects(
            from: [
                [
                    "id": 1, "cards": [["suit": "Hearts", "value": "A"], ["suit": "Clubs", "value": "2"]],
                    "note": ["text": "hi"],
                ]
            ], entity: "Hand")
        let hand = try #require(try context.fetch("Hand", id: .integer(1)))
        var options = ExportOptions()
        options.relationshipStyle = .identifiers
        let exported = try context.exportJSON(hand, options: options)
        #expect(exported == ["id": 1, "cards": [["suit": "Hearts", "value": "A"], ["suit": "Clubs", "value": "2"]], "note": ["text": "hi"]])
        #expect(
            try context.exportJSON(hand) == [
                "id": 1, "cards": [["suit": "Hearts", "value": "A"], ["suit": "Clubs", "value": "2"]], "note": ["text": "hi"],
            ])

        // The export imports back into another store: the same hand, linking the same cards.
        // (Top-level objects of the identity only are references: the cards are made as
        // placeholders, and the hand's nested objects, always full objects, complete them.)
        let copy = ObjectContext(store: InMemoryStore(model: model))
        _ = try copy.importObjects(from: [["suit": "Clubs", "value": "2"], ["suit": "Hearts", "value": "A"]], entity: "Card")
        #expect(try copy.fetch("Card").map(\.isPlaceholder) == [true, true])
        let report = try copy.importObjects(from: [exported], entity: "Hand")
        #expect(report.counts(for: "Card") == .init(updated: 2))
        #expect(try copy.fetch("Card").map(\.isPlaceholder) == [false, false])
        let imported = try #require(try copy.fetch("Hand", id: .integer(1)))
        #expect(try copy.exportJSON(imported, options: options) == exported)
    }

    @Test func longChainsStopAtTheMaximumDepth() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Status", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [GraphFixture.relationship("retweeted", "Status", key: "retweeted_status")],
                userInfo: ["identityAttributes": "id"])
        ])
        let context = ObjectContext(store: InMemoryStore(model: model))
        var json: JSONValue = ["id": 0]
        for i in 1..<200 { json = ["id": JSONValue(i), "retweeted_status": json] }
        _ = try context.importObjects(from: [json], entity: "Status")
        let top = try #require(try context.fetch("Status", id: .integer(199)))
        var options = ExportOptions()
        options.maximumDepth = 3
        #expect(
            try context.exportJSON(top, options: options) == [
                "id": 199, "retweeted_status": ["id": 198, "retweeted_status": ["id": 197, "retweeted_status": 196]],
            ])
        var depth = 0
        var node = try context.exportJSON(top)
        while case .object(let object) = node, let next = object["retweeted_status"] {
            depth += 1
            node = next
        }
        #expect(depth == 64)
        #expect(node == 135)
    }

    @Test func aReverseTransformerThatThrowsIsAnErrorNamingTheObject() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("code", .string, key: "code", transformer: "Broken"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        struct Nope: Error {}
        var registry = JSONValueTransformerRegistry()
        registry.register(
            JSONValueTransformer(
                name: "Broken", forward: { $0.stringValue.map(AttributeValue.string) },
                reverse: { _ in throw TransformError(code: .invalidValue, transformerName: "Broken", message: "no way back") }))
        let context = ObjectContext(store: InMemoryStore(model: model), bindings: MappingBindings(transformers: registry))
        _ = try context.importObjects(from: [["id": 1, "code": "x"]], entity: "Item")
        let item = try #require(try context.fetch("Item", id: .integer(1)))
        do {
            _ = try context.exportJSON(item)
            Issue.record("expected an error")
        } catch let error as ExportError {
            #expect(error.code == .transformFailed)
            #expect(error.description == #"Item/1.code: value transformer 'Broken' cannot reverse "x": no way back"#)
        }
    }
}
