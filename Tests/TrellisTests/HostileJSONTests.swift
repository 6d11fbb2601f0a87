import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// Hostile input for the JSON readers (``JSONReader``, ``JSONLinesReader``,
/// ``JSONArrayStream``): a 100 MB string, a 10-million-element array, nesting 100,000
/// deep, invalid UTF-8, duplicate keys, NUL characters; and the 100 MB string imported
/// into a string attribute. Each test states the exact outcome. Large inputs are
/// generated here, in memory or in a temporary file that the test removes; serialized,
/// so that two of them never hold their memory at once (and the stream's memory
/// measurement is not disturbed by its neighbours).
@Suite(.serialized) struct HostileJSONTests {
    // MARK: - A 100 MB string

    /// 100,000,000 bytes of UTF-8: "0123456789" runs, each megabyte ending in "é" (so the
    /// text is not ASCII and the reader validates it): 99,999,900 characters.
    static func hundredMegabytes() -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 1_000_000)
        for i in 0..<999_998 { chunk[i] = UInt8(ascii: "0") + UInt8(i % 10) }
        chunk[999_998] = 0xC3
        chunk[999_999] = 0xA9
        var bytes: [UInt8] = []
        bytes.reserveCapacity(100_000_000)
        for _ in 0..<100 { bytes += chunk }
        return bytes
    }

    @Test func hundredMegabyteStringIsReadExactly() throws {
        let body = Self.hundredMegabytes()
        let document = Array(#"{"id": "big", "body": ""#.utf8) + body + Array(#""}"#.utf8)
        let value = try JSONReader.parse(document)
        let text = try #require(value["body"]?.stringValue)
        // Never hand a 100 MB value to #expect: a failure would print it.
        let count = text.utf8.count
        let exact = sameBytes(text, body)
        let ending = text.hasSuffix("4567é")
        #expect(count == 100_000_000)
        #expect(exact)
        #expect(ending)
        #expect(value["id"] == "big")
    }

    @Test func hundredMegabyteStringThroughTheStreamGrowsTheBufferForOneElement() throws {
        let body = Self.hundredMegabytes()
        let document = Array(#"["#.utf8) + [UInt8(ascii: "\"")] + body + Array(#"", 1]"#.utf8)
        let stream = JSONArrayStream(bytes: document)
        let first = try #require(try stream.next()?.stringValue)
        let count = first.utf8.count
        let exact = sameBytes(first, body)
        #expect(count == 100_000_000)
        #expect(exact)
        #expect(try stream.next() == 1)
        #expect(try stream.next() == nil)
        #expect(stream.elementCount == 2)
        // The buffer grew by doubling from 1 MiB until the element fitted, and no further.
        #expect((100_000_000..<(256 << 20)).contains(stream.bufferCapacity), "\(stream.bufferCapacity)")
    }

    @Test func hundredMegabyteStringImportsIntoAStringAttribute() throws {
        let body = Self.hundredMegabytes()
        let payload = try JSONReader.parse(Array(#"[{"id": "big", "n": ""#.utf8) + body + Array(#""}]"#.utf8))
        let store = InMemoryStore(model: HostileImportTests.identityModel)
        let context = ObjectContext(store: store)
        let report = try context.importObjects(from: payload, entity: "S")
        #expect(report.counts(for: "S") == .init(inserted: 1))
        let stored = try #require(try context.fetch("S", id: .string("big"))?["n"]?.stringValue)
        let count = stored.utf8.count
        let exact = sameBytes(stored, body)
        #expect(count == 100_000_000)
        #expect(exact)
    }

    // MARK: - A 10-million-element array

    /// `[0,1,2,…,9,0,1,…]`: 10,000,000 one-digit numbers, 20,000,001 bytes.
    static func tenMillionDigits() -> [UInt8] {
        let n = 10_000_000
        var bytes = [UInt8](repeating: UInt8(ascii: ","), count: 2 * n + 1)
        bytes[0] = UInt8(ascii: "[")
        for i in 0..<n { bytes[1 + 2 * i] = UInt8(ascii: "0") + UInt8(i % 10) }
        bytes[2 * n] = UInt8(ascii: "]")
        return bytes
    }

    @Test func tenMillionElementArrayThroughTheReader() throws {
        let bytes = Self.tenMillionDigits()
        #expect(bytes.count == 20_000_001)
        let elements = try #require(try JSONReader.parse(bytes).arrayValue)
        #expect(elements.count == 10_000_000)
        #expect(elements[0] == 0 && elements[9] == 9 && elements[9_999_999] == 9)
        var sum: Int64 = 0
        for element in elements { sum += element.int64Value ?? 1_000 }
        #expect(sum == 45_000_000)
    }

    /// The stream holds one element at a time: its buffer stays at the chunk size and the
    /// process's resident memory does not grow with the element count (materialising the
    /// array would take 10,000,000 × 24 bytes = 240 MB).
    @Test(.enabled(if: ResidentMemory.isAvailable, "resident memory is read from /proc/self/statm, which this system lacks"))
    func tenMillionElementArrayThroughTheStreamInBoundedMemory() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-10m-\(UUID().uuidString).json")
        try Data(Self.tenMillionDigits()).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let stream = try JSONArrayStream(contentsOf: url)
        var count = 0
        var sum: Int64 = 0
        var last: JSONArrayStream.Element?
        var baseline: Int?
        var peak = 0
        while let element = try stream.nextElement() {
            count += 1
            sum += element.value.int64Value ?? 1_000
            last = element
            if count % 1_000_000 == 0 {
                // Measured from the first million on: the buffers, caches and file pages are warm.
                let rss = try #require(ResidentMemory.bytes(), "cannot read /proc/self/statm")
                if baseline == nil { baseline = rss }
                peak = max(peak, rss)
            }
        }
        #expect(count == 10_000_000)
        #expect(sum == 45_000_000)
        #expect(last?.index == 9_999_999 && last?.value == 9)
        #expect(stream.elementCount == 10_000_000)
        #expect(stream.bytesConsumed == 20_000_001)
        #expect(stream.bufferCapacity == stream.chunkSize)
        // Generous, since other suites run concurrently in this process; holding the
        // elements (or leaking 12 bytes each) would add 120 MB or more.
        let growth = peak - (try #require(baseline))
        #expect(growth < 100 << 20, "resident memory grew by \(growth) bytes")
    }

    // MARK: - Nesting 100,000 deep

    /// `[[[…]]]` 100,000 deep after `prefix`.
    static func deepArrays(after prefix: String = "") -> [UInt8] {
        Array(prefix.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: 100_000) + [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
    }

    @Test func deepNestingIsALocatedErrorInTheReader() throws {
        let error = try #require(throws: JSONParseError.self) { try JSONReader.parse(Self.deepArrays(after: "\n\n  ")) }
        #expect(error.code == .depthLimitExceeded)
        #expect(error.message == "arrays and objects nested deeper than 512 levels")
        #expect(error.byteOffset == 4 + 512)
        #expect(error.line == 3 && error.column == 3 + 512)

        let objects =
            Array(String(repeating: #"{"a":"#, count: 100_000).utf8) + [UInt8(ascii: "1")]
            + [UInt8](repeating: UInt8(ascii: "}"), count: 100_000)
        let objectError = try #require(throws: JSONParseError.self) { try JSONReader.parse(objects) }
        #expect(objectError.code == .depthLimitExceeded)
        #expect(objectError.byteOffset == 512 * 5)
        #expect(objectError.column == 512 * 5 + 1)

        // Validation builds no values: a raised limit checks the whole document.
        #expect(throws: Never.self) { try JSONReader.validate(Data(Self.deepArrays()), options: .init(maximumDepth: 100_000)) }
        let tooDeep = try #require(throws: JSONParseError.self) {
            try JSONReader.validate(Data(Self.deepArrays()), options: .init(maximumDepth: 99_999))
        }
        #expect(tooDeep.byteOffset == 99_999 && tooDeep.message == "arrays and objects nested deeper than 99999 levels")
    }

    @Test func deepNestingIsALocatedErrorInTheLinesReader() throws {
        let reader = JSONLinesReader(bytes: Self.deepArrays(after: "{\"ok\": 1}\n"), chunkSize: 4096)
        #expect(try reader.next() == ["ok": 1])
        let error = try #require(throws: JSONParseError.self) { try reader.next() }
        #expect(error.code == .depthLimitExceeded)
        #expect(error.message == "arrays and objects nested deeper than 512 levels")
        #expect(error.byteOffset == 10 + 512)
        #expect(error.line == 2 && error.column == 513 && error.recordLine == 2)
        // The error sticks.
        #expect(throws: JSONParseError.self) { try reader.next() }
    }

    @Test func deepNestingIsALocatedErrorInTheStream() throws {
        // The outer array is level 1, so the 512th bracket of the element is level 513.
        for chunkSize in [1, 4096, 1 << 20] {
            let stream = JSONArrayStream(bytes: Self.deepArrays(after: #"[{"ok":1}, "#) + Array("]".utf8), chunkSize: chunkSize)
            #expect(try stream.next() == ["ok": 1])
            let error = try #require(throws: JSONParseError.self) { try stream.next() }
            #expect(error.code == .depthLimitExceeded, "chunk \(chunkSize)")
            #expect(error.message == "arrays and objects nested deeper than 512 levels")
            #expect(error.byteOffset == 11 + 511 && error.line == 1 && error.column == 523, "chunk \(chunkSize)")
        }
        // Navigating a key path through deep objects stops at the limit too.
        let objects = Array(String(repeating: #"{"a":"#, count: 100_000).utf8)
        let error = try #require(throws: JSONParseError.self) {
            try JSONArrayStream(bytes: objects, at: JSONKeyPath(parsing: Array(repeating: "a", count: 1000).joined(separator: "."))).next()
        }
        #expect(error.code == .depthLimitExceeded)
        #expect(error.byteOffset == 512 * 5)
    }

    // MARK: - Invalid UTF-8 inside strings

    struct InvalidUTF8: Sendable, CustomTestStringConvertible {
        var label: String
        /// Valid text before the bad bytes.
        var prefix: String
        var bad: [UInt8]
        var suffix: String
        /// The first byte of the ill-formed sequence, as the message names it.
        var byte: String
        var line: Int
        var column: Int
        var testDescription: String { label }
        var bytes: [UInt8] { Array(prefix.utf8) + bad + Array(suffix.utf8) }
    }

    static let invalidUTF8: [InvalidUTF8] = [
        .init(label: "stray continuation byte", prefix: #"["caf"#, bad: [0x80], suffix: #""]"#, byte: "0x80", line: 1, column: 6),
        .init(label: "overlong '/'", prefix: #"["a"#, bad: [0xC0, 0xAF], suffix: #""]"#, byte: "0xC0", line: 1, column: 4),
        .init(label: "encoded surrogate U+D800", prefix: #"["a"#, bad: [0xED, 0xA0, 0x80], suffix: #""]"#, byte: "0xED", line: 1, column: 4),
        .init(label: "above U+10FFFF", prefix: #"["a"#, bad: [0xF4, 0x90, 0x80, 0x80], suffix: #""]"#, byte: "0xF4", line: 1, column: 4),
        .init(label: "truncated before the quote", prefix: #"["€ "#, bad: [0xE2, 0x82], suffix: #""]"#, byte: "0xE2", line: 1, column: 5),
        .init(label: "0xFF after characters of 2, 3 and 4 bytes", prefix: #"["é日😀"#, bad: [0xFF], suffix: #""]"#, byte: "0xFF", line: 1, column: 6),
        .init(label: "in a key", prefix: #"{"k"#, bad: [0xFE], suffix: #"": 1}"#, byte: "0xFE", line: 1, column: 4),
        .init(
            label: "after an escape, on line 3", prefix: "{\n  \"name\": \"日本語 é\",\n  \"bio\": \"\\t", bad: [0xC3, 0x28],
            suffix: "\"\n}", byte: "0xC3", line: 3, column: 13),
        .init(
            label: "after 10,000 plain bytes", prefix: "[\"" + String(repeating: "x", count: 10_000), bad: [0xC3], suffix: #""]"#,
            byte: "0xC3", line: 1, column: 10_003),
        .init(label: "in an unterminated string", prefix: #"["ab"#, bad: [0xC3], suffix: "", byte: "0xC3", line: 1, column: 5),
    ]

    @Test(arguments: invalidUTF8)
    func invalidUTF8IsLocatedInEveryReader(_ c: InvalidUTF8) throws {
        let offset = c.prefix.utf8.count
        let message = "invalid UTF-8 byte \(c.byte) in string"
        let error = try #require(throws: JSONParseError.self) { try JSONReader.parse(c.bytes) }
        #expect(error.code == .invalidUTF8)
        #expect(error.message == message)
        #expect(error.byteOffset == offset && error.line == c.line && error.column == c.column)
        #expect(error.description == "line \(c.line), column \(c.column): \(message)")
        #expect(throws: JSONParseError.self) { try JSONReader.validate(Data(c.bytes)) }

        for chunkSize in [1, 7, 1 << 20] {
            let stream = JSONArrayStream(bytes: c.bytes, chunkSize: chunkSize)
            let streamError = try #require(throws: JSONParseError.self) { _ = try stream.readAll() }
            #expect(streamError.code == .invalidUTF8 && streamError.message == message, "chunk \(chunkSize)")
            #expect(streamError.byteOffset == offset && streamError.line == c.line && streamError.column == c.column, "chunk \(chunkSize)")
        }
        guard c.line == 1 else { return }
        // As the second record of NDJSON: the line and column in the whole input.
        let linesError = try #require(throws: JSONParseError.self) { try JSONLinesReader.parse(Array("{}\n".utf8) + c.bytes) }
        #expect(linesError.code == .invalidUTF8 && linesError.message == message)
        #expect(linesError.byteOffset == 3 + offset && linesError.line == 2 && linesError.column == c.column && linesError.recordLine == 2)
    }

    // MARK: - Duplicate keys

    @Test func duplicateKeysKeepTheFirstPositionAndTheLastValue() throws {
        let object = try #require(try JSONReader.parse(#"{"a": 1, "b": 2, "a": 3, "\u0061": 4, "b": null}"#).objectValue)
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == 4 && object["b"] == .null)

        // Above the 16 members where an index is kept.
        let wide = (0..<40).map { "\"k\($0 % 20)\": \($0)" }.joined(separator: ", ")
        let big = try #require(try JSONReader.parse("{\(wide)}").objectValue)
        #expect(big.keys == (0..<20).map { "k\($0)" })
        #expect(big.values == (20..<40).map { JSONValue.number(JSONNumber(Int64($0))) })

        // 100,000 times the same key.
        let repeated = "{" + (0..<100_000).map { "\"k\": \($0)" }.joined(separator: ",") + "}"
        let one = try #require(try JSONReader.parse(repeated).objectValue)
        #expect(one.count == 1 && one["k"] == 99_999)

        // NDJSON records follow the same rule.
        #expect(try JSONLinesReader.parse("{\"a\": 1, \"a\": 2}\n{\"b\": 1, \"b\": [3]}\n") == [["a": 2], ["b": [3]]])
    }

    /// RFC 8259 §8.3: names compare by code units. "é" written precomposed (U+00E9) and
    /// decomposed ("e" U+0301) are canonically equivalent for Swift's `==` but are two
    /// keys. (Objects above 16 members used to merge them, keeping only the last value.)
    @Test func canonicallyEquivalentKeysAreDifferentKeys() throws {
        let precomposed = "\u{E9}"
        let decomposed = "e\u{301}"
        for padding in [0, 30] {
            let others = (0..<padding).map { "\"k\($0)\": 0, " }.joined()
            let object = try #require(try JSONReader.parse("{\(others)\"\(precomposed)\": 1, \"\(decomposed)\": 2}").objectValue)
            #expect(object.count == padding + 2, "\(padding) other members")
            #expect(object[precomposed] == 1 && object[decomposed] == 2, "\(padding) other members")
            #expect(object.keys.suffix(2).map { Array($0.utf8) } == [[0xC3, 0xA9], [0x65, 0xCC, 0x81]])
            let written = try JSONWriter.string(for: .object(object))
            let expected = "{" + (0..<padding).map { "\"k\($0)\":0," }.joined() + "\"\(precomposed)\":1,\"\(decomposed)\":2}"
            #expect(Array(written.utf8) == Array(expected.utf8))
        }
        var built = JSONObject()
        for i in 0..<20 { built["k\(i)"] = 0 }
        built[precomposed] = 1
        built[decomposed] = 2
        #expect(built.count == 22 && built[precomposed] == 1 && built[decomposed] == 2)
        #expect(JSONValue.object([precomposed: 1]) != .object([decomposed: 1]))
    }

    @Test func aStreamFollowsTheFirstOccurrenceOfARepeatedKeyOnItsPath() throws {
        // The stream cannot look ahead; the reader keeps the last value (documented on both).
        let text = #"{"items": [1, 2], "items": [3]}"#
        #expect(try JSONArrayStream(bytes: Array(text.utf8), at: "items").readAll().map(\.value) == [1, 2])
        #expect(try JSONReader.parse(text)["items"] == [3])
    }

    // MARK: - NUL characters

    @Test func nulCharactersInKeysAndValuesRoundTripByteForByte() throws {
        let text = #"{"a\u0000b":"\u0000x\u0000","\u0000":"","k":["\u0000\u0000",{"\u0000":"\u0000"}]}"#
        let value = try JSONReader.parse(text)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["a\u{0}b", "\u{0}", "k"])
        #expect(object["a\u{0}b"] == .string("\u{0}x\u{0}"))
        #expect(object["a"] == nil && object["ab"] == nil)
        #expect(value["k"]?[0]?.stringValue?.utf8.elementsEqual([0, 0]) == true)
        #expect(try JSONWriter.string(for: value) == text)
        #expect(try JSONLinesReader.parse(text + "\n" + text) == [value, value])
        #expect(try JSONArrayStream(bytes: Array("[\(text)]".utf8)).readAll().map(\.value) == [value])
        // A raw (unescaped) NUL byte is a control character, not allowed in a string (RFC 8259 §7).
        let raw: [UInt8] = Array(#"["a"#.utf8) + [0] + Array(#""]"#.utf8)
        let error = try #require(throws: JSONParseError.self) { try JSONReader.parse(raw) }
        #expect(error.code == .controlCharacterInString && error.byteOffset == 3)
        #expect(error.message == "unescaped control character U+0000 in string")
    }
}

/// Whether `string`'s UTF-8 is exactly `bytes` (memcmp: fast on 100 MB in a debug build).
func sameBytes(_ string: String, _ bytes: [UInt8]) -> Bool {
    var copy = string
    return copy.withUTF8 { text in
        bytes.withUnsafeBufferPointer { expected in
            text.count == expected.count && (text.isEmpty || memcmp(text.baseAddress!, expected.baseAddress!, text.count) == 0)
        }
    }
}

/// The process's resident set size, from `/proc/self/statm` (Linux); nil elsewhere.
enum ResidentMemory {
    /// Whether ``bytes()`` can be read here (Linux's `/proc`).
    static let isAvailable = bytes() != nil

    /// The resident set size of this process, in bytes; nil where `/proc/self/statm` is missing.
    static func bytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
