import Foundation
import Testing
import Trellis
import TrellisSQL
import TrellisTestSupport

@testable import TrellisSQLite

/// Conditions nested deeper than SQLite parses (``SQLiteDialect/maximumNesting``, 20 levels)
/// are relaxed out of the SQL and decided in memory; up to it the SQL is exact, and SQLite
/// prepares every shape the compiler writes at that depth. (The answers on every store:
/// `RelaxedQueryTableTests`.)
@Suite struct SQLiteNestingTests {
    /// `NOT (id == 'none' OR p)` around `p`, `n` times (2 levels each: the `NOT` and the list
    /// whose last term nests on, the costliest shape for SQLite's parser).
    static func nested(_ leaf: ObjectPredicate, _ n: Int) -> ObjectPredicate {
        var p = leaf
        for _ in 0..<n { p = .not(.or([.compare("id", .equal, "none"), p])) }
        return p
    }

    struct Leaf: Sendable, CustomStringConvertible {
        let predicate: String
        /// The levels its SQL adds (a sub-query 2).
        let levels: Int
        var description: String { predicate }
    }

    static let leaves: [Leaf] = [
        Leaf(predicate: "name ==[c] 'batman'", levels: 0),
        Leaf(predicate: "ANY powers.name ==[c] 'flight'", levels: 2),
        Leaf(predicate: "powers.@count == 2", levels: 2),
        Leaf(predicate: "NOT publisher.name == 'DC'", levels: 1),
    ]

    @Test(arguments: leaves)
    func conditionsUpToTheMaximumAreExactAndDeeperOnesRelaxed(_ leaf: Leaf) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try charactersModel()
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: model)
        let context = ObjectContext(store: store)
        func object(_ entity: String, _ id: String, _ name: String) throws -> ManagedObject {
            let object = try context.insert(entity)
            try object.setValue(.string(id), forKey: "id")
            try object.setValue(.string(name), forKey: "name")
            return object
        }
        let flight = try object("Power", "p1", "Flight")
        let batman = try object("Character", "1", "Batman")
        try batman.setDestinations([flight, try object("Power", "p2", "Money")], forKey: "powers")
        try batman.setDestination(try object("Publisher", "dc", "DC"), forKey: "publisher")
        let storm = try object("Character", "2", "Storm")
        try storm.setDestinations([flight], forKey: "powers")
        try storm.setDestination(try object("Publisher", "m", "Marvel"), forKey: "publisher")
        try context.save()
        let maximum = try #require(SQLiteDialect().maximumNesting)
        #expect(maximum == 20)
        let all = try store.read { try $0.fetch(entity: "Character", matching: nil) }
        for n in 0...12 {
            let request = try ObjectFetchRequest(entity: "Character", predicate: Self.nested(try ObjectPredicate(leaf.predicate), n))
                .resolved(in: model)
            let parts = try store.read { try ($0 as! SQLiteSession).compile(request) }
            #expect(parts.isExact == (2 * n + leaf.levels <= maximum), "\(n) levels of \(leaf)")
            // SQLite prepares it (exact or relaxed) and the answer is the evaluator's.
            let expected = try RequestEvaluator(request, lookup: { id in try store.read { try $0.fetch(ids: [id]).first } }).run(all).map(\.id)
            #expect(try store.read { try $0.fetch(request) }.map(\.id) == expected, "\(n) levels of \(leaf)")
            #expect(try store.read { try $0.count(request) } == expected.count, "\(n) levels of \(leaf)")
        }
    }
}
