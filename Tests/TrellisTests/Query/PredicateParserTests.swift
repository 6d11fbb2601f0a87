import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// The NSPredicate-format parser on text that is hard to read: combining marks next to
/// quotes and names, non-ASCII letters that upper-case to ASCII keywords, integer literals
/// in other bases; and its description, which parses back to the same predicate.
@Suite struct PredicateParserTests {
    static func comparison(_ text: String) throws -> PredicateComparison? {
        guard case .comparison(let c) = try ObjectPredicate(format: text) else { return nil }
        return c
    }

    /// A combining mark right after a quote is the string's first character, not part of
    /// the quote (the parser reads scalars, not grapheme clusters).
    @Test func combiningMarkAfterAQuoteStartsTheString() throws {
        let c = try #require(try Self.comparison("label == '\u{301}//example'"))
        #expect(c.value == .string("\u{301}//example"))
        #expect(try Self.comparison("label ENDSWITH \"\u{301}\"")?.value == .string("\u{301}"))
        #expect(try Self.comparison("label IN {'a', '\u{308}'}")?.value == .list([.string("a"), .string("\u{308}")]))
        // The description writes the mark after the quote too, and it parses back.
        let predicate = try ObjectPredicate(format: "label == '\u{301}x'")
        #expect(predicate.description == "label == \"\u{301}x\"")
        #expect(try ObjectPredicate(format: predicate.description) == predicate)
    }

    /// Columns count characters as an editor shows them: a decomposed é is one column.
    @Test(arguments: ["caf\u{E9}", "cafe\u{301}"])
    func columnsCountCharacters(name: String) throws {
        do {
            _ = try ObjectPredicate(format: "\(name) == 'x")
            Issue.record("expected an error")
        } catch let error as QueryError {
            #expect(error.code == .syntax)
            #expect(error.column == 9)
            #expect(error.message == "the string starting at column 9 is not closed; add ' at its end")
        }
        let c = try #require(try Self.comparison("\(name) == 'x' "))
        #expect(c.keyPath == name)
        #expect(c.column == 1)
        #expect(c.valueColumn == 9)
        // An unknown name with a combining mark is named whole in the error.
        do {
            _ = try ObjectFetchRequest(entity: "Item", predicate: try ObjectPredicate(format: "label == 'a' AND \(name) == 1"))
                .resolved(in: try ValueQueryFixture.model())
            Issue.record("expected an error")
        } catch let error as QueryError {
            #expect(error.code == .unknownProperty)
            #expect(error.column == 18)
            #expect(error.message.hasPrefix("Item has no attribute or relationship '\(name)'; its attributes: id, label,"))
        }
    }

    /// Keywords are ASCII: the dotless ı upper-cases to I, yet "ın" is not IN.
    @Test func keywordsAreASCIIOnly() throws {
        do {
            _ = try ObjectPredicate(format: "label ın {'a'}")
            Issue.record("expected an error")
        } catch let error as QueryError {
            #expect(error.code == .syntax)
            #expect(error.column == 7)
            #expect(
                error.message.hasPrefix(
                    "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, "
                        + "CONTAINS, LIKE, MATCHES) after 'label', found 'ın {'a'}'"))
        }
        #expect(try Self.comparison("label in {'a'}")?.op == .in)
        #expect(try Self.comparison("ıd == 1")?.keyPath == "ıd")
    }

    @Test(arguments: [
        ("id == 0x1F", Int64(31)), ("id == 0X1f", 31), ("id == 0o17", 15), ("id == 0b101", 5), ("id == -0x10", -16),
        ("id == 0x7FFFFFFFFFFFFFFF", .max), ("id == -0x8000000000000000", .min), ("id == -0b0", 0),
    ])
    func integersInOtherBases(text: String, value: Int64) throws {
        #expect(try Self.comparison(text)?.value == .integer(value))
    }

    /// Names that are keywords are written with `#` in descriptions, so they parse back.
    @Test(arguments: ["in", "AND", "not", "nil", "yes", "Between", "SOME"])
    func keywordNamesAreEscapedInDescriptions(name: String) throws {
        let predicate = ObjectPredicate.compare(name + ".name", .equal, "x")
        #expect(predicate.description == "#\(name).name == \"x\"")
        guard case .comparison(let c) = try ObjectPredicate(format: predicate.description) else {
            Issue.record("not a comparison")
            return
        }
        #expect(c.keyPath == name + ".name")
    }
}
