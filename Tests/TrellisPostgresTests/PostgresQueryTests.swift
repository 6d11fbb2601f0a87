import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisPostgres

/// How the PostgreSQL store runs fetch requests (issue 17 point 3): exact text comparisons
/// in SQL; the ones PostgreSQL cannot decide (`[c]`, `[d]`, LIKE, MATCHES) taken out of a
/// SQL pre-filter that still narrows the rows by the rest of the predicate, then decided in
/// memory. The answers themselves are the shared table's (`QueryTableTests`, every store).
@Suite(.enabled(if: PostgresTestServer.isEnabled, "TRELLIS_SKIP_POSTGRES=1"))
struct PostgresQueryTests {
    static func store() throws -> TestStore {
        let store = try StoreKind.postgres.makeStore(model: try PostgresWriteTests.model())
        _ = try ObjectContext(store: store.store).importObjects(
            from: [
                ["id": 1, "name": "Batman", "rating": 5.0], ["id": 2, "name": "BATGIRL", "rating": 2.0],
                ["id": 3, "name": "Straße", "rating": 4.0], ["id": 4, "name": "STRASSE", "rating": 1.0],
                ["id": 5, "name": "Cafe\u{301}", "rating": 4.5], ["id": 6, "name": "Café", "rating": 3.5],
            ], entity: "Character")
        return store
    }

    func run(_ store: TestStore, _ predicate: String, sort: String = "id") throws -> (sql: String, isExact: Bool, ids: [Int64]) {
        let model = try PostgresWriteTests.model()
        let request = try ObjectFetchRequest(
            entity: "Character", predicate: try ObjectPredicate(predicate),
            sortDescriptors: [ObjectSortDescriptor(sort)]
        ).resolved(in: model)
        let postgres = try #require(store.store as? PostgresStore)
        let (sql, isExact) = try postgres.read { try ($0 as! PostgresSession).sql(for: request) }
        let ids = try store.store.read { try $0.fetch(request) }.map { $0.attributes[0]?.integerValue ?? -1 }
        let count = try store.store.read { try $0.count(request) }
        #expect(count == ids.count)
        return (sql, isExact, ids)
    }

    struct Case: Sendable, CustomStringConvertible {
        let predicate: String
        let ids: [Int64]
        /// What the SQL must hold: the exact comparison, or the pre-filter's other conditions.
        let sqlContains: [String]
        /// Whether the comparison is decided in memory (relaxed out of the SQL).
        let relaxed: Bool
        var description: String { predicate }
    }

    static let cases: [Case] = [
        // Exact in SQL: bytewise, as every store compares text without options.
        .init(predicate: "name BEGINSWITH 'Bat'", ids: [1], sqlContains: ["left((t.\"name\")::text, length($1::text)) = $1::text"], relaxed: false),
        .init(predicate: "name ENDSWITH 'é'", ids: [6], sqlContains: ["right((t.\"name\")::text"], relaxed: false),
        .init(predicate: "name CONTAINS 'ra'", ids: [3], sqlContains: ["strpos((t.\"name\")::text"], relaxed: false),
        .init(predicate: "NOT name BEGINSWITH 'B'", ids: [3, 4, 5, 6], sqlContains: ["NOT coalesce(coalesce(left("], relaxed: false),
        // Decided in memory (Unicode folding, ß = ss, é composed or not); the SQL keeps the rest.
        .init(predicate: "name BEGINSWITH[c] 'bat' AND rating > 3", ids: [1], sqlContains: ["(TRUE AND t.\"rating\" > $1)"], relaxed: true),
        .init(predicate: "name ==[c] 'strasse'", ids: [3, 4], sqlContains: ["WHERE TRUE"], relaxed: true),
        .init(predicate: "name ==[cd] 'cafe' AND rating >= 4", ids: [5], sqlContains: ["t.\"rating\" >= $1"], relaxed: true),
        .init(
            predicate: "NOT (name LIKE[c] 'bat*') AND rating < 4.5", ids: [3, 4, 6], sqlContains: ["NOT coalesce(FALSE, FALSE)", "t.\"rating\" < $1"],
            relaxed: true),
        .init(predicate: "name MATCHES '[A-Z]+' OR rating == 1", ids: [2, 4], sqlContains: ["(TRUE OR t.\"rating\" = $1)"], relaxed: true),
    ]

    @Test(arguments: cases)
    func textComparisonsAreExactInSQLOrPrefiltered(_ c: Case) throws {
        let store = try Self.store()
        let (sql, isExact, ids) = try run(store, c.predicate)
        #expect(ids == c.ids, "\(sql)")
        for part in c.sqlContains { #expect(sql.contains(part), "\(sql)") }
        #expect(isExact == !c.relaxed)
        // The same answer as the in-memory evaluation every store must match.
        let request = try ObjectFetchRequest(
            entity: "Character", predicate: try ObjectPredicate(c.predicate),
            sortDescriptors: [ObjectSortDescriptor("id")]
        ).resolved(in: try PostgresWriteTests.model())
        let snapshots = try store.store.read { try $0.fetch(entity: "Character", matching: nil) }
        let expected = try RequestEvaluator(request, lookup: { _ in nil }).run(snapshots).map { $0.attributes[0]?.integerValue ?? -1 }
        #expect(ids == expected)
    }

    /// A batched fetch reads its rows from a cursor in the read transaction
    /// (`DECLARE trellis_fetch_0 … CURSOR`, `FETCH FORWARD 4`), in the request's order, and
    /// the session stays usable inside: a nested batched fetch opens `trellis_fetch_1`. A
    /// request decided in memory (`[c]`) is evaluated whole and handed out in batches.
    @Test func batchedFetchesReadFromACursor() throws {
        let store = try Self.store()
        let model = try PostgresWriteTests.model()
        let request = try ObjectFetchRequest(entity: "Character", sortDescriptors: [ObjectSortDescriptor("rating", ascending: false)])
            .resolved(in: model)
        let relaxed = try ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("name BEGINSWITH[c] 'bat'"))
            .resolved(in: model)
        var batches: [[Int64]] = []
        var nested: [Int] = []
        var relaxedBatches: [[Int64]] = []
        try store.store.read { session in
            try session.fetch(request, batchSize: 4) { batch in
                batches.append(batch.map { $0.attributes[0]?.integerValue ?? -1 })
                try session.fetch(request, batchSize: 5) { nested.append($0.count) }
            }
            try session.fetch(relaxed, batchSize: 1) { relaxedBatches.append($0.map { $0.attributes[0]?.integerValue ?? -1 }) }
        }
        #expect(batches == [[1, 5, 3, 6], [2, 4]])
        #expect(nested == [5, 1, 5, 1])
        #expect(relaxedBatches == [[1], [2]])
        let prepared = try #require(store.store as? PostgresStore).preparedSQL
        #expect(prepared.contains("FETCH FORWARD 4 FROM trellis_fetch_0"))
        #expect(prepared.contains("FETCH FORWARD 5 FROM trellis_fetch_1"))
        #expect(
            prepared.contains {
                $0.hasPrefix("DECLARE trellis_fetch_0 NO SCROLL CURSOR FOR SELECT ")
                    && $0.hasSuffix(#" WHERE TRUE ORDER BY t."rating" DESC NULLS LAST, t."_pk""#)
            })
    }
}
