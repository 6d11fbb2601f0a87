// swift-format-ignore-file: AlwaysUseLowerCamelCase, IdentifiersMustBeASCII
// (the Codable types mirror JSON keys as written: snake_case, non-ASCII, leading underscores)

import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

private struct Person: Codable, Equatable {
    var name: String
    var age: Int
    var email: String?
    var tags: [String]
}

private struct Flags: Codable, Equatable {
    var on: Bool
    var maybe: Bool?
}

private struct Dated: Codable, Equatable {
    var when: Date
}

private struct Blob: Codable, Equatable {
    var bytes: Data
}

private struct Link: Codable, Equatable {
    var url: URL
}

private struct Money: Codable, Equatable {
    var amount: Decimal
}

private struct Wide: Codable, Equatable {
    var i8: Int8, i16: Int16, i32: Int32, i64: Int64, i: Int
    var u8: UInt8, u16: UInt16, u32: UInt32, u64: UInt64, u: UInt
    var f: Float, d: Double
}

private struct SnakeKeys: Codable, Equatable {
    var userID: String?
    var userId: String?
    var imageURL: String?
    var urlValue: String?
    var URLValue: String?
    var _leading: String?
    var trailing_: String?
    var __both__: String?
    var oneTwoThree: String?
    var value2x: String?
    var héllo: String?
    var été: String?
    var a: String?
}

/// A class hierarchy encoded with `superDecoder` / `superEncoder`.
private class Animal: Codable {
    var legs: Int
    init(legs: Int) { self.legs = legs }
}

private final class Dog: Animal, @unchecked Sendable {
    var name: String
    enum CodingKeys: String, CodingKey { case name }
    init(name: String, legs: Int) {
        self.name = name
        super.init(legs: legs)
    }
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        try super.init(from: container.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try super.encode(to: container.superEncoder())
    }
}

extension Dog: CustomDebugStringConvertible {
    var debugDescription: String { "Dog(\(name), \(legs))" }
}

/// Every container kind, nested, driven by hand.
private struct Containers: Decodable, Equatable {
    var values: [String]

    enum Keys: String, CodingKey { case a, b, c, d }

    init(from decoder: any Decoder) throws {
        var values: [String] = []
        let keyed = try decoder.container(keyedBy: Keys.self)
        values.append("allKeys \(keyed.allKeys.map(\.stringValue).sorted())")
        values.append("contains c \(keyed.contains(.c))")
        values.append("nil b \(try keyed.decodeNil(forKey: .b))")
        let nested = try keyed.nestedContainer(keyedBy: Keys.self, forKey: .a)
        values.append("a.b \(try nested.decode(Int.self, forKey: .b))")
        var list = try keyed.nestedUnkeyedContainer(forKey: .d)
        values.append("count \(list.count ?? -1)")
        while !list.isAtEnd {
            if try list.decodeNil() {
                values.append("nil")
                continue
            }
            if let inner = try? list.nestedUnkeyedContainer() {
                var inner = inner
                values.append("inner \(try inner.decode(Double.self)) \(inner.currentIndex)")
                continue
            }
            values.append("int \(try list.decode(Int.self)) at \(list.currentIndex)")
        }
        values.append("past end \(String(describing: try list.decodeIfPresent(Int.self))) \(list.currentIndex)")
        let single = try keyed.superDecoder(forKey: .c).singleValueContainer()
        values.append("super c nil \(single.decodeNil())")
        self.values = values
    }
}

@Suite("TrellisJSONDecoder: same values and errors as JSONDecoder")
struct TrellisJSONDecoderTests {
    let pair = DecoderPair()

    @Test func plainStructsOptionalsAndArrays() {
        pair.expectSame(Person.self, #"{"name":"Ada","age":36,"tags":["x","y"]}"#)
        pair.expectSame(Person.self, #"{"name":"Ada","age":36,"email":null,"tags":[]}"#)
        pair.expectSame(Person.self, #"{"name":"Ada","age":36,"email":"a@b.c","tags":["é", "\u00e9", "\ud83d\ude00"]}"#)
        pair.expectSame([Person].self, #"[{"name":"A","age":1,"tags":[]},{"name":"B","age":2,"tags":["t"]}]"#)
        pair.expectSame([Person?].self, #"[null, {"name":"B","age":2,"tags":["t"]}]"#)
        pair.expectSame([[Int]].self, "[[1,2],[],[3]]")
        pair.expectSame(Flags.self, #"{"on":true,"maybe":false}"#)
        pair.expectSame(Flags.self, #"{"on":false}"#)
    }

    @Test func topLevelFragments() {
        pair.expectSame(Int.self, "42")
        pair.expectSame(String.self, #" "text" "#)
        pair.expectSame(Bool.self, "true")
        pair.expectSame(Double.self, "-0.0")
        pair.expectSame(Int?.self, "null")
        pair.expectSame(Int.self, "null")
        pair.expectSame(String.self, "12")
        pair.expectSame([String: Int].self, #"{"b":2,"a":1}"#)
        pair.expectSame(Date.self, "12.5")
        pair.expectSame(Data.self, #""AQID""#)
    }

    @Test func errorsWithTheirCodingPaths() {
        pair.expectSame(Person.self, #"{"name":"Ada","tags":[]}"#)  // keyNotFound age at []
        pair.expectSame(Person.self, #"{"name":"Ada","age":"36","tags":[]}"#)  // typeMismatch at [age]
        pair.expectSame(Person.self, #"{"name":null,"age":36,"tags":[]}"#)  // valueNotFound
        pair.expectSame(Person.self, #"{"name":"Ada","age":36,"tags":["x", 2]}"#)  // [tags, Index 1]
        pair.expectSame(Person.self, #"{"name":"Ada","age":36,"tags":["x", null]}"#)
        pair.expectSame([Person].self, #"[{"name":"A","age":1,"tags":[]},{"name":"B","age":2.5,"tags":[]}]"#)
        pair.expectSame([Person].self, #"[{"name":"A","age":1,"tags":[]}, 3]"#)
        pair.expectSame([Person].self, #"{"name":"A"}"#)
        pair.expectSame(Person.self, "[]")
        pair.expectSame(Person.self, "null")
        pair.expectSame([Int].self, "null")
        pair.expectSame(Flags.self, #"{"on":null}"#)  // Foundation: a null Bool is a type mismatch
        pair.expectSame(Flags.self, #"{"on":1}"#)
        pair.expectSame(Flags.self, #"{"on":true,"maybe":"yes"}"#)
        pair.expectSame([String: Int].self, #"{"a":1,"b":"2"}"#)
        pair.expectSame([Int: String].self, #"{"1":"a","x":"b"}"#)
    }

    @Test func malformedInputIsDataCorruptedWithLineAndColumn() throws {
        for text in ["", " ", "{", #"{"a" 1}"#, "[1 2]", "tru", #"{"a":1}x"#, "'a'", "[1]\n,", "[1,,2]", "{,}", "\u{FEFF}\u{FEFF}1"] {
            let outcome = pair.expectSame(Int.self, text)
            guard case .error(let kind, let path, let message) = outcome else {
                Issue.record("\(text) decoded")
                continue
            }
            #expect(kind == "dataCorrupted" && path.isEmpty)
            #expect(message.hasPrefix("The given data was not valid JSON."))
        }
        do {
            _ = try TrellisJSONDecoder().decode([Int].self, from: Data("[1,\n 2,\n x]".utf8))
            Issue.record("decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.contains("line 3, column 2"))
            #expect(context.underlyingError is JSONParseError)
        }
    }

    @Test func utf16AndUTF32Input() {
        let text = #"{"name":"Ådå 😀","age":36,"tags":["x"]}"#
        for encoding: String.Encoding in [.utf16BigEndian, .utf16LittleEndian, .utf32BigEndian, .utf32LittleEndian, .utf16, .utf32, .utf8] {
            pair.expectSame(Person.self, data: text.data(using: encoding)!)
            pair.expectSame(Int.self, data: "7".data(using: encoding)!)
        }
        pair.expectSame(Person.self, data: Data([0xFF, 0xFE, 0x7B, 0x00, 0x00, 0xD8]))  // a lone surrogate in UTF-16
    }

    @Test func describedErrorsNameLineColumnAndPath() throws {
        let text = "{\n  \"name\": \"Ada\",\n  \"age\": 36,\n  \"tags\": [\"x\", 2]\n}"
        do {
            _ = try TrellisJSONDecoder().decode(Person.self, from: Data(text.utf8))
            Issue.record("decoded")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["tags", "Index 1"])
            #expect(context.debugDescription == "Expected to decode String but found number instead. (line 4, column 17, at $.tags[1])")
        }
        do {
            _ = try TrellisJSONDecoder().decode([UInt8].self, from: Data("[1,\n 300]".utf8))
            Issue.record("decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.isEmpty)  // as Foundation reports it
            #expect(context.debugDescription.hasSuffix("(line 2, column 2, at $[1])"))
        }
        do {
            _ = try TrellisJSONDecoder().decode(Person.self, from: Data("{\"name\": \"x\",\n \"tags\": []}".utf8))
            Issue.record("decoded")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "age")
            #expect(context.debugDescription.hasSuffix("(line 1, column 1, at $)"))
        }
    }

    @Test func integersOfEveryWidth() {
        let limits: [String] = [
            "0", "-0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "32768", "-32769", "65535", "65536",
            "2147483647", "2147483648", "-2147483649", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
            "1.0", "1e2", "1E+2", "-0.0", "2.5", "1e-2", "100e-2", "9007199254740993", "9007199254740993.0",
            "1.0000000000000001", "12345678901234567890123", "1e19", "1e20", "-1e18", "0.5e1", "123456789012345.6789e3",
        ]
        for text in limits {
            pair.expectSame(Int8.self, text)
            pair.expectSame(Int16.self, text)
            pair.expectSame(Int32.self, text)
            pair.expectSame(Int64.self, text)
            pair.expectSame(Int.self, text)
            pair.expectSame(UInt8.self, text)
            pair.expectSame(UInt16.self, text)
            pair.expectSame(UInt32.self, text)
            pair.expectSame(UInt64.self, text)
            pair.expectSame(UInt.self, text)
            pair.expectSame([Int64].self, "[\(text)]")
            pair.expectSame(Wide.self, #"{"i8":1,"i16":1,"i32":1,"i64":1,"i":1,"u8":1,"u16":1,"u32":1,"u64":\#(text),"u":1,"f":1,"d":\#(text)}"#)
        }
    }

    @Test func floatingPointToTheLastBit() {
        let texts = [
            "0", "-0", "0.0", "-0.0", "1", "0.1", "0.2", "0.30000000000000004", "1e100", "1e308", "1.7976931348623157e308",
            "1.7976931348623159e308", "1e309", "4.9e-324", "5e-324", "2e-324", "1e-400", "0e-400", "0.000e5", "2.2250738585072011e-308",
            "123456789012345678901234567890", "3.4028234663852886e38", "3.4028235677973366e38", "1.17549435e-38", "1e-46", "0.000e5", "0.0e5", "0.00000e5",
            "00", "0e-400",
            "9007199254740993", "0.1e1", "-1.5E-7", "6.02214076e23",
        ]
        for text in texts {
            pair.expectSame(Double.self, text)
            pair.expectSame(Float.self, text)
            pair.expectSame([Double].self, "[\(text)]")
            pair.expectSame([String: Float].self, #"{"v":\#(text)}"#)
        }
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let double = Double(bitPattern: generator.next())
            guard double.isFinite else { continue }
            pair.expectSame(Double.self, "\(double)".replacingOccurrences(of: "inf", with: "1e999"))
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: generator.next()))
            guard float.isFinite else { continue }
            pair.expectSame(Float.self, "\(float)")
            pair.expectSame(Double.self, "\(float)")
        }
    }

    @Test func nonConformingFloats() {
        let strategy = DecoderPair { foundation, trellis in
            foundation.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
            trellis.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        }
        for text in [#""+inf""#, #""-inf""#, #""nan""#, #""NaN""#, "1.5", "null"] {
            strategy.expectSame(Double.self, text)
            strategy.expectSame([Float].self, "[\(text)]")
            pair.expectSame(Double.self, text)
        }
    }

    @Test func decimalsExactly() {
        for text in [
            "0", "-0", "0.1", "-0.1", "1e-130", "1e-128", "1e127", "1e128", "1e200", "3.14159265358979323846264338327950288419716939937510",
            "12345678901234567890123456789012345678", "123456789012345678901234567890123456789012", "100", "1.50", "-12.5e3",
            "99999999999999999999999999999999999999", "0.00000000000000000000000000000000000001",
        ] {
            pair.expectSame(Money.self, #"{"amount":\#(text)}"#)
            pair.expectSame(Decimal.self, text)
        }
        pair.expectSame(Money.self, #"{"amount":"1.5"}"#)
        pair.expectSame(Money.self, #"{"amount":null}"#)
    }

    @Test func dateStrategies() {
        let texts = [
            "0", "1.5", "-86400", "1e300", #""2024-05-01T12:00:00Z""#, #""2024-05-01T12:00:00.123Z""#, #""2024-05-01T12:00:00+02:00""#,
            #""2024-05-01""#, #""not a date""#, "null", "true", #""05/01/2024""#,
        ]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "MM/dd/yyyy"
        let strategies: [(JSONDecoder.DateDecodingStrategy, TrellisJSONDecoder.DateDecodingStrategy)] = [
            (.deferredToDate, .deferredToDate), (.secondsSince1970, .secondsSince1970), (.millisecondsSince1970, .millisecondsSince1970),
            (.iso8601, .iso8601), (.formatted(formatter), .formatted(formatter)),
            (
                .custom({ try Date(timeIntervalSince1970: $0.singleValueContainer().decode(Double.self) * 2) }),
                .custom({ try Date(timeIntervalSince1970: $0.singleValueContainer().decode(Double.self) * 2) })
            ),
        ]
        for (foundation, trellis) in strategies {
            let strategy = DecoderPair {
                $0.dateDecodingStrategy = foundation
                $1.dateDecodingStrategy = trellis
            }
            for text in texts {
                strategy.expectSame(Dated.self, #"{"when":\#(text)}"#)
                strategy.expectSame([Date].self, "[\(text)]")
                strategy.expectSame([String: [Date]].self, #"{"a":[\#(text)]}"#)
                strategy.expectSame(Date.self, text)
            }
        }
    }

    @Test func dataStrategies() {
        let texts = [#""AQID""#, #""""#, #""AQI=""#, #""AQI""#, #""!!""#, "[1,2,3]", "[256]", "null", "12"]
        let strategies: [(JSONDecoder.DataDecodingStrategy, TrellisJSONDecoder.DataDecodingStrategy)] = [
            (.deferredToData, .deferredToData), (.base64, .base64),
            (
                .custom({ Data(try $0.singleValueContainer().decode(String.self).utf8) }),
                .custom({ Data(try $0.singleValueContainer().decode(String.self).utf8) })
            ),
        ]
        for (foundation, trellis) in strategies {
            let strategy = DecoderPair {
                $0.dataDecodingStrategy = foundation
                $1.dataDecodingStrategy = trellis
            }
            for text in texts {
                strategy.expectSame(Blob.self, #"{"bytes":\#(text)}"#)
                strategy.expectSame([Data].self, "[\(text)]")
            }
        }
    }

    @Test func urls() {
        for text in [#""https://example.com/a?b=c#d""#, #""relative/path""#, #""""#, #""http://[::1""#, #""a b""#, "12", "null"] {
            pair.expectSame(Link.self, #"{"url":\#(text)}"#)
            pair.expectSame(URL.self, text)
        }
    }

    @Test func snakeCaseConversion() {
        let snake = DecoderPair {
            $0.keyDecodingStrategy = .convertFromSnakeCase
            $1.keyDecodingStrategy = .convertFromSnakeCase
        }
        let keys = [
            "user_id", "user_ID", "USER_ID", "image_url", "url_value", "URLValue", "_leading", "trailing_", "__both__", "_", "__", "",
            "one_two_three", "one__two___three", "value_2x", "value2x", "héllo", "été", "_été_", "a", "A", "a_b_c_", "userID",
            "image__URL", "ß_straße", "ǆ_ǆ", "i_İ",
        ]
        for key in keys {
            snake.expectSame(SnakeKeys.self, #"{"\#(key)":"v"}"#)
            snake.expectSame([String: String].self, #"{"\#(key)":"v"}"#)  // String-keyed dictionaries keep their keys
            snake.expectSame([String: [String: Int]].self, #"{"\#(key)":{"\#(key)":1}}"#)
            #expect(SnakeCaseKeys.fromSnakeCase(key) == foundationConverted(key), "\(key)")
        }
        snake.expectSame(SnakeKeys.self, #"{"user_id":"first","userId":"second"}"#)
        snake.expectSame(SnakeKeys.self, #"{"userId":"first","user_id":"second"}"#)
    }

    @Test func customKeyStrategy() {
        let custom = DecoderPair { foundation, trellis in
            foundation.keyDecodingStrategy = .custom { path in CodableKey(stringValue: path.last!.stringValue.lowercased() + "\(path.count)") }
            trellis.keyDecodingStrategy = .custom { path in CodableKey(stringValue: path.last!.stringValue.lowercased() + "\(path.count)") }
        }
        custom.expectSame([String: Int].self, #"{"A":1}"#)
        custom.expectSame(SnakeKeys.self, #"{"A1":"x"}"#)
        custom.expectSame(CustomKeys.self, #"{"NAME":"x","Inner":{"VALUE":3}}"#)
        custom.expectSame(CustomKeys.self, #"{"NAME":"x","Inner":{"VALUE":"3"}}"#)
    }

    @Test func repeatedKeysKeepTheFirstValue() {
        pair.expectSame(Person.self, #"{"name":"A","name":"B","age":1,"tags":[],"age":2}"#)
        pair.expectSame([String: Int].self, #"{"a":1,"a":2}"#)
        let many = (0..<20).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        pair.expectSame([String: Int].self, "{\(many),\"k3\":99}")
    }

    @Test func everyContainerKind() {
        pair.expectSame(Containers.self, #"{"a":{"b":1},"b":null,"d":[1,null,[2.5],3]}"#)
        pair.expectSame(Containers.self, #"{"a":{"b":1},"b":1,"c":7,"d":[]}"#)
        pair.expectSame(Containers.self, #"{"a":{"b":"x"},"b":null,"d":[]}"#)
        pair.expectSame(Containers.self, #"{"a":[],"b":null,"d":[]}"#)
        pair.expectSame(Containers.self, #"{"a":null,"b":null,"d":[]}"#)
        pair.expectSame(Containers.self, #"{"a":{"b":1},"b":null,"d":{}}"#)
        pair.expectSame(Containers.self, #"{"a":{"b":1},"d":[]}"#)
        pair.expectSame(Containers.self, #"{"a":{"b":1},"b":null,"d":[1,"x"]}"#)
        pair.expectSame(Dog.self, #"{"name":"Rex","super":{"legs":4}}"#)
        pair.expectSame(Dog.self, #"{"name":"Rex"}"#)
        pair.expectSame(Dog.self, #"{"name":"Rex","super":{"legs":"4"}}"#)
        pair.expectSame(UnkeyedPastEnd.self, "[1]")
        pair.expectSame(UnkeyedPastEnd.self, "[1, 2]")
    }

    @Test func dictionariesWithEveryKeyKind() {
        pair.expectSame([String: Int].self, #"{"a":1,"b":2}"#)
        pair.expectSame([Int: String].self, #"{"1":"a","-2":"b"}"#)
        pair.expectSame([Int: String].self, #"{"1.5":"a"}"#)
        pair.expectSame([Int: String].self, #"["a"]"#)
        pair.expectSame([Color: Int].self, #"{"red":1,"blue":2}"#)
        pair.expectSame([Color: Int].self, #"{"red":1,"green":2}"#)
        pair.expectSame([Color: Int].self, #"["red",1]"#)
        pair.expectSame([String: [String: [Int]]].self, #"{"a":{"b":[1,2]},"c":{}}"#)
    }

    @Test func userInfoReachesEveryDecoder() throws {
        let key = CodingUserInfoKey(rawValue: "scale")!
        let decoder = TrellisJSONDecoder()
        decoder.userInfo = [key: 10]
        let foundation = JSONDecoder()
        foundation.userInfo = [key: 10]
        let json = Data(#"[{"value": 2}, {"value": 3}]"#.utf8)
        #expect(try decoder.decode([Scaled].self, from: json) == foundation.decode([Scaled].self, from: json))
        #expect(try decoder.decode([Scaled].self, from: json).map(\.value) == [20, 30])
        #expect(try decoder.decode([Scaled].self, from: Array(json)) == foundation.decode([Scaled].self, from: json))
        #expect(try decoder.decode([Scaled].self, from: json.reversed().reversed()) == foundation.decode([Scaled].self, from: json))
    }

    @Test func nestingDepth() {
        // Within the reader's limit both decode; far beyond it both fail (Foundation's
        // limit is also 512), and neither overflows the stack.
        for depth in [1, 100, 511, 512, 513, 10_000] {
            let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            pair.expectSame(Nested.self, text)
        }
    }

    @Test func corpusFiles() throws {
        for name in ["corpus/twitter.json", "corpus/citm_catalog.json"] {
            let data = try Fixtures.data(name)
            let (expected, actual) = pair.outcomes(AnyJSON.self, data: data)
            #expect(actual == expected, "\(name)")
            if case .value = actual {} else { Issue.record("\(name): \(actual)") }
        }
        let data = try Fixtures.data("corpus/twitter.json")
        pair.expectSame(TwitterSearch.self, data: data)
        let snake = DecoderPair {
            $0.keyDecodingStrategy = .convertFromSnakeCase
            $1.keyDecodingStrategy = .convertFromSnakeCase
        }
        snake.expectSame(TwitterSearchCamel.self, data: data)
    }
}

/// Foundation's own conversion, observed through a keyed container's keys.
private func foundationConverted(_ key: String) -> String {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let json = try! JSONSerialization.data(withJSONObject: [key: 1])
    return try! decoder.decode(KeysProbe.self, from: json).keys.first ?? "?"
}

/// The (converted) keys of an object.
private struct KeysProbe: Decodable {
    var keys: [String]
    init(from decoder: any Decoder) throws {
        keys = try decoder.container(keyedBy: CodableKey.self).allKeys.map(\.stringValue)
    }
}

private enum Color: String, Codable, CodingKeyRepresentable, Hashable {
    case red, blue
}

private struct CustomKeys: Codable, Equatable {
    var name2: String
    var inner2: Inner
    struct Inner: Codable, Equatable { var value3: Int }
}

private struct UnkeyedPastEnd: Decodable, Equatable {
    var values: [String]
    init(from decoder: any Decoder) throws {
        var list = try decoder.unkeyedContainer()
        values = ["\(try list.decode(Int.self))"]
        values.append("\(String(describing: try list.decodeIfPresent(Int.self))) \(list.currentIndex)")
        values.append("\(String(describing: try list.decodeIfPresent(Int.self))) \(list.currentIndex)")
        values.append("\(try list.decode(Int.self))")
    }
}

private struct Scaled: Decodable, Equatable {
    var value: Int
    enum CodingKeys: CodingKey { case value }
    init(from decoder: any Decoder) throws {
        let scale = decoder.userInfo[CodingUserInfoKey(rawValue: "scale")!] as? Int ?? 1
        value = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .value) * scale
    }
}

/// An array of arrays of any depth.
private struct Nested: Decodable, CustomDebugStringConvertible {
    var depth: Int
    init(from decoder: any Decoder) throws {
        var list = try decoder.unkeyedContainer()
        depth = list.isAtEnd ? 1 : try list.decode(Nested.self).depth + 1
    }
    var debugDescription: String { "Nested(\(depth))" }
}

/// Any JSON value, through the generic containers (objects as sorted key/value lists).
enum AnyJSON: Decodable, CustomDebugStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([AnyJSON])
    case object([(String, AnyJSON)])

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
        if let array = try? single.decode([AnyJSON].self) {
            self = .array(array)
            return
        }
        let object = try single.decode([String: AnyJSON].self)
        self = .object(object.sorted { $0.key < $1.key })
    }

    var debugDescription: String {
        switch self {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .int(let i): "\(i)"
        case .double(let d): "\(d)"
        case .string(let s): String(reflecting: s)
        case .array(let a): "[" + a.map(\.debugDescription).joined(separator: ",") + "]"
        case .object(let o): "{" + o.map { "\(String(reflecting: $0.0)):\($0.1.debugDescription)" }.joined(separator: ",") + "}"
        }
    }
}

struct TwitterSearch: Codable, Equatable {
    struct User: Codable, Equatable {
        var id: Int64
        var id_str: String
        var name: String
        var screen_name: String
        var description: String?
        var url: URL?
        var followers_count: Int32
        var verified: Bool
        var profile_image_url_https: URL
    }
    struct Status: Codable, Equatable {
        var id: UInt64
        var text: String
        var user: User
        var retweet_count: Int
        var favorited: Bool
        var in_reply_to_status_id: Int64?
        var entities: [String: [AnyEntity]]
    }
    struct AnyEntity: Codable, Equatable {
        var indices: [Int]
    }
    struct Metadata: Codable, Equatable {
        var max_id: Int64
        var next_results: String?
        var count: Int
        var completed_in: Double
    }
    var statuses: [Status]
    var search_metadata: Metadata
}

struct TwitterSearchCamel: Codable, Equatable {
    struct User: Codable, Equatable {
        var idStr: String
        var screenName: String
        var followersCount: Int
        var profileImageUrlHttps: URL
    }
    struct Status: Codable, Equatable {
        var idStr: String
        var user: User
        var inReplyToScreenName: String?
    }
    var statuses: [Status]
}

@Suite("TrellisJSONDecoder: where it is stricter than JSONDecoder (the known differences)")
struct TrellisJSONDecoderStrictnessTests {
    /// Foundation's scanner accepts a trailing comma and checks numbers and strings only
    /// when they are decoded; Trellis reads strict RFC 8259 up front: each of these is
    /// `dataCorrupted` at the empty path, naming line and column.
    @Test(arguments: ["[1,]", #"{"a":1,}"#, "[01]", #"["\x"]"#, "[1.]", #"["\ud800"]"#])
    func invalidJSONThatFoundationPartlyAccepts(text: String) {
        let pair = DecoderPair()
        let (foundation, trellis) = pair.outcomes(Int.self, text)
        guard case .error(let kind, let path, let message) = trellis else {
            Issue.record("decoded: \(trellis)")
            return
        }
        #expect(kind == "dataCorrupted" && path.isEmpty)
        #expect(message.hasPrefix("The given data was not valid JSON. line 1, column "))
        #expect(foundation != trellis, "Foundation: \(foundation)")
    }
}
