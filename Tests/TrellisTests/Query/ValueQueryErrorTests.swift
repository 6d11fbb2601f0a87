import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Values that do not fit their attribute's type, numbers beyond their type's range,
/// predicates nested too deeply and requests out of range: each a ``QueryError`` with its
/// code, the column in the predicate text and a message saying what to do, on every store.
@Suite struct ValueQueryErrorTests {
    struct Case: CustomStringConvertible, Sendable {
        var text: String
        var code: QueryError.Code
        var column: Int?
        var message: String
        var description: String { text.count > 60 ? String(text.prefix(60)) + "…" : text }
    }

    static let deepParentheses = String(repeating: "(", count: 101) + "id == 1" + String(repeating: ")", count: 101)
    static let deepNots = String(repeating: "NOT ", count: 101) + "id == 1"
    static let deepLists = "id IN " + String(repeating: "{", count: 101) + "1" + String(repeating: "}", count: 101)

    static let cases: [Case] = [
        Case(
            text: "price == '1.5abc'", code: .typeMismatch, column: 10,
            message: "Item.price (decimal) cannot be compared with a string (\"1.5abc\"): not a decimal number"),
        Case(
            text: "price == ' 1.5'", code: .typeMismatch, column: 10,
            message: "Item.price (decimal) cannot be compared with a string (\" 1.5\"): not a decimal number"),
        Case(
            text: "price == 1e500", code: .typeMismatch, column: 10,
            message: "Item.price (decimal) cannot be compared with a number (1e500): out of Decimal's range (exponent -128...127)"),
        Case(
            text: "small > 40000", code: .typeMismatch, column: 9,
            message: "Item.small (integer16) cannot be compared with a number (40000); it is outside integer16's range -32768...32767"),
        Case(
            text: "small > 40000.5", code: .typeMismatch, column: 9,
            message: "Item.small (integer16) cannot be compared with a number (40000.5); it is outside integer16's range -32768...32767"),
        Case(
            text: "id == 99999999999999999999", code: .typeMismatch, column: 7,
            message: "Item.id (integer64) cannot be compared with a number (99999999999999999999); it is outside integer64's range "
                + "-9223372036854775808...9223372036854775807"),
        Case(
            text: "flag == 2", code: .typeMismatch, column: 9,
            message: "Item.flag (boolean) cannot be compared with a number (2): only the numbers 0 and 1 are booleans"),
        Case(
            text: "weight == 1e39", code: .typeMismatch, column: 11,
            message: "Item.weight (float) cannot be compared with a number (1e39): out of range for Float (magnitude above 3.4028235e38)"),
        Case(
            text: "at > '2020-13-01'", code: .typeMismatch, column: 6,
            message: "Item.at (date) cannot be compared with a string (\"2020-13-01\"); write the date as RFC 3339 / ISO 8601 text, "
                + "\"2011-08-21T18:02:52Z\""),
        Case(
            text: "uid == '6F9619FF'", code: .typeMismatch, column: 8,
            message: "Item.uid (uuid) cannot be compared with a string (\"6F9619FF\"); write a UUID as 8-4-4-4-12 hexadecimal digits"),
        Case(text: "id == 1_000", code: .syntax, column: 8, message: "unexpected '_' in a number"),
        Case(text: "id == 0x", code: .syntax, column: 9, message: "expected hexadecimal digits after '0x'"),
        Case(text: "id == 0b102", code: .syntax, column: 11, message: "unexpected '2' in a number"),
        Case(text: "id == 0x8000000000000000", code: .syntax, column: 7, message: "0x8000000000000000 is beyond the 64-bit integers"),
        // The pattern must compile alone: "a)|(b" is not "(?:a)|(b)" with the anchor around it.
        Case(
            text: "label MATCHES 'a)|(b'", code: .invalidRegularExpression, column: 15,
            message: "'a)|(b' is not a valid regular expression (ICU syntax, https://unicode-org.github.io/icu/userguide/strings/regexp.html); "
                + "check its brackets, parentheses and escapes"),
        Case(
            text: deepParentheses, code: .syntax, column: 101,
            message: "the predicate nests parentheses, NOT and lists more than 100 levels deep; simplify it"),
        Case(
            text: deepNots, code: .syntax, column: 401,
            message: "the predicate nests parentheses, NOT and lists more than 100 levels deep; simplify it"),
        Case(
            text: deepLists, code: .syntax, column: 107,
            message: "the predicate nests parentheses, NOT and lists more than 100 levels deep; simplify it"),
    ]

    static let arguments: [(StoreKind, Case)] = StoreKind.allCases.flatMap { kind in cases.map { (kind, $0) } }

    @Test(arguments: arguments)
    func badValueIsAPreciseError(kind: StoreKind, testCase: Case) throws {
        let store = try ValueQueryFixture.store(kind)
        let before = try store.dump()
        do {
            let predicate = try ObjectPredicate(format: testCase.text)
            _ = try ObjectContext(store: store.store).fetch(ObjectFetchRequest(entity: "Item", predicate: predicate))
            Issue.record("expected an error for \(testCase.text)")
        } catch let error as QueryError {
            #expect(error.code == testCase.code)
            #expect(error.column == testCase.column)
            #expect(error.message == testCase.message)
        }
        #expect(try store.dump() == before)
    }

    /// Limits and offsets below 0 are refused; the maximum ones are answered.
    @Test(arguments: StoreKind.allCases)
    func negativeLimitsAndOffsetsAreInvalid(kind: StoreKind) throws {
        let store = try ValueQueryFixture.store(kind)
        let context = ObjectContext(store: store.store)
        for (request, message) in [
            (ObjectFetchRequest(entity: "Item", limit: -1), "the limit is -1; it must be 0 or more (nil: no limit)"),
            (ObjectFetchRequest(entity: "Item", limit: 5, offset: -1), "the offset is -1; it must be 0 or more"),
            (ObjectFetchRequest(entity: "Item", limit: Int.min, offset: Int.min), "the limit is \(Int.min); it must be 0 or more (nil: no limit)"),
        ] {
            do {
                _ = try context.fetch(request)
                Issue.record("expected an error for \(request)")
            } catch let error as QueryError {
                #expect(error.code == .invalidRequest)
                #expect(error.message == message)
            }
        }
    }

    /// A predicate built from values (not text) may nest deeper than text may, up to
    /// `PredicateResolver`'s 1,000 levels; deeper is an error, never a stack overflow.
    @Test(arguments: StoreKind.allCases)
    func predicatesBuiltTooDeepAreInvalid(kind: StoreKind) throws {
        let store = try ValueQueryFixture.store(kind)
        let context = ObjectContext(store: store.store)
        var deep = ObjectPredicate.compare("id", .equal, 1)
        for i in 0..<1000 { deep = i.isMultiple(of: 2) ? .not(deep) : .and([deep, .constant(true)]) }
        do {
            _ = try context.fetch(ObjectFetchRequest(entity: "Item", predicate: deep))
            Issue.record("expected an error")
        } catch let error as QueryError {
            #expect(error.code == .invalidRequest)
            #expect(error.message == "the predicate nests AND, OR and NOT more than 1000 levels deep; simplify it")
        }
        // 998 levels are answered: 499 NOTs (an odd number: item 1 is the one left out) and 499 ANDs.
        var fine = ObjectPredicate.compare("id", .equal, 1)
        for i in 0..<998 { fine = i.isMultiple(of: 2) ? .not(fine) : .and([fine, .constant(true)]) }
        #expect(
            try context.fetch(ObjectFetchRequest(entity: "Item", predicate: fine)).map { $0["id"]?.integerValue ?? -1 }
                == ValueQueryFixture.ids(except: [1]))
    }

    /// Thousands of comparisons joined by OR (as `--where` lists or generated predicates
    /// give) are answered by every store; SQLite's expression depth limit (1,000) is not reached.
    @Test(arguments: StoreKind.allCases)
    func wideOrAndAndAreAnswered(kind: StoreKind) throws {
        let store = try ValueQueryFixture.store(kind)
        let context = ObjectContext(store: store.store)
        let text = (100..<2100).map { "id == \($0)" }.joined(separator: " OR ") + " OR id == 18 OR label ==[c] 'AB'"
        #expect(
            try context.fetch(ObjectFetchRequest(entity: "Item", predicate: try ObjectPredicate(format: text)))
                .map { $0["id"]?.integerValue ?? -1 } == [18])
        let all = ObjectPredicate.and((0..<3000).map { _ in ObjectPredicate.compare("label", .notEqual, "zz") })
        #expect(try context.count(ObjectFetchRequest(entity: "Item", predicate: all)) == 21)
    }
}
