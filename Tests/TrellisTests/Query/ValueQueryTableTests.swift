import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Values at the edges of their types and Unicode text, queried on every store
/// (`StoreKind.allCases`): each case's objects (by `id`, in the order fetched) are the same
/// from the SQLite store's SQL, the in-memory store and the in-memory evaluation
/// (``RequestEvaluator``) over the store's objects. The fixture is `ValueQueryFixture`
/// (see its table); unsorted results come in object ID order.
@Suite struct ValueQueryTableTests {
    struct Case: CustomStringConvertible, Sendable {
        var predicate: String?
        var sort: String = ""
        var limit: Int?
        var offset = 0
        var expected: [Int64]
        var description: String { "\(predicate ?? "all") sort[\(sort)] limit \(limit.map(String.init) ?? "-") offset \(offset)" }
    }

    static func all(except excluded: Set<Int64> = []) -> [Int64] { ValueQueryFixture.ids(except: excluded) }
    static let big1: Int64 = 9_007_199_254_740_993
    static let big0: Int64 = 9_007_199_254_740_992

    static let cases: [Case] = [
        // [c] is full Unicode case folding: ß and ẞ fold to ss, İ to i + U+0307, final ς to σ.
        Case(predicate: "label ==[c] 'strasse'", expected: [1, 2]),
        Case(predicate: "label ==[c] 'STRAẞE'", expected: [1, 2]),
        Case(predicate: "label ENDSWITH[c] 'ßE'", expected: [1, 2]),
        Case(predicate: "label CONTAINS[c] 'SS'", expected: [1, 2]),
        Case(predicate: "label ==[d] 'Strasse'", expected: []),  // ß is a letter, not s with a diacritic
        Case(predicate: "label ==[c] 'istanbul'", expected: [4]),
        Case(predicate: "label ==[c] 'İSTANBUL'", expected: [3, 17]),
        Case(predicate: "label ==[c] 'ISTANBUL'", expected: [4]),
        Case(predicate: "label ==[cd] 'istanbul'", expected: [3, 4, 17]),
        Case(predicate: "label BEGINSWITH[cd] 'I'", expected: [3, 4, 12, 17]),
        Case(predicate: "label ==[c] 'σοφος'", expected: [5]),
        Case(predicate: "label ==[cd] 'σοφοσ'", expected: [5, 6]),
        Case(predicate: "label ENDSWITH[c] 'σ'", expected: [5, 6]),
        Case(predicate: "label BEGINSWITH[c] 'ǆ'", expected: [20]),
        Case(predicate: "label LIKE[c] 'Ǆ*'", expected: [20]),
        // Without options text compares by its scalars: the Angstrom sign is not U+00C5;
        // with [c] or [d] both are normalized (NFC) first.
        Case(predicate: "label == '\u{212B}'", expected: [9]),
        Case(predicate: "label ==[c] '\u{E5}'", expected: [9, 10]),
        Case(predicate: "label ==[d] 'A'", expected: [9, 10]),
        Case(predicate: "label ==[c] '👍🏽'", expected: [8]),
        Case(predicate: "label BEGINSWITH '👍🏽'", expected: [8]),
        // NUL and newline are characters like any other, in SQL and in memory.
        Case(predicate: "label == 'a\\u0000b'", expected: [7]),
        Case(predicate: "label CONTAINS '\\u0000'", expected: [7]),
        Case(predicate: "label BEGINSWITH[c] 'A\\u0000'", expected: [7]),
        Case(predicate: "label LIKE 'a?b'", expected: [7, 19]),
        Case(predicate: "label < 'ab' AND label > 'a'", expected: [7, 19]),
        // MATCHES matches the whole text, as ICU's and NSPredicate's MATCHES do.
        Case(predicate: "label MATCHES 'a|ab'", expected: [18]),
        Case(predicate: "label MATCHES 'a.b'", expected: [7]),
        Case(predicate: "label MATCHES '(?s)a.b'", expected: [7, 19]),
        Case(predicate: "label MATCHES '.*'", expected: all(except: [13, 19])),
        Case(predicate: "label MATCHES ''", expected: [21]),
        Case(predicate: "label MATCHES '(?x) a # c'", expected: []),
        Case(predicate: "label MATCHES '[a-z]+'", expected: [4, .min, 18]),
        // Quotes, semicolons and -- are text; SQL is never built from it.
        Case(predicate: "label == \"it's \\\"quoted\\\"; --\"", expected: [12]),
        Case(predicate: "label == 'it\\'s \"quoted\"; --'", expected: [12]),
        Case(predicate: "label BEGINSWITH[c] \"IT'S \\\"Q\"", expected: [12]),
        Case(predicate: "label ENDSWITH '; --'", expected: [12]),
        Case(predicate: "label LIKE '*\"*'", expected: [12]),
        Case(predicate: "label IN {'x\\'); DROP TABLE \"Item\"; --', 'ab'}", expected: [18]),
        Case(predicate: "label LIKE '100%*'", expected: [11]),
        Case(predicate: "label LIKE '*_*'", expected: [11]),
        // Decimals compare exactly, by value (not as doubles, not as text).
        Case(predicate: "price == 1.5", expected: [1]),
        Case(predicate: "price == '1.5'", expected: [1]),
        Case(predicate: "price == 1.5e0", expected: [1]),
        Case(predicate: "price IN {0.1, 100}", expected: [2, 6]),
        Case(predicate: "price == 12345678901234567.89", expected: [3]),
        Case(predicate: "price > 12345678901234567.88", expected: [3]),
        Case(predicate: "price BETWEEN {12345678901234567.88, 12345678901234567.88}", expected: [4]),
        Case(predicate: "price == 1e-20", expected: [7]),
        Case(predicate: "price < 1e-19 AND price > 0", expected: [7]),
        Case(predicate: "price > 1", expected: [1, 3, 4, 6]),
        Case(predicate: "price < 0", expected: [5]),
        Case(predicate: "price != 1.5", expected: all(except: [1])),
        Case(predicate: "price BETWEEN {100, 1}", expected: []),
        // 64-bit integers compare exactly, also beyond 2^53; fractions against integers.
        Case(predicate: "id == 9007199254740993", expected: [big1]),
        Case(predicate: "id > 9007199254740992", expected: [big1]),
        Case(predicate: "id == 9007199254740993.0", expected: [big1]),
        Case(predicate: "id < -9223372036854775807", expected: [.min]),
        Case(predicate: "id == -9223372036854775808", expected: [.min]),
        Case(predicate: "id > 1.5", expected: all(except: [1, .min])),
        Case(predicate: "id < 2.5", expected: [1, 2, .min]),
        Case(predicate: "id <= 1.5", expected: [1, .min]),
        Case(predicate: "id >= 20.5", expected: [big1, big0, 21]),
        Case(predicate: "id == 1.5", expected: []),
        Case(predicate: "id != 1.5", expected: all()),
        Case(predicate: "id BETWEEN {1.5, 3.5}", expected: [2, 3]),
        Case(predicate: "id IN {1, 2.0, 2.5, 3e0}", expected: [1, 2, 3]),
        Case(predicate: "id == 1e0", expected: [1]),
        Case(predicate: "id == 0xC", expected: [12]),
        Case(predicate: "id == 0o10", expected: [8]),
        Case(predicate: "id == 0b10", expected: [2]),
        Case(predicate: "id == -0x8000000000000000", expected: [.min]),
        Case(predicate: "small < 0.5", expected: [2]),
        Case(predicate: "tags.@count < 1.5", expected: all(except: [1])),
        Case(predicate: "tags.@count > 0.5", expected: [1, 3]),
        Case(predicate: "tags.@count == 1.5", expected: []),
        // Doubles and floats: a float compares as the Float nearest the number, as stored.
        Case(predicate: "weight == 0.1", expected: [1]),
        Case(predicate: "weight <= 0.1", expected: [1]),
        Case(predicate: "weight == 1", expected: [2]),
        Case(predicate: "score == -0.0", expected: [2]),
        Case(predicate: "score == 0", expected: [2]),
        Case(predicate: "score == 9007199254740993", expected: [big1, big0]),  // both are the double 2^53
        Case(predicate: "score > 1e299", expected: [3]),
        // Booleans: TRUE/YES, FALSE/NO, 1 and 0; a missing value is neither.
        Case(predicate: "flag == 1", expected: [1]),
        Case(predicate: "flag == NO", expected: [2]),
        Case(predicate: "flag != TRUE", expected: all(except: [1])),
        Case(predicate: "flag > FALSE", expected: [1]),
        // Dates: ISO 8601 text with offsets and fractions, full dates, instants before 1970.
        Case(predicate: "at == '2019-12-31T23:00:00-01:00'", expected: [1, 2, 6]),
        Case(predicate: "at == '2020-01-01T01:00:00+01:00'", expected: [1, 2, 6]),
        Case(predicate: "at == '2020-01-01'", expected: [1, 2, 6]),
        Case(predicate: "at > '2020-01-01T00:00:00Z'", expected: [3]),
        Case(predicate: "at == '2020-01-01T00:00:00.500Z'", expected: [3]),
        Case(predicate: "at == '2015-11-13T09:36:13.184968Z'", expected: [4]),
        Case(predicate: "at == '2015-11-13T09:36:13.185Z'", expected: []),
        Case(predicate: "at < '1970-01-01T00:00:00Z'", expected: [5]),
        Case(predicate: "at == '1969-12-31T23:59:59.999Z'", expected: [5]),
        Case(predicate: "at BETWEEN {'2019-01-01', '2020-01-01'}", expected: [1, 2, 6]),
        // UUIDs in either case; URIs as text.
        Case(predicate: "uid == '6f9619ff-8b86-d011-b42d-00c04fc964ff'", expected: [1]),
        Case(predicate: "uid != nil", expected: [1]),
        Case(predicate: "link == 'https://example.org/a'", expected: [1]),
        // ANY / ALL / NONE: ALL over an empty set holds, ANY does not (NSPredicate's rules).
        Case(predicate: "ANY tags.name == 'red'", expected: [1]),
        Case(predicate: "ALL tags.name == 'red'", expected: all(except: [1, 3])),
        Case(predicate: "NONE tags.name == 'red'", expected: all(except: [1])),
        Case(predicate: "ALL tags.name != 'zzz'", expected: all()),
        Case(predicate: "ANY tags.name == nil", expected: []),
        Case(predicate: "ALL tags.name == nil", expected: all(except: [1, 3])),
        Case(predicate: "ANY tags.name IN {}", expected: []),
        Case(predicate: "ALL tags.name IN {}", expected: all(except: [1, 3])),
        Case(predicate: "ALL owner.reports.name == 'Cid'", expected: all(except: [2])),
        Case(predicate: "NONE owner.reports.name == 'Cid'", expected: all(except: [1])),
        Case(predicate: "owner.boss.items.@count >= 1", expected: [1, 4, 5]),
        // Empty lists: IN {} holds for nothing, NOT IN {} for everything.
        Case(predicate: "label IN {}", expected: []),
        Case(predicate: "NOT label IN {}", expected: all()),
        Case(predicate: "label IN[c] {'STRASSE'}", expected: [1, 2]),
        Case(predicate: "tags.@count IN {}", expected: []),
        Case(predicate: "SELF IN {}", expected: []),
        // Missing values, also through a missing to-one: != holds, == nil holds.
        Case(predicate: "owner.name != 'Ann'", expected: all(except: [1])),
        Case(predicate: "NOT owner.name BEGINSWITH 'A'", expected: all(except: [1])),
        Case(predicate: "owner.boss.name == nil", expected: all(except: [1, 4, 5])),
        Case(predicate: "owner.boss.boss.name == 'Bob'", expected: [4, 5]),
        Case(predicate: "label == nil OR label == 'ab'", expected: [13, 18]),
        // Sorting: nulls first ascending and last descending, decimals by value, ties by object ID.
        Case(sort: "price", expected: [8, 9, 10, 11, 12, 13, big1, big0, .min, 17, 18, 19, 20, 21, 5, 7, 2, 1, 6, 4, 3]),
        Case(sort: "-price", expected: [3, 4, 6, 1, 2, 7, 5, 8, 9, 10, 11, 12, 13, big1, big0, .min, 17, 18, 19, 20, 21]),
        Case(predicate: "score != nil", sort: "score", expected: [2, 1, big1, big0, 3]),
        Case(predicate: "score != nil", sort: "-score", expected: [3, big1, big0, 1, 2]),
        Case(predicate: "at != nil", sort: "at", expected: [5, 4, 1, 2, 6, 3]),
        Case(
            predicate: "owner.name != 'Bob'", sort: "-owner.name",
            expected: [
                4, 5, 1, 3, 6, 7, 8, 9, 10, 11, 12, 13, big1, big0, .min,
                17, 18, 19, 20, 21,
            ]),
        Case(predicate: "small != nil OR id < 0", sort: "small,-id", expected: [.min, 2, 1]),
        Case(predicate: "id <= 3 OR id > 20", sort: "id", expected: [.min, 1, 2, 3, 21, big0, big1]),
        Case(predicate: "id < 4 OR label == ''", sort: "label", expected: [21, 2, 1, .min, 3]),
        // Limits and offsets at their edges.
        Case(sort: "id", limit: 0, expected: []),
        Case(sort: "id", limit: Int.max, offset: 18, expected: [21, big0, big1]),
        Case(sort: "-id", limit: 2, offset: 1, expected: [big0, 21]),
        Case(sort: "id", offset: Int.max, expected: []),
        Case(sort: "id", limit: Int.max, offset: Int.max, expected: []),
        Case(sort: "id", offset: 21, expected: []),
        Case(sort: "id", offset: 20, expected: [big1]),
        Case(predicate: "FALSEPREDICATE", limit: 5, offset: 5, expected: []),
    ]

    static let arguments: [(StoreKind, Case)] = StoreKind.allCases.flatMap { kind in cases.map { (kind, $0) } }

    @Test(arguments: arguments)
    func requestReturnsTheExpectedObjects(kind: StoreKind, testCase: Case) throws {
        let store = try ValueQueryFixture.store(kind)
        let predicate = try testCase.predicate.map { try ObjectPredicate(format: $0) }
        let request = ObjectFetchRequest(
            entity: "Item", predicate: predicate,
            sortDescriptors: testCase.sort.isEmpty ? [] : try ObjectSortDescriptor.list(testCase.sort),
            limit: testCase.limit, offset: testCase.offset)
        let context = ObjectContext(store: store.store)
        let expected = ValueQueryFixture.expected(testCase.expected, predicate: testCase.predicate, on: kind)
        #expect(try context.fetch(request).map { $0["id"]?.integerValue ?? -1 } == expected)
        if testCase.limit == nil && testCase.offset == 0 {
            #expect(try context.count(request) == expected.count)
        }
        let resolved = try request.resolved(in: store.store.model)
        let evaluated = try store.store.read { session in
            try RequestEvaluator(resolved, lookup: { try session.fetch(ids: [$0]).first })
                .run(try session.fetch(entity: "Item", matching: nil))
        }
        #expect(evaluated.map { $0.attributes[0]?.integerValue ?? -1 } == expected)
        // The predicate's description is predicate text that selects the same objects.
        if let predicate {
            var again = request
            again.predicate = try ObjectPredicate(format: predicate.description)
            #expect(try context.fetch(again).map { $0["id"]?.integerValue ?? -1 } == expected, "\(predicate.description)")
        }
    }
}
