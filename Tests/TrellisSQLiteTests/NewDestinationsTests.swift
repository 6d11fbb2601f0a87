import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSQLite

/// Imports in which many to-one destinations are new (issue 13, point 1): every post its own
/// new publisher (nested), a reply to a *later* post (a placeholder until that post comes),
/// a one-to-one partner that is new too, and a post replying to itself. The SQLite store
/// writes each object after the new objects its to-ones point at, and a to-one closing a
/// cycle of new objects after every insert (`InsertOrder`), so no insert leaves a deferred
/// foreign key violation outstanding (which made SQLite scan the unindexed child table on
/// every insert into the parent: quadratic time).
@Suite struct NewDestinationsTests {
    static func model() throws -> ObjectModel {
        func attribute(_ name: String, _ type: AttributeType) -> AttributeDescription {
            AttributeDescription(name: name, type: type, userInfo: ["JSONKeyPath": name])
        }
        return try ObjectModel(entities: [
            EntityDescription(
                name: "Post", attributes: [attribute("id", .integer64)],
                relationships: [
                    RelationshipDescription(
                        name: "publisher", destinationEntity: "Publisher", inverseName: "posts",
                        userInfo: ["JSONKeyPath": "publisher"]),
                    RelationshipDescription(
                        name: "replyTo", destinationEntity: "Post", inverseName: "replies",
                        userInfo: ["JSONKeyPath": "reply_to"]),
                    RelationshipDescription(name: "replies", destinationEntity: "Post", inverseName: "replyTo", isToMany: true),
                    RelationshipDescription(
                        name: "partner", destinationEntity: "Post", inverseName: "partner",
                        userInfo: ["JSONKeyPath": "partner"]),
                ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Publisher", attributes: [attribute("id", .integer64)],
                relationships: [
                    RelationshipDescription(name: "posts", destinationEntity: "Post", inverseName: "publisher", isToMany: true)
                ], userInfo: ["identityAttributes": "id"]),
        ])
    }

    static let count: Int64 = 120

    /// Post i (1…120): publisher {"id": i} (new), reply_to i + 1 (a later post; none for the
    /// last), partner i + 1 for odd i, i - 1 for even i (bare identifiers); post 500 replies to itself.
    static func payload() -> JSONValue {
        var posts: [JSONValue] = (1...count).map { i in
            var post: JSONObject = [
                "id": .number(JSONNumber(i)), "publisher": ["id": .number(JSONNumber(i))],
                "partner": .number(JSONNumber(i % 2 == 1 ? i + 1 : i - 1)),
            ]
            if i < count { post["reply_to"] = .number(JSONNumber(i + 1)) }
            return .object(post)
        }
        posts.append(["id": 500, "reply_to": 500])
        return .array(posts)
    }

    static func importPayload(into store: any PersistentStore) throws -> ImportReport {
        var options = ImportOptions()
        options.batchSize = 25  // placeholders and partners cross batch boundaries
        return try ObjectContext(store: store).importObjects(from: payload(), entity: "Post", options: options)
    }

    /// `id` of each destination of `key`, by the source's `id`.
    static func links(_ entity: String, _ key: String, in store: any PersistentStore) throws -> [Int64: [Int64]] {
        let context = ObjectContext(store: store)
        let objects = try context.fetch(entity)
        var ids: [ObjectID: Int64] = [:]
        for object in try context.fetch("Post") + context.fetch("Publisher") { ids[object.objectID] = object["id"]?.integerValue }
        var result: [Int64: [Int64]] = [:]
        for object in objects {
            let id = try #require(object["id"]?.integerValue)
            result[id] = try object.destinationIDs(forKey: key).compactMap { ids[$0] }.sorted()
        }
        return result
    }

    @Test(arguments: StoreKind.allCases)
    func everyNewDestinationIsLinked(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let report = try Self.importPayload(into: store.store)
        #expect(report.counts(for: "Post").inserted == Int(Self.count) + 1)
        #expect(report.counts(for: "Publisher").inserted == Int(Self.count))

        let n = Self.count
        var publisher: [Int64: [Int64]] = [500: []]
        var replyTo: [Int64: [Int64]] = [500: [500]]
        var replies: [Int64: [Int64]] = [500: [500], 1: []]
        var partner: [Int64: [Int64]] = [500: []]
        var posts: [Int64: [Int64]] = [:]
        for i in 1...n {
            publisher[i] = [i]
            posts[i] = [i]
            replyTo[i] = i < n ? [i + 1] : []
            if i > 1 { replies[i] = [i - 1] }
            partner[i] = [i % 2 == 1 ? i + 1 : i - 1]
        }
        #expect(try Self.links("Post", "publisher", in: store.store) == publisher)
        #expect(try Self.links("Post", "replyTo", in: store.store) == replyTo)
        #expect(try Self.links("Post", "replies", in: store.store) == replies)
        #expect(try Self.links("Post", "partner", in: store.store) == partner)
        #expect(try Self.links("Publisher", "posts", in: store.store) == posts)
        #expect(try store.snapshots(of: "Post").filter(\.isPlaceholder).isEmpty)

        // Imported again: every object unchanged.
        let again = try Self.importPayload(into: store.store)
        #expect(again.counts(for: "Post") == ImportReport.Counts(inserted: 0, updated: 0, unchanged: Int(n) + 1, deleted: 0))
    }

    /// The kind of cost, not a timing: no `INSERT` of the import scans a table (SQLite checks
    /// a deferred foreign key against the unindexed child column only while a violation is
    /// outstanding).
    @Test func noInsertScansATable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        _ = try Self.importPayload(into: store)
        #expect(try store.withConnection { $0.fullScanSteps(ofStatementsStartingWith: "INSERT") } == 0)
    }

    /// A change set listing sources before their new destinations, a one-to-one cycle and an
    /// object naming itself: written in an order that keeps every foreign key satisfied, with
    /// the same graph on every store.
    @Test(arguments: StoreKind.allCases)
    func aChangeSetInAnyOrderKeepsEveryLink(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let entity = try #require(store.store.model.resolvedEntities.first { $0.name == "Post" })
        func slot(_ name: String) throws -> Int { try #require(entity.relationships.firstIndex { $0.name == name }) }
        let publisherEntity = try #require(store.store.model.resolvedEntities.first { $0.name == "Publisher" })
        func post(_ n: Int64, _ links: [String: ObjectID]) throws -> ObjectSnapshot {
            var relationships = [[ObjectID]](repeating: [], count: entity.relationships.count)
            for (name, id) in links { relationships[try slot(name)] = [id] }
            return ObjectSnapshot(id: tid("Post", n), isPlaceholder: false, attributes: [.integer(n)], relationships: relationships)
        }
        let publisher = ObjectSnapshot(
            id: tid("Publisher", 9), isPlaceholder: false, attributes: [.integer(9)],
            relationships: [[tid("Post", 1)]].prefix(publisherEntity.relationships.count).map { $0 })
        let changes = ChangeSet(inserted: [
            try post(1, ["publisher": tid("Publisher", 9), "replyTo": tid("Post", 2), "partner": tid("Post", 2)]),
            try post(2, ["partner": tid("Post", 1), "replyTo": tid("Post", 3)]),
            try post(3, ["replyTo": tid("Post", 3)]),
            publisher,
        ])
        _ = try store.store.write { try $0.apply(changes) }
        #expect(try Self.links("Post", "publisher", in: store.store) == [1: [9], 2: [], 3: []])
        #expect(try Self.links("Post", "replyTo", in: store.store) == [1: [2], 2: [3], 3: [3]])
        #expect(try Self.links("Post", "partner", in: store.store) == [1: [2], 2: [1], 3: []])
        #expect(try Self.links("Post", "replies", in: store.store) == [1: [], 2: [1], 3: [2, 3]])
    }

    /// Within a session, a large identity fetch scans the table only when it is expected to
    /// find enough of it, judged by the share the previous fetch found: after a fetch that
    /// found nothing (a fresh import's new identities), 5,000 identities over 20,000 rows are
    /// sought, not scanned (before: every batch of a fresh import read the earlier batches' rows).
    @Test func aFetchAfterMissesSeeksInsteadOfScanning() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        let posts = (1...20_000).map { (i: Int64) -> ObjectSnapshot in
            ObjectSnapshot(id: tid("Post", i), isPlaceholder: false, attributes: [.integer(i)], relationships: [[], [], [], []])
        }
        _ = try store.write { try $0.apply(ChangeSet(inserted: posts)) }
        let found = try store.read { session -> Int in
            _ = try session.fetchForImport(entity: "Post", identities: (30_001...32_000).map { [.integer($0)] })
            let connection = try #require(session as? SQLiteSession).connection
            let before = connection.fullScanSteps(ofStatementsStartingWith: "SELECT")
            let found = try session.fetchForImport(entity: "Post", identities: (1...5_000).map { [.integer($0)] }).count
            #expect(connection.fullScanSteps(ofStatementsStartingWith: "SELECT") == before)
            return found
        }
        #expect(found == 5_000)
    }

    /// An integer identity's fetch seeks only the identities between the smallest and the
    /// largest stored one (two probes of the identity index): the others cannot be stored.
    /// Found are exactly the stored ones among ids below, inside and above the stored range
    /// (negative, zero and `Int64` extremes included), and a fetch wholly above the range
    /// finds nothing without reading any row.
    @Test func identitiesOutsideTheStoredRangeAreNotSought() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try Self.model())
        let stored: [Int64] = Array(stride(from: -50, through: 1_000, by: 3))
        let posts = stored.enumerated().map { n, id in
            ObjectSnapshot(id: tid("Post", Int64(n + 1)), isPlaceholder: false, attributes: [.integer(id)], relationships: [[], [], [], []])
        }
        _ = try store.write { try $0.apply(ChangeSet(inserted: posts)) }
        let asked: [Int64] = [Int64.min, -51, -50, -49, -47, 0, 1, 997, 1_000, 1_001, Int64.max] + Array(200...260)
        try store.read { session -> Void in
            let found = try session.fetchForImport(entity: "Post", identities: asked.map { [.integer($0)] })
            let ids = found.compactMap { snapshot -> Int64? in
                if case .integer(let id)? = snapshot.attributes[0] { return id }
                return nil
            }
            #expect(Set(ids) == Set(asked).intersection(stored))
            #expect(ids.count == Set(asked).intersection(stored).count)
            let connection = try #require(session as? SQLiteSession).connection
            let before = connection.fullScanSteps(ofStatementsStartingWith: "SELECT")
            #expect(try session.fetchForImport(entity: "Post", identities: (1_001...3_000).map { [.integer($0)] }).isEmpty)
            #expect(connection.fullScanSteps(ofStatementsStartingWith: "SELECT") == before)
        }
        let empty = try SQLiteStore(path: directory.path("e.sqlite"), model: try Self.model())
        let foundInEmpty = try empty.read { session -> Int in
            try session.fetchForImport(entity: "Post", identities: (-20...20).map { [.integer($0)] }).count
        }
        #expect(foundInEmpty == 0)
    }
}
