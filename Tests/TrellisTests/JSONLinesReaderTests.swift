import Foundation
import Testing

@testable import Trellis

@Suite struct JSONLinesReaderTests {
    static let text = "{\"a\": 1}\n\n  \t\r\n[2, \"x\"]\r\n\"three\"\n4"

    @Test func oneValuePerLineBlankLinesSkippedCRLFAccepted() throws {
        #expect(try JSONLinesReader.parse(Self.text) == [["a": 1], [2, "x"], "three", 4])
        #expect(try JSONLinesReader.parse("") == [])
        #expect(try JSONLinesReader.parse("\n\n") == [])
        #expect(try JSONLinesReader.parse(Data("1\n2\n".utf8)) == [1, 2])
    }

    @Test func streamingReportsLinesAndMatchesForEveryChunkSize() throws {
        let bytes = Array(Self.text.utf8)
        for chunkSize in 1...bytes.count + 1 {
            let reader = JSONLinesReader(bytes: bytes, chunkSize: chunkSize)
            var values: [JSONValue] = []
            var lines: [Int] = []
            while let value = try reader.next() {
                values.append(value)
                lines.append(reader.line)
            }
            #expect(values == [["a": 1], [2, "x"], "three", 4], "chunk size \(chunkSize)")
            #expect(lines == [1, 4, 5, 6])
            #expect(reader.recordCount == 4)
            #expect(reader.bytesConsumed == bytes.count)
        }
    }

    @Test func errorsNameTheLine() throws {
        let text = "{\"id\": 1}\n{\"id\": 2}\n{\"id\" 3}\n{\"id\": 4}\n"
        let error = try #require(throws: JSONParseError.self) { try JSONLinesReader.parse(text) }
        #expect(error.code == .unexpectedCharacter)
        #expect(error.line == 3)
        #expect(error.column == 7)
        #expect(error.recordLine == 3)
        #expect(error.byteOffset == 26)
        #expect(error.description == "line 3, column 7: expected ':' after object key, found '3'")
        #expect(error.excerpt == "{\"id\" 3}\n      ^")

        for chunkSize in [1, 3, 8, 100] {
            let reader = JSONLinesReader(bytes: Array(text.utf8), chunkSize: chunkSize)
            #expect(try reader.next() == ["id": 1])
            #expect(try reader.next() == ["id": 2])
            let streamed = try #require(throws: JSONParseError.self) { try reader.next() }
            #expect(streamed.line == 3 && streamed.column == 7 && streamed.byteOffset == 26)
        }
    }

    @Test func aValueCannotSpanLinesOrShareOne() throws {
        let split = try #require(throws: JSONParseError.self) { try JSONLinesReader.parse("[1,\n2]") }
        #expect(split.code == .unexpectedEndOfInput)
        #expect(split.line == 1 && split.column == 4)
        #expect(split.message == "expected a JSON value, found end of line")

        let two = try #require(throws: JSONParseError.self) { try JSONLinesReader.parse("1\n2 3\n") }
        #expect(two.code == .trailingData)
        #expect(two.line == 2 && two.column == 3)
        #expect(two.message == "expected end of line after the JSON value, found '3'")
    }

    @Test func byteOrderMarkAtTheStartFollowsTheOption() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("1\n2".utf8)
        #expect(try JSONLinesReader.parse(bytes) == [1, 2])
        let error = try #require(throws: JSONParseError.self) {
            try JSONLinesReader.parse(bytes, options: .init(allowsByteOrderMark: false))
        }
        #expect(error.line == 1 && error.column == 1)
    }
}
