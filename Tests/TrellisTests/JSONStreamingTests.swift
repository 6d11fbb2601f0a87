import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

@Suite struct JSONStreamingTests {
    static let small = """
        {"meta": {"skip": [1, {"x": "y"}], "n": null},
         "data": {"items": [
           {"id": 1, "name": "a"},
           {"id": 2, "name": "é\\u00e9"},
           [],
           3.5
         ], "after": "z"},
         "tail": [true, false]}
        """

    static let smallItems: [JSONValue] = [["id": 1, "name": "a"], ["id": 2, "name": "éé"], [], 3.5]

    @Test func topLevelArrayElementsInOrder() throws {
        let stream = JSONArrayStream(bytes: Array("[1, \"two\", {\"three\": 3}, [4]]".utf8))
        var values: [JSONValue] = []
        var indexes: [Int] = []
        var consumed: [Int] = []
        while let element = try stream.nextElement() {
            values.append(element.value)
            indexes.append(element.index)
            consumed.append(stream.bytesConsumed)
        }
        #expect(values == [1, "two", ["three": 3], [4]])
        #expect(indexes == [0, 1, 2, 3])
        #expect(consumed == [2, 9, 23, 28])
        #expect(stream.elementCount == 4)
        #expect(stream.totalBytes == 29)
        #expect(stream.bytesConsumed == 29)
        #expect(try stream.next() == nil)
    }

    @Test func emptyArrayAndScalarAtTheRoot() throws {
        #expect(try JSONArrayStream(bytes: Array(" [ ] ".utf8)).readAll().isEmpty)
        #expect(try JSONArrayStream(bytes: Array("42".utf8)).readAll().map(\.value) == [42])
    }

    @Test func arrayAtANestedKeyPath() throws {
        let stream = JSONArrayStream(bytes: Array(Self.small.utf8), at: "data.items")
        #expect(try stream.readAll().map(\.value) == Self.smallItems)
    }

    @Test func everyChunkSizeGivesTheSameElements() throws {
        let bytes = Array(Self.small.utf8)
        for chunkSize in 1...bytes.count + 1 {
            let stream = JSONArrayStream(bytes: bytes, at: "data.items", chunkSize: chunkSize)
            let values = try stream.readAll().map(\.value)
            #expect(values == Self.smallItems, "chunk size \(chunkSize)")
        }
    }

    @Test func everyChunkSizeGivesTheSameError() throws {
        let bytes = Array(Self.small.replacingOccurrences(of: "[],", with: "[],,").utf8)
        for chunkSize in 1...bytes.count + 1 {
            let stream = JSONArrayStream(bytes: bytes, at: "data.items", chunkSize: chunkSize)
            #expect(try stream.next() == Self.smallItems[0])
            #expect(try stream.next() == Self.smallItems[1])
            #expect(try stream.next() == Self.smallItems[2])
            let error = try #require(throws: JSONParseError.self) { try stream.next() }
            #expect(error.code == .unexpectedCharacter)
            #expect(error.line == 5 && error.column == 7, "chunk size \(chunkSize)")
            #expect(error.message == "expected a JSON value, found ','")
            #expect(error.excerpt == "   [],,\n      ^")
            // The error sticks.
            #expect(throws: JSONParseError.self) { try stream.next() }
        }
    }

    @Test func partsOutsideTheKeyPathAreValidated() throws {
        let after = JSONArrayStream(bytes: Array(#"{"a": [1, 2], "b": tru}"#.utf8), at: "a")
        #expect(try after.next() == 1)
        #expect(try after.next() == 2)
        let error = try #require(throws: JSONParseError.self) { try after.next() }
        #expect(error.code == .unexpectedCharacter)
        #expect(error.column == 23)
        #expect(error.message == "invalid literal, expected 'true'")

        let before = JSONArrayStream(bytes: Array(#"{"x": "\u12", "a": [1]}"#.utf8), at: "a")
        let beforeError = try #require(throws: JSONParseError.self) { try before.next() }
        #expect(beforeError.code == .invalidEscape)
        #expect(beforeError.column == 8)

        let trailing = JSONArrayStream(bytes: Array("[1] [2]".utf8))
        #expect(try trailing.next() == 1)
        let trailingError = try #require(throws: JSONParseError.self) { try trailing.next() }
        #expect(trailingError.code == .trailingData)
        #expect(trailingError.column == 5)

        let badUTF8 = JSONArrayStream(bytes: Array(#"{"x": ""#.utf8) + [0xFF] + Array(#"", "a": []}"#.utf8), at: "a")
        #expect((try? badUTF8.next()) == nil)
        let badError = try #require(throws: JSONParseError.self) {
            try JSONArrayStream(bytes: Array(#"{"x": ""#.utf8) + [0xFF] + Array(#"", "a": []}"#.utf8), at: "a").next()
        }
        #expect(badError.code == .invalidUTF8)
        #expect(badError.byteOffset == 7)
    }

    @Test func missingKeyPathIsAnError() throws {
        let error = try #require(throws: JSONParseError.self) {
            try JSONArrayStream(bytes: Array(#"{"a": {"b": 1}}"#.utf8), at: "a.c").next()
        }
        #expect(error.code == .keyPathNotFound)
        #expect(error.message == "key path 'a.c': no key 'c' in the object")
        #expect(error.column == 14)

        let scalar = try #require(throws: JSONParseError.self) {
            try JSONArrayStream(bytes: Array(#"{"a": 5}"#.utf8), at: "a.c").next()
        }
        #expect(scalar.code == .keyPathNotFound)
        #expect(scalar.message == "key path 'a.c': expected an object holding 'c', found '5'")
    }

    @Test func indexComponentsAddressArrays() throws {
        let stream = JSONArrayStream(bytes: Array(#"{"pages": [{"rows": [0]}, {"rows": [1, 2]}]}"#.utf8), at: "pages.1.rows")
        #expect(try stream.readAll().map(\.value) == [1, 2])
    }

    @Test func twitterStatusesMatchTheWholeDocument() throws {
        let data = try Fixtures.data("corpus/twitter.json")
        let whole = try JSONReader.parse(data)
        let expected = try #require(whole["statuses"]?.arrayValue)
        for chunkSize in [1000, 4096, 1 << 20] {
            let stream = try JSONArrayStream(contentsOf: Fixtures.url("corpus/twitter.json"), at: "statuses", chunkSize: chunkSize)
            let values = try stream.readAll().map(\.value)
            #expect(values.count == 100)
            #expect(values == expected)
            #expect(values.first?["id"]?.int64Value == 505_874_924_095_815_681)
            #expect(stream.bytesConsumed == data.count)
            #expect(stream.totalBytes == data.count)
        }
    }

    @Test func singleObjectAtTheKeyPathIsYieldedOnce() throws {
        let data = try Fixtures.data("corpus/twitter.json")
        let stream = JSONArrayStream(data: data, at: "search_metadata", chunkSize: 5000)
        let elements = try stream.readAll()
        #expect(elements.count == 1)
        #expect(try elements.first?.value == JSONReader.parse(data)["search_metadata"])
        #expect(elements.first?.key == nil)
        #expect(elements.first?.isWholeValue == true)
    }

    /// `isWholeValue` tells the value at the key path itself from an array element or a member.
    @Test func wholeValueIsToldFromElementsAndMembers() throws {
        let data = Data(#"{"a": [7], "b": 7, "c": null, "d": {"k": 1}}"#.utf8)
        #expect(try JSONArrayStream(data: data, at: "a").readAll().map(\.isWholeValue) == [false])
        #expect(try JSONArrayStream(data: data, at: "b").readAll().map(\.isWholeValue) == [true])
        #expect(try JSONArrayStream(data: data, at: "c").readAll().map(\.isWholeValue) == [true])
        #expect(try JSONArrayStream(data: data, at: "d").readAll().map(\.isWholeValue) == [true])
        #expect(try JSONArrayStream(data: data, at: "d", objects: .members).readAll().map(\.isWholeValue) == [false])
    }

    @Test func objectOfObjectsYieldsEachValueWithItsKey() throws {
        let data = try Fixtures.data("corpus/citm_catalog.json")
        let events = try #require(JSONReader.parse(data)["events"]?.objectValue)
        let stream = JSONArrayStream(data: data, at: "events", objects: .members, chunkSize: 10_000)
        let elements = try stream.readAll()
        #expect(elements.count == 184)
        #expect(elements.map { $0.key ?? "" } == events.keys)
        #expect(elements.map(\.value) == events.values)
        #expect(elements.map(\.index) == Array(0..<184))
        #expect(elements.first?.key == "138586341")
        #expect(elements.first?.value["name"] == "30th Anniversary Tour")
    }

    @Test func readsFromAPipeLikeStandardInput() throws {
        let pipe = Pipe()
        let text = "[" + (0..<5000).map { #"{"n": \#($0), "s": "\#(String(repeating: "x", count: $0 % 50))"}"# }.joined(separator: ",\n") + "]"
        let writer = Thread {
            pipe.fileHandleForWriting.write(Data(text.utf8))
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let stream = JSONArrayStream(fileHandle: pipe.fileHandleForReading, chunkSize: 4096)
        var count = 0
        while let value = try stream.next() {
            #expect(value["n"]?.intValue == count)
            count += 1
        }
        #expect(count == 5000)
        #expect(stream.totalBytes == nil)
        #expect(stream.bytesConsumed == text.utf8.count)
    }

    @Test func memoryStaysBoundedForALargeArray() throws {
        let element = #"{"id": 12345, "name": "a fairly ordinary name", "tags": ["a", "b", "c"]}"#
        let text = "[" + Array(repeating: element, count: 40_000).joined(separator: ",") + "]"
        let stream = JSONArrayStream(bytes: Array(text.utf8), chunkSize: 16_384)
        var count = 0
        while try stream.next() != nil { count += 1 }
        #expect(count == 40_000)
        #expect(text.utf8.count > 2_800_000)
        #expect(stream.bufferCapacity == 16_384)
    }

    @Test func elementLargerThanTheChunkGrowsTheBuffer() throws {
        let big = String(repeating: "y", count: 100_000)
        let stream = JSONArrayStream(bytes: Array("[\"\(big)\", 1]".utf8), chunkSize: 1000)
        #expect(try stream.next() == .string(big))
        #expect(try stream.next() == 1)
        #expect(try stream.next() == nil)
    }

    @Test func depthLimitCountsFromTheDocumentRoot() throws {
        let text = #"{"a": ["# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "]}"
        let error = try #require(throws: JSONParseError.self) { try JSONArrayStream(bytes: Array(text.utf8), at: "a").next() }
        #expect(error.code == .depthLimitExceeded)
        #expect(error.byteOffset == 7 + 510)
    }
}

@Suite struct JSONStreamingSourcesTests {
    @Test func byteOrderMarkIsSkippedAtEveryChunkSize() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("[1, 2]".utf8)
        for chunkSize in 1...bytes.count {
            #expect(try JSONArrayStream(bytes: bytes, chunkSize: chunkSize).readAll().map(\.value) == [1, 2])
            let error = try #require(throws: JSONParseError.self) {
                try JSONArrayStream(bytes: bytes, options: .init(allowsByteOrderMark: false), chunkSize: chunkSize).next()
            }
            #expect(error.message == "byte order mark (U+FEFF) is not allowed")
        }
    }

    @Test func linesFromAFileAndAMissingFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-lines-\(UUID().uuidString).ndjson")
        try Data("{\"n\": 1}\r\n{\"n\": 2}\r\n".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try JSONLinesReader(contentsOf: url, chunkSize: 4)
        #expect(try reader.next() == ["n": 1])
        #expect(try reader.next() == ["n": 2])
        #expect(try reader.next() == nil)
        #expect(reader.totalBytes == 20)

        let missing = url.appendingPathExtension("missing")
        let error = try #require(throws: JSONParseError.self) { try JSONArrayStream(contentsOf: missing) }
        #expect(error.code == .readFailed)
        #expect(error.message == "cannot open \(missing.path): No such file or directory")
    }

    @Test func emptyInputIsAnError() throws {
        let error = try #require(throws: JSONParseError.self) { try JSONArrayStream(bytes: []).next() }
        #expect(error.code == .unexpectedEndOfInput)
        #expect(error.message == "expected a JSON value, found end of input")
    }
}
