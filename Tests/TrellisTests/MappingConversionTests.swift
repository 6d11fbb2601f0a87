import Foundation
import Testing

@testable import Trellis

/// A one-property model: reads `v` as `T`.
struct MappingBox<T: JSONMapValue>: JSONMappable {
    let v: T
    init(map: JSONMap) throws { v = try map.from("v") }
}

/// A one-optional-property model: reads `v` as `T?`.
struct MappingOptionalBox<T: JSONMapValue>: JSONMappable {
    let v: T?
    init(map: JSONMap) throws { v = try map.from("v") }
}

/// Reads `json` as a `T` property; returns the value or the error code.
func mappingRead<T: JSONMapValue>(
    _ json: JSONValue, as type: T.Type,
    options: JSONMap.Options = .init()
) -> Result<T, MappingError.Code> {
    do {
        return .success(try MappingBox<T>(json: ["v": json], options: options).v)
    } catch let error as MappingError {
        return .failure(error.code)
    } catch {
        return .failure(MappingError.Code(rawValue: "unexpected \(error)"))
    }
}

/// One conversion case: the JSON value and the expected value or error code.
struct ConversionCase<T: Sendable & Equatable>: Sendable, CustomTestStringConvertible {
    let json: JSONValue
    let expected: Result<T, MappingError.Code>
    init(_ json: JSONValue, _ expected: T) {
        self.json = json
        self.expected = .success(expected)
    }
    init(_ json: JSONValue, fails code: MappingError.Code) {
        self.json = json
        self.expected = .failure(code)
    }
    var testDescription: String { "\(json) → \(expected)" }
}

extension MappingError.Code: Error {}

@Suite struct MappingConversionTests {
    @Test(arguments: [
        ConversionCase<Int>(12, 12),
        ConversionCase<Int>("12", 12),
        ConversionCase<Int>("+12", 12),
        ConversionCase<Int>("007", 7),
        ConversionCase<Int>(" 12", fails: .invalidValue),
        ConversionCase<Int>("0x2A", fails: .invalidValue),
        ConversionCase<Int>(true, fails: .typeMismatch),
        ConversionCase<Int>(.number(JSONNumber(text: "1.2e1")!), 12),
        ConversionCase<Int>(-0, 0),
        ConversionCase<Int>(1.5, fails: .inexact),
        ConversionCase<Int>("1.5", fails: .inexact),
        ConversionCase<Int>("abc", fails: .invalidValue),
        ConversionCase<Int>("", fails: .invalidValue),
        ConversionCase<Int>([1], fails: .typeMismatch),
        ConversionCase<Int>(["a": 1], fails: .typeMismatch),
        ConversionCase<Int>(.number(JSONNumber(text: "9223372036854775808")!), fails: .overflow),
        ConversionCase<Int>(.number(JSONNumber(text: "1e30")!), fails: .overflow),
    ])
    func int(_ c: ConversionCase<Int>) {
        #expect(mappingRead(c.json, as: Int.self) == c.expected)
    }

    @Test func integerWidthsAreRangeChecked() {
        #expect(mappingRead(127, as: Int8.self) == .success(127))
        #expect(mappingRead(-128, as: Int8.self) == .success(-128))
        #expect(mappingRead(128, as: Int8.self) == .failure(.overflow))
        #expect(mappingRead(-129, as: Int8.self) == .failure(.overflow))
        #expect(mappingRead(32767, as: Int16.self) == .success(32767))
        #expect(mappingRead(32768, as: Int16.self) == .failure(.overflow))
        #expect(mappingRead(2_147_483_647, as: Int32.self) == .success(.max))
        #expect(mappingRead(2_147_483_648, as: Int32.self) == .failure(.overflow))
        #expect(mappingRead(.number(JSONNumber(text: "-9223372036854775808")!), as: Int64.self) == .success(.min))
        // 2^53 + 1: not representable as Double, exact here.
        #expect(mappingRead(9_007_199_254_740_993, as: Int64.self) == .success(9_007_199_254_740_993))
        #expect(mappingRead("9007199254740993", as: Int64.self) == .success(9_007_199_254_740_993))
        #expect(mappingRead(255, as: UInt8.self) == .success(255))
        #expect(mappingRead(256, as: UInt8.self) == .failure(.overflow))
        #expect(mappingRead(-1, as: UInt8.self) == .failure(.overflow))
        #expect(mappingRead(65535, as: UInt16.self) == .success(.max))
        #expect(mappingRead(4_294_967_295, as: UInt32.self) == .success(.max))
        #expect(mappingRead(-1, as: UInt.self) == .failure(.overflow))
        #expect(mappingRead(.number(JSONNumber(text: "18446744073709551615")!), as: UInt64.self) == .success(.max))
        #expect(mappingRead("18446744073709551615", as: UInt64.self) == .success(.max))
        #expect(mappingRead(.number(JSONNumber(text: "18446744073709551616")!), as: UInt64.self) == .failure(.overflow))
        #expect(mappingRead(.number(JSONNumber(text: "1.8e19")!), as: UInt64.self) == .success(18_000_000_000_000_000_000))
        #expect(mappingRead(-1, as: UInt64.self) == .failure(.overflow))
        #expect(mappingRead(0.5, as: UInt64.self) == .failure(.inexact))
    }

    @Test func integerErrorNamesTheRange() throws {
        let error = try #require(throws: MappingError.self) { try MappingBox<UInt8>(json: ["v": 300]) }
        #expect(error.description == "$.v: expected UInt8, found number 300: out of range 0...255")
    }

    @Test(arguments: [
        ConversionCase<Double>(0.1, 0.1),
        ConversionCase<Double>(3, 3),
        ConversionCase<Double>("2.5", 2.5),
        ConversionCase<Double>(.number(JSONNumber(text: "1e-400")!), 0),
        ConversionCase<Double>(.number(JSONNumber(text: "1e400")!), fails: .overflow),
        ConversionCase<Double>("NaN", fails: .invalidValue),
        ConversionCase<Double>(true, fails: .typeMismatch),
    ])
    func double(_ c: ConversionCase<Double>) {
        #expect(mappingRead(c.json, as: Double.self) == c.expected)
    }

    @Test func floatAndDecimal() {
        #expect(mappingRead(0.1, as: Float.self) == .success(Float(0.1)))
        #expect(mappingRead(.number(JSONNumber(text: "1e39")!), as: Float.self) == .failure(.overflow))
        #expect(mappingRead(.number(JSONNumber(text: "0.1")!), as: Decimal.self) == .success(Decimal(string: "0.1")!))
        #expect(mappingRead("12.34", as: Decimal.self) == .success(Decimal(string: "12.34")!))
        #expect(
            mappingRead(.number(JSONNumber(text: "123456789012345678901234567890")!), as: Decimal.self)
                == .success(Decimal(string: "123456789012345678901234567890")!))
        #expect(mappingRead([], as: Decimal.self) == .failure(.typeMismatch))
    }

    @Test(arguments: [
        ConversionCase<Bool>(true, true),
        ConversionCase<Bool>(false, false),
        ConversionCase<Bool>(1, true),
        ConversionCase<Bool>(0, false),
        ConversionCase<Bool>("true", true),
        ConversionCase<Bool>("TRUE", true),
        ConversionCase<Bool>("Yes", true),
        ConversionCase<Bool>("1", true),
        ConversionCase<Bool>("false", false),
        ConversionCase<Bool>("NO", false),
        ConversionCase<Bool>("0", false),
        ConversionCase<Bool>(2, fails: .invalidValue),
        ConversionCase<Bool>("maybe", fails: .invalidValue),
        ConversionCase<Bool>([true], fails: .typeMismatch),
    ])
    func bool(_ c: ConversionCase<Bool>) {
        #expect(mappingRead(c.json, as: Bool.self) == c.expected)
    }

    @Test(arguments: [
        ConversionCase<String>("Ada", "Ada"),
        ConversionCase<String>("", ""),
        ConversionCase<String>(12, "12"),
        ConversionCase<String>(.number(JSONNumber(text: "505874924095815681")!), "505874924095815681"),
        ConversionCase<String>(.number(JSONNumber(text: "1.50")!), "1.50"),
        ConversionCase<String>(true, "true"),
        ConversionCase<String>(["a"], fails: .typeMismatch),
        ConversionCase<String>(["k": "v"], fails: .typeMismatch),
    ])
    func string(_ c: ConversionCase<String>) {
        #expect(mappingRead(c.json, as: String.self) == c.expected)
    }

    /// Dates compare in whole milliseconds since 1970 (a `Date` is a `Double`; parsing
    /// `.249` and writing `1313949772.249` may differ in the last bit).
    @Test(arguments: [
        ConversionCase<Int64>("2011-08-21T18:02:52Z", 1_313_949_772_000),
        ConversionCase<Int64>("2011-08-21T18:02:52.249Z", 1_313_949_772_249),
        ConversionCase<Int64>("2011-08-21T18:02:52.5Z", 1_313_949_772_500),
        ConversionCase<Int64>("2011-08-21T18:02:52.249123456Z", 1_313_949_772_249),
        ConversionCase<Int64>("2011-08-21T20:02:52+02:00", 1_313_949_772_000),
        ConversionCase<Int64>("2011-08-21T18:02:52.1-00:30", 1_313_951_572_100),
        ConversionCase<Int64>(1_313_949_772, 1_313_949_772_000),
        ConversionCase<Int64>(1_313_949_772.5, 1_313_949_772_500),
        ConversionCase<Int64>("21/08/2011", fails: .invalidValue),
        ConversionCase<Int64>(true, fails: .typeMismatch),
    ])
    func dateByDefault(_ c: ConversionCase<Int64>) {
        let milliseconds = mappingRead(c.json, as: Date.self).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        #expect(milliseconds == c.expected)
    }

    @Test func dateStrategies() {
        let ms = JSONMap.Options(dateStrategy: .epochMilliseconds)
        #expect(
            mappingRead(1_313_949_772_249, as: Date.self, options: ms).map { ($0.timeIntervalSince1970 * 1000).rounded() }
                == .success(1_313_949_772_249))
        #expect(
            mappingRead("1313949772249", as: Date.self, options: ms).map { ($0.timeIntervalSince1970 * 1000).rounded() }
                == .success(1_313_949_772_249))
        #expect(mappingRead("2011-08-21T18:02:52Z", as: Date.self, options: ms) == .failure(.invalidValue))
        #expect(mappingRead(true, as: Date.self, options: ms) == .failure(.typeMismatch))
        // By default a numeric string is not a date (use the epoch strategies or transformers).
        #expect(mappingRead("1313949772", as: Date.self) == .failure(.invalidValue))
        #expect(mappingRead("2011-08-21", as: Date.self).map(\.timeIntervalSince1970) == .success(1_313_884_800))
        let rfc = JSONMap.Options(dateStrategy: .rfc3339)
        #expect(mappingRead(1_313_949_772, as: Date.self, options: rfc) == .failure(.typeMismatch))
        let custom = JSONMap.Options(
            dateStrategy: .custom { json in
                guard let days = json.intValue else { throw MappingError.Code.typeMismatch }
                return Date(timeIntervalSince1970: Double(days) * 86_400)
            })
        #expect(mappingRead(2, as: Date.self, options: custom) == .success(Date(timeIntervalSince1970: 172_800)))
        #expect(mappingRead("x", as: Date.self, options: custom) == .failure(.invalidValue))
    }

    @Test func urlUUIDDataAndJSON() {
        #expect(mappingRead("https://example.com/a?b=1", as: URL.self) == .success(URL(string: "https://example.com/a?b=1")!))
        #expect(mappingRead("", as: URL.self) == .failure(.invalidValue))
        #expect(mappingRead(12, as: URL.self) == .failure(.typeMismatch))
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(mappingRead("e621e1f8-c36c-495a-93fc-0c247a3e6e5f", as: UUID.self) == .success(uuid))
        #expect(mappingRead("e621e1f8", as: UUID.self) == .failure(.invalidValue))
        #expect(mappingRead("aGk=", as: Data.self) == .success(Data("hi".utf8)))
        #expect(mappingRead("***", as: Data.self) == .failure(.invalidValue))
        #expect(mappingRead(["a": [1, nil]], as: JSONValue.self) == .success(["a": [1, nil]]))
    }

    @Test func collections() {
        #expect(mappingRead([1, "2", 3.0], as: [Int].self) == .success([1, 2, 3]))
        #expect(mappingRead([], as: [Int].self) == .success([]))
        #expect(mappingRead([[1], [2, 3]], as: [[Int]].self) == .success([[1], [2, 3]]))
        #expect(mappingRead(["a": 1, "b": "2"], as: [String: Int].self) == .success(["a": 1, "b": 2]))
        #expect(mappingRead(["a", "b", "a"], as: Set<String>.self) == .success(["a", "b"]))
        #expect(mappingRead("a", as: [String].self) == .failure(.typeMismatch))
        #expect(mappingRead([1, nil], as: [Int].self) == .failure(.null))
        #expect(mappingRead(["a": nil], as: [String: Int].self) == .failure(.null))
        #expect(mappingRead([1, "x"], as: [Int].self) == .failure(.invalidValue))
    }

    @Test func optionalRules() throws {
        // Missing, null, and (by default) unconvertible are nil.
        #expect(try MappingOptionalBox<Int>(json: [:]).v == nil)
        #expect(try MappingOptionalBox<Int>(json: ["v": nil]).v == nil)
        #expect(try MappingOptionalBox<Int>(json: ["v": "abc"]).v == nil)
        #expect(try MappingOptionalBox<[Int]>(json: ["v": [1, "x"]]).v == nil)
        #expect(try MappingOptionalBox<Int>(json: ["v": "12"]).v == 12)
        // Strict: unconvertible throws; missing and null are still nil.
        let strict = JSONMap.Options(strict: true)
        #expect(try MappingOptionalBox<Int>(json: [:], options: strict).v == nil)
        #expect(try MappingOptionalBox<Int>(json: ["v": nil], options: strict).v == nil)
        let error = try #require(throws: MappingError.self) {
            try MappingOptionalBox<[Int]>(json: ["v": [1, "x"]], options: strict)
        }
        #expect(error.code == .invalidValue)
        #expect(error.description == #"$.v[1]: expected Int, found string "x": not a decimal number"#)
    }

    @Test func nonOptionalMissingAndNull() throws {
        let missing = try #require(throws: MappingError.self) { try MappingBox<Int>(json: [:]) }
        #expect(missing.code == .missing)
        #expect(missing.found == nil)
        #expect(missing.description == "$.v: missing value (expected Int)")
        let null = try #require(throws: MappingError.self) { try MappingBox<Int>(json: ["v": nil]) }
        #expect(null.code == .null)
        #expect(null.description == "$.v: null value (expected Int)")
        let root = try #require(throws: MappingError.self) { try MappingBox<Int>(json: nil) }
        #expect(root.code == .null)
        #expect(root.path == .root)
    }
}
