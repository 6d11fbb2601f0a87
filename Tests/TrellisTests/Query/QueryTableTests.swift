import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// One table of fetch requests and the characters (by `id`) they must return, run on every
/// store (`StoreKind.allCases`): every store compiles or evaluates the same requests and
/// must give identical answers. The fixture is `QueryFixture.characters()`:
///
/// | id | name | realName | rating | active | createdAt | publisher | powers |
/// |---|---|---|---|---|---|---|---|
/// | 1 | Batman | Bruce Wayne | 4.5 | true | 2011-08-21 | DC | Intelligence, Stealth |
/// | 2 | batgirl | Barbara Gordon | 3.5 | true | 2012-01-01 | DC | Stealth |
/// | 3 | Superman | Clark Kent | 5.0 | true | 2010-05-05 | DC | Flight, Strength, Speed |
/// | 4 | Straße | nil | 2.0 | false | 2015-03-01 | Marvel | — |
/// | 5 | Café (é precomposed) | Élodie | 3.0 | false | nil | Marvel | Flight |
/// | 6 | CAFÉ (E + U+0301) | O'Brien; DROP TABLE "Character" -- | nil | true | 2020-01-01 | nil | Flight, Strength, Speed, Stealth |
/// | 7 | nil | Nobody | 1.0 | false | 2019-06-15 | Marvel | Strength |
/// | 8 | STRASSE | Big 50% off_*? | 4.5 | true | 2018-01-01 | DC | Speed |
@Suite struct QueryTableTests {
    struct Case: CustomStringConvertible, Sendable {
        var predicate: String?
        var arguments: [String] = []
        var sort: String = ""
        var limit: Int?
        var offset = 0
        var expected: [Int64]
        var description: String { "\(predicate ?? "all") sort[\(sort)] limit \(limit.map(String.init) ?? "-") offset \(offset)" }
    }

    static let cases: [Case] = [
        Case(predicate: "name == 'Batman'", expected: [1]),
        Case(predicate: "name ==[c] 'BATMAN'", expected: [1]),
        Case(predicate: "name BEGINSWITH[c] 'bat'", expected: [1, 2]),
        Case(predicate: "name BEGINSWITH 'bat'", expected: [2]),
        // NFC first: "CAFE" + U+0301 is "CAFÉ", which does not begin with "cafe" but with "caf".
        Case(predicate: "name BEGINSWITH[c] 'cafe'", expected: []),
        Case(predicate: "name BEGINSWITH[c] 'caf'", expected: [5, 6]),
        Case(predicate: "name BEGINSWITH[cd] 'cafe'", expected: [5, 6]),
        // SQLite's LIKE pre-filter: its wildcards in the operand are literal; non-ASCII text goes to the function.
        Case(predicate: "realName BEGINSWITH[c] 'big 50%'", expected: [8]),
        Case(predicate: "realName BEGINSWITH[c] 'big 50_'", expected: []),
        Case(predicate: "realName BEGINSWITH[c] %@", arguments: ["o'brien; drop"], expected: [6]),
        Case(predicate: "realName BEGINSWITH[c] 'elo'", expected: []),
        Case(predicate: "realName BEGINSWITH[cd] 'elo'", expected: [5]),
        // Unicode full case folding: ß folds to ss.
        Case(predicate: "name ==[c] 'strasse'", expected: [4, 8]),
        Case(predicate: "name ==[c] %@", arguments: ["STRAẞE"], expected: [4, 8]),
        // Diacritics: precomposed and decomposed é, both folded to e under [d].
        Case(predicate: "name ==[cd] 'cafe'", expected: [5, 6]),
        Case(predicate: "name ==[c] 'caf\u{E9}'", expected: [5, 6]),
        Case(predicate: "name == 'Caf\u{E9}'", expected: [5]),
        Case(predicate: "name CONTAINS[c] 'MAN'", expected: [1, 3]),
        Case(predicate: "name ENDSWITH 'man'", expected: [1, 3]),
        Case(predicate: "name ENDSWITH[cd] '\u{E9}'", expected: [4, 5, 6, 8]),
        Case(predicate: "name LIKE '*man'", expected: [1, 3]),
        Case(predicate: "name LIKE 'b?t*'", expected: [2]),
        Case(predicate: "name LIKE[cd] 'caf?'", expected: [5, 6]),
        Case(predicate: "realName LIKE %@", arguments: ["*\\**"], expected: [8]),
        Case(predicate: "realName CONTAINS '50%'", expected: [8]),
        Case(predicate: "realName CONTAINS '_'", expected: [8]),
        Case(predicate: "name MATCHES '[A-Z][a-z]+man'", expected: [1, 3]),
        Case(predicate: "name MATCHES[c] 'bat.*'", expected: [1, 2]),
        Case(predicate: "rating > 3.5", expected: [1, 3, 8]),
        Case(predicate: "rating >= 3.5 AND active == TRUE", expected: [1, 2, 3, 8]),
        Case(predicate: "rating BETWEEN {2, 3.5}", expected: [2, 4, 5]),
        Case(predicate: "rating == nil", expected: [6]),
        // A missing value is not equal to 4.5, and NOT is two-valued (no SQL "unknown").
        Case(predicate: "rating != 4.5", expected: [2, 3, 4, 5, 6, 7]),
        Case(predicate: "NOT (rating == 4.5)", expected: [2, 3, 4, 5, 6, 7]),
        Case(predicate: "NOT rating > 3", expected: [4, 5, 6, 7]),
        Case(predicate: "name !=[c] 'batman'", expected: [2, 3, 4, 5, 6, 7, 8]),
        Case(predicate: "id IN {2, 4, 99}", expected: [2, 4]),
        Case(predicate: "NOT id IN {2, 4}", expected: [1, 3, 5, 6, 7, 8]),
        Case(predicate: "active == FALSE OR name == nil", expected: [4, 5, 7]),
        Case(predicate: "realName == nil", expected: [4]),
        Case(predicate: "createdAt > '2015-01-01T00:00:00Z'", expected: [4, 6, 7, 8]),
        Case(predicate: "createdAt BETWEEN {'2011-01-01', '2012-06-30'}", expected: [1, 2]),
        Case(predicate: "realName == %@", arguments: [QueryFixture.injection], expected: [6]),
        Case(predicate: "publisher.name == 'DC Comics'", expected: [1, 2, 3, 8]),
        Case(predicate: "publisher.name != 'DC Comics'", expected: [4, 5, 6, 7]),
        Case(predicate: "publisher == nil", expected: [6]),
        Case(predicate: "publisher.name BEGINSWITH[c] 'mar' AND powers.@count > 0", expected: [5, 7]),
        Case(predicate: "ANY powers.name == 'Flight'", expected: [3, 5, 6]),
        Case(predicate: "SOME powers.name IN {'Speed', 'Intelligence'}", expected: [1, 3, 6, 8]),
        Case(predicate: "NONE powers.name == 'Flight'", expected: [1, 2, 4, 7, 8]),
        Case(predicate: "ALL powers.name BEGINSWITH 'S'", expected: [2, 4, 7, 8]),
        Case(predicate: "powers.@count >= 3", expected: [3, 6]),
        Case(predicate: "powers.@count == 0", expected: [4]),
        Case(predicate: "id >= 7 OR name ENDSWITH[cd] 'e'", expected: [4, 5, 6, 7, 8]),
        Case(predicate: "TRUEPREDICATE", expected: [1, 2, 3, 4, 5, 6, 7, 8]),
        Case(predicate: "FALSEPREDICATE", expected: []),
        // Sorting: strings by UTF-8 bytes, nil first ascending and last descending, ties by object ID.
        Case(sort: "name", expected: [7, 1, 6, 5, 8, 4, 3, 2]),
        Case(sort: "-name", expected: [2, 3, 4, 8, 5, 6, 1, 7]),
        Case(sort: "-rating,name", expected: [3, 1, 8, 2, 5, 4, 7, 6]),
        Case(sort: "publisher.name", limit: 3, offset: 1, expected: [1, 2, 3]),
        Case(predicate: "rating > 1", sort: "-createdAt", limit: 2, expected: [8, 4]),
        Case(sort: "active,-id", expected: [7, 5, 4, 8, 6, 3, 2, 1]),
        Case(predicate: "name BEGINSWITH[c] 's'", sort: "name", limit: 2, expected: [8, 4]),
        Case(limit: 0, expected: []),
        Case(offset: 10, expected: []),
        Case(sort: "-rating", offset: 6, expected: [7, 6]),
    ]

    static let arguments: [(StoreKind, Case)] = StoreKind.allCases.flatMap { kind in cases.map { (kind, $0) } }

    @Test(arguments: arguments)
    func requestReturnsTheExpectedObjects(kind: StoreKind, testCase: Case) throws {
        let store = try QueryFixture.store(kind)
        let predicate = try testCase.predicate.map { try ObjectPredicate(format: $0, arguments: testCase.arguments) }
        let request = ObjectFetchRequest(
            entity: "Character", predicate: predicate,
            sortDescriptors: testCase.sort.isEmpty ? [] : try ObjectSortDescriptor.list(testCase.sort),
            limit: testCase.limit, offset: testCase.offset)
        let context = ObjectContext(store: store.store)
        let objects = try context.fetch(request)
        #expect(objects.map { $0["id"]?.integerValue ?? -1 } == testCase.expected)
        if testCase.limit == nil && testCase.offset == 0 {
            #expect(try context.count(request) == testCase.expected.count)
        }
        // The same answer as the in-memory evaluation over the store's own objects.
        let resolved = try request.resolved(in: store.store.model)
        let evaluated = try store.store.read { session in
            try RequestEvaluator(resolved, lookup: { try session.fetch(ids: [$0]).first })
                .run(try session.fetch(entity: "Character", matching: nil))
        }
        #expect(QueryFixture.ids(evaluated) == testCase.expected)
    }

    @Test(arguments: StoreKind.allCases)
    func fetchedSnapshotsCarryValuesAndRelationships(kind: StoreKind) throws {
        let store = try QueryFixture.store(kind)
        let request = ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("id == %@", 6))
        let objects = try ObjectContext(store: store.store).fetchSnapshots(request)
        #expect(objects.count == 1)
        #expect(objects.first?["realName"] == .string(QueryFixture.injection))
        #expect(objects.first?["name"] == .string("CAFE\u{301}"))
        #expect(objects.first?.destinationIDs(forKey: "powers").count == 4)
        #expect(objects.first?.destinationIDs(forKey: "publisher") == [])
        // SELF IN: the object IDs found restrict a second request.
        let ids = try ObjectContext(store: store.store).fetch(
            ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("rating >= 4.5"))
        ).map(\.objectID)
        let again = try ObjectContext(store: store.store).fetch(
            ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("SELF IN %@ AND name BEGINSWITH 'S'", ids)))
        #expect(again.map { $0["id"]?.integerValue ?? -1 } == [3, 8])
    }

    @Test(arguments: StoreKind.allCases)
    func otherEntitiesAndCountsThroughRelationships(kind: StoreKind) throws {
        let store = try QueryFixture.store(kind)
        let context = ObjectContext(store: store.store)
        let busy = ObjectFetchRequest(entity: "Publisher", predicate: try ObjectPredicate("characters.@count >= 4"))
        #expect(try context.fetch(busy).map { $0["name"]?.stringValue ?? "" } == ["DC Comics"])
        let idle = ObjectFetchRequest(entity: "Publisher", predicate: try ObjectPredicate("NONE characters.active == TRUE"))
        #expect(try context.fetch(idle).map { $0["name"]?.stringValue ?? "" } == ["Marvel", "Image"])
        let flyers = ObjectFetchRequest(
            entity: "Power", predicate: try ObjectPredicate("ANY characters.publisher.name == 'Marvel'"),
            sortDescriptors: [ObjectSortDescriptor("name", ascending: false)])
        #expect(try context.fetch(flyers).map { $0["name"]?.stringValue ?? "" } == ["Strength", "Flight"])
        #expect(try context.count(ObjectFetchRequest(entity: "Power", predicate: try ObjectPredicate("characters.@count == 3"))) == 4)
    }
}
