import Foundation
import Testing

@testable import Trellis

// Models exercising the typed layer's API the way users write it.

private struct City: JSONMappable, JSONRepresentable, Equatable {
    let name: String
    let population: Int?

    init(name: String, population: Int?) {
        self.name = name
        self.population = population
    }

    init(map: JSONMap) throws {
        name = try map.from("name")
        population = try map.from("population")
    }

    func write(to map: inout JSONWriteMap) throws {
        try map.write(name, to: "name")
        try map.write(population, to: "population")
    }
}

private enum Role: String, JSONMappableEnum {
    case admin, member
}

private enum Level: Int, JSONMappableEnum {
    case low = 1
    case high = 2
}

private struct User: JSONMappable, Equatable {
    let id: String
    let summary: String?
    let continent: String?
    let firstTag: String?
    let dotted: Int?
    let verbatim: Int?
    let cities: [City]
    let tags: [String]
    let role: Role
    let level: Level?

    init(map: JSONMap) throws {
        id = try map.from("id")
        summary = try map.from("summary")
        continent = try map.from("location.continent")
        firstTag = try map.from("tags.0")
        dotted = try map.from(#"a\.b"#)
        verbatim = try map.from(key: "a.b")
        cities = try map.from("cities") ?? []
        tags = try map.from("tags") ?? []
        role = try map.from("role")
        level = try map.from("level")
    }
}

/// An enum with associated values, read by a hand-written `init(map:)`.
private enum Shape: JSONMappable, JSONRepresentable, Equatable {
    case circle(radius: Double)
    case rectangle(width: Double, height: Double)

    init(map: JSONMap) throws {
        let type: String = try map.from("type")
        switch type {
        case "circle": self = .circle(radius: try map.from("radius"))
        case "rectangle": self = .rectangle(width: try map.from("size.width"), height: try map.from("size.height"))
        default: throw map.error(.invalidValue, at: "type", expected: "Shape", message: "unknown shape type \"\(type)\"")
        }
    }

    func write(to map: inout JSONWriteMap) throws {
        switch self {
        case .circle(let radius):
            try map.write("circle", to: "type")
            try map.write(radius, to: "radius")
        case .rectangle(let width, let height):
            try map.write("rectangle", to: "type")
            try map.write(width, to: "size.width")
            try map.write(height, to: "size.height")
        }
    }
}

/// A base class and a subclass, each reading and writing its own keys.
private class Vehicle: JSONMappable, JSONRepresentable {
    let wheels: Int

    required init(map: JSONMap) throws {
        wheels = try map.from("wheels")
    }

    func write(to map: inout JSONWriteMap) throws {
        try map.write(wheels, to: "wheels")
    }
}

private final class Car: Vehicle {
    let brand: String

    required init(map: JSONMap) throws {
        brand = try map.from("brand")
        try super.init(map: map)
    }

    override func write(to map: inout JSONWriteMap) throws {
        try super.write(to: &map)
        try map.write(brand, to: "brand")
    }
}

@Suite struct MappingModelTests {
    let userJSON: JSONValue = [
        "id": 42,
        "summary": "Mathematician",
        "location": ["continent": "Europe"],
        "tags": ["math", "engines"],
        "a.b": 7,
        "cities": [["name": "London", "population": "8900000"], ["name": "Paris"]],
        "role": "admin",
        "level": "2",
    ]

    @Test func readsEveryKindOfKeyPath() throws {
        let user = try User(json: userJSON)
        #expect(user.id == "42")
        #expect(user.summary == "Mathematician")
        #expect(user.continent == "Europe")
        #expect(user.firstTag == "math")
        #expect(user.dotted == 7)
        #expect(user.verbatim == 7)
        #expect(user.cities == [City(name: "London", population: 8_900_000), City(name: "Paris", population: nil)])
        #expect(user.tags == ["math", "engines"])
        #expect(user.role == .admin)
        #expect(user.level == .high)
    }

    @Test func defaultsApplyWhenMissingOrNull() throws {
        let user = try User(json: ["id": "1", "role": "member", "cities": nil])
        #expect(user.cities == [])
        #expect(user.tags == [])
        #expect(user.summary == nil)
        #expect(user.level == nil)
        #expect(user.firstTag == nil)
    }

    @Test func arraysOfModelsAtTheRoot() throws {
        let users = try [User](json: [["id": "1", "role": "admin"], ["id": 2, "role": "member"]])
        #expect(users.map(\.id) == ["1", "2"])
        #expect(users.map(\.role) == [.admin, .member])
    }

    @Test func unknownEnumRawValueNamesTheEnum() throws {
        let error = try #require(throws: MappingError.self) {
            try User(json: ["id": "1", "role": "owner"])
        }
        #expect(error.code == .invalidValue)
        #expect(error.path.description == "$.role")
        #expect(error.expected == "Role")
        #expect(error.description == #"$.role: expected Role, found string "owner": no case has the raw value owner"#)
    }

    @Test func lenientOptionalEnumIsNilForUnknownRawValue() throws {
        let user = try User(json: ["id": "1", "role": "admin", "level": 9])
        #expect(user.level == nil)
        let error = try #require(throws: MappingError.self) {
            try User(json: ["id": "1", "role": "admin", "level": 9], options: .init(strict: true))
        }
        #expect(error.code == .invalidValue)
        #expect(error.path.description == "$.level")
    }

    @Test(arguments: [
        (["type": "circle", "radius": 2] as JSONValue, Shape.circle(radius: 2)),
        (["type": "rectangle", "size": ["width": "3", "height": 4.5]] as JSONValue, Shape.rectangle(width: 3, height: 4.5)),
    ])
    fileprivate func enumWithAssociatedValues(json: JSONValue, expected: Shape) throws {
        #expect(try Shape(json: json) == expected)
        #expect(try Shape(json: expected.jsonValue()) == expected)
    }

    @Test func enumWithAssociatedValuesRejectsUnknownTag() throws {
        let error = try #require(throws: MappingError.self) {
            try [Shape](json: [["type": "circle", "radius": 1], ["type": "hexagon"]])
        }
        #expect(error.code == .invalidValue)
        #expect(error.description == #"$[1].type: expected Shape, found string "hexagon": unknown shape type "hexagon""#)
    }

    @Test func classInheritanceReadsAndWritesBaseAndSubclassKeys() throws {
        let car = try Car(json: ["wheels": 4, "brand": "Volvo"])
        #expect(car.wheels == 4)
        #expect(car.brand == "Volvo")
        #expect(try car.jsonValue() == ["wheels": 4, "brand": "Volvo"])
        let vehicles = try [Vehicle](json: [["wheels": 2]])
        #expect(vehicles.map(\.wheels) == [2])
        let error = try #require(throws: MappingError.self) { try Car(json: ["brand": "Volvo"]) }
        #expect(error.code == .missing)
        #expect(error.description == "$.wheels: missing value (expected Int)")
    }
}

/// A recursive model: a comment and its replies.
private struct Comment: JSONMappable, JSONRepresentable {
    let text: String
    let replies: [Comment]
    init(map: JSONMap) throws {
        text = try map.from("text")
        replies = try map.from("replies") ?? []
    }
    func write(to map: inout JSONWriteMap) throws {
        try map.write(text, to: "text")
        try map.write(replies, to: "replies")
    }
}

/// A class that can point at itself.
private final class Node: JSONRepresentable {
    var next: Node?
    func write(to map: inout JSONWriteMap) throws { try map.write(next, to: "next") }
}

@Suite struct MappingDepthTests {
    /// `{"text": "0", "replies": [{"text": "1", "replies": [ … ]}]}`, `depth` levels.
    static func thread(depth: Int) -> JSONValue {
        var value: JSONValue = ["text": .string(String(depth - 1)), "replies": []]
        for level in stride(from: depth - 2, through: 0, by: -1) {
            value = ["text": .string(String(level)), "replies": [value]]
        }
        return value
    }

    @Test func recursiveModelsReadWithinTheDepthLimit() throws {
        let comment = try Comment(json: Self.thread(depth: 200))
        var depth = 1
        var current = comment
        while let reply = current.replies.first {
            depth += 1
            current = reply
        }
        #expect(depth == 200)
        #expect(current.text == "199")
    }

    @Test func veryDeepDocumentsStopAtTheLimitInsteadOfOverflowingTheStack() throws {
        let error = try #require(throws: MappingError.self) {
            try Comment(json: Self.thread(depth: 5_000), options: .init(maximumDepth: 100))
        }
        #expect(error.code == .depthLimitExceeded)
        #expect(error.expected == "Comment")
        // Objects and arrays both count (as in the reader): the first comment beyond 100
        // levels is 102 steps down, `.replies[0]` 51 times.
        #expect(error.path.components.count == 102)
        #expect(error.path.description.hasPrefix("$.replies[0].replies[0]"))
        // Never lenient: the optional `replies` does not swallow it.
        #expect(error.message == "models nest deeper than 100 levels")
    }

    @Test func writingACycleStopsAtTheLimit() throws {
        let node = Node()
        node.next = node
        let error = try #require(throws: MappingError.self) { try node.jsonValue(options: .init(maximumDepth: 10)) }
        #expect(error.code == .depthLimitExceeded)
        #expect(error.path.description == "$" + String(repeating: ".next", count: 11))
        node.next = nil
    }
}

/// The README's typed-model example, verbatim.
private struct ReadmeUser: JSONMappable, JSONRepresentable {
    let id: Int64
    let name: String
    let city: String?
    init(map: JSONMap) throws {
        id = try map.from("id")
        name = try map.from("name")
        city = try map.from("location.city")
    }
    func write(to map: inout JSONWriteMap) throws {
        try map.write(id, to: "id")
        try map.write(name, to: "name")
        try map.write(city, to: "location.city")
    }
}

@Suite struct MappingReadmeTests {
    @Test func readmeExampleReadsAndWrites() throws {
        let user = try ReadmeUser(jsonString: #"{"id": "42", "name": "Ada", "location": {"city": "London"}}"#)
        #expect(user.id == 42)
        #expect(user.name == "Ada")
        #expect(user.city == "London")
        #expect(try user.jsonString() == #"{"id":42,"name":"Ada","location":{"city":"London"}}"#)
        let error = try #require(throws: MappingError.self) {
            try [ReadmeUser](jsonString: #"[{"id": 1, "name": "A"}, {"id": 2, "name": "B"}, {"id": 3.5, "name": "C"}]"#)
        }
        #expect(error.description == "$[2].id: expected Int64, found number 3.5: not a whole number")
    }
}

/// A custom leaf type: `"$123"` strings.
private struct Cents: JSONMapValue, JSONWritableValue, Equatable {
    var value: Int64
    static func mapValue(from map: JSONMap) throws -> Cents {
        guard case .string(let text) = try map.root, text.hasPrefix("$"), let value = Int64(text.dropFirst()) else {
            throw map.error(.invalidValue, expected: "Cents", message: "not like \"$123\"")
        }
        return Cents(value: value)
    }
    func jsonValue(in map: JSONWriteMap) throws -> JSONValue { .string("$\(value)") }
}

private struct Invoice: JSONMappable, JSONRepresentable, Equatable {
    let total: Cents
    let lines: [Cents]
    let raw: JSONValue?
    let literal: String?
    init(total: Cents, lines: [Cents], raw: JSONValue?, literal: String?) {
        self.total = total
        self.lines = lines
        self.raw = raw
        self.literal = literal
    }
    init(map: JSONMap) throws {
        total = try map.from("total")
        lines = try map.from("lines") ?? []
        raw = try map.rawValue("meta")
        literal = try map.rawValue(key: "a.b")?.stringValue
    }
    func write(to map: inout JSONWriteMap) throws {
        try map.write(total, to: "total")
        try map.write(lines, to: "lines")
        try map.write(raw, to: "meta")
        try map.write(literal, toKey: "a.b")
    }
}

@Suite struct MappingCustomLeafTests {
    @Test func customLeafTypesReadAndWrite() throws {
        let invoice = try Invoice(json: ["total": "$300", "lines": ["$100", "$200"], "meta": ["x": [1, nil]], "a.b": "dotted"])
        #expect(
            invoice
                == Invoice(
                    total: Cents(value: 300), lines: [Cents(value: 100), Cents(value: 200)],
                    raw: ["x": [1, nil]], literal: "dotted"))
        #expect(try invoice.jsonValue() == ["total": "$300", "lines": ["$100", "$200"], "meta": ["x": [1, nil]], "a.b": "dotted"])
        #expect(try Invoice(json: invoice.jsonValue()) == invoice)
    }

    @Test func customLeafErrorsAreLocatedAndLenient() throws {
        let error = try #require(throws: MappingError.self) { try Invoice(json: ["total": "$1", "lines": ["$1", "12"]], options: .init(strict: true)) }
        #expect(error.description == #"$.lines[1]: expected Cents, found string "12": not like "$123""#)
        #expect(try Invoice(json: ["total": "$1", "lines": ["$1", "12"]]).lines == [])
    }
}
