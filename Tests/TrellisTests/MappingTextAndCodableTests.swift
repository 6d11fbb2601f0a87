import Foundation
import Testing

@testable import Trellis

private struct Point: Codable, Equatable {
    var x: Double
    var y: Double
}

/// Both `JSONMappable` and `Codable`: the typed layer's conformance wins.
private struct Tag: JSONMappable, JSONRepresentable, Codable, Equatable {
    var label: String
    init(label: String) { self.label = label }
    init(map: JSONMap) throws { label = try map.from("name") }
    func write(to map: inout JSONWriteMap) throws { try map.write(label, to: "name") }
}

private struct Drawing: JSONMappable, JSONRepresentable, Equatable {
    var origin: Point
    var path: [Point]
    var anchor: Point?
    var tags: [Tag]
    var note: String?

    init(origin: Point, path: [Point], anchor: Point?, tags: [Tag], note: String?) {
        self.origin = origin
        self.path = path
        self.anchor = anchor
        self.tags = tags
        self.note = note
    }

    init(map: JSONMap) throws {
        origin = try map.from("shape.origin")
        path = try map.from("shape.path") ?? []
        anchor = try map.from("anchor")
        tags = try map.from("tags")
        note = try map.from("note")
    }

    func write(to map: inout JSONWriteMap) throws {
        try map.write(origin, to: "shape.origin")
        try map.write(path, to: "shape.path")
        try map.write(anchor, to: "anchor")
        try map.write(tags, to: "tags")
        try map.write(note, to: "note")
    }
}

@Suite struct MappingTextAndCodableTests {
    static let text = #"{"shape":{"origin":{"x":1,"y":2},"path":[{"x":0,"y":0},{"x":3.5,"y":-1}]},"anchor":{"x":9,"y":9},"tags":[{"name":"a"}],"note":null}"#

    fileprivate static let drawing = Drawing(
        origin: Point(x: 1, y: 2), path: [Point(x: 0, y: 0), Point(x: 3.5, y: -1)],
        anchor: Point(x: 9, y: 9), tags: [Tag(label: "a")], note: nil)

    @Test func readsFromStringAndData() throws {
        #expect(try Drawing(jsonString: Self.text) == Self.drawing)
        #expect(try Drawing(jsonData: Data(Self.text.utf8)) == Self.drawing)
        let list = try [Drawing](jsonString: "[\(Self.text),\(Self.text)]")
        #expect(list == [Self.drawing, Self.drawing])
    }

    @Test func writesStringAndData() throws {
        let written = try Self.drawing.jsonString()
        #expect(written == Self.text)
        #expect(try Self.drawing.jsonData() == Data(Self.text.utf8))
        let pretty = try [Tag(label: "a")].jsonString(pretty: true)
        #expect(
            pretty == """
                [
                  {
                    "name": "a"
                  }
                ]
                """)
        #expect(try Self.drawing.jsonString(options: .init(nilPolicy: .omit)).hasSuffix(#""tags":[{"name":"a"}]}"#))
    }

    @Test func malformedTextIsAParseErrorWithLineAndColumn() throws {
        let error = try #require(throws: JSONParseError.self) { try Drawing(jsonString: "{\n  \"shape\": }") }
        #expect(error.line == 2)
        #expect(error.column == 12)
    }

    @Test func decodableLeafErrorsCarryTheCodingPath() throws {
        let error = try #require(throws: MappingError.self) {
            try Drawing(jsonString: #"{"shape":{"origin":{"x":"one","y":2}},"tags":[]}"#)
        }
        #expect(error.code == .typeMismatch)
        #expect(error.path.description == "$.shape.origin.x")
        #expect(error.expected == "Point")
        #expect(error.found == "one")
        #expect(error.underlyingError is DecodingError)

        let missing = try #require(throws: MappingError.self) {
            try Drawing(jsonString: #"{"shape":{"origin":{"x":1},"path":[{"x":1,"y":1},{"x":2}]},"tags":[]}"#)
        }
        #expect(missing.code == .missing)
        #expect(missing.path.description == "$.shape.origin.y")
    }

    @Test func decodableOptionalsFollowTheOptionalRules() throws {
        let drawing = try Drawing(jsonString: #"{"shape":{"origin":{"x":1,"y":2}},"anchor":"left","tags":[]}"#)
        #expect(drawing.anchor == nil)
        #expect(drawing.path == [])
        let error = try #require(throws: MappingError.self) {
            try Drawing(
                jsonString: #"{"shape":{"origin":{"x":1,"y":2}},"anchor":"left","tags":[]}"#,
                options: .init(strict: true))
        }
        #expect(error.code == .typeMismatch)
        #expect(error.path.description == "$.anchor")
    }

    @Test func mappableConformanceWinsOverCodable() throws {
        // `Tag` decodes `label` with Codable but maps `name` with JSONMappable.
        struct Holder: JSONMappable {
            let tag: Tag
            let optionalTag: Tag?
            init(map: JSONMap) throws {
                tag = try map.from("tag")
                optionalTag = try map.from("other")
            }
        }
        let holder = try Holder(json: ["tag": ["name": "x"], "other": ["name": "y"]])
        #expect(holder.tag == Tag(label: "x"))
        #expect(holder.optionalTag == Tag(label: "y"))
    }

    @Test func customDecoderAndEncoder() throws {
        struct Event: Codable, Equatable { var at: Date }
        struct Log: JSONMappable, JSONRepresentable {
            let event: Event
            init(event: Event) { self.event = event }
            init(map: JSONMap) throws { event = try map.from("event") }
            func write(to map: inout JSONWriteMap) throws { try map.write(event, to: "event") }
        }
        let decoding = JSONMap.Options(makeDecoder: {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return decoder
        })
        #expect(try Log(json: ["event": ["at": 60]], options: decoding).event == Event(at: Date(timeIntervalSince1970: 60)))
        let encoding = JSONWriteMap.Options(makeEncoder: {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            return encoder
        })
        #expect(try Log(event: Event(at: Date(timeIntervalSince1970: 60))).jsonValue(options: encoding) == ["event": ["at": 60]])
    }

    @Test func codableLeavesUseTrellisCoders() throws {
        struct Event: Codable, Equatable {
            var at: Date
            var count: UInt64
        }
        struct Log: JSONMappable, JSONRepresentable {
            let event: Event
            init(event: Event) { self.event = event }
            init(map: JSONMap) throws { event = try map.from("event") }
            func write(to map: inout JSONWriteMap) throws { try map.write(event, to: "event") }
        }
        // The defaults are Trellis's coders, with Foundation's results.
        #expect(JSONMap.Options().foundationDecoder == nil)
        #expect(JSONWriteMap.Options().foundationEncoder == nil)
        let decoding = JSONMap.Options(makeCodableDecoder: {
            let decoder = TrellisJSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return decoder
        })
        let log = try Log(json: ["event": ["at": 60, "count": .number(JSONNumber(text: "18446744073709551615")!)]], options: decoding)
        #expect(log.event == Event(at: Date(timeIntervalSince1970: 60), count: UInt64.max))
        let encoding = JSONWriteMap.Options(makeCodableEncoder: {
            let encoder = TrellisJSONEncoder()
            encoder.dateEncodingStrategy = .millisecondsSince1970
            encoder.outputFormatting = .sortedKeys
            return encoder
        })
        let written = try log.jsonValue(options: encoding)
        #expect(try JSONWriter.string(for: written) == #"{"event":{"at":60000,"count":18446744073709551615}}"#)
        // A Foundation decoder, when chosen, still decides (its default date strategy reads seconds since 2001).
        let foundation = JSONMap.Options(makeDecoder: { JSONDecoder() })
        #expect(try Log(json: ["event": ["at": 60, "count": 1]], options: foundation).event.at == Date(timeIntervalSinceReferenceDate: 60))
        do {
            _ = try Log(json: ["event": ["at": "x", "count": 1]], options: decoding)
            Issue.record("decoded")
        } catch let error as MappingError {
            #expect(error.path.description == "$.event.at")
        }
    }

    @Test func stringKeysAndMoreDefaults() throws {
        struct Info: JSONMappable {
            let cities: [String]
            let count: Int
            init(map: JSONMap) throws {
                cities = try map.from("city") ?? []
                count = try map.from("count") ?? 0
            }
        }
        let info = try Info(jsonString: #"{"count":null}"#)
        #expect(info.cities == [])
        #expect(info.count == 0)
    }
}
