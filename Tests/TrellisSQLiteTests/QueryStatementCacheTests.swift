import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSQLite

/// Query SQL follows the predicate's shape, so a process asked many shapes prepares many
/// statements: at most `Connection.queryStatementCapacity` stay prepared, and an evicted one
/// is prepared again, with the same answer, when its query comes back.
@Suite struct QueryStatementCacheTests {
    @Test func queryStatementsAreBounded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try charactersModel()
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: model)
        let writer = ObjectContext(store: store)
        for i in 1...3 {
            let hero = try writer.insert("Character")
            try hero.setValue(.string(String(i)), forKey: "id")
            try hero.setValue(.string("hero \(i)"), forKey: "name")
        }
        try writer.save()
        let context = ObjectContext(store: store)
        // 200 shapes: `id IN {…}` lists of 1 to 200 values, each its own SQL.
        func ids(inListOf length: Int) throws -> [String] {
            let list = (0..<length).map { "'\($0 % 3 + 1)'" }.joined(separator: ", ")
            return try context.fetch(ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("id IN {\(list)}")))
                .map { $0["id"]?.stringValue ?? "" }
        }
        #expect(try ids(inListOf: 1) == ["1"])
        #expect(try ids(inListOf: 2) == ["1", "2"])
        for length in 3...200 { #expect(try ids(inListOf: length) == ["1", "2", "3"]) }
        let prepared = try store.withConnection { $0.cachedSQL.filter { $0.contains(#""id" IN (?1"#) }.count }
        #expect(prepared == Connection.queryStatementCapacity)
        // The first shape was evicted long ago; it is prepared again and answers the same.
        #expect(try ids(inListOf: 1) == ["1"])
        #expect(try context.count(ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("id IN {'2', '3'}"))) == 2)
    }
}

/// The `trellis_decimal` collation orders decimal text by value, exactly.
@Suite struct DecimalCollationTests {
    static let cases: [(String, String, Int)] = [
        ("1.5", "1.50", 0), ("-0", "0", 0), ("0.0", "-0.000", 0), ("007", "7", 0),
        ("12345678901234567.88", "12345678901234567.89", -1), ("-12345678901234567.88", "-12345678901234567.89", 1),
        ("0.00000000000000000001", "0", 1), ("-0.5", "0.1", -1), ("99", "100", -1), ("-99", "-100", 1),
        ("1e3", "999", 1), ("1e3", "1000", 0), ("abc", "1", 1), ("abc", "abd", -1), ("", "0", 1),
    ]

    @Test(arguments: cases)
    func decimalsCompareByValue(a: String, b: String, order: Int) {
        func compare(_ x: String, _ y: String) -> Int {
            let p = Array(x.utf8)
            let q = Array(y.utf8)
            return p.withUnsafeBufferPointer { p in q.withUnsafeBufferPointer { q in SQLiteDecimalCollation.compare(p, q) } }
        }
        #expect(compare(a, b) == order)
        #expect(compare(b, a) == -order)
    }
}
