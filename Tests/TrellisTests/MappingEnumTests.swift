import Foundation
import Testing
import Trellis

// Declared as Mappable's users write them: only `JSONMappable`, no code.
private enum Continent: String, JSONMappable { case asia, europe }
private enum Rank: Int, JSONMappable {
    case low = 1
    case high = 2
}
// Both ways, through the alias.
private enum Tint: String, JSONMappableEnum, Equatable { case red, blue }

private struct Place: JSONMappable {
    let continent: Continent
    let rank: Rank?
    let visited: [Continent]

    init(map: JSONMap) throws {
        continent = try map.from("location.continent")
        rank = try map.from("rank")
        visited = try map.from("visited")
    }
}

/// Raw-value enums conforming to plain ``JSONMappable`` read by their raw value (issue 19,
/// point 6), with the same errors as ``JSONMappableEnum``.
@Suite struct MappingEnumTests {
    @Test func plainJSONMappableEnumsReadTheirRawValue() throws {
        let place = try Place(json: ["location": ["continent": "asia"], "rank": "2", "visited": ["europe", "asia"]])
        #expect(place.continent == .asia)
        #expect(place.rank == .high)
        #expect(place.visited == [.europe, .asia])
        #expect(try Continent(json: "europe") == .europe)
        #expect(try [Rank](json: [1, "2"]) == [.low, .high])
        #expect(try Place(json: ["location": ["continent": "europe"], "visited": []]).rank == nil)
    }

    struct BadCase: Sendable, CustomTestStringConvertible {
        let json: JSONValue
        let code: MappingError.Code
        let path: String
        let description: String
        var testDescription: String { description }
    }

    static let badCases: [BadCase] = [
        BadCase(
            json: ["location": ["continent": "mars"], "visited": []], code: .invalidValue, path: "$.location.continent",
            description: #"$.location.continent: expected Continent, found string "mars": no case has the raw value mars"#),
        BadCase(
            json: ["location": ["continent": "asia"], "visited": ["asia", 7]], code: .invalidValue, path: "$.visited[1]",
            description: #"$.visited[1]: expected Continent, found number 7: no case has the raw value 7"#),
        BadCase(
            json: ["location": ["continent": ["asia"]], "visited": []], code: .typeMismatch, path: "$.location.continent",
            description: #"$.location.continent: expected Continent, found array ["asia"]: expected a string, a number or a boolean"#),
    ]

    @Test(arguments: badCases) func aRawValueNoCaseHasIsAnErrorNamingTheEnum(_ c: BadCase) throws {
        let error = try #require(throws: MappingError.self) { try Place(json: c.json) }
        #expect(error.code == c.code)
        #expect(error.path.description == c.path)
        #expect(error.expected == "Continent")
        #expect(error.description == c.description)
    }

    @Test func theAliasReadsAndWrites() throws {
        #expect(try Tint(json: "blue") == .blue)
        #expect(try Tint.red.jsonValue() == "red")
        #expect(try [Tint.blue, .red].jsonValue() == ["blue", "red"])
    }
}
