import Foundation
import Testing

@testable import Trellis

/// The Groot fixture's Character, read from JSON and from the stored object.
private struct Character: JSONMappable, Equatable {
    struct Power: JSONMappable, Equatable {
        let id: Int64
        let name: String
        init(id: Int64, name: String) {
            self.id = id
            self.name = name
        }
        init(map: JSONMap) throws {
            id = try map.from("id")
            name = try map.from("name")
        }
    }

    let id: String
    let name: String
    let realName: String?
    let powers: [Power]
    let publisher: String?

    init(map: JSONMap) throws {
        id = try map.from("id")
        name = try map.from("name")
        realName = try map.from("realName")
        powers = try map.from("powers") ?? []
        publisher = try map.from("publisher.name")
    }
}

private struct Strict: JSONMappable {
    let powerIDs: [UInt8]
    let publisherCount: Int
    init(map: JSONMap) throws {
        powerIDs = try map.from("powers.1.name") ?? []
        publisherCount = try map.from("publisher.characters.0.powers.1.name")
    }
}

private struct Unknown: JSONMappable {
    let x: String
    init(map: JSONMap) throws { x = try map.from("nickname") }
}

@Suite struct MappingManagedObjectTests {
    let context: ObjectContext

    init() throws {
        context = ObjectContext(store: InMemoryStore(model: try GraphFixture.grootModel()))
        _ = try context.importObjects(from: GraphFixture.batman, entity: "Character")
    }

    @Test func sameInitReadsAManagedObject() throws {
        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        let character = try Character(managedObject: batman)
        #expect(character.id == "1699")
        #expect(character.name == "Batman")
        #expect(character.realName == "Bruce Wayne")
        #expect(character.powers == [Character.Power(id: 4, name: "Agility"), Character.Power(id: 9, name: "Insanely Rich")])
        #expect(character.publisher == "DC Comics")

        // The same init reads the JSON form (with property names as keys).
        let json: JSONValue = [
            "id": 1699, "name": "Batman", "realName": "Bruce Wayne",
            "powers": [["id": "4", "name": "Agility"], ["id": 9, "name": "Insanely Rich"]],
            "publisher": ["name": "DC Comics"],
        ]
        #expect(try Character(json: json) == character)
    }

    @Test func managedObjectErrorsNameThePropertyPath() throws {
        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        let error = try #require(throws: MappingError.self) { try Strict(managedObject: batman) }
        #expect(error.code == .invalidValue)
        #expect(error.description == #"$.publisher.characters[0].powers[1].name: expected Int, found string "Insanely Rich": not a decimal number"#)
        let unknown = try #require(throws: MappingError.self) { try Unknown(managedObject: batman) }
        #expect(unknown.description == "$.nickname: missing value (expected String)")
    }

    @Test func rootOfAManagedObjectStopsAfterOneLevelOfRelationships() throws {
        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        let root = try JSONMap(record: batman).root
        #expect(
            root == [
                "id": 1699, "name": "Batman", "realName": "Bruce Wayne",
                "powers": [["id": 4, "name": "Agility"], ["id": 9, "name": "Insanely Rich"]],
                "publisher": ["id": 10, "name": "DC Comics"],
            ])
    }
}
