import Foundation
import Testing
import Trellis
import TrellisSync
import TrellisTestSupport

/// Syncs the Parse emulator's 2,500 heroes (500 sharing one `updatedAt` millisecond) in
/// pages of 100, on every store: keyset paging, typed values, incremental runs, deletions.
@Suite struct ParseSyncTests {
    @Test(arguments: StoreKind.allCases)
    func keysetPagingReadsEveryHeroOnceThroughTies(kind: StoreKind) throws {
        let server = try TestServer()
        let store = try kind.makeStore(model: try SyncTestModels.parse())
        let context = ObjectContext(store: store.store)
        let report = try Synchronizer(source: try SyncTest.parseSource(server: server), context: context).run()
        let heroes = try #require(report.resource("heroes"))

        let differences = try SyncTest.heroDifferences(store, server)
        #expect(differences == [])
        #expect(heroes.records == 2500)
        #expect(heroes.pages == 26)  // 25 full pages, then an empty one
        #expect(heroes.counts == ImportReport.Counts(inserted: 2500))
        #expect(heroes.relatedCounts["Team"]?.inserted == 12)  // placeholders from the pointers
        #expect(heroes.walksCompleted == 1)
        #expect(heroes.watermark == (try server.data("Hero")).last?["updatedAt"]?.stringValue)

        // Every request: explicit limit, the keyset order, never skip; after the first, the keyset where.
        let paths = try server.requestedPaths()
        #expect(paths.count == 26)
        for path in paths {
            let items = URLComponents(string: path)!.queryItems!
            #expect(items.contains(URLQueryItem(name: "limit", value: "100")))
            #expect(items.contains(URLQueryItem(name: "order", value: "updatedAt,objectId")))
            #expect(!items.contains { $0.name == "skip" })
        }
        let second = try #require(URLComponents(string: paths[1])?.queryItems?.first { $0.name == "where" }?.value)
        let keyset = try JSONReader.parse(second)
        let page1 = try server.data("Hero")[99]
        #expect(
            keyset == [
                "$or": [
                    ["updatedAt": ["$gt": ["__type": "Date", "iso": page1["updatedAt"]!]]],
                    ["updatedAt": ["__type": "Date", "iso": page1["updatedAt"]!], "objectId": ["$gt": page1["objectId"]!]],
                ]
            ])
        // The secret header is sent, and never printed.
        // (URLSession on Linux sends the name as X-Parse-Rest-Api-Key: names are case-insensitive, RFC 9110 §5.1.)
        let keys = try server.requestedHeaders().map { headers in
            headers.first { $0.key.lowercased() == "x-parse-rest-api-key" }?.value.stringValue
        }
        #expect(keys == Array(repeating: "k3y-s3cr3t", count: 26))
        #expect(!(try JSONWriter.string(for: heroes.json)).contains("k3y-s3cr3t"))
    }

    @Test(arguments: StoreKind.allCases)
    func typedValuesReadIntoAttributesAndRelationships(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "40", "--ties", "0"])
        let store = try kind.makeStore(model: try SyncTestModels.parse())
        let context = ObjectContext(store: store.store)
        let report = try Synchronizer(source: try SyncTest.parseSource(server: server), context: context).run()
        let heroes = try #require(report.resource("heroes"))
        let records = try server.data("Hero")
        let entity = try #require(store.store.model.entity(named: "Hero"))
        let stored = try store.snapshots(of: "Hero")
        func snapshot(_ id: String) throws -> ObjectSnapshot {
            try #require(stored.first { $0.attributes[entity.attributeIndex(of: "objectId")!]?.stringValue == id })
        }
        for record in records {
            let id = record["objectId"]!.stringValue!
            let s = try snapshot(id)
            func value(_ name: String) -> AttributeValue? { s.attributes[entity.attributeIndex(of: name)!] }
            // Date → date, to the millisecond.
            let born = try #require(SyncInstant(rfc3339: record["born"]!["iso"]!.stringValue!))
            #expect(value("born").map { "\($0)" } == "\(AttributeValue.date(born.date))")
            if case .date(let date)? = value("born") { #expect(SyncInstant(date) == born) }
            // File → its URL.
            #expect(value("avatar") == record["avatar"].map { .uri(URL(string: $0["url"]!.stringValue!)!) })
            // GeoPoint → {latitude, longitude}, and the latitude as a double.
            #expect(value("location") == record["location"].map { .json(["latitude": $0["latitude"]!, "longitude": $0["longitude"]!]) })
            #expect(value("latitude") == record["location"]?["latitude"]?.doubleValue.map(AttributeValue.double))
            // Bytes → binary.
            #expect(value("sigil") == record["sigil"].map { .binary(Data(base64Encoded: $0["base64"]!.stringValue!)!) })
            // Pointer → to-one by objectId (Team placeholders).
            let team = try #require(s.relationships[entity.relationshipIndex(of: "team")!].first)
            let teams = try store.snapshots(of: "Team")
            let teamEntity = try #require(store.store.model.entity(named: "Team"))
            let teamID = teams.first { $0.id == team }?.attributes[teamEntity.attributeIndex(of: "objectId")!]?.stringValue
            #expect(teamID == record["team"]?["objectId"]?.stringValue)
            // Relation → skipped (friends stays empty).
            #expect(s.relationships[entity.relationshipIndex(of: "friends")!] == [])
        }
        // The unknown __type is kept as it is (a JSON attribute) with a diagnostic; Relations are noted.
        let mystery = try #require(records.first { $0["mystery"] != nil })
        #expect(try snapshot(mystery["objectId"]!.stringValue!).attributes[entity.attributeIndex(of: "mystery")!] == .json(mystery["mystery"]!))
        #expect(
            heroes.diagnostics.contains {
                $0.hasSuffix(#"$.results[\#(records.firstIndex(of: mystery)!)].mystery: unknown Parse __type "Polygon"; the value is left as it is"#)
            })
        #expect(heroes.diagnostics.filter { $0.contains("a Parse Relation (class Hero) is not inlined in records; skipped") }.count == 40)
    }

    @Test(arguments: StoreKind.allCases)
    func anUnchangedServerReimportsNothingAndChangesArriveIncrementally(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "300", "--ties", "120"])
        let store = try kind.makeStore(model: try SyncTestModels.parse())
        let context = ObjectContext(store: store.store)
        let synchronizer = Synchronizer(source: try SyncTest.parseSource(server: server), context: context)
        _ = try synchronizer.run()
        try server.resetLog()

        let again = try #require(try synchronizer.run().resource("heroes"))
        #expect(again.pages == 1)
        #expect(again.pagesChanged == 0)
        #expect(again.records == 0)
        // The incremental walk starts after the watermark (stamp and id), and the full scan reads keys only.
        let paths = try server.requestedPaths()
        #expect(paths.count == 1 + 4)  // the walk, then the identity scan: 300 heroes in pages of 100, and an empty page
        #expect(paths.dropFirst().allSatisfy { $0.contains("keys=objectId%2CupdatedAt") })

        let heroes = try server.data("Hero")
        try server.mutate([
            ["op": "update", "objectId": heroes[5]["objectId"]!, "set": ["name": "Renamed"]],
            ["op": "update", "objectId": heroes[200]["objectId"]!, "set": ["power": 1]],
            ["op": "insert", "objectId": "new0001", "set": ["name": "Newcomer", "power": 3]],
            ["op": "delete", "objectId": heroes[17]["objectId"]!],
        ])
        let third = try #require(try synchronizer.run().resource("heroes"))
        #expect(third.records == 3)
        #expect(third.counts == ImportReport.Counts(inserted: 1, updated: 2, deleted: 1))
        #expect(third.pagesChanged == 1)
        let differences = try SyncTest.heroDifferences(store, server)
        #expect(differences == [])

        let status = try #require(try synchronizer.status().first)
        #expect(status.checkpoint.lastRun?.status == .completed)
        #expect(status.checkpoint.watermark?.text == (try server.data("Hero")).last?["updatedAt"]?.stringValue)
        #expect(status.checkpoint.watermark?.tieBreaker == (try server.data("Hero")).last?["objectId"]?.stringValue)
        #expect(status.checkpoint.walk == nil)
    }

    @Test func limitIsAlwaysSentAndDefaultsToAThousand() throws {
        let server = try TestServer(["--heroes", "30", "--ties", "0"])
        let store = try StoreKind.inMemory.makeStore(model: try SyncTestModels.parse())
        _ = try Synchronizer(source: try SyncTest.parseSource(server: server, limit: nil), context: ObjectContext(store: store.store)).run()
        let first = try #require(try server.requestedPaths().first)
        #expect(URLComponents(string: first)?.queryItems?.contains(URLQueryItem(name: "limit", value: "1000")) == true)
    }

    @Test func parseErrorBodiesNameTheResourceAndPage() throws {
        let server = try TestServer(["--heroes", "30", "--ties", "0"])
        try server.faults([["match": "classes/Hero", "status": 400, "body": ["code": 107, "error": "invalid JSON"]]])
        let store = try StoreKind.inMemory.makeStore(model: try SyncTestModels.parse())
        let source = try SyncTest.parseSource(server: server)
        let error = try #require(throws: SyncError.self) { try Synchronizer(source: source, context: ObjectContext(store: store.store)).run() }
        #expect(error.code == .httpStatus)
        #expect(error.status == 400)
        #expect(error.resource == "heroes")
        #expect(error.pageURL?.hasPrefix("http://127.0.0.1:\(server.port)/parse/classes/Hero?limit=100&order=updatedAt%2CobjectId") == true)
        #expect(error.message == "HTTP 400 Bad Request: invalid JSON (Parse error 107)")
        #expect(try store.dump() == "")
    }

    @Test func aWrongApplicationIdIsUnauthorized() throws {
        let server = try TestServer(["--heroes", "10", "--ties", "0"])
        var source = try SyncTest.parseSource(server: server)
        source.client.headers = [("X-Parse-Application-Id", "someone-else")]
        let store = try StoreKind.inMemory.makeStore(model: try SyncTestModels.parse())
        let error = try #require(throws: SyncError.self) { try Synchronizer(source: source, context: ObjectContext(store: store.store)).run() }
        #expect(error.description == "resource heroes, page \(error.pageURL!): HTTP 403 Forbidden: unauthorized")
    }
}
