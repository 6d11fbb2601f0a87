import Foundation
import Testing
import Trellis

@testable import TrellisSQLite

@Suite struct AttributeStorageTests {
    static let types: [AttributeType] = [
        .string, .integer16, .integer32, .integer64, .decimal, .double, .float,
        .boolean, .date, .binary, .uuid, .uri, .json,
    ]

    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Sample",
                attributes: [AttributeDescription(name: "key", type: .integer64)]
                    + types.map { AttributeDescription(name: "a_\($0.rawValue)", type: $0) },
                userInfo: ["identityAttributes": "key"])
        ])
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var label: String
        var values: [AttributeValue?]
        /// `typeof(column)` and the column's text (`CAST(x AS TEXT)`, hex for blobs), per type.
        var stored: [[String?]]
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(
            label: "extremes",
            values: [
                .string("a\u{0}b — é 🎉"), .integer(Int64(Int16.min)), .integer(Int64(Int32.max)), .integer(Int64.min),
                .decimal(Decimal(string: "12345678901234567890.123")!), .double(-0.1), .double(Double(Float(3.25))),
                .bool(true), .date(Date(timeIntervalSince1970: 1_313_949_772.249)), .binary(Data([0, 1, 254, 255])),
                .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
                .uri(URL(string: "https://example.com/a%20b?q=1#f")!),
                .json(["name": "Batman", "powers": [1, 2.5, true, nil], "nested": ["deep": "\"quoted\"\n"]]),
            ],
            stored: [
                ["text", "a\u{0}b — é 🎉"], ["integer", "-32768"], ["integer", "2147483647"],
                ["integer", "-9223372036854775808"], ["text", "12345678901234567890.123"], ["real", "-0.1"],
                ["real", "3.25"], ["integer", "1"], ["real", "1313949772.249"], ["blob", "0001FEFF"],
                ["text", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"], ["text", "https://example.com/a%20b?q=1#f"],
                ["text", #"{"name":"Batman","powers":[1,2.5,true,null],"nested":{"deep":"\"quoted\"\n"}}"#],
            ]),
        Case(
            label: "other extremes and empty values",
            values: [
                .string(""), .integer(Int64(Int16.max)), .integer(Int64(Int32.min)), .integer(Int64.max),
                .decimal(Decimal(string: "-0.000000000000000000000000000001")!), .double(1e308), .double(-0.0),
                .bool(false), .date(Date(timeIntervalSince1970: -86_400.5)), .binary(Data()),
                .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!), .uri(URL(string: "urn:isbn:0451450523")!),
                .json([]),
            ],
            stored: [
                ["text", ""], ["integer", "32767"], ["integer", "-2147483648"], ["integer", "9223372036854775807"],
                ["text", "-0.000000000000000000000000000001"], ["real", "1.0e+308"], ["real", "0.0"],
                ["integer", "0"], ["real", "-86400.5"], ["blob", ""],
                ["text", "00000000-0000-0000-0000-000000000000"], ["text", "urn:isbn:0451450523"], ["text", "[]"],
            ]),
        Case(
            label: "nil everywhere",
            values: Array(repeating: nil, count: 13),
            stored: Array(repeating: ["null", nil], count: 13)),
    ]

    @Test(arguments: cases)
    func everyAttributeTypeRoundTripsExactly(_ testCase: Case) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        let values: [AttributeValue?] = [.integer(1)] + testCase.values
        let ids = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Sample", 1), isPlaceholder: false, attributes: values, relationships: [])
                ]))
        }
        let id = try #require(ids[tid("Sample", 1)])

        let byIdentity = try store.read { try $0.fetch(entity: "Sample", identities: [[.integer(1)]]) }
        #expect(byIdentity == [ObjectSnapshot(id: id, isPlaceholder: false, attributes: values, relationships: [])])
        // A second store (fresh connection, no cached state) reads the same.
        let reopened = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        #expect(try reopened.read { try $0.fetch(ids: [id]) }.first?.attributes == values)

        for (i, type) in Self.types.enumerated() {
            let column = SQL.identifier("a_\(type.rawValue)")
            let text = type == .binary ? "hex(\(column))" : "CAST(\(column) AS TEXT)"
            let row = try store.rows("SELECT typeof(\(column)), CASE WHEN \(column) IS NULL THEN NULL ELSE \(text) END FROM \"Sample\"")
            #expect(row == [testCase.stored[i]], "attribute type \(type)")
        }
    }

    @Test func jsonAttributesAreQueryableWithJSONFunctions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        var values: [AttributeValue?] = [.integer(1)] + Array(repeating: nil, count: 13)
        values[13] = .json(["user": ["id": 505_874_924_095_815_681, "name": "Ada"], "tags": ["a", "b"]])
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Sample", 1), isPlaceholder: false, attributes: values, relationships: [])
                ]))
        }
        #expect(
            try store.rows(
                """
                SELECT json_extract("a_json", '$.user.id'), json_extract("a_json", '$.user.name'),
                       json_array_length("a_json", '$.tags'), json_valid("a_json") FROM "Sample"
                """) == [["505874924095815681", "Ada", "2", "1"]])
    }

    @Test func datesWithMillisecondsFromTheImporterRoundTrip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        // The importer makes `Date(timeIntervalSince1970: ms / 1000)` for RFC 3339 text with milliseconds.
        let milliseconds: [Int64] = [
            1_199_145_600_000, 1_313_949_772_249, 1_704_067_199_999, 1_700_000_000_001,
            978_307_200_000, 473_385_600_123,
        ]
        let inserted = milliseconds.enumerated().map { i, ms in
            var values: [AttributeValue?] = [.integer(Int64(i))] + Array(repeating: nil, count: 13)
            values[9] = .date(Date(timeIntervalSince1970: Double(ms) / 1000))
            return ObjectSnapshot(id: tid("Sample", Int64(i + 1)), isPlaceholder: false, attributes: values, relationships: [])
        }
        _ = try store.write { try $0.apply(ChangeSet(inserted: inserted)) }
        let fetched = try store.read { try $0.fetch(entity: "Sample", matching: nil) }
        #expect(fetched.map { $0.attributes[9] } == inserted.map { $0.attributes[9] })
        #expect(
            try store.rows(#"SELECT strftime('%Y-%m-%dT%H:%M:%fZ', "a_date", 'unixepoch') FROM "Sample" ORDER BY "key" LIMIT 2"#)
                == [["2008-01-01T00:00:00.000Z"], ["2011-08-21T18:02:52.249Z"]])
    }
}
