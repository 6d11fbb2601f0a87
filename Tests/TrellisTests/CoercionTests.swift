import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// A JSON number from literal text (test constants only).
func numberLiteral(_ text: String) -> JSONValue {
    guard let n = JSONNumber(text: text) else {
        Issue.record("not a JSON number: \(text)")
        return .null
    }
    return .number(n)
}

@Suite struct CoercionTests {
    struct Success: Sendable, CustomTestStringConvertible {
        var json: JSONValue
        var type: AttributeType
        var value: AttributeValue
        init(_ json: JSONValue, _ type: AttributeType, _ value: AttributeValue) {
            self.json = json
            self.type = type
            self.value = value
        }
        var testDescription: String { "\(json.kind) \(ValueSnippet.text(of: json)) as \(type)" }
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        var json: JSONValue
        var type: AttributeType
        var code: CoercionError.Code
        var message: String
        init(_ json: JSONValue, _ type: AttributeType, _ code: CoercionError.Code, _ message: String) {
            self.json = json
            self.type = type
            self.code = code
            self.message = message
        }
        var testDescription: String { "\(json.kind) \(ValueSnippet.text(of: json)) as \(type)" }
    }

    static func decimal(_ text: String) -> AttributeValue {
        .decimal(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan)
    }

    static func uri(_ text: String) -> AttributeValue { .uri(URL(string: text) ?? URL(fileURLWithPath: "/invalid")) }

    static func date(_ seconds: Double) -> AttributeValue { .date(Date(timeIntervalSince1970: seconds)) }

    // MARK: - Integers

    static let integers: [Success] = [
        Success(42, .integer64, .integer(42)),
        Success(-42, .integer64, .integer(-42)),
        Success(numberLiteral("1.0"), .integer64, .integer(1)),
        Success(numberLiteral("1e2"), .integer64, .integer(100)),
        Success(numberLiteral("1.5e1"), .integer64, .integer(15)),
        Success(numberLiteral("-0"), .integer64, .integer(0)),
        Success(numberLiteral("9223372036854775807"), .integer64, .integer(.max)),
        Success(numberLiteral("-9223372036854775808"), .integer64, .integer(.min)),
        Success(numberLiteral("9.223372036854775807e18"), .integer64, .integer(.max)),
        Success(numberLiteral("505874924095815681"), .integer64, .integer(505_874_924_095_815_681)),
        Success(.number(JSONNumber(2.0)), .integer64, .integer(2)),
        Success("42", .integer64, .integer(42)),
        Success("+42", .integer64, .integer(42)),
        Success("-42", .integer64, .integer(-42)),
        Success("-0", .integer64, .integer(0)),
        Success("007", .integer64, .integer(7)),
        Success("1.0", .integer64, .integer(1)),
        Success("1E+2", .integer64, .integer(100)),
        Success("9223372036854775807", .integer64, .integer(.max)),
        Success("-9223372036854775808", .integer64, .integer(.min)),
        Success(32767, .integer16, .integer(32767)),
        Success(-32768, .integer16, .integer(-32768)),
        Success("-32768", .integer16, .integer(-32768)),
        Success(2_147_483_647, .integer32, .integer(2_147_483_647)),
        Success("-2147483648", .integer32, .integer(-2_147_483_648)),
    ]

    static let integerFailures: [Failure] = [
        Failure(32768, .integer16, .overflow, "out of range -32768...32767"),
        Failure("-32769", .integer16, .overflow, "out of range -32768...32767"),
        Failure(2_147_483_648, .integer32, .overflow, "out of range -2147483648...2147483647"),
        Failure(numberLiteral("9223372036854775808"), .integer64, .overflow, "out of range -9223372036854775808...9223372036854775807"),
        Failure("9223372036854775808", .integer64, .overflow, "out of range -9223372036854775808...9223372036854775807"),
        Failure("-9223372036854775809", .integer64, .overflow, "out of range -9223372036854775808...9223372036854775807"),
        Failure(numberLiteral("1e19"), .integer64, .overflow, "out of range -9223372036854775808...9223372036854775807"),
        Failure(numberLiteral("1e400"), .integer64, .overflow, "out of range -9223372036854775808...9223372036854775807"),
        Failure(numberLiteral("1.5"), .integer64, .inexact, "not a whole number"),
        Failure(numberLiteral("0.5"), .integer16, .inexact, "not a whole number"),
        Failure("1.5", .integer64, .inexact, "not a whole number"),
        Failure("1e-3", .integer64, .inexact, "not a whole number"),
        Failure(" 42", .integer64, .invalidValue, "not a decimal number"),
        Failure("42 ", .integer64, .invalidValue, "not a decimal number"),
        Failure("", .integer64, .invalidValue, "not a decimal number"),
        Failure("0x2A", .integer64, .invalidValue, "not a decimal number"),
        Failure("4_2", .integer64, .invalidValue, "not a decimal number"),
        Failure(".5", .integer64, .invalidValue, "not a decimal number"),
        Failure("5.", .integer64, .invalidValue, "not a decimal number"),
        Failure("+-1", .integer64, .invalidValue, "not a decimal number"),
        Failure("1e", .integer64, .invalidValue, "not a decimal number"),
        Failure("١٢", .integer64, .invalidValue, "not a decimal number"),
        Failure(.number(JSONNumber(Double.nan)), .integer64, .invalidValue, "not a finite number"),
        Failure(true, .integer64, .typeMismatch, "expected a number or a numeric string"),
        Failure([1], .integer32, .typeMismatch, "expected a number or a numeric string"),
        Failure(["a": 1], .integer16, .typeMismatch, "expected a number or a numeric string"),
    ]

    // MARK: - Floating point and decimal

    static let fractions: [Success] = [
        Success(numberLiteral("0.1"), .double, .double(0.1)),
        Success(numberLiteral("1e-7"), .double, .double(1e-7)),
        Success(numberLiteral("5e-324"), .double, .double(.leastNonzeroMagnitude)),
        Success(numberLiteral("1.7976931348623157e308"), .double, .double(1.7976931348623157e308)),
        Success(numberLiteral("2.2250738585072011e-308"), .double, .double(Double.leastNormalMagnitude.nextDown)),
        Success(numberLiteral("1e-400"), .double, .double(0)),
        Success(42, .double, .double(42)),
        Success(numberLiteral("9007199254740993"), .double, .double(9_007_199_254_740_992)),
        Success(.number(JSONNumber(0.1)), .double, .double(0.1)),
        Success("42", .double, .double(42)),
        Success("+1.5", .double, .double(1.5)),
        Success("-2.5e-3", .double, .double(-0.0025)),
        Success(numberLiteral("0.1"), .float, .double(Double(Float(0.1)))),
        Success("0.1", .float, .double(Double(Float(0.1)))),
        Success(numberLiteral("3.4028235e38"), .float, .double(Double(Float.greatestFiniteMagnitude))),
        Success(16_777_217, .float, .double(16_777_216)),
        Success(numberLiteral("1e-50"), .float, .double(0)),
        // Just above the midpoint between 1 and 1 + 2^-23: through Double it would tie to 1.
        Success(numberLiteral("1.000000059604644775390626"), .float, .double(Double(Float(1).nextUp))),
        Success(numberLiteral("0.1"), .decimal, decimal("0.1")),
        Success(numberLiteral("1.50"), .decimal, decimal("1.5")),
        Success("12.50", .decimal, decimal("12.5")),
        Success("+7", .decimal, decimal("7")),
        Success(numberLiteral("-0"), .decimal, decimal("0")),
        Success(numberLiteral("9223372036854775807"), .decimal, decimal("9223372036854775807")),
        Success(numberLiteral("12345678901234567890123456789012345678"), .decimal, decimal("12345678901234567890123456789012345678")),
        Success(numberLiteral("1.2345678901234567890123456789012345678"), .decimal, decimal("1.2345678901234567890123456789012345678")),
        Success(numberLiteral("1e127"), .decimal, .decimal(Decimal(sign: .plus, exponent: 127, significand: 1))),
        Success(numberLiteral("1e-128"), .decimal, .decimal(Decimal(sign: .plus, exponent: -128, significand: 1))),
        Success(.number(JSONNumber(0.1)), .decimal, decimal("0.1")),
    ]

    static let fractionFailures: [Failure] = [
        Failure(numberLiteral("1e400"), .double, .overflow, "out of range for Double (magnitude above 1.7976931348623157e308)"),
        Failure("-1e309", .double, .overflow, "out of range for Double (magnitude above 1.7976931348623157e308)"),
        Failure(.number(JSONNumber(Double.infinity)), .double, .overflow, "out of range for Double (magnitude above 1.7976931348623157e308)"),
        Failure("NaN", .double, .invalidValue, "not a decimal number"),
        Failure("Infinity", .double, .invalidValue, "not a decimal number"),
        Failure("0x1p3", .double, .invalidValue, "not a decimal number"),
        Failure(" 1", .double, .invalidValue, "not a decimal number"),
        Failure(true, .double, .typeMismatch, "expected a number or a numeric string"),
        Failure(numberLiteral("3.5e38"), .float, .overflow, "out of range for Float (magnitude above 3.4028235e38)"),
        Failure("-1e39", .float, .overflow, "out of range for Float (magnitude above 3.4028235e38)"),
        Failure("nan", .float, .invalidValue, "not a decimal number"),
        Failure([1.5], .float, .typeMismatch, "expected a number or a numeric string"),
        Failure(numberLiteral("123456789012345678901234567890123456789"), .decimal, .inexact, "more than 38 significant digits (39)"),
        Failure("0.123456789012345678901234567890123456789", .decimal, .inexact, "more than 38 significant digits (39)"),
        Failure(numberLiteral("1e128"), .decimal, .overflow, "out of Decimal's range (exponent -128...127)"),
        Failure(numberLiteral("1e-129"), .decimal, .overflow, "out of Decimal's range (exponent -128...127)"),
        Failure("12,5", .decimal, .invalidValue, "not a decimal number"),
        Failure(false, .decimal, .typeMismatch, "expected a number or a numeric string"),
    ]

    // MARK: - Strings and booleans

    static let texts: [Success] = [
        Success("Ada", .string, .string("Ada")),
        Success("", .string, .string("")),
        Success(numberLiteral("505874924095815681"), .string, .string("505874924095815681")),
        Success(numberLiteral("1.50"), .string, .string("1.50")),
        Success(numberLiteral("1e400"), .string, .string("1e400")),
        Success(numberLiteral("-0"), .string, .string("0")),  // JSONNumber holds -0 as the integer 0
        Success(.number(JSONNumber(0.1)), .string, .string("0.1")),
        Success(true, .string, .string("true")),
        Success(false, .string, .string("false")),
        Success(true, .boolean, .bool(true)),
        Success(false, .boolean, .bool(false)),
        Success(1, .boolean, .bool(true)),
        Success(0, .boolean, .bool(false)),
        Success(numberLiteral("1.0"), .boolean, .bool(true)),
        Success(numberLiteral("0e3"), .boolean, .bool(false)),
        Success(numberLiteral("10e-1"), .boolean, .bool(true)),
        Success(numberLiteral("-0"), .boolean, .bool(false)),
        Success(.number(JSONNumber(1.0)), .boolean, .bool(true)),
        Success("true", .boolean, .bool(true)),
        Success("TRUE", .boolean, .bool(true)),
        Success("True", .boolean, .bool(true)),
        Success("yes", .boolean, .bool(true)),
        Success("YES", .boolean, .bool(true)),
        Success("1", .boolean, .bool(true)),
        Success("false", .boolean, .bool(false)),
        Success("FaLsE", .boolean, .bool(false)),
        Success("No", .boolean, .bool(false)),
        Success("0", .boolean, .bool(false)),
    ]

    static let textFailures: [Failure] = [
        Failure([], .string, .typeMismatch, "expected a string, a number or a boolean"),
        Failure(["a": "b"], .string, .typeMismatch, "expected a string, a number or a boolean"),
        Failure(2, .boolean, .invalidValue, "only the numbers 0 and 1 are booleans"),
        Failure(-1, .boolean, .invalidValue, "only the numbers 0 and 1 are booleans"),
        Failure(numberLiteral("0.5"), .boolean, .invalidValue, "only the numbers 0 and 1 are booleans"),
        Failure(numberLiteral("-1.0"), .boolean, .invalidValue, "only the numbers 0 and 1 are booleans"),
        Failure(numberLiteral("1e1"), .boolean, .invalidValue, "only the numbers 0 and 1 are booleans"),
        Failure("y", .boolean, .invalidValue, "expected true/false, yes/no or 1/0 (any case)"),
        Failure("n", .boolean, .invalidValue, "expected true/false, yes/no or 1/0 (any case)"),
        Failure("on", .boolean, .invalidValue, "expected true/false, yes/no or 1/0 (any case)"),
        Failure(" true", .boolean, .invalidValue, "expected true/false, yes/no or 1/0 (any case)"),
        Failure("2", .boolean, .invalidValue, "expected true/false, yes/no or 1/0 (any case)"),
        Failure("", .boolean, .invalidValue, "expected true/false, yes/no or 1/0 (any case)"),
        Failure("truee", .boolean, .invalidValue, "expected true/false, yes/no or 1/0 (any case)"),
        Failure([true], .boolean, .typeMismatch, "expected a boolean, a number or a string"),
    ]

    // MARK: - Dates, binary, UUIDs, URIs, JSON

    static let others: [Success] = [
        Success("2011-08-23T20:24:12.249Z", .date, date(1_314_131_052.249)),
        Success("2011-08-23T22:24:12.249+02:00", .date, date(1_314_131_052.249)),
        Success("2015-02-16", .date, date(1_424_044_800)),
        Success(numberLiteral("1314131052.249"), .date, date(1_314_131_052.249)),
        Success(1_314_131_052, .date, date(1_314_131_052)),
        Success(0, .date, date(0)),
        Success(numberLiteral("-1.5"), .date, date(-1.5)),
        Success(numberLiteral("1.314131052249e9"), .date, date(1_314_131_052.249)),
        Success(.number(JSONNumber(1e9)), .date, date(1e9)),
        Success(numberLiteral("1314131052.2490000000001"), .date, date(1_314_131_052.2490000000001)),
        Success("aGVsbG8=", .binary, .binary(Data("hello".utf8))),
        Success("", .binary, .binary(Data())),
        Success("AAEC/w==", .binary, .binary(Data([0, 1, 2, 255]))),
        Success("aA==", .binary, .binary(Data("h".utf8))),
        Success("aGk=", .binary, .binary(Data("hi".utf8))),
        Success("////", .binary, .binary(Data([255, 255, 255]))),
        Success(
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", .uuid,
            .uuid(UUID(uuid: (0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F)))),
        Success(
            "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", .uuid,
            .uuid(UUID(uuid: (0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F)))),
        Success("https://example.org/a?b=c#d", .uri, uri("https://example.org/a?b=c#d")),
        Success([1, "a", nil], .json, .json([1, "a", nil])),
        Success(["a": nil], .json, .json(["a": nil])),
        Success("s", .json, .json("s")),
        Success(false, .json, .json(false)),
    ]

    static let otherFailures: [Failure] = [
        Failure("1314131052", .date, .invalidValue, "not an RFC 3339 date-time or full-date"),
        Failure("yesterday", .date, .invalidValue, "not an RFC 3339 date-time or full-date"),
        Failure("2015-02-29", .date, .invalidValue, "not an RFC 3339 date-time or full-date"),
        Failure(numberLiteral("1e400"), .date, .overflow, "out of range for seconds since 1970"),
        Failure(true, .date, .typeMismatch, "expected an RFC 3339 string or a number of seconds since 1970"),
        Failure("aGVsbG8", .binary, .invalidValue, "not base64 (RFC 4648 §4, padded)"),
        Failure("aGVs bG8=", .binary, .invalidValue, "not base64 (RFC 4648 §4, padded)"),
        Failure("aGVsbG8=\n", .binary, .invalidValue, "not base64 (RFC 4648 §4, padded)"),
        Failure("-_8=", .binary, .invalidValue, "not base64 (RFC 4648 §4, padded)"),
        Failure("aGl=", .binary, .invalidValue, "not base64 (RFC 4648 §4, padded)"),
        Failure("aG==", .binary, .invalidValue, "not base64 (RFC 4648 §4, padded)"),
        Failure("====", .binary, .invalidValue, "not base64 (RFC 4648 §4, padded)"),
        Failure("a===", .binary, .invalidValue, "not base64 (RFC 4648 §4, padded)"),
        Failure("aGk=aGk=", .binary, .invalidValue, "not base64 (RFC 4648 §4, padded)"),
        Failure("aGk", .binary, .invalidValue, "not base64 (RFC 4648 §4, padded)"),
        Failure(1, .binary, .typeMismatch, "expected a base64 string"),
        Failure("{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}", .uuid, .invalidValue, "not a UUID (8-4-4-4-12 hexadecimal digits)"),
        Failure("E621E1F8C36C495A93FC0C247A3E6E5F", .uuid, .invalidValue, "not a UUID (8-4-4-4-12 hexadecimal digits)"),
        Failure("", .uuid, .invalidValue, "not a UUID (8-4-4-4-12 hexadecimal digits)"),
        Failure(42, .uuid, .typeMismatch, "expected a UUID string"),
        Failure("", .uri, .invalidValue, "not a URI reference (RFC 3986)"),
        Failure("foo bar", .uri, .invalidValue, "not a URI reference (RFC 3986)"),
        Failure("http://[x", .uri, .invalidValue, "not a URI reference (RFC 3986)"),
        Failure("<a>", .uri, .invalidValue, "not a URI reference (RFC 3986)"),
        Failure(1, .uri, .typeMismatch, "expected a URI string"),
    ]

    @Test(arguments: integers + fractions + texts + others)
    func coerces(_ c: Success) throws {
        #expect(try JSONCoercion.value(from: c.json, as: c.type) == c.value)
    }

    @Test(arguments: integerFailures + fractionFailures + textFailures + otherFailures)
    func rejects(_ c: Failure) throws {
        let error = try #require(throws: CoercionError.self) { try JSONCoercion.value(from: c.json, as: c.type) }
        #expect(error.code == c.code)
        #expect(error.expected == c.type.rawValue)
        #expect(ValueSnippet.text(of: error.found) == ValueSnippet.text(of: c.json))
        #expect(error.message == c.message)
        #expect(error.description == "\(c.json.kind) \(ValueSnippet.text(of: c.json)) is not a valid \(c.type): \(c.message)")
    }

    @Test(arguments: AttributeType.allCases)
    func nullIsNilForEveryType(_ type: AttributeType) throws {
        #expect(try JSONCoercion.value(from: nil, as: type) == nil)
    }

    @Test func relativeAndOpaqueURIsAreKeptVerbatim() throws {
        for text in ["/relative/path", "a?b", "mailto:a@b.c", "urn:isbn:0451450523", "https://example.org/a%20b"] {
            let value = try JSONCoercion.value(from: .string(text), as: .uri)
            #expect(value?.uriValue?.absoluteString == text)
        }
    }

    @Test func base64ReadsWhatFoundationWrites() throws {
        var generator = SplitMix64(seed: 4648)
        for length in 0..<200 {
            let data = Data((0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            #expect(try JSONCoercion.data(from: .string(data.base64EncodedString())) == data)
        }
    }

    @Test func datesFromNumbersAreCorrectlyRounded() throws {
        // 1970–1985 is the one range where Date cannot hold the nearest Double (see RFC3339);
        // check that the epoch path agrees with the RFC 3339 path there too.
        let fromNumber = try JSONCoercion.date(from: numberLiteral("100000000.001"))
        let fromText = RFC3339.date(from: "1973-03-03T09:46:40.001Z")
        #expect(fromNumber == fromText)
        #expect(try JSONCoercion.date(from: numberLiteral("1314131052.249"))?.timeIntervalSince1970 == 1_314_131_052.249)
        #expect(try JSONCoercion.date(from: numberLiteral("-0.5"))?.timeIntervalSince1970 == -0.5)
    }

    // MARK: - Messages

    @Test func descriptionShortensLongValues() throws {
        let long = JSONValue.string(String(repeating: "a", count: 100))
        let error = try #require(throws: CoercionError.self) { try JSONCoercion.value(from: long, as: .integer64) }
        #expect(error.description == "string \"" + String(repeating: "a", count: 39) + "… is not a valid integer64: not a decimal number")
        let array: JSONValue = .array((0..<50).map { JSONValue(Int64($0)) })
        let arrayError = try #require(throws: CoercionError.self) { try JSONCoercion.value(from: array, as: .string) }
        #expect(arrayError.description == "array [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,1… is not a valid string: expected a string, a number or a boolean")
        let object: JSONValue = ["k": "a\"b\nc", "n": nil]
        let objectError = try #require(throws: CoercionError.self) { try JSONCoercion.value(from: object, as: .date) }
        #expect(
            objectError.description == #"object {"k":"a\"b\nc","n":null} is not a valid date: expected an RFC 3339 string or a number of seconds since 1970"#)
    }

    @Test func codesMatchInCatchPatterns() {
        do {
            _ = try JSONCoercion.value(from: "40000", as: .integer16)
            Issue.record("expected an error")
        } catch CoercionError.Code.overflow {
            // matched by ~=
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(!(CoercionError.Code.inexact ~= CoercionError(code: .overflow, expected: "x", found: nil, message: "")))
        #expect(CoercionError.Code(rawValue: "custom").description == "custom")
    }

    // MARK: - Helpers for the typed layer

    @Test func genericIntegersUseTheSwiftTypeRange() throws {
        #expect(try JSONCoercion.integer(from: 255, as: UInt8.self) == 255)
        #expect(try JSONCoercion.integer(from: "-128", as: Int8.self) == -128)
        #expect(try JSONCoercion.integer(from: numberLiteral("1e2"), as: UInt8.self) == 100)
        #expect(try JSONCoercion.integer(from: "18446744073709551615", as: UInt64.self) == .max)
        #expect(try JSONCoercion.integer(from: numberLiteral("-9223372036854775808"), as: Int64.self) == .min)
        #expect(try JSONCoercion.integer(from: "-9223372036854775808", as: Int64.self) == .min)
        #expect(try JSONCoercion.integer(from: "-0", as: UInt.self) == 0)
        #expect(try JSONCoercion.integer(from: nil, as: Int.self) == nil)
        let cases: [(JSONValue, String)] = [
            (256, "out of range 0...255"),
            (-1, "out of range 0...255"),
            ("-1", "out of range 0...255"),
            ("18446744073709551616", "out of range 0...255"),
        ]
        for (json, message) in cases {
            let error = try #require(throws: CoercionError.self) { try JSONCoercion.integer(from: json, as: UInt8.self) }
            #expect(error.code == .overflow)
            #expect(error.expected == "UInt8")
            #expect(error.message == message)
        }
        let big = try #require(throws: CoercionError.self) { try JSONCoercion.integer(from: "18446744073709551616", as: UInt64.self) }
        #expect(big.message == "out of range 0...18446744073709551615")
        let fraction = try #require(throws: CoercionError.self) { try JSONCoercion.integer(from: 2.5, as: Int.self) }
        #expect(fraction.code == .inexact)
    }

    @Test func scalarHelpersMatchTheTable() throws {
        #expect(try JSONCoercion.int64(from: "9223372036854775807") == .max)
        #expect(try JSONCoercion.double(from: "0.1") == 0.1)
        #expect(try JSONCoercion.float(from: "0.1") == Float(0.1))
        #expect(try JSONCoercion.decimal(from: "0.1") == Decimal(string: "0.1"))
        #expect(try JSONCoercion.bool(from: "YES") == true)
        #expect(try JSONCoercion.string(from: 42) == "42")
        #expect(try JSONCoercion.date(from: "2015-02-16")?.timeIntervalSince1970 == 1_424_044_800)
        #expect(try JSONCoercion.data(from: "aGk=") == Data("hi".utf8))
        #expect(try JSONCoercion.uuid(from: "00000000-0000-0000-0000-000000000000") == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(try JSONCoercion.url(from: "https://x.org")?.host() == "x.org")
        for helper in [
            { try JSONCoercion.int64(from: nil) as Any? }, { try JSONCoercion.double(from: nil) }, { try JSONCoercion.float(from: nil) },
            { try JSONCoercion.decimal(from: nil) }, { try JSONCoercion.bool(from: nil) }, { try JSONCoercion.string(from: nil) },
            { try JSONCoercion.date(from: nil) }, { try JSONCoercion.data(from: nil) }, { try JSONCoercion.uuid(from: nil) },
            { try JSONCoercion.url(from: nil) },
        ] as [() throws -> Any?] {
            #expect(try helper() == nil)
        }
        let error = try #require(throws: CoercionError.self) { try JSONCoercion.int64(from: "x") }
        #expect(error.expected == "integer64")
    }
}
