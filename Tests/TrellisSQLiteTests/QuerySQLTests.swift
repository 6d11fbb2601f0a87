import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSQLite

/// Fetch requests compiled to SQL: indexes used, quoting of names and values, entity
/// hierarchies sharing a table; the hierarchy and quoting cases run on every store.
@Suite struct QuerySQLTests {
    @Test func identityPredicateSearchesTheIdentityIndex() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try charactersModel()
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: model)
        let request = try ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("id == %@", "1699")).resolved(in: model)
        let (sql, parameters) = try store.read { try ($0 as! SQLiteSession).sql(for: request) }
        #expect(parameters == [.string("1699")])
        #expect(sql.hasSuffix(#" FROM "Character" AS t WHERE t."id" = ?1 ORDER BY t."_pk""#))
        let plan = try store.rows("EXPLAIN QUERY PLAN " + sql.replacingOccurrences(of: "?1", with: "'1699'")).map { $0.last ?? nil }
        #expect(plan == ["SEARCH t USING INDEX Character identity (id=?)"])
    }

    @Test func keyPathsBecomeJoinsAndQuantifiersSubqueries() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try charactersModel()
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: model)
        let request = try ObjectFetchRequest(
            entity: "Character", predicate: try ObjectPredicate("ANY powers.name ==[c] %@ AND NOT publisher.name BEGINSWITH %@", "flight", "DC"),
            sortDescriptors: [ObjectSortDescriptor("publisher.name", ascending: false)]
        ).resolved(in: model)
        let (sql, parameters) = try store.read { try ($0 as! SQLiteSession).sql(for: request) }
        #expect(parameters == [.string("flight"), .string("DC")])
        #expect(sql.contains(#" LEFT JOIN "Publisher" AS q2 ON q2."_pk" = t."publisher" WHERE"#))
        #expect(
            sql.contains(
                #"(t."_pk" IN (SELECT s1j."source" FROM "Character.powers" AS s1j JOIN "Power" AS s1 ON s1."_pk" = s1j."destination" "#
                    + #"WHERE s1j."source" IS NOT NULL AND trellis_text(1, s1."name", ?1, 1)) AND "#
                    + #"NOT coalesce(trellis_text(2, q2."name", ?2, 0), 0))"#))
        #expect(sql.hasSuffix(#" ORDER BY q2."name" DESC, t."_pk""#))
    }

    @Test(arguments: StoreKind.allCases)
    func namesAndValuesThatNeedQuotingAreSafe(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try quotingModel())
        let context = ObjectContext(store: store.store)
        let item = try context.insert("a\"b;c")
        try item.setValue(.string("x'; DROP TABLE \"Order\"; --"), forKey: "from")
        try item.setValue(.integer(7), forKey: "_pk")
        let order = try context.insert("Order")
        try order.setValue(.string("1; --"), forKey: "select")
        try order.setValue(.integer(3), forKey: "a\"b;c")
        try order.setDestination(item, forKey: "group")
        try order.setDestinations([item], forKey: "items")
        try context.save()
        let before = try store.dump()
        let request = ObjectFetchRequest(
            entity: "Order",
            predicate: try ObjectPredicate(
                "%K == 3 AND group.from BEGINSWITH %@ AND ANY items._pk == 7 AND select LIKE '*--'", "a\"b;c", "x'; DROP"),
            sortDescriptors: [ObjectSortDescriptor("group.from"), ObjectSortDescriptor("a\"b;c", ascending: false)])
        #expect(try ObjectContext(store: store.store).fetch(request).map { $0["select"] } == [.string("1; --")])
        #expect(try store.dump() == before)
    }

    @Test(arguments: StoreKind.allCases)
    func subEntitiesSharingATableAreFilteredByEntity(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try animalsModel())
        let context = ObjectContext(store: store.store)
        var animals: [ManagedObject] = []
        for (i, (entity, name)) in [("Dog", "Rex"), ("Cat", "Tom"), ("Dog", "Rusty"), ("Cat", "Rumble")].enumerated() {
            let animal = try context.insert(entity)
            try animal.setValue(.integer(Int64(i + 1)), forKey: "id")
            try animal.setValue(.string(name), forKey: "name")
            animals.append(animal)
        }
        try animals[3].setValue(.integer(9), forKey: "lives")
        try animals[3].setDestination(animals[0], forKey: "friend")
        try context.save()
        func names(_ entity: String, _ predicate: String, sort: String = "name") throws -> [String] {
            try ObjectContext(store: store.store).fetch(
                ObjectFetchRequest(
                    entity: entity, predicate: try ObjectPredicate(predicate), sortDescriptors: try ObjectSortDescriptor.list(sort))
            )
            .map { "\($0.entity.name):\($0["name"]?.stringValue ?? "")" }
        }
        #expect(try names("Animal", "name BEGINSWITH 'R'") == ["Dog:Rex", "Cat:Rumble", "Dog:Rusty"])
        #expect(try names("Cat", "name BEGINSWITH 'R' OR lives == nil") == ["Cat:Rumble", "Cat:Tom"])
        #expect(try names("Cat", "friend.name == 'Rex' AND lives > 8") == ["Cat:Rumble"])
        #expect(try names("Animal", "TRUEPREDICATE", sort: "-id") == ["Cat:Rumble", "Dog:Rusty", "Cat:Tom", "Dog:Rex"])
    }
}

/// Observation across connections: a second `SQLiteStore` on the same file is what another
/// process is to the observer (its own connection); the commit reaches the observer through
/// the `trellis_commits` log, noticed by polling `PRAGMA data_version`.
@Suite struct CrossConnectionObservationTests {
    final class Updates: @unchecked Sendable {
        // SAFETY: `results` is read and written only while `lock` is held.
        private let lock = NSLock()
        private var results: [[String]] = []
        func add(_ names: [String]) { lock.withLock { results.append(names) } }
        /// The updates once `count` have arrived; what there is after 60 s (a generous
        /// deadline, not a timing assertion: a loaded machine may take seconds to poll).
        func wait(for count: Int) -> [[String]] {
            let end = Date().addingTimeInterval(60)
            while Date() <= end {
                let current = lock.withLock { results }
                if current.count >= count { return current }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return lock.withLock { results }
        }
    }

    @Test func anotherConnectionsCommitIsDelivered() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try charactersModel()
        let path = directory.path("s.sqlite")
        let observed = try SQLiteStore(path: path, model: model, configuration: .init(changePollIntervalMilliseconds: 10))
        let other = try SQLiteStore(path: path, model: model)
        let updates = Updates()
        let observation = try ObjectContext(store: observed).observe(
            ObjectFetchRequest(entity: "Character", sortDescriptors: [ObjectSortDescriptor("name")])
        ) { result in
            if case .success(let update) = result { updates.add(update.results.map { $0["name"]?.stringValue ?? "" }) }
        }
        defer { observation.cancel() }
        #expect(updates.wait(for: 1) == [[]])
        let writer = ObjectContext(store: other)
        let hero = try writer.insert("Character")
        try hero.setValue(.string("1"), forKey: "id")
        try hero.setValue(.string("Robin"), forKey: "name")
        try writer.save()
        #expect(updates.wait(for: 2) == [[], ["Robin"]])
        #expect(try observed.rows("SELECT \"seq\", \"changes\" FROM \"trellis_commits\"") == [["1", #"{"Character":{"i":[1],"u":[],"d":[]}}"#]])
    }
}

/// An entity may be called like the change log table: its table gets another name, and the
/// log and observation work as for any model.
@Suite struct ChangeLogNameTests {
    @Test func anEntityNamedLikeTheLogGetsAnotherTable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "trellis_commits",
                attributes: [
                    AttributeDescription(name: "seq", type: .integer64), AttributeDescription(name: "changes", type: .string),
                ], userInfo: ["identityAttributes": "seq"])
        ])
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: model)
        let context = ObjectContext(store: store)
        let object = try context.insert("trellis_commits")
        try object.setValue(.integer(7), forKey: "seq")
        try object.setValue(.string("x"), forKey: "changes")
        try context.save()
        #expect(
            try store.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                == [["sqlite_sequence"], ["trellis_commits"], ["trellis_commits 2"], ["trellis_metadata"], ["trellis_outbox"]]
                .map { $0.map(Optional.some) })  // (the save is local: its insert is in the outbox, AUTOINCREMENT)
        #expect(try store.rows(#"SELECT "seq", "changes" FROM "trellis_commits 2""#) == [["7", "x"]])
        #expect(try store.rows(#"SELECT "seq", "changes" FROM "trellis_commits""#) == [["1", #"{"trellis_commits":{"i":[1],"u":[],"d":[]}}"#]])
        let found = try ObjectContext(store: store).fetch(ObjectFetchRequest(entity: "trellis_commits", predicate: try ObjectPredicate("seq == 7")))
        #expect(found.map { $0["changes"] } == [.string("x")])
    }
}
