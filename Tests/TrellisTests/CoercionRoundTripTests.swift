import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// `json(from:as:)` writes the export form of each attribute type, and `value(from:as:)`
/// reads it back to the same value.
@Suite struct CoercionRoundTripTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var value: AttributeValue
        var type: AttributeType
        /// The exported JSON, as compact text.
        var json: String
        init(_ value: AttributeValue, _ type: AttributeType, _ json: String) {
            self.value = value
            self.type = type
            self.json = json
        }
        var testDescription: String { "\(type) \(value)" }
    }

    static func decimal(_ text: String) -> AttributeValue {
        .decimal(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan)
    }

    static let uuid = UUID(uuid: (0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F))

    static let cases: [Case] = [
        Case(.string("Ada"), .string, #""Ada""#),
        Case(.string(""), .string, #""""#),
        Case(.string("日本\u{0}\n"), .string, #""日本\u0000\n""#),
        Case(.integer(0), .integer16, "0"),
        Case(.integer(-32768), .integer16, "-32768"),
        Case(.integer(2_147_483_647), .integer32, "2147483647"),
        Case(.integer(.max), .integer64, "9223372036854775807"),
        Case(.integer(.min), .integer64, "-9223372036854775808"),
        Case(decimal("0.1"), .decimal, "0.1"),
        Case(decimal("-123.456"), .decimal, "-123.456"),
        Case(decimal("99999999999999999999999999999999999999"), .decimal, "99999999999999999999999999999999999999"),
        Case(.decimal(Decimal(sign: .minus, exponent: -30, significand: 12345)), .decimal, "-0.000000000000000000000000012345"),
        Case(.decimal(Decimal(sign: .plus, exponent: 40, significand: 7)), .decimal, "7" + String(repeating: "0", count: 40)),
        Case(.double(0.1), .double, "0.1"),
        Case(.double(1e-7), .double, "1e-07"),
        Case(.double(.leastNonzeroMagnitude), .double, "5e-324"),
        Case(.double(.greatestFiniteMagnitude), .double, "1.7976931348623157e+308"),
        Case(.double(-2.5), .double, "-2.5"),
        Case(.double(9_007_199_254_740_992), .double, "9007199254740992.0"),
        Case(.double(Double(Float(0.1))), .float, "0.1"),
        Case(.double(Double(Float.greatestFiniteMagnitude)), .float, "3.4028235e+38"),
        Case(.double(Double(Float.leastNonzeroMagnitude)), .float, "1e-45"),
        Case(.bool(true), .boolean, "true"),
        Case(.bool(false), .boolean, "false"),
        Case(.date(Date(timeIntervalSince1970: 1_314_131_052.249)), .date, #""2011-08-23T20:24:12.249Z""#),
        Case(.date(Date(timeIntervalSince1970: 0)), .date, #""1970-01-01T00:00:00.000Z""#),
        Case(.date(Date(timeIntervalSince1970: -1.001)), .date, #""1969-12-31T23:59:58.999Z""#),
        // Foundation's distantPast is 0001-01-01 in the Julian calendar; RFC 3339 is proleptic Gregorian.
        Case(.date(.distantPast), .date, #""0000-12-30T00:00:00.000Z""#),
        Case(.date(.distantFuture), .date, #""4001-01-01T00:00:00.000Z""#),
        Case(.binary(Data()), .binary, #""""#),
        Case(.binary(Data("hello".utf8)), .binary, #""aGVsbG8=""#),
        Case(.binary(Data([0, 1, 2, 255])), .binary, #""AAEC/w==""#),
        Case(.uuid(uuid), .uuid, #""e621e1f8-c36c-495a-93fc-0c247a3e6e5f""#),
        Case(.uri(URL(string: "https://example.org/a?b=c#d") ?? URL(fileURLWithPath: "/")), .uri, #""https://example.org/a?b=c#d""#),
        Case(.uri(URL(string: "/relative/path") ?? URL(fileURLWithPath: "/")), .uri, #""/relative/path""#),
        Case(.json([1, "a", nil, ["k": false]]), .json, #"[1,"a",null,{"k":false}]"#),
        Case(.json("text"), .json, #""text""#),
    ]

    @Test(arguments: cases)
    func exportsAndReadsBack(_ c: Case) throws {
        let json = JSONCoercion.json(from: c.value, as: c.type)
        #expect(ValueSnippet.text(of: json, limit: 1000) == c.json)
        #expect(try JSONCoercion.value(from: json, as: c.type) == c.value)
    }

    /// Random millisecond dates from 1985 on survive export and import exactly.
    @Test func millisecondDatesRoundTrip() throws {
        var generator = SplitMix64(seed: 3339)
        var failures: [Double] = []
        for _ in 0..<10_000 {
            let milliseconds = Int64(generator.next() % 8_000_000_000_000) + 482_112_000_000
            let seconds = Double("\(milliseconds / 1000).\(String(milliseconds % 1000 + 1000).dropFirst())") ?? .nan
            let value = AttributeValue.date(Date(timeIntervalSince1970: seconds))
            let json = JSONCoercion.json(from: value, as: .date)
            if try JSONCoercion.value(from: json, as: .date) != value { failures.append(seconds) }
        }
        #expect(failures == [])
    }

    /// Random doubles (all bit patterns of finite values) survive export and import exactly.
    @Test func doublesRoundTrip() throws {
        var generator = SplitMix64(seed: 754)
        var failures: [Double] = []
        for _ in 0..<10_000 {
            let d = Double(bitPattern: generator.next())
            guard d.isFinite else { continue }
            let json = JSONCoercion.json(from: .double(d), as: .double)
            if try JSONCoercion.value(from: json, as: .double) != .double(d) { failures.append(d) }
            let f = Double(Float(bitPattern: UInt32(truncatingIfNeeded: generator.next())))
            guard f.isFinite else { continue }
            let floatJSON = JSONCoercion.json(from: .double(f), as: .float)
            if try JSONCoercion.value(from: floatJSON, as: .float) != .double(f) { failures.append(f) }
        }
        #expect(failures == [])
    }

    @Test func valuesWithoutJSONFormAreWrittenAsNull() {
        #expect(JSONCoercion.json(from: .double(.nan), as: .double) == .null)
        #expect(JSONCoercion.json(from: .double(.infinity), as: .double) == .null)
        #expect(JSONCoercion.json(from: .double(1e300), as: .float) == .null)
        #expect(JSONCoercion.json(from: .decimal(.nan), as: .decimal) == .null)
    }

    @Test func documentedAsymmetries() throws {
        #expect(try JSONCoercion.value(from: JSONCoercion.json(from: .json(.null), as: .json), as: .json) == nil)
        let largest = JSONCoercion.json(from: .decimal(.greatestFiniteMagnitude), as: .decimal)
        #expect(largest == numberLiteral("340282366920938463463374607431768211455" + String(repeating: "0", count: 127)))
        let error = try #require(throws: CoercionError.self) { try JSONCoercion.value(from: largest, as: .decimal) }
        #expect(error.code == .inexact)
    }

    @Test func valuesAreWrittenByTheirOwnCase() {
        // A value of another case than the type expects is written as itself.
        #expect(JSONCoercion.json(from: .string("42"), as: .integer64) == "42")
        #expect(JSONCoercion.json(from: .integer(70000), as: .integer16) == 70000)
        #expect(JSONCoercion.json(from: .double(0.1), as: .double) == .number(JSONNumber(0.1)))
    }
}
