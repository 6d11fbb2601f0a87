import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

@Suite struct JSONWriterTests {
    static let sample: JSONValue = [
        "name": "Ada", "id": 505_874_924_095_815_681, "score": 2.5, "ok": true, "none": nil,
        "tags": ["x", "y"], "empty": [], "nested": ["a": [:], "b": [1, ["c": "d"]]],
    ]

    @Test func compactOutputIsExact() throws {
        #expect(
            try JSONWriter.string(for: Self.sample)
                == #"{"name":"Ada","id":505874924095815681,"score":2.5,"ok":true,"none":null,"tags":["x","y"],"empty":[],"nested":{"a":{},"b":[1,{"c":"d"}]}}"#)
        #expect(try JSONWriter.string(for: 1) == "1")
        #expect(try JSONWriter.string(for: "x") == #""x""#)
        #expect(try JSONWriter.string(for: []) == "[]")
    }

    @Test func prettyOutputIsExact() throws {
        let expected = """
            {
              "name": "Ada",
              "id": 505874924095815681,
              "score": 2.5,
              "ok": true,
              "none": null,
              "tags": [
                "x",
                "y"
              ],
              "empty": [],
              "nested": {
                "a": {},
                "b": [
                  1,
                  {
                    "c": "d"
                  }
                ]
              }
            }
            """
        #expect(try JSONWriter.string(for: Self.sample, options: .pretty) == expected)
    }

    @Test func sortedKeysSortsEveryObject() throws {
        let value: JSONValue = ["b": 1, "a": ["z": 1, "é": 2, "Z": 3], "B": 0]
        #expect(try JSONWriter.string(for: value, options: .init(sortedKeys: true)) == #"{"B":0,"a":{"Z":3,"z":1,"é":2},"b":1}"#)
    }

    @Test func escapesPerRFC8259() throws {
        let value: JSONValue = .string("q\" b\\ s/ \u{8}\u{C}\n\r\t \u{0}\u{1F}\u{7F} é 中 😀")
        #expect(try JSONWriter.string(for: value) == #""q\" b\\ s/ \b\f\n\r\t \u0000\u001f\#u{7F} é 中 😀""#)
        #expect(try JSONWriter.string(for: "a/b", options: .init(escapesForwardSlashes: true)) == #""a\/b""#)
        #expect(try JSONWriter.string(for: ["k\"ey": 1]) == #"{"k\"ey":1}"#)
    }

    @Test func numbersAreWrittenExactly() throws {
        let value: JSONValue = [
            .number(JSONNumber(Int64.min)), .number(JSONNumber(Int64.max)), 0, -7,
            .number(JSONNumber(text: "1.50E+300")!), .number(JSONNumber(text: "123456789012345678901234567890")!),
            .number(JSONNumber(0.1)), .number(JSONNumber(1e-7)), .number(JSONNumber(-0.0)), .number(JSONNumber(1e300)),
        ]
        #expect(
            try JSONWriter.string(for: value)
                == "[-9223372036854775808,9223372036854775807,0,-7,1.50E+300,123456789012345678901234567890,0.1,1e-07,-0.0,1e+300]")
        #expect(try JSONReader.parse(JSONWriter.bytes(for: value)) == value)
    }

    @Test func nonFiniteNumbersAreRejectedWithTheirPath() throws {
        let value: JSONValue = ["a": [1, 2, .number(JSONNumber(.nan))]]
        let error = try #require(throws: JSONWriteError.self) { try JSONWriter.data(for: value) }
        #expect(error.code == .nonFiniteNumber)
        #expect(error.path.description == "$.a[2]")
        #expect(error.description == "$.a[2]: cannot write the non-finite number nan as JSON")

        let odd: JSONValue = ["x": ["odd key": [["v": .number(JSONNumber(-Double.infinity))]]]]
        let oddError = try #require(throws: JSONWriteError.self) { try JSONWriter.bytes(for: odd, options: .pretty) }
        #expect(oddError.path.description == #"$.x["odd key"][0].v"#)
        #expect(oddError.message == "cannot write the non-finite number -inf as JSON")

        let top = try #require(throws: JSONWriteError.self) { try JSONWriter.string(for: .number(JSONNumber(.infinity))) }
        #expect(top.path == .root)
    }

    @Test func deepValuesAreWrittenWithoutRecursion() throws {
        var value: JSONValue = 1
        for _ in 0..<100_000 { value = [value] }
        let bytes = try JSONWriter.bytes(for: value)
        #expect(bytes.count == 200_001)
        #expect(bytes.prefix(3) == [0x5B, 0x5B, 0x5B])
        // Release level by level: dropping the whole value at once would recurse 100,000 deep.
        while case .array(let elements) = value, let first = elements.first { value = first }
    }

    // MARK: - Round trips

    static let validFiles = JSONConformanceTests.files(prefix: "y_")

    @Test(arguments: validFiles)
    func roundTripOfValidDocument(_ name: String) throws {
        let value = try JSONReader.parse(JSONConformanceTests.bytes(name))
        for options in [JSONWriter.Options(), .pretty, .init(sortedKeys: true), .init(format: .pretty, sortedKeys: true, escapesForwardSlashes: true)] {
            let text = try JSONWriter.bytes(for: value, options: options)
            #expect(try JSONReader.parse(text) == value)
        }
    }

    @Test(arguments: ["corpus/twitter.json", "corpus/citm_catalog.json"])
    func roundTripOfCorpus(_ path: String) throws {
        let value = try JSONReader.parse(Fixtures.data(path))
        for options in [JSONWriter.Options(), .pretty, .init(sortedKeys: true), .init(format: .pretty, sortedKeys: true)] {
            let text = try JSONWriter.bytes(for: value, options: options)
            let again = try JSONReader.parse(text)
            #expect(again == value)
            // Writing is deterministic: same value, same options, same bytes.
            #expect(try JSONWriter.bytes(for: again, options: options) == text)
        }
        let compact = try JSONWriter.string(for: value)
        if path.hasSuffix("twitter.json") {
            #expect(compact.contains(#""id":505874924095815681,"id_str":"505874924095815681""#))
        }
    }

    @Test func foundationReadsCompactAndPrettyOutputAlike() throws {
        // A slice of the corpus keeps this quick in debug builds.
        let data = try Fixtures.data("corpus/twitter.json")
        let statuses = try #require(JSONReader.parse(data)["statuses"]?.arrayValue)
        let sample = JSONValue.array(Array(statuses.prefix(5)))
        let pretty = try JSONSerialization.jsonObject(with: Data(JSONWriter.bytes(for: sample, options: .pretty))) as? NSArray
        let ours = try JSONSerialization.jsonObject(with: JSONWriter.data(for: sample)) as? NSArray
        #expect(pretty != nil && pretty == ours)
        let first = try #require(ours?.firstObject as? NSDictionary)
        #expect((first["id"] as? NSNumber)?.int64Value == 505_874_924_095_815_681)
        #expect(first["text"] as? String == statuses[0]["text"]?.stringValue)
    }
}

@Suite struct JSONArrayWriterTests {
    static let elements: [JSONValue] = [["id": 1, "tags": ["a"]], "two", [], ["nested": ["x": nil]]]

    func write(_ elements: [JSONValue], options: JSONWriter.Options, threshold: Int) throws -> (text: String, chunks: Int, writer: JSONArrayWriter) {
        var output = Data()
        var chunks = 0
        var writer = JSONArrayWriter(options: options, flushThreshold: threshold) { chunk in
            output.append(chunk)
            chunks += 1
        }
        for element in elements { try writer.append(element) }
        try writer.finish()
        return (String(decoding: output, as: UTF8.self), chunks, writer)
    }

    @Test(arguments: [1, 16, 1 << 16])
    func outputMatchesTheWholeArray(threshold: Int) throws {
        for options in [JSONWriter.Options(), .pretty, .init(format: .pretty, sortedKeys: true)] {
            let (text, chunks, writer) = try write(Self.elements, options: options, threshold: threshold)
            #expect(text == (try JSONWriter.string(for: .array(Self.elements), options: options)))
            #expect(writer.count == 4)
            #expect(writer.bytesWritten == text.utf8.count)
            #expect(chunks == [1: 5, 16: 3, 1 << 16: 1][threshold])
        }
    }

    @Test func emptyArray() throws {
        #expect(try write([], options: .init(), threshold: 10).text == "[]")
        #expect(try write([], options: .pretty, threshold: 10).text == "[]")
    }

    @Test func prettyLayoutIsExact() throws {
        #expect(try write([1, ["a": 2]], options: .pretty, threshold: 1000).text == "[\n  1,\n  {\n    \"a\": 2\n  }\n]")
    }

    @Test func nonFiniteElementNamesItsIndex() throws {
        var writer = JSONArrayWriter { _ in }
        try writer.append(1)
        let error = try #require(throws: JSONWriteError.self) { try writer.append(["x": [.number(JSONNumber(.nan))]]) }
        #expect(error.code == .nonFiniteNumber)
        #expect(error.path.description == "$[1].x[0]")
    }

    struct DiskFull: Error {}

    @Test func sinkErrorsBecomeWriteFailed() throws {
        var writer = JSONArrayWriter(flushThreshold: 1) { _ in throw DiskFull() }
        let error = try #require(throws: JSONWriteError.self) { try writer.append("x") }
        #expect(error.code == .writeFailed)
        #expect(error.underlying is DiskFull)
    }
}
