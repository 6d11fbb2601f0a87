import Testing

@testable import Trellis

@Suite struct ObjectModelTests {
    static func character(_ extra: [String: String] = ["identityAttributes": "id"]) -> EntityDescription {
        EntityDescription(
            name: "Character",
            attributes: [
                AttributeDescription(name: "id", type: .integer64, isOptional: false, userInfo: ["JSONKeyPath": "id"]),
                AttributeDescription(name: "realName", type: .string, userInfo: ["JSONKeyPath": "real_name"]),
            ],
            relationships: [
                RelationshipDescription(
                    name: "powers", destinationEntity: "Power", inverseName: "characters",
                    isToMany: true, userInfo: ["JSONKeyPath": "powers"])
            ],
            userInfo: extra)
    }

    static let power = EntityDescription(
        name: "Power",
        attributes: [AttributeDescription(name: "id", type: .integer64, userInfo: ["JSONKeyPath": "id"])],
        relationships: [
            RelationshipDescription(
                name: "characters", destinationEntity: "Character",
                inverseName: "powers", isToMany: true)
        ],
        userInfo: ["identityAttribute": "id"])

    @Test func resolvesIdentityMappingsAndInheritance() throws {
        let villain = EntityDescription(
            name: "Villain", parentName: "Character",
            attributes: [AttributeDescription(name: "lair", type: .string)],
            userInfo: ["identityAttributes": "realName, lair"])
        let model = try ObjectModel(entities: [Self.character(), Self.power, villain])
        let v = try model.requireEntity("Villain")
        #expect(v.attributes.map(\.name) == ["id", "realName", "lair"])
        #expect(v.identityAttributes.map(\.name) == ["id", "realName", "lair"])
        #expect(v.identityStrategy == .composite)
        #expect(v.rootName == "Character")
        #expect(model.entity(named: "Character")?.kindNames == ["Character", "Villain"])
        #expect(model.entity(named: "Power")?.identityStrategy == .unique)
        #expect(v.attributeMappings.map(\.keyPath.description) == ["id", "real_name"])
        #expect(model.entity("Villain", isKindOf: "Character"))
    }

    @Test func reportsEveryProblemWithoutTrapping() {
        let badCharacter = EntityDescription(
            name: "Character",
            attributes: [
                AttributeDescription(
                    name: "id", type: .integer16, defaultValue: .integer(1 << 20),
                    userInfo: ["JSONKeyPath": "a..b"])
            ],
            relationships: [
                RelationshipDescription(name: "powers", destinationEntity: "Power", inverseName: "owner", isToMany: true),
                RelationshipDescription(name: "team", destinationEntity: "Team"),
            ],
            userInfo: ["identityAttributes": "id, uuid"])
        let a = EntityDescription(name: "A", parentName: "B")
        let b = EntityDescription(name: "B", parentName: "A")
        do {
            _ = try ObjectModel(entities: [badCharacter, Self.power, a, b])
            Issue.record("expected a validation error")
        } catch let error as ModelValidationError {
            let found = Set(error.problems.map { "\($0.code.rawValue) \($0.entity).\($0.property ?? "")" })
            #expect(
                found == [
                    "unknownIdentityAttribute Character.uuid",
                    "invalidKeyPath Character.id",
                    "invalidDefaultValue Character.id",
                    "inverseMismatch Character.powers",
                    "inverseMismatch Power.characters",  // its inverse 'powers' names 'owner', not it
                    "unknownDestination Character.team",
                    "inheritanceCycle A.",
                    "inheritanceCycle B.",
                ])
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func namesWithQuotesSemicolonsSpacesAndKeywordsAreValid() throws {
        let order = EntityDescription(
            name: "Order",
            attributes: ["select", "group", "a\"b", "x; DROP TABLE y", "it's", "a b.c"].map { AttributeDescription(name: $0, type: .string) },
            relationships: [RelationshipDescription(name: "from", destinationEntity: "Order'); DROP TABLE \"Order\"; --")])
        let other = EntityDescription(
            name: "Order'); DROP TABLE \"Order\"; --",
            attributes: [AttributeDescription(name: "index", type: .integer64)], userInfo: ["identityAttributes": "index"])
        let model = try ObjectModel(entities: [order, other])
        #expect(model.entity(named: "Order")?.attributes.map(\.name) == ["select", "group", "a\"b", "x; DROP TABLE y", "it's", "a b.c"])
        #expect(model.entity(named: "Order'); DROP TABLE \"Order\"; --")?.identityAttributes.map(\.name) == ["index"])
    }

    /// Control characters cannot be part of a name: SQLite identifiers end at U+0000, XML
    /// cannot hold them, messages would be garbled. The messages show them escaped.
    @Test func namesWithControlCharactersOrEmptyPropertyNamesAreRefused() throws {
        let entities = [
            EntityDescription(name: "T\u{0}x", attributes: [AttributeDescription(name: "a\u{1B}[31m", type: .string)]),
            EntityDescription(
                name: "U", attributes: [AttributeDescription(name: "", type: .string), AttributeDescription(name: "tab\there", type: .string)],
                relationships: [RelationshipDescription(name: "del\u{7F}", destinationEntity: "U")]),
        ]
        let error = try #require(throws: ModelValidationError.self) { try ObjectModel(entities: entities) }
        #expect(error.problems.map(\.code) == Array(repeating: .invalidName, count: 5))
        #expect(
            error.description == """
                invalid model (5 problems):
                  entity T\\u0000x: the name contains the control character U+0000; names cannot hold control characters (U+0000–U+001F, U+007F)
                  entity T\\u0000x, property a\\u001b[31m: the name contains the control character U+001B; names cannot hold control characters (U+0000–U+001F, U+007F)
                  entity U, property : a property needs a name
                  entity U, property tab\\u0009here: the name contains the control character U+0009; names cannot hold control characters (U+0000–U+001F, U+007F)
                  entity U, property del\\u007f: the name contains the control character U+007F; names cannot hold control characters (U+0000–U+001F, U+007F)
                """)
    }

    @Test func unknownEntityListsTheModelsEntities() throws {
        let model = try ObjectModel(entities: [Self.character(), Self.power])
        #expect(throws: ModelError.self) { try model.requireEntity("Hero") }
        do { _ = try model.requireEntity("Hero") } catch let e as ModelError {
            #expect(e.description == "entity Hero: unknown entity 'Hero'; the model has: Character, Power")
        }
    }

    @Test(arguments: [
        ("userID", "user_id"), ("realName", "real_name"), ("profileImageURL", "profile_image_url"),
        ("URLString", "url_string"), ("id", "id"), ("retweetCount2", "retweet_count2"),
    ])
    func snakeCaseConvention(property: String, key: String) {
        #expect(KeyConvention.snakeCase.jsonKey(forPropertyName: property) == key)
    }
}
