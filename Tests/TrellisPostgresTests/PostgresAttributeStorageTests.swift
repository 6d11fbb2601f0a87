import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisPostgres

/// Every attribute type in its PostgreSQL column: the exact value back, the column type and
/// the text PostgreSQL shows for it (the SQLite store's `AttributeStorageTests` cases).
@Suite(.enabled(if: PostgresTestServer.isEnabled, "TRELLIS_SKIP_POSTGRES=1"))
struct PostgresAttributeStorageTests {
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
        /// `pg_typeof(column)` and `column::text`, per type.
        var stored: [[String?]]
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(
            label: "extremes",
            values: [
                .string("a\tb — é 🎉"), .integer(Int64(Int16.min)), .integer(Int64(Int32.max)), .integer(Int64.min),
                .decimal(Decimal(string: "12345678901234567890.123")!), .double(-0.1), .double(Double(Float(3.25))),
                .bool(true), .date(Date(timeIntervalSince1970: 1_313_949_772.249)), .binary(Data([0, 1, 254, 255])),
                .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
                .uri(URL(string: "https://example.com/a%20b?q=1#f")!),
                .json(["name": "Batman", "powers": [1, 2.5, true, nil], "nested": ["deep": "\"quoted\"\n"]]),
            ],
            stored: [
                ["text", "a\tb — é 🎉"], ["smallint", "-32768"], ["integer", "2147483647"],
                ["bigint", "-9223372036854775808"], ["numeric", "12345678901234567890.123"], ["double precision", "-0.1"],
                ["double precision", "3.25"], ["boolean", "true"], ["timestamp with time zone", "2011-08-21 18:02:52.249+00"],
                ["bytea", "\\x0001feff"], ["uuid", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"],
                ["text", "https://example.com/a%20b?q=1#f"],
                ["jsonb", #"{"name": "Batman", "nested": {"deep": "\"quoted\"\n"}, "powers": [1, 2.5, true, null]}"#],
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
                ["text", ""], ["smallint", "32767"], ["integer", "-2147483648"], ["bigint", "9223372036854775807"],
                ["numeric", "-0.000000000000000000000000000001"], ["double precision", "1e+308"], ["double precision", "-0"],
                ["boolean", "false"], ["timestamp with time zone", "1969-12-30 23:59:59.5+00"], ["bytea", "\\x"],
                ["uuid", "00000000-0000-0000-0000-000000000000"], ["text", "urn:isbn:0451450523"], ["jsonb", "[]"],
            ]),
        Case(
            label: "non-finite doubles",
            values: [nil, nil, nil, nil, .decimal(Decimal.nan), .double(.nan), .double(-.infinity), nil, nil, nil, nil, nil, nil],
            stored: [
                ["text", nil], ["smallint", nil], ["integer", nil], ["bigint", nil], ["numeric", "NaN"],
                ["double precision", "NaN"], ["double precision", "-Infinity"], ["boolean", nil], ["timestamp with time zone", nil],
                ["bytea", nil], ["uuid", nil], ["text", nil], ["jsonb", nil],
            ]),
    ]

    @Test(arguments: cases)
    func everyAttributeTypeRoundTripsExactly(_ testCase: Case) throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        let values: [AttributeValue?] = [.integer(1)] + testCase.values
        let ids = try test.store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: ObjectID(entityName: "Sample", primaryKey: -1), isPlaceholder: false, attributes: values, relationships: [])
                ]))
        }
        let id = try #require(ids[ObjectID(entityName: "Sample", primaryKey: -1)])
        let fetched = try test.store.read { try $0.fetch(entity: "Sample", identities: [[.integer(1)]]) }
        // NaN is not equal to itself: compare descriptions for it.
        #expect(fetched.map(\.id) == [id])
        #expect(fetched.first?.attributes.map { $0.map { "\($0)" } } == values.map { $0.map { "\($0)" } })
        let reopened = try PostgresStore(connection: try #require(test.location), model: try Self.model())
        #expect(try reopened.read { try $0.fetch(ids: [id]) }.first?.attributes.map { $0.map { "\($0)" } } == values.map { $0.map { "\($0)" } })
        _ = try test.rows("SET TIME ZONE 'UTC'; SET extra_float_digits = 1")
        for (i, type) in Self.types.enumerated() {
            let column = SQLText.identifier("a_\(type.rawValue)")
            let row = try test.rows("SELECT pg_typeof(\(column))::text, \(column)::text FROM \"Sample\"")
            #expect(row == [testCase.stored[i]], "attribute type \(type)")
        }
    }

    /// Dates from the importer (milliseconds) come back as the identical `Date`.
    @Test func datesWithMillisecondsFromTheImporterRoundTrip() throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        let milliseconds: [Int64] = [
            1_199_145_600_000, 1_313_949_772_249, 1_704_067_199_999, 1_700_000_000_001,
            978_307_200_000, 473_385_600_123, -62_135_596_800_000, 253_402_300_799_999,
        ]
        let inserted = milliseconds.enumerated().map { i, ms in
            var values: [AttributeValue?] = [.integer(Int64(i))] + Array(repeating: nil, count: 13)
            values[9] = .date(Date(timeIntervalSince1970: Double(ms) / 1000))
            return ObjectSnapshot(
                id: ObjectID(entityName: "Sample", primaryKey: Int64(-1 - i)), isPlaceholder: false,
                attributes: values, relationships: [])
        }
        _ = try test.store.write { try $0.apply(ChangeSet(inserted: inserted)) }
        let fetched = try test.store.read { try $0.fetch(entity: "Sample", matching: nil) }
        #expect(fetched.map { $0.attributes[9] } == inserted.map { $0.attributes[9] })
        _ = try test.rows("SET TIME ZONE 'UTC'")
        #expect(
            try test.rows(#"SELECT to_char("a_date", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM "Sample" ORDER BY "key" LIMIT 2"#)
                == [["2008-01-01T00:00:00.000Z"], ["2011-08-21T18:02:52.249Z"]])
    }

    /// Values PostgreSQL cannot hold are refused, naming the entity and attribute; nothing is written.
    @Test(arguments: [
        (
            9, AttributeValue.date(Date(timeIntervalSince1970: 1e13)),
            "entity Sample, attribute a_date: the date 10000000000000.0 s after 1970 is outside the range of PostgreSQL's timestamptz (4713 BC to 294276 AD)"
        ),
        (1, AttributeValue.string("a\u{0}b"), "entity Sample, attribute a_string: the text holds the character U+0000, which PostgreSQL text cannot store"),
        (13, AttributeValue.json(["k": "\u{0}"]), "entity Sample, attribute a_json: a JSON value holds the character U+0000, which jsonb cannot store"),
        (2, AttributeValue.integer(40_000), "entity Sample, attribute a_integer16: 40000 is out of the range of an integer16 attribute (-32768…32767)"),
    ])
    func valuesPostgreSQLCannotHoldAreRefused(slot: Int, value: AttributeValue, message: String) throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        var values: [AttributeValue?] = [.integer(1)] + Array(repeating: nil, count: 13)
        values[slot] = value
        #expect {
            _ = try test.store.write {
                try $0.apply(
                    ChangeSet(inserted: [
                        ObjectSnapshot(id: ObjectID(entityName: "Sample", primaryKey: -1), isPlaceholder: false, attributes: values, relationships: [])
                    ]))
            }
        } throws: { error in
            (error as? StoreError)?.code == .unsupportedValue && (error as? StoreError)?.message == message
        }
        #expect(try test.rows(#"SELECT count(*) FROM "Sample""#) == [["0"]])
    }
}
