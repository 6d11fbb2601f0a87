import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

@Suite struct JSONReaderTests {
    // MARK: - Values

    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONReader.parse(#" {"a": [1, -2, 3.5, "x", true, false, null, {}, []], "b": {"c": "d"}} "#)
        #expect(value == ["a": [1, -2, 3.5, "x", true, false, nil, [:], []], "b": ["c": "d"]])
        #expect(value["a"]?[2]?.numberValue?.text == "3.5")
        #expect(value.objectValue?.keys == ["a", "b"])
    }

    @Test func integersInInt64RangeAreStoredAsInt64() throws {
        let value = try JSONReader.parse(
            "[0, -0, 9223372036854775807, -9223372036854775808, 9223372036854775808, -9223372036854775809, 1e2, 1.0, 123456789012345678]")
        let numbers = try #require(value.arrayValue).compactMap(\.numberValue)
        #expect(numbers.count == 9)
        guard case .int(0) = numbers[0].storage else {
            Issue.record("0: \(numbers[0].storage)")
            return
        }
        guard case .int(0) = numbers[1].storage else {
            Issue.record("-0: \(numbers[1].storage)")
            return
        }
        guard case .int(.max) = numbers[2].storage else {
            Issue.record("max: \(numbers[2].storage)")
            return
        }
        guard case .int(.min) = numbers[3].storage else {
            Issue.record("min: \(numbers[3].storage)")
            return
        }
        guard case .text("9223372036854775808") = numbers[4].storage else {
            Issue.record("max+1: \(numbers[4].storage)")
            return
        }
        guard case .text("-9223372036854775809") = numbers[5].storage else {
            Issue.record("min-1: \(numbers[5].storage)")
            return
        }
        guard case .text("1e2") = numbers[6].storage else {
            Issue.record("1e2: \(numbers[6].storage)")
            return
        }
        guard case .text("1.0") = numbers[7].storage else {
            Issue.record("1.0: \(numbers[7].storage)")
            return
        }
        guard case .int(123_456_789_012_345_678) = numbers[8].storage else {
            Issue.record("18 digits: \(numbers[8].storage)")
            return
        }
    }

    @Test func twitterIdsStayExact() throws {
        let value = try JSONReader.parse(Fixtures.data("corpus/twitter.json"))
        let first = try #require(value["statuses"]?[0])
        #expect(first["id"]?.int64Value == 505_874_924_095_815_681)
        #expect(first["id_str"]?.stringValue == "505874924095815681")
        let statuses = try #require(value["statuses"]?.arrayValue)
        #expect(statuses.count == 100)
        for status in statuses {
            #expect(status["id"]?.int64Value.map(String.init) == status["id_str"]?.stringValue)
        }
    }

    @Test func citmCatalogParses() throws {
        let value = try JSONReader.parse(Fixtures.data("corpus/citm_catalog.json"))
        #expect(value["events"]?.objectValue?.count == 184)
        #expect(value["performances"]?.arrayValue?.count == 243)
        #expect(value["events"]?["138586341"]?["name"]?.stringValue == "30th Anniversary Tour")
    }

    @Test func decodesEscapes() throws {
        let value = try JSONReader.parse(#"["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u4e2d\ud83d\ude00", "plain é 中 😀", "a\u0000b"]"#)
        #expect(value == ["\"\\/\u{8}\u{C}\n\r\t", "Aé中😀", "plain é 中 😀", "a\u{0}b"])
    }

    @Test func longStringsAcrossTheWordLoop() throws {
        let text = String(repeating: "abcdefghij", count: 10) + "é" + String(repeating: "x", count: 13)
        #expect(try JSONReader.parse("\"\(text)\"") == .string(text))
        #expect(try JSONReader.parse("\"\(text)\\n\(text)\"") == .string(text + "\n" + text))
    }

    @Test func duplicateKeysLastValueWinsAtFirstPosition() throws {
        let small = try JSONReader.parse(#"{"a": 1, "b": 2, "a": 3, "\u0062": 4}"#)
        #expect(small.objectValue?.keys == ["a", "b"])
        #expect(small["a"] == 3)
        #expect(small["b"] == 4)
        let members = (0..<20).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        let large = try JSONReader.parse("{\(members), \"k3\": 99}")
        #expect(large.objectValue?.count == 20)
        #expect(large["k3"] == 99)
        #expect(large.objectValue?.keys.first == "k0")
    }

    @Test func keysPredictedFromEarlierObjectsAreExact() throws {
        // Same-shaped objects with keys that differ by prefixes, lengths, escapes and
        // UTF-8, as the key predictor sees them.
        let keySets: [[String]] = [
            ["ab", "abc", "x"], ["abc", "ab", "x"], ["a\u{e9}", "ab", "y"], ["exactly16bytes..", "ab", "z"],
            ["seventeen_bytes__", "ab", "x"], ["ab", "abc", "x"], ["a\"q", "a\\b", "x"], ["ab", "abc", "x"],
        ]
        var text = "["
        var expected: [JSONValue] = []
        for round in 0..<3 {
            for (i, keys) in keySets.enumerated() {
                if text.count > 1 { text += "," }
                let members = keys.enumerated().map { j, key -> String in
                    let written = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    return "\"\(written)\": \(round * 100 + i * 10 + j)"
                }
                text += "{" + members.joined(separator: ", ") + "}"
                var object = JSONObject()
                for (j, key) in keys.enumerated() { object.append(key: key, value: .number(JSONNumber(Int64(round * 100 + i * 10 + j)))) }
                expected.append(.object(object))
            }
        }
        text += "]"
        let value = try JSONReader.parse(text)
        #expect(value == .array(expected))
        #expect(value.arrayValue?.map { $0.objectValue?.keys ?? [] } == expected.map { $0.objectValue?.keys ?? [] })
    }

    @Test func repeatedSmallObjectsAreIndependentValues() throws {
        let text =
            #"[{"id":"16","name":"Valiant 1"}, {"id":"16","name":"Valiant 1"}, {"id":"16", "name":"Valiant 1"}, {"id":"17","name":"Valiant 1"}, {"n":[1]}, {"n":[1]}, {"a":1,"a":2}, {"a":1,"a":2}]"#
        var elements = try #require(JSONReader.parse(text).arrayValue)
        #expect(elements[0] == ["id": "16", "name": "Valiant 1"])
        #expect(elements[1] == elements[0] && elements[2] == elements[0])
        #expect(elements[3] == ["id": "17", "name": "Valiant 1"])
        #expect(elements[5] == ["n": [1]])
        #expect(elements[7] == ["a": 2] && elements[7].objectValue?.count == 1)
        // Shared storage is copy on write: changing one leaves the others alone.
        if case .object(var object) = elements[1] {
            object["name"] = "changed"
            elements[1] = .object(object)
        }
        #expect(elements[0]["name"] == "Valiant 1")
        #expect(elements[1]["name"] == "changed")
    }

    @Test func acceptsAllOverloads() throws {
        let text = #"{"x": [1]}"#
        let expected: JSONValue = ["x": [1]]
        #expect(try JSONReader.parse(text) == expected)
        #expect(try JSONReader.parse(Array(text.utf8)) == expected)
        #expect(try JSONReader.parse(Data(text.utf8)) == expected)
        #expect(try JSONReader.parse(text.utf8) == expected)
        #expect(try JSONReader.parse(ArraySlice(text.utf8)) == expected)
        let bytes = Array(text.utf8)
        #expect(try bytes.withUnsafeBytes { try JSONReader.parse($0) } == expected)
    }

    // MARK: - Depth

    @Test func depthLimitIsAnErrorNotACrash() throws {
        let arrays = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let error = try #require(throws: JSONParseError.self) { try JSONReader.parse(arrays) }
        #expect(error.code == .depthLimitExceeded)
        #expect(error.byteOffset == 512)
        #expect(error.column == 513)
        #expect(error.message == "arrays and objects nested deeper than 512 levels")

        let objects = [UInt8](String(repeating: #"{"a":"#, count: 100_000).utf8)
        let objectError = try #require(throws: JSONParseError.self) { try JSONReader.parse(objects) }
        #expect(objectError.code == .depthLimitExceeded)
        #expect(objectError.byteOffset == 512 * 5)
    }

    @Test func deepNestingWithinALargerLimitParses() throws {
        let depth = 100_000
        let text = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
        var value = try JSONReader.parse(text, options: .init(maximumDepth: depth))
        var levels = 0
        while case .array(let elements) = value, let first = elements.first {
            levels += 1
            value = first
        }
        #expect(levels == depth)
        #expect(value == 1)
        let exactly512 = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONReader.parse(exactly512) }
    }

    // MARK: - Errors

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var text: String
        var code: JSONParseError.Code
        var line: Int
        var column: Int
        var message: String
        var testDescription: String { text }
    }

    static let errorCases: [ErrorCase] = [
        .init(text: "", code: .unexpectedEndOfInput, line: 1, column: 1, message: "expected a JSON value, found end of input"),
        .init(text: "  \n ", code: .unexpectedEndOfInput, line: 2, column: 2, message: "expected a JSON value, found end of input"),
        .init(text: "{\"a\": 1 \"b\": 2}", code: .unexpectedCharacter, line: 1, column: 9, message: "expected ',' or '}' after object member"),
        .init(
            text: "{\n  \"name\": \"x\",\n  \"id\": 1 2\n}", code: .unexpectedCharacter, line: 3, column: 11, message: "expected ',' or '}' after object member"
        ),
        .init(text: "[1, 2", code: .unexpectedEndOfInput, line: 1, column: 6, message: "expected ',' or ']' after array element, found end of input"),
        .init(text: "[1 2]", code: .unexpectedCharacter, line: 1, column: 4, message: "expected ',' or ']' after array element"),
        .init(text: "[1,]", code: .unexpectedCharacter, line: 1, column: 4, message: "expected a JSON value, found ']'"),
        .init(text: "{\"a\":1,}", code: .unexpectedCharacter, line: 1, column: 8, message: "expected a string key after ',' (trailing commas are not allowed)"),
        .init(text: "{'a':1}", code: .unexpectedCharacter, line: 1, column: 2, message: "expected a string key, found \"'\""),
        .init(text: "{\"a\" 1}", code: .unexpectedCharacter, line: 1, column: 6, message: "expected ':' after object key, found '1'"),
        .init(text: "[tru]", code: .unexpectedCharacter, line: 1, column: 5, message: "invalid literal, expected 'true'"),
        .init(text: "nul", code: .unexpectedEndOfInput, line: 1, column: 4, message: "expected 'null', found end of input"),
        .init(text: "[01]", code: .invalidNumber, line: 1, column: 2, message: "invalid number: leading zeros are not allowed"),
        .init(text: "[1.]", code: .invalidNumber, line: 1, column: 4, message: "invalid number: expected a digit after '.', found ']'"),
        .init(text: "[-x]", code: .invalidNumber, line: 1, column: 3, message: "invalid number: expected a digit after '-', found 'x'"),
        .init(
            text: "1e+", code: .unexpectedEndOfInput, line: 1, column: 4,
            message: "invalid number: expected a digit after the exponent marker, found end of input"),
        .init(text: "[.5]", code: .unexpectedCharacter, line: 1, column: 2, message: "expected a JSON value, found '.'"),
        .init(text: "\"abc", code: .unexpectedEndOfInput, line: 1, column: 5, message: "unterminated string, found end of input"),
        .init(text: "[\"a\tb\"]", code: .controlCharacterInString, line: 1, column: 4, message: "unescaped control character U+0009 in string"),
        .init(text: "[\"a\\xb\"]", code: .invalidEscape, line: 1, column: 4, message: "invalid escape sequence '\\x' in string"),
        .init(text: "[\"\\u12G4\"]", code: .invalidEscape, line: 1, column: 3, message: "invalid \\u escape in string: expected 4 hexadecimal digits"),
        .init(
            text: "[\"é\\uD800\"]", code: .loneSurrogate, line: 1, column: 4,
            message: "lone surrogate \\uD800 in string (a UTF-16 surrogate must be part of a pair)"),
        .init(text: "[1] x", code: .trailingData, line: 1, column: 5, message: "expected end of input after the JSON value, found 'x'"),
        .init(text: "[1]]", code: .trailingData, line: 1, column: 4, message: "expected end of input after the JSON value, found ']'"),
        .init(text: "[\u{7F}]", code: .unexpectedCharacter, line: 1, column: 2, message: "expected a JSON value, found control character U+007F"),
        .init(text: "/* c */ 1", code: .unexpectedCharacter, line: 1, column: 1, message: "expected a JSON value, found '/'"),
        .init(text: "{\"日本\": 1,\n \"é\": x}", code: .unexpectedCharacter, line: 2, column: 7, message: "expected a JSON value, found 'x'"),
    ]

    @Test(arguments: errorCases)
    func errorHasCodeLocationAndMessage(_ testCase: ErrorCase) throws {
        let error = try #require(throws: JSONParseError.self) { try JSONReader.parse(testCase.text) }
        #expect(error.code == testCase.code)
        #expect(error.line == testCase.line)
        #expect(error.column == testCase.column)
        #expect(error.message == testCase.message)
        #expect(error.description == "line \(testCase.line), column \(testCase.column): \(testCase.message)")
    }

    @Test func invalidUTF8IsLocatedAtTheByte() throws {
        let bytes: [UInt8] = Array("[\"ab".utf8) + [0xC3, 0x28] + Array("\"]".utf8)
        let error = try #require(throws: JSONParseError.self) { try JSONReader.parse(bytes) }
        #expect(error.code == .invalidUTF8)
        #expect(error.byteOffset == 4)
        #expect(error.column == 5)
        #expect(error.message == "invalid UTF-8 byte 0xC3 in string")
        let escaped: [UInt8] = Array("[\"\\n".utf8) + [0xFF] + Array("\"]".utf8)
        let escapedError = try #require(throws: JSONParseError.self) { try JSONReader.parse(escaped) }
        #expect(escapedError.code == .invalidUTF8)
        #expect(escapedError.byteOffset == 4)
    }

    @Test func longEscapedStringsDecodeAndReportTheFirstError() throws {
        let plain = String(repeating: "ab日本", count: 20)
        let text = "\"\(plain)\\n\(plain)\\u00e9\\ud83d\\ude00\(plain)\""
        #expect(try JSONReader.parse(text) == .string(plain + "\n" + plain + "é😀" + plain))

        // Invalid UTF-8 in a long run after an escape: located at the byte.
        let bad: [UInt8] = Array("[\"\\t".utf8) + Array(repeating: 0x61, count: 30) + [0xE6, 0x97] + Array("x\\q\"]".utf8)
        let error = try #require(throws: JSONParseError.self) { try JSONReader.parse(bad) }
        #expect(error.code == .invalidUTF8)
        #expect(error.byteOffset == 34)
        // The bad escape after it is not reported: the earlier error wins.
        #expect(error.message == "invalid UTF-8 byte 0xE6 in string")
    }

    @Test func excerptShowsTheLineWithACaret() throws {
        let error = try #require(throws: JSONParseError.self) {
            try JSONReader.parse("{\n  \"name\": \"x\",\n  \"id\": 1 2\n}")
        }
        #expect(error.excerpt == "  \"id\": 1 2\n          ^")
        let long = "[" + String(repeating: "1, ", count: 40) + "x" + String(repeating: ", 1", count: 40) + "]"
        let longError = try #require(throws: JSONParseError.self) { try JSONReader.parse(long) }
        #expect(
            longError.excerpt == "… " + String(repeating: "1, ", count: 13) + "x" + String(repeating: ", 1", count: 13) + "…\n"
                + String(repeating: " ", count: 41) + "^")
    }

    @Test func errorCodesMatchInCatchClauses() {
        do {
            _ = try JSONReader.parse("[01]")
            Issue.record("no error")
        } catch JSONParseError.Code.invalidNumber {
            // expected
        } catch {
            Issue.record("wrong error \(error)")
        }
    }
}
