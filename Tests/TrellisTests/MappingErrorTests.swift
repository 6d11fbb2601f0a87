import Foundation
import Testing

@testable import Trellis

private struct Address: JSONMappable {
    let city: String
    let zip: Int
    init(map: JSONMap) throws {
        city = try map.from("city")
        zip = try map.from("zip")
    }
}

private struct Person: JSONMappable {
    let name: String
    let address: Address
    let previous: [Address]?
    init(map: JSONMap) throws {
        name = try map.from("name")
        address = try map.from("address")
        previous = try map.from("previous")
    }
}

private struct Document: JSONMappable {
    let people: [Person]
    let secondItemName: String?
    let dotted: Int?
    let scores: [String: Int]?
    init(map: JSONMap) throws {
        people = try map.from("people")
        secondItemName = try map.from("items.1.name")
        dotted = try map.from(key: "a.b")
        scores = try map.from("scores")
    }
}

@Suite struct MappingErrorTests {
    struct PathCase: Sendable, CustomTestStringConvertible {
        let json: JSONValue
        let code: MappingError.Code
        let description: String
        var testDescription: String { description }
    }

    static let person: JSONValue = ["name": "Ada", "address": ["city": "London", "zip": 1]]

    @Test(arguments: [
        PathCase(
            json: ["people": [person, person, ["name": "Bob", "address": ["city": ["x"], "zip": 2]]]],
            code: .typeMismatch,
            description: #"$.people[2].address.city: expected String, found array ["x"]: expected a string, a number or a boolean"#),
        PathCase(
            json: ["people": [["name": "Ada", "address": ["city": "London"]]]],
            code: .missing,
            description: "$.people[0].address.zip: missing value (expected Int)"),
        PathCase(
            json: ["people": [["name": "Ada", "address": nil]]],
            code: .null,
            description: "$.people[0].address: null value (expected Address)"),
        PathCase(
            json: ["people": [["name": "Ada", "address": "London"]]],
            code: .typeMismatch,
            description: #"$.people[0].address: expected object, found string "London": cannot read "city" (String) from a string"#),
        PathCase(
            json: ["people": [person, nil]],
            code: .null,
            description: "$.people[1]: null element (expected Person)"),
        PathCase(
            json: ["people": "everyone"],
            code: .typeMismatch,
            description: #"$.people: expected [Person], found string "everyone""#),
        PathCase(
            json: [:],
            code: .missing,
            description: "$.people: missing value (expected [Person])"),
        PathCase(
            json: ["people": [["name": "Ada", "address": ["city": "London", "zip": "1e3x"]]]],
            code: .invalidValue,
            description: #"$.people[0].address.zip: expected Int, found string "1e3x": not a decimal number"#),
    ])
    func errorsNameTheFullPath(_ c: PathCase) throws {
        let error = try #require(throws: MappingError.self) { try Document(json: c.json) }
        #expect(error.code == c.code)
        #expect(error.description == c.description)
    }

    @Test func strictOptionalsReportKeyPathsIndexesAndLiteralKeys() throws {
        let strict = JSONMap.Options(strict: true)
        let base: JSONObject = ["people": []]

        var json = base
        json["items"] = [["name": "a"], ["name": ["x": 1]]]
        var error = try #require(throws: MappingError.self) { try Document(json: .object(json), options: strict) }
        #expect(error.description == #"$.items[1].name: expected String, found object {"x":1}: expected a string, a number or a boolean"#)
        #expect(error.path == JSONPath(components: [.key("items"), .index(1), .key("name")]))

        json = base
        json["a.b"] = "many"
        error = try #require(throws: MappingError.self) { try Document(json: .object(json), options: strict) }
        #expect(error.description == #"$["a.b"]: expected Int, found string "many": not a decimal number"#)

        json = base
        json["scores"] = ["ada": 1, "bob": true]
        error = try #require(throws: MappingError.self) { try Document(json: .object(json), options: strict) }
        #expect(error.description == "$.scores.bob: expected Int, found boolean true: expected a number or a numeric string")

        json = base
        json["people"] = [["name": "Ada", "address": ["city": "L", "zip": 1], "previous": [["city": "P", "zip": 1.5]]]]
        error = try #require(throws: MappingError.self) { try Document(json: .object(json), options: strict) }
        #expect(error.description == "$.people[0].previous[0].zip: expected Int, found number 1.5: not a whole number")
    }

    @Test func lenientOptionalsSwallowNestedFailures() throws {
        var json = JSONObject()
        json["people"] = [["name": "Ada", "address": ["city": "L", "zip": 1], "previous": [["city": "P"]]]]
        json["items"] = [["name": "a"], ["name": ["x": 1]]]
        json["a.b"] = "many"
        json["scores"] = ["ada": 1, "bob": true]
        let document = try Document(json: .object(json))
        #expect(document.people[0].previous == nil)
        #expect(document.secondItemName == nil)
        #expect(document.dotted == nil)
        #expect(document.scores == nil)
    }

    @Test func foundValueIsShortenedInTheDescription() throws {
        let long = String(repeating: "abcdefghij", count: 100)
        let error = try #require(throws: MappingError.self) { try MappingBox<Int>(json: ["v": .string(long)]) }
        #expect(error.found == .string(long))
        #expect(error.description == #"$.v: expected Int, found string "abcdefghijabcdefghijabcdefghijabcdefghi…: not a decimal number"#)
    }

    @Test func catchByCode() {
        var caught = ""
        do {
            _ = try MappingBox<Int8>(json: ["v": 1000])
        } catch MappingError.Code.overflow {
            caught = "overflow"
        } catch {
            caught = "other"
        }
        #expect(caught == "overflow")
    }

    @Test func hugeDocumentsOnlyBuildThePathOnError() throws {
        // 10,000 people, the last one broken: the path is exact.
        var people = Array(repeating: Self.person, count: 10_000)
        people[9_999] = ["name": "Z", "address": ["city": "C", "zip": -1.25]]
        let error = try #require(throws: MappingError.self) { try Document(json: ["people": .array(people)]) }
        #expect(error.description == "$.people[9999].address.zip: expected Int, found number -1.25: not a whole number")
    }
}
