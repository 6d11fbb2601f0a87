import Foundation
import Testing
import Trellis
import TrellisModelFile

/// docs/ModelInference.md, "Property names" and "Entity names".
@Suite struct InferenceNamingTests {
    struct PropertyCase: CustomTestStringConvertible, Sendable {
        var key: String
        var name: String
        /// The JSONKeyPath annotation (default: the key itself).
        var keyPath: String?
        var entity = "User"
        var testDescription: String { key }
    }

    static let propertyCases: [PropertyCase] = [
        PropertyCase(key: "real_name", name: "realName"),
        PropertyCase(key: "user_id", name: "userID"),
        PropertyCase(key: "profile_image_url_https", name: "profileImageURLHTTPS"),
        PropertyCase(key: "id_str", name: "idStr"),
        PropertyCase(key: "seatCategoryId", name: "seatCategoryID"),
        PropertyCase(key: "topicIds", name: "topicIDs"),
        PropertyCase(key: "URLString", name: "urlString"),
        PropertyCase(key: "html_url", name: "htmlURL"),
        PropertyCase(key: "first name", name: "firstName"),
        PropertyCase(key: "a.b", name: "aB", keyPath: #"a\.b"#),
        PropertyCase(key: #"back\slash"#, name: "backSlash", keyPath: #"back\\slash"#),
        PropertyCase(key: "café", name: "cafe"),
        PropertyCase(key: "+1", name: "plus1"),
        PropertyCase(key: "-1", name: "minus1"),
        PropertyCase(key: "description", name: "userDescription"),
        PropertyCase(key: "class", name: "characterClass", entity: "Character"),
        PropertyCase(key: "default", name: "labelDefault", entity: "Label"),
        PropertyCase(key: "self", name: "userSelf"),
        PropertyCase(key: "hash", name: "userHash"),
        PropertyCase(key: "2fa", name: "user2fa"),
        PropertyCase(key: "名前", name: "user名前"),
        PropertyCase(key: "138586341", name: "user138586341"),
        PropertyCase(key: "!!!", name: "value"),
    ]

    @Test(arguments: propertyCases)
    func propertyName(_ c: PropertyCase) throws {
        let object: JSONValue = .object(JSONObject([("id", JSONValue(1)), (c.key, .string("x"))]))
        let inference = ModelInference(rootEntity: c.entity)
        try inference.add(object, at: .root)
        let inferred = try inference.inferredModel()
        let attribute = try #require(inferred.entity(c.entity)?.attributes.last)
        #expect(attribute.name == c.name)
        #expect(attribute.jsonKeyPathText == (c.keyPath ?? c.key))
        // The annotation reads back the key.
        let path = try JSONKeyPath(parsing: try #require(attribute.jsonKeyPathText))
        #expect(path.lookup(in: object) == .present(.string("x")))
    }

    @Test func keysGivingTheSameNameAreNumberedInKeyOrder() throws {
        let inferred = try InferenceSamples.infer(#"[{"id": 1, "id_str": "1", "idStr": "2", "id-str": "3"}]"#)
        #expect(
            inferred.attributeSummary("Item") == [
                "id: integer64 required @ id", "idStr: string required @ id_str", "idStr2: string required @ idStr",
                "idStr3: string required @ id-str",
            ])
    }

    @Test func theEmptyKeyIsNotMapped() throws {
        let inferred = try InferenceSamples.infer(#"[{"id": 1, "": "x"}]"#)
        #expect(inferred.attributeSummary("Item") == ["id: integer64 required @ id"])
    }

    struct EntityCase: CustomTestStringConvertible, Sendable {
        var key: String
        var toMany: Bool
        var entity: String
        var testDescription: String { key }
    }

    static let entityCases: [EntityCase] = [
        EntityCase(key: "statuses", toMany: true, entity: "Status"),
        EntityCase(key: "hashtags", toMany: true, entity: "Hashtag"),
        EntityCase(key: "user_mentions", toMany: true, entity: "UserMention"),
        EntityCase(key: "powers", toMany: true, entity: "Power"),
        EntityCase(key: "categories", toMany: true, entity: "Category"),
        EntityCase(key: "people", toMany: true, entity: "Person"),
        EntityCase(key: "addresses", toMany: true, entity: "Address"),
        EntityCase(key: "boxes", toMany: true, entity: "Box"),
        EntityCase(key: "media", toMany: true, entity: "Media"),
        EntityCase(key: "seatCategories", toMany: true, entity: "SeatCategory"),
        EntityCase(key: "urls", toMany: true, entity: "URL"),
        EntityCase(key: "heroes", toMany: true, entity: "Hero"),
        EntityCase(key: "movies", toMany: true, entity: "Movie"),
        EntityCase(key: "settings", toMany: false, entity: "Settings"),
        EntityCase(key: "retweeted_status", toMany: false, entity: "RetweetedStatus"),
        EntityCase(key: "type", toMany: false, entity: "ItemType"),
        EntityCase(key: "2fa", toMany: false, entity: "Item2fa"),
    ]

    @Test(arguments: entityCases)
    func entityName(_ c: EntityCase) throws {
        let nested = #"{"id": 7, "label": "x"}"#
        let value = c.toMany ? "[\(nested)]" : nested
        let inferred = try InferenceSamples.infer(#"[{"id": 1, "\#(c.key)": \#(value)}]"#)
        #expect(inferred.entityNames == ["Item", c.entity])
    }

    @Test func entityNameCollisionsTakeTheParentNameThenANumber() throws {
        let inferred = try InferenceSamples.infer(
            #"""
            [{"id": 1, "order": {"id": 2, "total": 3, "items": [{"sku": "a", "count": 1}]}, "cart_item": {"id": 3, "note": "n"},
              "cart": {"id": 4, "saved": true, "items": [{"product": "b", "price": 2.5}]}}]
            """#, entity: "Store")
        // Cart's items would be Item (taken by Order's), then CartItem (taken): CartItem2.
        #expect(inferred.entityNames == ["Store", "Order", "CartItem", "Cart", "Item", "CartItem2"])
        #expect(inferred.relationship("Cart", "items")?.destinationEntity == "CartItem2")
    }

    @Test func aNestedObjectNamedLikeTheRootIsTheRootEntity() throws {
        let inferred = try InferenceSamples.infer(#"[{"id": 1, "total": 3, "cart": {"id": 2, "total": 4}}]"#, entity: "Cart")
        #expect(inferred.entityNames == ["Cart"])
        #expect(inferred.relationship("Cart", "cart")?.destinationEntity == "Cart")
    }

    @Test func inverseNamesUseViaForSecondAndSelfRelationships() throws {
        let inferred = try InferenceSamples.infer(
            #"""
            [{"id": 1, "text": "a", "user": {"id": 9, "name": "n", "screen_name": "s"},
              "mentions": [{"id": 9, "name": "n", "screen_name": "s"}],
              "retweeted_status": {"id": 2, "text": "b", "user": {"id": 8, "name": "m", "screen_name": "t"}}}]
            """#, entity: "Status")
        #expect(
            inferred.relationshipSummary("Status") == [
                "user -> User (one) inverse statuses @ user",
                "mentions -> User (many ordered) inverse statusesViaMentions @ mentions",
                "retweetedStatus -> Status (one) inverse statusesViaRetweetedStatus @ retweeted_status",
                "statusesViaRetweetedStatus -> Status (many) inverse retweetedStatus @ -",
            ])
    }
}
