import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Bad predicates and requests: each an error with its code, the column in the predicate
/// text and a message saying what to do; never a crash, and the store is not touched.
@Suite struct QueryErrorTests {
    struct Case: CustomStringConvertible, Sendable {
        var text: String
        var code: QueryError.Code
        var column: Int?
        var message: String
        var description: String { text }
    }

    static let cases: [Case] = [
        Case(
            text: "nmae == 'Batman'", code: .unknownProperty, column: 1,
            message: "Character has no attribute or relationship 'nmae'; its attributes: id, name, realName, rating, active, "
                + "createdAt; its relationships: powers, publisher"),
        Case(
            text: "publisher.nmae == 'DC'", code: .unknownProperty, column: 1,
            message: "Publisher has no attribute or relationship 'nmae'; its attributes: id, name; its relationships: characters"),
        Case(
            text: "rating > 2 AND name == 5", code: .typeMismatch, column: 24,
            message: "Character.name (string) cannot be compared with a number (5); quote it to compare text: \"5\""),
        Case(
            text: "rating == 'high'", code: .typeMismatch, column: 11,
            message: "Character.rating (double) cannot be compared with a string (\"high\"); write the number without quotes"),
        Case(
            text: "rating BEGINSWITH '4'", code: .typeMismatch, column: 19,
            message: "BEGINSWITH compares strings; Character.rating (double) is not a string"),
        Case(
            text: "createdAt > 'yesterday'", code: .typeMismatch, column: 13,
            message: "Character.createdAt (date) cannot be compared with a string (\"yesterday\"); write the date as RFC 3339 / "
                + "ISO 8601 text, \"2011-08-21T18:02:52Z\""),
        Case(
            text: "ANY publisher.name == 'DC'", code: .invalidKeyPath, column: 1,
            message: "ANY needs a key path through a to-many relationship; 'publisher.name' has none (drop ANY)"),
        Case(
            text: "ANY publisher == nil", code: .invalidKeyPath, column: 1,
            message: "ANY needs a to-many relationship; 'publisher' is a to-one relationship of Character (drop ANY)"),
        Case(
            text: "powers.name == 'Flight'", code: .invalidKeyPath, column: 1,
            message: "'powers' is a to-many relationship of Character; write ANY powers.name (or ALL, NONE)"),
        Case(
            text: "ANY powers.characters.name == 'x'", code: .invalidKeyPath, column: 1,
            message: "'powers.characters.name' goes through two to-many relationships; a key path may go through one (with ANY)"),
        Case(
            text: "name.@count > 2", code: .invalidKeyPath, column: 1,
            message: "@count follows a to-many relationship (powers.@count); 'name' is not one"),
        Case(
            text: "name == 'Batman", code: .syntax, column: 9,
            message: "the string starting at column 9 is not closed; add ' at its end"),
        Case(
            text: "(name == 'a' OR rating > 2", code: .syntax, column: 27,
            message: "the parenthesis at column 1 is not closed; add ')'"),
        Case(
            text: "name BEGINSWITH", code: .syntax, column: 16,
            message: "expected a value after BEGINSWITH, found the end of the predicate"),
        Case(
            text: "name ~ 'x'", code: .syntax, column: 6,
            message: "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, "
                + "MATCHES) after 'name', found '~ 'x''"),
        Case(
            text: "name == Batman", code: .syntax, column: 9,
            message: "expected a value (a quoted string, a number, nil, TRUE, FALSE, {…} or %@), found 'Batman'; quote text: \"Batman\""),
        Case(
            text: "name == 'a' rating > 2", code: .syntax, column: 13,
            message: "expected AND, OR or the end of the predicate, found 'rating > 2'"),
        Case(
            text: "name MATCHES '([a-z'", code: .invalidRegularExpression, column: 14,
            message: "'([a-z' is not a valid regular expression (ICU syntax, https://unicode-org.github.io/icu/userguide/strings/regexp.html); "
                + "check its brackets, parentheses and escapes"),
        Case(
            text: "name ==[x] 'a'", code: .syntax, column: 9,
            message: "unknown comparison option 'x'; the options are [c] (case-insensitive) and [d] (diacritic-insensitive)"),
        Case(
            text: "rating <[c] 2", code: .typeMismatch, column: 13,
            message: "[c] applies to strings; Character.rating (double) is not a string (drop [c])"),
        Case(text: "name < nil", code: .typeMismatch, column: 8, message: "< cannot compare with nil; use == nil or != nil"),
        Case(
            text: "rating BETWEEN {1}", code: .typeMismatch, column: 16,
            message: "BETWEEN takes two bounds, {low, high}; found a list"),
        Case(
            text: "publisher > 2", code: .typeMismatch, column: 1,
            message: "'publisher' is a to-one relationship: compare it with ==, != or IN and object IDs or nil, or compare one of "
                + "Publisher's attributes (publisher.id)"),
        Case(text: "", code: .syntax, column: 1, message: "expected a predicate, found an empty text"),
    ]

    @Test(arguments: cases)
    func badPredicateIsAPreciseError(testCase: Case) throws {
        let model = try QueryFixture.model()
        do {
            let predicate = try ObjectPredicate(format: testCase.text)
            _ = try ObjectFetchRequest(entity: "Character", predicate: predicate).resolved(in: model)
            Issue.record("expected an error for \(testCase.text)")
        } catch let error as QueryError {
            #expect(error.code == testCase.code)
            #expect(error.column == testCase.column)
            #expect(error.message == testCase.message)
        }
    }

    @Test func argumentsMustMatchTheFormat() throws {
        #expect(throws: QueryError.self) { try ObjectPredicate("name == %@") }
        do {
            _ = try ObjectPredicate("name == %@", "a", "b")
            Issue.record("expected an error")
        } catch let error as QueryError {
            #expect(error.code == .arguments)
            #expect(error.message == "2 argument(s) given but the predicate uses 1 (%@ or %K)")
        }
        // %K names a key path, %@ a value.
        let predicate = try ObjectPredicate("%K BEGINSWITH[c] %@ AND rating > %@", "name", "bat", 2.5)
        #expect(predicate.description == "(name BEGINSWITH[c] \"bat\" AND rating > 2.5)")
    }

    @Test(arguments: StoreKind.allCases)
    func badRequestLeavesTheStoreAsItWas(kind: StoreKind) throws {
        let store = try QueryFixture.store(kind)
        let before = try store.dump()
        let context = ObjectContext(store: store.store)
        let sortErrors: [(String, String)] = [
            (
                "powers",
                "cannot sort by 'powers': Character.powers is a to-many relationship; sort keys are attributes, or attributes "
                    + "through to-one relationships"
            ),
            (
                "publisher",
                "cannot sort by 'publisher': Character.publisher is a to-one relationship; sort by one of its attributes "
                    + "(publisher.name)"
            ),
            (
                "nmae",
                "cannot sort by 'nmae': Character has no attribute or relationship 'nmae'; its attributes: id, name, realName, "
                    + "rating, active, createdAt; its relationships: powers, publisher"
            ),
        ]
        for (key, message) in sortErrors {
            do {
                _ = try context.fetch(ObjectFetchRequest(entity: "Character", sortDescriptors: [ObjectSortDescriptor(key)]))
                Issue.record("expected an error sorting by \(key)")
            } catch let error as QueryError {
                #expect(error.code == .invalidRequest)
                #expect(error.message == message)
            }
        }
        #expect(throws: QueryError.self) { try context.fetch(ObjectFetchRequest(entity: "Character", limit: -1)) }
        // Values with quotes, semicolons and comment dashes are bound, never SQL text.
        for hostile in ["'; DROP TABLE \"Character\"; --", "\" OR 1=1 --", "a'b\"c;--", "%_*?\\"] {
            let request = ObjectFetchRequest(
                entity: "Character",
                predicate: try ObjectPredicate(
                    "name == %@ OR name BEGINSWITH[c] %@ OR realName LIKE %@ OR name MATCHES %@", hostile, hostile, hostile, ".*x"))
            #expect(try context.fetch(request).isEmpty)
        }
        #expect(try store.dump() == before)
    }
}
