import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// What SQL cannot decide gives the same rows on every store (``StoreKind/allCases``): a SQL
/// store's compiler relaxes a comparison its dialect does not decide (PostgreSQL: `[c]`,
/// `[d]`, LIKE, MATCHES, text with U+0000) or conditions nested deeper than its engine parses
/// (SQLite: 20 levels), and the session decides the request in memory on the rows the
/// pre-filter selects: matches, order, offset, limit and count (``ValueQueryFixture``'s items).
@Suite struct RelaxedQueryTableTests {
    struct Leaf: Sendable, CustomStringConvertible {
        let predicate: ObjectPredicate
        let name: String
        /// The items it holds for (by id), on every store but PostgreSQL's for a U+0000 value.
        let ids: Set<Int64>
        var description: String { name }
    }

    static let leaves: [Leaf] = [
        Leaf(predicate: .compare("label", .equal, "strasse", options: [.caseInsensitive]), name: "label ==[c] 'strasse'", ids: [1, 2]),
        Leaf(
            predicate: .compare("label", .beginsWith, "ISTAN", options: [.caseInsensitive, .diacriticInsensitive]),
            name: "label BEGINSWITH[cd] 'ISTAN'", ids: [3, 4, 17]),
        Leaf(predicate: .compare("label", .like, "a?b"), name: "label LIKE 'a?b'", ids: [7, 19]),
        Leaf(predicate: .compare("label", .matches, "[a-z]+"), name: "label MATCHES '[a-z]+'", ids: [4, 18, .min]),
        Leaf(
            predicate: .compare("tags.name", .equal, "RED", options: [.caseInsensitive], quantifier: .any),
            name: "ANY tags.name ==[c] 'RED'", ids: [1]),
        Leaf(predicate: .compare("label", .equal, "a\u{0}b"), name: "label == 'a U+0000 b'", ids: [7]),
        Leaf(predicate: .compare("id", .lessOrEqual, 2), name: "id <= 2", ids: [1, 2, .min]),
    ]

    /// `NOT (label == 'none' OR p)` around `p`, `n` times: `label == 'none'` holds for no
    /// item, so each wrapper negates, and the answer alternates between `p`'s and the rest.
    static func nested(_ leaf: ObjectPredicate, _ n: Int) -> ObjectPredicate {
        var p = leaf
        for _ in 0..<n { p = .not(.or([.compare("label", .equal, "none"), p])) }
        return p
    }

    @Test(arguments: StoreKind.allCases)
    func relaxedComparisonsAndDeepNestingGiveTheSameRowsOnEveryStore(kind: StoreKind) throws {
        let store = try ValueQueryFixture.store(kind)
        let context = ObjectContext(store: store.store)
        for leaf in Self.leaves {
            // PostgreSQL holds item 7's label as `a U+0001 b` (ValueQueryFixture.store).
            let holds = kind == .postgres && leaf.name.contains("U+0000") ? [] : leaf.ids
            for n in [0, 1, 2, 9, 10, 11, 12, 25] {
                let kept = n.isMultiple(of: 2) ? holds : Set(ValueQueryFixture.ids).subtracting(holds)
                let expected = ValueQueryFixture.ids.filter { kept.contains($0) }
                let predicate = Self.nested(leaf.predicate, n)
                func ids(_ request: ObjectFetchRequest) throws -> [Int64] { try context.fetch(request).map { $0["id"]?.integerValue ?? -1 } }
                #expect(try ids(ObjectFetchRequest(entity: "Item", predicate: predicate)) == expected, "\(leaf) in \(n)")
                #expect(try context.count(ObjectFetchRequest(entity: "Item", predicate: predicate, limit: 1)) == expected.count, "\(leaf) in \(n)")
                // Sorted by id descending, from the second, at most three: decided after the pre-filter.
                let window = Array(expected.sorted(by: >).dropFirst().prefix(3))
                #expect(
                    try ids(
                        ObjectFetchRequest(
                            entity: "Item", predicate: predicate, sortDescriptors: [ObjectSortDescriptor("id", ascending: false)],
                            limit: 3, offset: 1)) == window, "\(leaf) in \(n)")
            }
        }
    }
}
