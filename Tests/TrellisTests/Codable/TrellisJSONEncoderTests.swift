// swift-format-ignore-file: AlwaysUseLowerCamelCase, IdentifiersMustBeASCII
// (the Codable types mirror JSON keys as written: snake_case, non-ASCII, leading underscores)

import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// Both encoders configured alike.
private struct EncoderPair {
    var foundation = JSONEncoder()
    var trellis = TrellisJSONEncoder()

    init(_ formatting: JSONEncoder.OutputFormatting = [.sortedKeys], _ configure: (JSONEncoder, TrellisJSONEncoder) -> Void = { _, _ in }) {
        foundation.outputFormatting = formatting
        var mine: TrellisJSONEncoder.OutputFormatting = []
        if formatting.contains(.prettyPrinted) { mine.insert(.prettyPrinted) }
        if formatting.contains(.sortedKeys) { mine.insert(.sortedKeys) }
        if formatting.contains(.withoutEscapingSlashes) { mine.insert(.withoutEscapingSlashes) }
        trellis.outputFormatting = mine
        configure(foundation, trellis)
    }

    /// Expects the same bytes, or the same error (case, coding path, description).
    func expectSame<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = Result { try foundation.encode(value) }
        let actual = Result { try trellis.encode(value) }
        switch (expected, actual) {
        case (.success(let a), .success(let b)):
            #expect(String(decoding: b, as: UTF8.self) == String(decoding: a, as: UTF8.self), sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(describe(b) == describe(a), sourceLocation: sourceLocation)
        default:
            Issue.record("Foundation: \(expected), Trellis: \(actual)", sourceLocation: sourceLocation)
        }
    }

    private func describe(_ error: any Error) -> String {
        guard case EncodingError.invalidValue(let value, let context) = error else { return "\(error)" }
        return "invalidValue(\(value)) at \(context.codingPath.codableDescription): \(context.debugDescription)"
    }
}

private struct Sample: Codable {
    var name = "Ada / Lovelace"
    var count = 3
    var ratio = 0.1
    var big: UInt64 = .max
    var small: Int64 = .min
    var tiny: Int8 = -128
    var float: Float = 0.1
    var flags = [true, false]
    var missing: String? = nil
    var present: String? = "x"
    var nested = ["b": [1, 2], "a": []]
    var empty: [String: Int] = [:]
    var emptyList: [Int] = []
    var emptyNested: [[Int]] = [[]]
    var date = Date(timeIntervalSince1970: 1_700_000_000.25)
    var data = Data([0, 1, 2, 250])
    var url = URL(string: "https://example.com/a/b?c=d")!
    var decimal = Decimal(string: "12345678901234567890.123456789")!
    var userID = "u"
    var imageURLValue = "i"
}

private class Base: Encodable {
    var legs = 4
}

private final class Derived: Base {
    var name = "Rex"
    enum CodingKeys: String, CodingKey { case name }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try super.encode(to: container.superEncoder())
        var list = container.superEncoder(forKey: .name).unkeyedContainer()
        try list.encode(1)
        try super.encode(to: list.superEncoder())
        var nested = list.nestedContainer(keyedBy: CodingKeys.self)
        try nested.encodeNil(forKey: .name)
        var inner = list.nestedUnkeyedContainer()
        try inner.encode(2.5)
    }
}

/// Encodes nothing at all.
private struct Nothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

@Suite("TrellisJSONEncoder: the same bytes as JSONEncoder")
struct TrellisJSONEncoderTests {
    static let formattings: [JSONEncoder.OutputFormatting] = [
        [.sortedKeys], [.sortedKeys, .prettyPrinted], [.sortedKeys, .withoutEscapingSlashes], [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes],
    ]

    @Test(arguments: formattings)
    func structsContainersAndScalars(formatting: JSONEncoder.OutputFormatting) {
        let pair = EncoderPair(formatting)
        pair.expectSame(Sample())
        pair.expectSame([Sample(), Sample()])
        pair.expectSame(Derived())
        pair.expectSame([Nothing()])
        pair.expectSame(["k": Nothing()])
        pair.expectSame(1)
        pair.expectSame("fragment /")
        pair.expectSame(Int?.none)
        pair.expectSame([Int?.none, 1])
        pair.expectSame([[String: [Int]]]())
        pair.expectSame([[String: Int]()])
        pair.expectSame([1: "a", -2: "b"])
        pair.expectSame(["é": 1, "e": 2, "😀": 3, "ﬀ": 4, "Z": 5, "_": 6, "a10": 7, "a2": 8, "": 9])
    }

    @Test func numbersExactly() {
        let pair = EncoderPair()
        let doubles: [Double] = [
            0, -0.0, 1, -1, 0.1, 0.2, 1.0 / 3, 1e100, 1e-7, 1e16, 1e15, 2.5e15, 9_007_199_254_740_992, 9_007_199_254_740_994, 1e21, 1e22,
            .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, 123456789.125, 0.000001, 0.0001234, 100, 1.5e300,
        ]
        pair.expectSame(doubles)
        pair.expectSame(doubles.map { Float($0) })
        pair.expectSame([Int64.max, Int64.min, 0])
        pair.expectSame([UInt64.max, 0])
        pair.expectSame([Int8.min, Int8.max])
        pair.expectSame(["0", "0.1", "-12.5e3", "12345678901234567890123456789012345678", "1e100", "1.50", "-0"].map { Decimal(string: $0)! })
        var generator = SplitMix64(seed: 11)
        var randomDoubles: [Double] = []
        var randomFloats: [Float] = []
        while randomDoubles.count < 5_000 {
            let d = Double(bitPattern: generator.next())
            if d.isFinite { randomDoubles.append(d) }
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: generator.next()))
            if f.isFinite { randomFloats.append(f) }
        }
        pair.expectSame(randomDoubles)
        pair.expectSame(randomFloats)
        pair.expectSame((0..<2_000).map { _ in Int64(bitPattern: generator.next()) })
    }

    @Test func stringsEscapedAlike() {
        let controls = String((0..<0x20).map { Character(Unicode.Scalar($0)!) })
        for formatting in Self.formattings {
            let pair = EncoderPair(formatting)
            pair.expectSame([controls, "\u{7F}\u{80}\u{2028}\u{2029}é😀\"\\/", "</script>", "a\u{0}b"])
            pair.expectSame([controls: "key with controls", "a/b": "slash"])
        }
    }

    @Test func nonConformingFloats() {
        let strict = EncoderPair()
        strict.expectSame([1, Double.nan])
        strict.expectSame(["a": [Float.infinity]])
        strict.expectSame(-Double.infinity)
        let converting = EncoderPair([.sortedKeys]) {
            $0.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
            $1.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        }
        converting.expectSame([Double.nan, .infinity, -.infinity, 1])
        converting.expectSame([Float.nan, .infinity, -.infinity, 1])
        strict.expectSame(Nothing())
    }

    @Test func dateAndDataStrategies() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        let dates: [(JSONEncoder.DateEncodingStrategy, TrellisJSONEncoder.DateEncodingStrategy)] = [
            (.deferredToDate, .deferredToDate), (.secondsSince1970, .secondsSince1970), (.millisecondsSince1970, .millisecondsSince1970),
            (.iso8601, .iso8601), (.formatted(formatter), .formatted(formatter)),
            (
                .custom({ date, encoder in
                    var c = encoder.singleValueContainer()
                    try c.encode("at \(date.timeIntervalSince1970)")
                }),
                .custom({ date, encoder in
                    var c = encoder.singleValueContainer()
                    try c.encode("at \(date.timeIntervalSince1970)")
                })
            ),
            (.custom({ _, _ in }), .custom({ _, _ in })),
        ]
        let values = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_700_000_000.123), Date(timeIntervalSinceReferenceDate: -1e9)]
        for (foundation, trellis) in dates {
            let pair = EncoderPair([.sortedKeys, .prettyPrinted]) {
                $0.dateEncodingStrategy = foundation
                $1.dateEncodingStrategy = trellis
            }
            pair.expectSame(values)
            pair.expectSame(["when": values[1]])
            pair.expectSame(values[2])
        }
        let datas: [(JSONEncoder.DataEncodingStrategy, TrellisJSONEncoder.DataEncodingStrategy)] = [
            (.deferredToData, .deferredToData), (.base64, .base64),
            (
                .custom({ data, encoder in
                    var c = encoder.singleValueContainer()
                    try c.encode(data.count)
                }),
                .custom({ data, encoder in
                    var c = encoder.singleValueContainer()
                    try c.encode(data.count)
                })
            ),
            (.custom({ _, _ in }), .custom({ _, _ in })),
        ]
        for (foundation, trellis) in datas {
            let pair = EncoderPair([.sortedKeys]) {
                $0.dataEncodingStrategy = foundation
                $1.dataEncodingStrategy = trellis
            }
            pair.expectSame([Data(), Data([1, 2, 3]), Data(repeating: 255, count: 100)])
        }
    }

    @Test func keyStrategies() {
        let snake = EncoderPair([.sortedKeys]) {
            $0.keyEncodingStrategy = .convertToSnakeCase
            $1.keyEncodingStrategy = .convertToSnakeCase
        }
        snake.expectSame(Sample())
        snake.expectSame(["userID": 1, "camelCase": 2])  // String-keyed dictionaries keep their keys
        snake.expectSame(SnakeEncoded())
        let custom = EncoderPair([.sortedKeys]) { foundation, trellis in
            foundation.keyEncodingStrategy = .custom { CodableKey(stringValue: $0.last!.stringValue.uppercased() + "\($0.count)") }
            trellis.keyEncodingStrategy = .custom { CodableKey(stringValue: $0.last!.stringValue.uppercased() + "\($0.count)") }
        }
        custom.expectSame(Sample())
        custom.expectSame([Sample()])
    }

    @Test func userInfo() throws {
        let key = CodingUserInfoKey(rawValue: "prefix")!
        let foundation = JSONEncoder()
        foundation.userInfo = [key: "p-"]
        let trellis = TrellisJSONEncoder()
        trellis.userInfo = [key: "p-"]
        #expect(try trellis.encode([Prefixed()]) == foundation.encode([Prefixed()]))
        #expect(String(decoding: try trellis.encode([Prefixed()]), as: UTF8.self) == #"["p-x"]"#)
    }

    @Test(arguments: formattings)
    func corpusRoundTripsByteForByte(formatting: JSONEncoder.OutputFormatting) throws {
        let pair = EncoderPair(formatting)
        for name in ["corpus/twitter.json", "corpus/citm_catalog.json"] {
            let data = try Fixtures.data(name)
            let value = try JSONDecoder().decode(EncodableJSON.self, from: data)
            pair.expectSame(value)
            #expect(try pair.trellis.encode(value).count > 100_000)  // both succeeded, on the whole file
        }
        let twitter = try JSONDecoder().decode(TwitterSearch.self, from: Fixtures.data("corpus/twitter.json"))
        pair.expectSame(twitter)
    }
}

private struct SnakeEncoded: Encodable {
    var oneTwoThree = 1
    var myURLValue = 2
    var _leading = 3
    var trailing_ = 4
    var URLValue = 5
    var value2x = 6
    var héllo = 7
    var ÉtéÀ = 8
    var a = 9
    var already_snake = 10
}

private struct Prefixed: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode((encoder.userInfo[CodingUserInfoKey(rawValue: "prefix")!] as? String ?? "") + "x")
    }
}

/// Any JSON value, re-encoded through the containers (numbers keep integer or double form).
enum EncodableJSON: Codable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([EncodableJSON])
    case object([String: EncodableJSON])

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
            return
        }
        if let bool = try? single.decode(Bool.self) {
            self = .bool(bool)
            return
        }
        if let int = try? single.decode(Int64.self) {
            self = .int(int)
            return
        }
        if let double = try? single.decode(Double.self) {
            self = .double(double)
            return
        }
        if let string = try? single.decode(String.self) {
            self = .string(string)
            return
        }
        if let array = try? single.decode([EncodableJSON].self) {
            self = .array(array)
            return
        }
        self = .object(try single.decode([String: EncodableJSON].self))
    }

    func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        switch self {
        case .null: try single.encodeNil()
        case .bool(let b): try single.encode(b)
        case .int(let i): try single.encode(i)
        case .double(let d): try single.encode(d)
        case .string(let s): try single.encode(s)
        case .array(let a): try single.encode(a)
        case .object(let o): try single.encode(o)
        }
    }
}
