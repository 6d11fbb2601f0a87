import Foundation
import Testing

@testable import Trellis

extension MappingTransformer where Value == Date {
    /// A custom transformer: calendar days as `yyyyMMdd` strings, in UTC.
    static var compactDay: MappingTransformer<Date> {
        MappingTransformer(
            name: "compact-day",
            forward: { json in
                guard case .string(let text) = json, text.count == 8, let number = Int(text) else {
                    throw MappingError.Code.invalidValue
                }
                var components = DateComponents()
                components.year = number / 10_000
                components.month = number / 100 % 100
                components.day = number % 100
                guard components.isValidDate(in: .utcGregorian), let date = Calendar.utcGregorian.date(from: components) else {
                    throw MappingError.Code.invalidValue
                }
                return date
            },
            reverse: { date in
                let c = Calendar.utcGregorian.dateComponents([.year, .month, .day], from: date)
                return .string(String(format: "%04d%02d%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0))
            })
    }
}

extension Calendar {
    static var utcGregorian: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        return calendar
    }
}

private enum Tone: String, JSONMappableEnum, Equatable { case light, dark }
private enum Priority: UInt8, JSONMappableEnum, Equatable {
    case low = 1
    case high = 9
}

/// Every supported property type, read and written.
private struct Everything: JSONMappable, JSONRepresentable, Equatable {
    var int: Int = -1
    var int8: Int8 = .min
    var int16: Int16 = .min
    var int32: Int32 = .min
    var int64: Int64 = .min
    var uint: UInt = .max
    var uint8: UInt8 = .max
    var uint16: UInt16 = .max
    var uint32: UInt32 = .max
    var uint64: UInt64 = .max
    var float: Float = 0.1
    var double: Double = 0.1
    var decimal: Decimal = Decimal(string: "12345678901234567890.123456789")!
    var bool: Bool = true
    var string: String = "Ada \"the\" Countess ☃"
    // A fraction a `Double` holds exactly, so that equality after a round trip is exact.
    var date: Date = Date(timeIntervalSince1970: 1_313_949_772.25)
    var url: URL = URL(string: "https://example.com/a?b=c")!
    var uuid: UUID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    var data: Data = Data([0, 1, 2, 250])
    var json: JSONValue = ["any": [1, "two", nil, true]]
    var array: [Int] = [1, 2, 3]
    var dictionary: [String: Double] = ["b": 2.5, "a": 1]
    var nested: [[String: [Int]]] = [["x": [1]], [:]]
    var tone: Tone = .dark
    var priority: Priority = .high
    var optional: String? = nil
    var day: Date = Date(timeIntervalSince1970: 1_313_884_800)  // 2011-08-21
    var stamp: Date = Date(timeIntervalSince1970: 1_313_949_772)
    var city: String = "London"

    init() {}

    init(map: JSONMap) throws {
        int = try map.from("int")
        int8 = try map.from("int8")
        int16 = try map.from("int16")
        int32 = try map.from("int32")
        int64 = try map.from("int64")
        uint = try map.from("uint")
        uint8 = try map.from("uint8")
        uint16 = try map.from("uint16")
        uint32 = try map.from("uint32")
        uint64 = try map.from("uint64")
        float = try map.from("float")
        double = try map.from("double")
        decimal = try map.from("decimal")
        bool = try map.from("bool")
        string = try map.from("string")
        date = try map.from("date")
        url = try map.from("url")
        uuid = try map.from("uuid")
        data = try map.from("data")
        json = try map.from("json")
        array = try map.from("array")
        dictionary = try map.from("dictionary")
        nested = try map.from("nested")
        tone = try map.from("tone")
        priority = try map.from("priority")
        optional = try map.from("optional")
        day = try map.from("day", using: .compactDay)
        stamp = try map.from("stamp", using: .epochSeconds)
        city = try map.from("location.city")
    }

    func write(to map: inout JSONWriteMap) throws {
        try map.write(int, to: "int")
        try map.write(int8, to: "int8")
        try map.write(int16, to: "int16")
        try map.write(int32, to: "int32")
        try map.write(int64, to: "int64")
        try map.write(uint, to: "uint")
        try map.write(uint8, to: "uint8")
        try map.write(uint16, to: "uint16")
        try map.write(uint32, to: "uint32")
        try map.write(uint64, to: "uint64")
        try map.write(float, to: "float")
        try map.write(double, to: "double")
        try map.write(decimal, to: "decimal")
        try map.write(bool, to: "bool")
        try map.write(string, to: "string")
        try map.write(date, to: "date")
        try map.write(url, to: "url")
        try map.write(uuid, to: "uuid")
        try map.write(data, to: "data")
        try map.write(json, to: "json")
        try map.write(array, to: "array")
        try map.write(dictionary, to: "dictionary")
        try map.write(nested, to: "nested")
        try map.write(tone, to: "tone")
        try map.write(priority, to: "priority")
        try map.write(optional, to: "optional")
        try map.write(day, to: "day", using: .compactDay)
        try map.write(stamp, to: "stamp", using: .epochSeconds)
        try map.write(city, to: "location.city")
    }
}

@Suite struct MappingWriteTests {
    static let everythingJSON: JSONValue = [
        "int": -1,
        "int8": -128,
        "int16": -32768,
        "int32": -2_147_483_648,
        "int64": .number(JSONNumber(Int64.min)),
        "uint": .number(JSONNumber(text: "18446744073709551615")!),
        "uint8": 255,
        "uint16": 65535,
        "uint32": 4_294_967_295,
        "uint64": .number(JSONNumber(text: "18446744073709551615")!),
        "float": .number(JSONNumber(text: "0.1")!),
        "double": 0.1,
        "decimal": .number(JSONNumber(text: "12345678901234567890.123456789")!),
        "bool": true,
        "string": "Ada \"the\" Countess ☃",
        "date": "2011-08-21T18:02:52.250Z",
        "url": "https://example.com/a?b=c",
        "uuid": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
        "data": "AAEC+g==",
        "json": ["any": [1, "two", nil, true]],
        "array": [1, 2, 3],
        "dictionary": ["a": 1.0, "b": 2.5],
        "nested": [["x": [1]], [:]],
        "tone": "dark",
        "priority": 9,
        "optional": nil,
        "day": "20110821",
        "stamp": 1_313_949_772,
        "location": ["city": "London"],
    ]

    @Test func writesEveryTypeInItsJSONForm() throws {
        let json = try Everything().jsonValue()
        #expect(json == Self.everythingJSON)
        // Key order follows the write calls.
        #expect(json.objectValue?.keys.prefix(3) == ["int", "int8", "int16"])
        #expect(json.objectValue?.keys.last == "location")
        // Exact texts where equality would hide the form.
        #expect(json["float"]?.numberValue?.text == "0.1")
        #expect(json["uint64"]?.numberValue?.text == "18446744073709551615")
        #expect(json["decimal"]?.numberValue?.text == "12345678901234567890.123456789")
        #expect(json["dictionary"]?.objectValue?.keys == ["a", "b"])
    }

    @Test func everyTypeRoundTrips() throws {
        let original = Everything()
        let copy = try Everything(json: original.jsonValue())
        #expect(copy == original)

        var other = Everything()
        other.int = 0
        other.uint64 = 0
        other.float = -3.5e-7
        other.double = 1e300
        other.decimal = Decimal(string: "-0.000001")!
        other.bool = false
        other.string = ""
        other.date = Date(timeIntervalSince1970: -1_000.5)
        other.json = nil
        other.array = []
        other.dictionary = [:]
        other.tone = .light
        other.priority = .low
        other.optional = "set"
        other.day = Date(timeIntervalSince1970: 951_782_400)  // 2000-02-29
        other.stamp = Date(timeIntervalSince1970: 0)
        other.city = "a.b"
        #expect(try Everything(json: other.jsonValue()) == other)
    }

    @Test func nilIsNullOrOmitted() throws {
        let null = try Everything().jsonValue()
        #expect(null["optional"] == .null)
        let omitted = try Everything().jsonValue(options: .init(nilPolicy: .omit))
        #expect(omitted.objectValue?.contains(key: "optional") == false)
        #expect(try Everything(json: omitted) == Everything())
    }

    @Test func dateWriteStrategies() throws {
        let date = Date(timeIntervalSince1970: 1_313_949_772.249)
        #expect(try date.jsonValue() == "2011-08-21T18:02:52.249Z")
        #expect(try date.jsonValue(options: .init(dateStrategy: .epochMilliseconds)) == 1_313_949_772_249)
        #expect(
            try Date(timeIntervalSince1970: 1_313_949_772).jsonValue(options: .init(dateStrategy: .epochSeconds))
                == 1_313_949_772)
        #expect(try date.jsonValue(options: .init(dateStrategy: .epochSeconds)) == 1_313_949_772.249)
        #expect(try date.jsonValue(options: .init(dateStrategy: .custom { _ in "then" })) == "then")
        #expect(try Date(timeIntervalSince1970: 0).jsonValue() == "1970-01-01T00:00:00.000Z")
    }

    @Test func transformersRead() throws {
        #expect(mappingRead("20000229", as: Day.self) == .success(Day(date: Date(timeIntervalSince1970: 951_782_400))))
        #expect(mappingRead("20010229", as: Day.self) == .failure(.invalidValue))
        #expect(mappingRead(20_000_229, as: Day.self) == .failure(.invalidValue))
    }

    @Test func nonFiniteNumbersAreWriteErrorsAtTheirPath() throws {
        struct Reading: JSONRepresentable {
            let values: [Double]
            func write(to map: inout JSONWriteMap) throws { try map.write(values, to: "sensor.values") }
        }
        let error = try #require(throws: MappingError.self) { try Reading(values: [1, .nan]).jsonValue() }
        #expect(error.code == .invalidValue)
        #expect(error.description == "$.sensor.values[1]: expected Double: nan is not a JSON number (RFC 8259 has no NaN or infinity)")
    }

    @Test func keyPathBlockedByAScalarIsCannotWrite() throws {
        struct Clash: JSONRepresentable {
            func write(to map: inout JSONWriteMap) throws {
                try map.write("x", to: "a")
                try map.write(1, to: "a.b")
            }
        }
        let error = try #require(throws: MappingError.self) { try Clash().jsonValue() }
        #expect(error.code == .cannotWrite)
        #expect(error.path.description == "$.a.b")
    }

    @Test func literalKeysAndTransformerClosures() throws {
        struct Odd: JSONRepresentable {
            func write(to map: inout JSONWriteMap) throws {
                try map.write(1, toKey: "a.b")
                try map.write(2, to: #"c\.d"#)
                try map.write([1, 2], to: "csv") { .string($0.map(String.init).joined(separator: ",")) }
            }
        }
        #expect(try Odd().jsonValue() == ["a.b": 1, "c.d": 2, "csv": "1,2"])
    }

    @Test func readOnlyTransformerCannotWrite() throws {
        struct Stamp: JSONRepresentable {
            func write(to map: inout JSONWriteMap) throws {
                try map.write(Date(), to: "at", using: MappingTransformer(name: "read-only", forward: { _ in Date() }))
            }
        }
        let error = try #require(throws: MappingError.self) { try Stamp().jsonValue() }
        #expect(error.code == .notReversible)
        #expect(error.description == #"$.at: expected Date: transformer "read-only" cannot write"#)
    }
}

/// A leaf type read through a transformer (for the table above).
private struct Day: JSONMapValue, Equatable {
    let date: Date
    static func mapValue(from map: JSONMap) throws -> Day {
        do {
            return Day(date: try MappingTransformer<Date>.compactDay.forward(try map.root))
        } catch {
            throw map.error(.invalidValue, expected: "Day", message: "not a yyyyMMdd day")
        }
    }
}

/// Nested models in every container, read and written.
private struct Atlas: JSONMappable, JSONRepresentable, Equatable {
    struct Place: JSONMappable, JSONRepresentable, Equatable, Hashable {
        let name: String
        let population: Int64?
        init(name: String, population: Int64?) {
            self.name = name
            self.population = population
        }
        init(map: JSONMap) throws {
            name = try map.from("name")
            population = try map.from("stats.population")
        }
        func write(to map: inout JSONWriteMap) throws {
            try map.write(name, to: "name")
            try map.write(population, to: "stats.population")
        }
    }

    let capital: Place
    let cities: [Place]
    let byCode: [String: Place]
    let tags: Set<String>
    let grid: [[Place]]
    let optionalPlace: Place?

    init(capital: Place, cities: [Place], byCode: [String: Place], tags: Set<String>, grid: [[Place]], optionalPlace: Place?) {
        self.capital = capital
        self.cities = cities
        self.byCode = byCode
        self.tags = tags
        self.grid = grid
        self.optionalPlace = optionalPlace
    }

    init(map: JSONMap) throws {
        capital = try map.from("capital")
        cities = try map.from("cities")
        byCode = try map.from("by_code")
        tags = try map.from("tags")
        grid = try map.from("grid")
        optionalPlace = try map.from("optional")
    }

    func write(to map: inout JSONWriteMap) throws {
        try map.write(capital, to: "capital")
        try map.write(cities, to: "cities")
        try map.write(byCode, to: "by_code")
        try map.write(tags.sorted(), to: "tags")
        try map.write(grid, to: "grid")
        try map.write(optionalPlace, to: "optional")
    }
}

@Suite struct MappingNestedRoundTripTests {
    fileprivate static let atlas = Atlas(
        capital: .init(name: "London", population: 8_900_000),
        cities: [.init(name: "Leeds", population: nil), .init(name: "York", population: 210_000)],
        byCode: ["LDN": .init(name: "London", population: 1), "YRK": .init(name: "York", population: nil)],
        tags: ["b", "a"],
        grid: [[.init(name: "A1", population: 0)], []],
        optionalPlace: nil)

    @Test func nestedModelsWriteNestedObjects() throws {
        let json = try Self.atlas.jsonValue()
        #expect(
            json == [
                "capital": ["name": "London", "stats": ["population": 8_900_000]],
                "cities": [["name": "Leeds", "stats": ["population": nil]], ["name": "York", "stats": ["population": 210_000]]],
                "by_code": ["LDN": ["name": "London", "stats": ["population": 1]], "YRK": ["name": "York", "stats": ["population": nil]]],
                "tags": ["a", "b"],
                "grid": [[["name": "A1", "stats": ["population": 0]]], []],
                "optional": nil,
            ])
        #expect(try Atlas(json: json) == Self.atlas)
        #expect(try Atlas(jsonString: Self.atlas.jsonString(pretty: true)) == Self.atlas)
        let omitted = try Self.atlas.jsonValue(options: .init(nilPolicy: .omit))
        #expect(omitted["cities"]?[0] == ["name": "Leeds"])  // nothing written, so no "stats" object either
        #expect(try Atlas(json: omitted) == Self.atlas)
    }

    @Test func writeErrorsInsideNestedModelsNameTheirPath() throws {
        struct Bad: JSONRepresentable {
            func write(to map: inout JSONWriteMap) throws { try map.write([["x": [1.0, .infinity]]], to: "a.b") }
        }
        let error = try #require(throws: MappingError.self) { try [Bad(), Bad()].jsonValue() }
        #expect(error.description == "$[0].a.b[0].x[1]: expected Double: inf is not a JSON number (RFC 8259 has no NaN or infinity)")
    }
}
