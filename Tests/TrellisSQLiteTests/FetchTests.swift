import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSQLite

/// Fetches by identity, ID and predicate, on every store.
@Suite struct FetchTests {
    /// Dogs 1…, cats, seats with tags; returns the store.
    func animalsStore(_ kind: StoreKind) throws -> TestStore {
        let test = try kind.makeStore(model: try animalsModel())
        let store = test.store
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(
                        id: tid("Dog", 1), isPlaceholder: false,
                        attributes: [.integer(10), .string("Rex"), .bool(true), .string("brown")], relationships: []),
                    ObjectSnapshot(
                        id: tid("Cat", 2), isPlaceholder: false,
                        attributes: [.integer(20), .string("Tom"), .integer(9), .integer(3)], relationships: [[tid("Dog", 1)]]),
                    ObjectSnapshot(
                        id: tid("Cat", 3), isPlaceholder: true,
                        attributes: [.integer(30), nil, nil, nil], relationships: [[]]),
                    ObjectSnapshot(id: tid("Tag", 4), isPlaceholder: false, attributes: [.string("aisle")], relationships: []),
                    ObjectSnapshot(id: tid("Tag", 5), isPlaceholder: false, attributes: [.string("front")], relationships: []),
                    ObjectSnapshot(
                        id: tid("Seat", 6), isPlaceholder: false, attributes: [.string("A"), .integer(1)],
                        relationships: [[tid("Tag", 5), tid("Tag", 4)]]),
                    ObjectSnapshot(id: tid("Seat", 7), isPlaceholder: false, attributes: [.string("A"), .integer(2)], relationships: [[]]),
                    ObjectSnapshot(
                        id: tid("Seat", 8), isPlaceholder: false, attributes: [.string("B"), .integer(1)],
                        relationships: [[tid("Tag", 4)]]),
                ]))
        }
        return test
    }

    @Test(arguments: StoreKind.allCases)
    func identityFetchOfAParentEntityFindsSubEntities(kind: StoreKind) throws {
        let test = try animalsStore(kind)
        let store = test.store
        let animals = try store.read { try $0.fetch(entity: "Animal", identities: [[.integer(20)], [.integer(10)], [.integer(99)], [.integer(30)]]) }
        #expect(
            animals.sorted { $0.id.primaryKey < $1.id.primaryKey } == [
                ObjectSnapshot(
                    id: ObjectID(entityName: "Dog", primaryKey: 1), isPlaceholder: false,
                    attributes: [.integer(10), .string("Rex"), .bool(true), .string("brown")], relationships: []),
                ObjectSnapshot(
                    id: ObjectID(entityName: "Cat", primaryKey: 2), isPlaceholder: false,
                    attributes: [.integer(20), .string("Tom"), .integer(9), .integer(3)],
                    relationships: [[ObjectID(entityName: "Dog", primaryKey: 1)]]),
                ObjectSnapshot(
                    id: ObjectID(entityName: "Cat", primaryKey: 3), isPlaceholder: true,
                    attributes: [.integer(30), nil, nil, nil], relationships: [[]]),
            ])
        // A sub-entity fetch only finds its own kind.
        let cats = try store.read { try $0.fetch(entity: "Cat", identities: [[.integer(10)], [.integer(20)]]) }
        #expect(cats.map(\.id) == [ObjectID(entityName: "Cat", primaryKey: 2)])
        #expect(try store.read { try $0.count(entity: "Animal", matching: nil) } == 3)
        #expect(try store.read { try $0.count(entity: "Dog", matching: nil) } == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func compositeIdentitiesAndOrderedRelationships(kind: StoreKind) throws {
        let test = try animalsStore(kind)
        let store = test.store
        let seats = try store.read {
            try $0.fetch(entity: "Seat", identities: [[.string("A"), .integer(1)], [.string("B"), .integer(1)], [.string("B"), .integer(2)]])
        }
        #expect(
            seats.sorted { $0.id < $1.id } == [
                ObjectSnapshot(
                    id: ObjectID(entityName: "Seat", primaryKey: 1), isPlaceholder: false,
                    attributes: [.string("A"), .integer(1)],
                    relationships: [[ObjectID(entityName: "Tag", primaryKey: 2), ObjectID(entityName: "Tag", primaryKey: 1)]]),
                ObjectSnapshot(
                    id: ObjectID(entityName: "Seat", primaryKey: 3), isPlaceholder: false,
                    attributes: [.string("B"), .integer(1)], relationships: [[ObjectID(entityName: "Tag", primaryKey: 1)]]),
            ])
        if kind != .inMemory {
            #expect(
                try test.rows(#"SELECT "source", "destination", "position" FROM "Seat.tags" ORDER BY 1, 3"#)
                    == [["1", "2", "0"], ["1", "1", "1"], ["3", "1", "0"]])
        }
    }

    @Test(arguments: StoreKind.allCases, [1_200, 20_000])
    func largeIdentityBatchesAreChunkedAndExact(kind: StoreKind, count: Int) throws {
        let test = try kind.makeStore(model: try charactersModel())
        let store = test.store
        // 20,000 characters stored; fetch `count` of them (1,200: three chunked IN lists; 20,000:
        // a table scan), plus identities that do not exist and a repeated one.
        let inserted = (0..<20_000).map { (i: Int) -> ObjectSnapshot in
            let attributes: [AttributeValue?] = [.string("c\(i)"), .string("name \(i)"), nil, nil, nil, .bool(i % 2 == 0)]
            return ObjectSnapshot(
                id: tid("Character", Int64(i + 1)), isPlaceholder: false, attributes: attributes,
                relationships: [[], []])
        }
        _ = try store.write { try $0.apply(ChangeSet(inserted: inserted)) }
        var wanted = (0..<count).map { [AttributeValue.string("c\($0 * 20_000 / count)")] }
        wanted += [[.string("missing")], [.string("C0")], [.string("c0")]]
        let fetched = try store.read { try $0.fetch(entity: "Character", identities: wanted) }
        if let sqlite = store as? SQLiteStore {
            let chunked = try sqlite.withConnection { $0.cachedSQL.contains { $0.contains("\"id\" IN (?, ?") } }
            #expect(chunked == (count == 1_200))
        }
        let expected = Set((0..<count).map { $0 * 20_000 / count })
        #expect(fetched.count == expected.count)
        #expect(Set(fetched.map { $0.attributes[0] }) == Set(expected.map { .string("c\($0)") }))
        #expect(fetched.allSatisfy { $0.attributes[1] == .string("name \($0.id.primaryKey - 1)") })
        // Strings match by bytes, as in SQL: a canonically equivalent spelling is another identity.
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(
                        id: tid("Character", 1), isPlaceholder: false,
                        attributes: [.string("caf\u{E9}"), nil, nil, nil, nil, nil], relationships: [[], []])
                ]))
        }
        let decomposed = (0..<count).map { _ in [AttributeValue.string("cafe\u{301}")] }
        #expect(try store.read { try $0.fetch(entity: "Character", identities: decomposed) }.isEmpty)
    }

    @Test func compositeIdentityBatchesSeekTheIdentityIndex() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try animalsModel())
        let seats = (0..<20_000).map { (i: Int) -> ObjectSnapshot in
            let attributes: [AttributeValue?] = [.string("R\(i / 100)"), .integer(Int64(i % 100))]
            return ObjectSnapshot(id: tid("Seat", Int64(i + 1)), isPlaceholder: false, attributes: attributes, relationships: [[]])
        }
        _ = try store.write { try $0.apply(ChangeSet(inserted: seats)) }
        // 1,200 wanted (three chunks), one of them twice, plus two that do not exist.
        var wanted = (0..<1_200).map { (i: Int) -> [AttributeValue] in [.string("R\(i * 16 / 100)"), .integer(Int64(i * 16 % 100))] }
        wanted += [wanted[7], [.string("R1"), .integer(100)], [.string("X"), .integer(1)]]
        let found = try store.read { try $0.fetch(entity: "Seat", identities: wanted) }
        #expect(found.count == 1_200)
        let expectedKeys: Set<Int64> = Set((0..<1_200).map { (i: Int) -> Int64 in Int64(i * 16 + 1) })
        let foundKeys: Set<Int64> = Set(found.map(\.id.primaryKey))
        #expect(foundKeys == expectedKeys)
        #expect(found.allSatisfy { $0.attributes == seats[Int($0.id.primaryKey) - 1].attributes })
        let sql = try #require(try store.withConnection { $0.cachedSQL.first { $0.contains("FROM (VALUES") } })
        let plan: [String] = try store.rows("EXPLAIN QUERY PLAN " + sql).map { ($0.last ?? nil) ?? "" }
        #expect(plan.contains("SEARCH t USING INDEX Seat identity (row=? AND number=?)"))
        #expect(!plan.contains { $0.hasPrefix("SCAN t") })
    }

    @Test(arguments: StoreKind.allCases)
    func toManyRelationshipsOfManyObjectsAreLoadedInBatches(kind: StoreKind) throws {
        let test = try kind.makeStore(model: try charactersModel())
        let store = test.store
        var inserted = (0..<10).map { p in
            ObjectSnapshot(id: tid("Power", Int64(p + 1)), isPlaceholder: false, attributes: [.string("p\(p)"), nil], relationships: [])
        }
        inserted += (0..<3).map { p in
            ObjectSnapshot(id: tid("Publisher", Int64(100 + p)), isPlaceholder: false, attributes: [.string("u\(p)"), nil], relationships: [[]])
        }
        for i in 0..<1_200 {
            let attributes: [AttributeValue?] = [.string("c\(i)"), nil, nil, nil, nil, nil]
            let powers = [tid("Power", Int64(i % 10 + 1)), tid("Power", Int64((i + 3) % 10 + 1))]
            inserted.append(
                ObjectSnapshot(
                    id: tid("Character", Int64(1_000 + i)), isPlaceholder: false, attributes: attributes,
                    relationships: [powers, [tid("Publisher", Int64(100 + i % 3))]]))
        }
        _ = try store.write { try $0.apply(ChangeSet(inserted: inserted)) }
        let characters = try store.read { try $0.fetch(entity: "Character", matching: nil) }
        #expect(characters.count == 1_200)
        for (i, character) in characters.enumerated() {
            let powers = [Int64(i % 10 + 1), Int64((i + 3) % 10 + 1)].sorted().map { ObjectID(entityName: "Power", primaryKey: $0) }
            #expect(character.relationships == [powers, [ObjectID(entityName: "Publisher", primaryKey: Int64(i % 3 + 1))]])
        }
        // The inverse to-many (stored by the characters' foreign key), sorted by object ID.
        let publishers = try store.read { try $0.fetch(entity: "Publisher", identities: [[.string("u1")]]) }
        #expect(
            publishers.first?.relationships.first
                == stride(from: 2, through: 1_200, by: 3).map {
                    ObjectID(entityName: "Character", primaryKey: Int64($0))
                })
        // Chunked (a few objects) and scanned (most objects) loading agree.
        let few = try store.read { try $0.fetch(ids: [ObjectID(entityName: "Character", primaryKey: 7)]) }
        #expect(few == [characters[6]])
        let viaIdentity = try store.read { try $0.fetch(entity: "Character", identities: (0..<1_200).map { [.string("c\($0)")] }) }
        #expect(viaIdentity.sorted { $0.id < $1.id } == characters)
    }

    @Test(arguments: StoreKind.allCases)
    func predicatesIDsAndCounts(kind: StoreKind) throws {
        let test = try animalsStore(kind)
        let store = test.store
        try store.read { session in
            let named = try session.fetch(entity: "Animal", matching: .oneOf(attribute: "name", values: [.string("Tom"), .string("Rex")]))
            #expect(named.map(\.id) == [ObjectID(entityName: "Cat", primaryKey: 2), ObjectID(entityName: "Dog", primaryKey: 1)])
            let unnamed = try session.fetch(entity: "Cat", matching: .equals(attribute: "name", value: nil))
            #expect(unnamed.map(\.id) == [ObjectID(entityName: "Cat", primaryKey: 3)])
            let friends = try session.fetch(
                entity: "Cat",
                matching: .relatedTo(
                    relationship: "friend",
                    destination: ObjectID(entityName: "Dog", primaryKey: 1)))
            #expect(friends.map(\.id) == [ObjectID(entityName: "Cat", primaryKey: 2)])
            #expect(try session.count(entity: "Animal", matching: .not(.equals(attribute: "id", value: .integer(10)))) == 2)
            #expect(try session.count(entity: "Animal", matching: .or([])) == 0)
            #expect(try session.count(entity: "Animal", matching: .and([.oneOf(attribute: "id", values: [])])) == 0)
            let byID = try session.fetch(ids: [
                ObjectID(entityName: "Dog", primaryKey: 1), ObjectID(entityName: "Cat", primaryKey: 1),
                ObjectID(entityName: "Cat", primaryKey: 99), ObjectID(entityName: "Tag", primaryKey: 2),
            ])
            #expect(byID.map(\.id) == [ObjectID(entityName: "Dog", primaryKey: 1), ObjectID(entityName: "Tag", primaryKey: 2)])
            #expect(throws: StoreError.self) { try session.fetch(entity: "Animal", matching: .equals(attribute: "nope", value: nil)) }
            #expect(throws: StoreError.self) { try session.fetch(ids: [ObjectID(entityName: "Nope", primaryKey: 1)]) }
        }
    }
}
