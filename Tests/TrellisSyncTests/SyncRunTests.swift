import Foundation
import Testing
import Trellis
import TrellisSQLite
import TrellisSync
import TrellisTestSupport

/// Runs over several invocations: --max-pages and resuming, dry runs, --full, staging and
/// replay, tombstones, the full-scan deletion guard.
@Suite struct SyncRunTests {
    func heroes(_ server: TestServer) throws -> [JSONValue] { try server.data("Hero") }

    @Test(arguments: StoreKind.allCases)
    func maxPagesStopsTheWalkAndTheNextRunResumesIt(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "300", "--ties", "150"])
        let store = try kind.makeStore(model: try SyncTestModels.parse())
        var options = SyncOptions()
        options.maxPages = 2
        let first = try #require(
            try Synchronizer(
                source: try SyncTest.parseSource(server: server), context: ObjectContext(store: store.store),
                options: options
            ).run().resource("heroes"))
        #expect(first.pages == 2)
        #expect(first.stoppedAtMaxPages)
        #expect(first.watermark == nil)  // promoted only when the walk ends
        let pending = try #require(first.nextPage)
        #expect(try store.snapshots(of: "Hero").count == 200)

        try server.resetLog()
        let synchronizer = Synchronizer(source: try SyncTest.parseSource(server: server), context: ObjectContext(store: store.store))
        let second = try #require(try synchronizer.run().resource("heroes"))
        #expect(try server.requestedPaths().first.map { "http://127.0.0.1:\(server.port)" + $0 } == pending)
        #expect(second.pages == 2)  // the third page, then an empty one
        #expect(second.counts.inserted == 100)
        #expect(try SyncTest.heroDifferences(store, server) == [])
        let status = try #require(try synchronizer.status().first)
        #expect(status.checkpoint.watermark?.text == (try heroes(server)).last?["updatedAt"]?.stringValue)
        #expect(status.checkpoint.totalPages == 4)
        #expect(status.checkpoint.totalRecords == 300)
    }

    @Test(arguments: StoreKind.allCases)
    func aDryRunReportsAndKeepsNothing(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "250", "--ties", "0"])
        let store = try kind.makeStore(model: try SyncTestModels.parse())
        var options = SyncOptions()
        options.dryRun = true
        let report = try Synchronizer(
            source: try SyncTest.parseSource(server: server), context: ObjectContext(store: store.store),
            options: options
        ).run()
        #expect(report.isDryRun)
        #expect(report.resource("heroes")?.counts.inserted == 250)
        #expect(report.resource("heroes")?.pagesChanged == 3)
        #expect(try store.dump() == "")
        #expect(try store.store.read { try $0.metadataValue(forKey: SyncCheckpoint.key(for: "heroes")) } == nil)
    }

    @Test func fullWalksAgainFromTheStart() throws {
        let server = try TestServer(["--heroes", "120", "--ties", "0"])
        let store = try StoreKind.sqlite.makeStore(model: try SyncTestModels.parse())
        _ = try Synchronizer(source: try SyncTest.parseSource(server: server), context: ObjectContext(store: store.store)).run()
        try server.resetLog()
        var options = SyncOptions()
        options.full = true
        let report = try #require(
            try Synchronizer(
                source: try SyncTest.parseSource(server: server), context: ObjectContext(store: store.store),
                options: options
            ).run().resource("heroes"))
        #expect(report.records == 120)
        #expect(report.counts.unchanged == 120)
        #expect(try server.requestedPaths().first?.contains("where") == false)
    }

    @Test(arguments: StoreKind.allCases)
    func stagedPagesReplayIntoTheSameStoreWithoutTheNetwork(kind: StoreKind) throws {
        let stage = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-stage-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: stage) }
        let server = try TestServer(["--heroes", "230", "--ties", "40"])
        let original = try kind.makeStore(model: try SyncTestModels.parse())
        var options = SyncOptions()
        options.stageDirectory = stage
        let source = try SyncTest.parseSource(server: server, deletions: #"{"type": "none"}"#)
        _ = try Synchronizer(source: source, context: ObjectContext(store: original.store), options: options).run()

        let files = try FileManager.default.contentsOfDirectory(atPath: stage.appendingPathComponent("heroes").path).sorted()
        // 100, 100 and 30 heroes, then the page with nothing after the last key (the end of a keyset walk).
        #expect(files == ["000001.body", "000001.json", "000002.body", "000002.json", "000003.body", "000003.json", "000004.body", "000004.json"])
        for file in files {
            let text = try String(contentsOf: stage.appendingPathComponent("heroes").appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("k3y-s3cr3t"))
        }
        let meta = try JSONReader.parse(Data(contentsOf: stage.appendingPathComponent("heroes/000001.json")))
        #expect(meta["status"] == 200)
        #expect(meta["bodyBytes"]?.intValue == (try Data(contentsOf: stage.appendingPathComponent("heroes/000001.body"))).count)
        #expect(meta["next"]?.stringValue?.contains("where=") == true)

        let replayed = try kind.makeStore(model: try SyncTestModels.parse())
        let server2Gone = source  // the replay never uses the network: the server may be gone
        let report = try Synchronizer(replaying: stage, source: server2Gone, context: ObjectContext(store: replayed.store)).run()
        #expect(report.resource("heroes")?.records == 230)
        #expect(try replayed.dump() == (try original.dump()))
    }

    @Test(arguments: StoreKind.allCases)
    func tombstonesDeleteTheObjectsTheyName(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "150", "--ties", "0"])
        let store = try kind.makeStore(model: try SyncTestModels.parse())
        let source = try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/parse/", "headers": {"X-Parse-Application-Id": "test-app"}, "dialect": "parse"},
             "resources": [
               {"name": "heroes", "entity": "Hero", "path": "classes/Hero", "params": {"limit": 100},
                "incremental": {"cursor": "updatedAt"}, "deletions": {"type": "tombstones", "resource": "deletedHeroes"}},
               {"name": "deletedHeroes", "path": "classes/DeletedHero", "incremental": {"cursor": "updatedAt"}}]}
            """#, server: server)
        let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store.store))
        _ = try synchronizer.run()
        let doomed = try heroes(server)[3]["objectId"]!
        try server.mutate([
            ["op": "delete", "objectId": doomed],
            ["op": "insert", "class": "DeletedHero", "objectId": doomed, "set": [:]],
        ])
        let report = try synchronizer.run()
        #expect(report.resource("deletedHeroes")?.counts.deleted == 1)
        #expect(report.resource("deletedHeroes")?.entity == "Hero")
        #expect(try SyncTest.heroDifferences(store, server) == [])
        // Tombstones are incremental too: the next run reads none again.
        #expect(try synchronizer.run().resource("deletedHeroes")?.records == 0)
    }

    @Test func aFullScanRefusesToDeleteMostObjectsUnlessFull() throws {
        let server = try TestServer(["--heroes", "100", "--ties", "0"])
        let store = try StoreKind.sqlite.makeStore(model: try SyncTestModels.parse())
        let source = try SyncTest.parseSource(server: server)
        _ = try Synchronizer(source: source, context: ObjectContext(store: store.store)).run()
        try server.mutate(.array(try heroes(server).prefix(60).map { ["op": "delete", "objectId": $0["objectId"]!] }))
        let error = try #require(throws: SyncError.self) { try Synchronizer(source: source, context: ObjectContext(store: store.store)).run() }
        #expect(error.code == .deletionRefused)
        #expect(
            error.description == "resource heroes: the full scan would delete 60 of 100 stored Hero objects, more than maxFraction (0.5); "
                + "nothing was deleted: run with --full to confirm")
        #expect(try store.snapshots(of: "Hero").count == 100)
        var options = SyncOptions()
        options.full = true
        let report = try Synchronizer(source: source, context: ObjectContext(store: store.store), options: options).run()
        #expect(report.resource("heroes")?.counts.deleted == 60)
        #expect(try SyncTest.heroDifferences(store, server) == [])
    }

    @Test func theStatusReadsWithoutTheModel() throws {
        let server = try TestServer(["--heroes", "50", "--ties", "0"])
        let store = try StoreKind.sqlite.makeStore(model: try SyncTestModels.parse())
        let source = try SyncTest.parseSource(server: server)
        _ = try Synchronizer(source: source, context: ObjectContext(store: store.store)).run()
        let path = store.directory!.appendingPathComponent("store.sqlite").path
        let status = try #require(try Synchronizer.status(of: source, resources: nil, metadata: try SQLiteStore.userMetadata(atPath: path)).first)
        #expect(status.checkpoint.lastRun?.status == .completed)
        #expect(status.checkpoint.lastRun?.records == 50)
        #expect(status.checkpoint.watermark?.text == (try heroes(server)).last?["updatedAt"]?.stringValue)
    }

    /// A non-incremental Parse source of the heroes in pages of 50, deleting by full scan.
    static func fullWalkSource(_ server: TestServer) throws -> SyncSource {
        try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/parse/", "headers": {"X-Parse-Application-Id": "test-app"}, "dialect": "parse",
                        "maxAttempts": 2},
             "resources": [{"name": "heroes", "entity": "Hero", "path": "classes/Hero", "params": {"limit": 50},
                            "deletions": {"type": "fullScan"}}]}
            """#, server: server)
    }

    @Test(arguments: StoreKind.allCases)
    func aResumedFullScanWalkDecidesItsDeletions(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "400", "--ties", "0"])
        let store = try kind.makeStore(model: try SyncTestModels.parse())
        let source = try Self.fullWalkSource(server)
        let clock = RecordingClock()
        _ = try Synchronizer(source: source, context: ObjectContext(store: store.store), clock: clock.clock).run()
        #expect(try store.snapshots(of: "Hero").count == 400)
        let heroes = try heroes(server)
        try server.mutate(.array([10, 120, 230, 340, 390].map { ["op": "delete", "objectId": heroes[$0]["objectId"]!] }))
        // The next sync fails on page 4 of 8 (after its retry); pages 1 to 3 are committed.
        try server.faults([["match": "classes/Hero", "skip": 3, "status": 500, "times": 2]])
        let error = try #require(throws: SyncError.self) {
            try Synchronizer(source: source, context: ObjectContext(store: store.store), clock: clock.clock).run()
        }
        #expect(error.code == .httpStatus)
        let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store.store), clock: clock.clock)
        #expect(try synchronizer.status().first?.checkpoint.walk?.pages == 3)
        #expect(try store.snapshots(of: "Hero").count == 400)
        // The third completes the walk from page 4, and its scan decides the deletions.
        let report = try #require(try synchronizer.run().resource("heroes"))
        #expect(report.pages == 6)  // pages 4 to 8 (the last has 45 records), then nothing after the last key
        #expect(report.counts.deleted == 5)
        #expect(try store.snapshots(of: "Hero").count == 395)
        #expect(try SyncTest.heroDifferences(store, server) == [])
        #expect(!report.diagnostics.contains { $0.hasPrefix("no deletions") })
    }

    /// Two resources filling Hero, by power below and from 50, each deleting by full scan.
    static func splitSource(_ server: TestServer, scoped: Bool) throws -> SyncSource {
        func resource(_ name: String, _ condition: String, _ scope: String) -> String {
            #"""
            {"name": "\#(name)", "entity": "Hero", "path": "classes/Hero", "params": {"limit": 100, "where": {"power": \#(condition)}},
             "incremental": {"cursor": "updatedAt"}, "deletions": {"type": "fullScan"\#(scoped ? #", "scope": "\#(scope)""# : "")}}
            """#
        }
        return try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/parse/", "headers": {"X-Parse-Application-Id": "test-app"}, "dialect": "parse"},
             "resources": [\#(resource("low", #"{"$lt": 50}"#, "power < 50")), \#(resource("high", #"{"$gte": 50}"#, "power >= 50"))]}
            """#, server: server)
    }

    @Test(arguments: StoreKind.allCases)
    func twoResourcesFillingOneEntityKeepEachOthersObjects(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "100", "--ties", "0"])
        let error = try #require(throws: SyncError.self) { try Self.splitSource(server, scoped: false) }
        #expect(error.code == .invalidValue)
        #expect(
            error.description == "test.source.json: $.resources[0].deletions: resources 'low' and 'high' both fill Hero, and 'low' deletes "
                + #"by full scan: it would delete the objects 'high' brought in; give it a "scope" (a predicate selecting its own objects, e.g. "power < 50")"#)

        let store = try kind.makeStore(model: try SyncTestModels.parse())
        let source = try Self.splitSource(server, scoped: true)
        let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store.store))
        let heroes = try heroes(server)
        let low = heroes.filter { ($0["power"]?.intValue ?? 0) < 50 }.count
        let first = try synchronizer.run()
        #expect(first.resource("low")?.counts.inserted == low)
        #expect(first.resource("high")?.counts.inserted == 100 - low)
        // Again: nothing deleted, nothing inserted (no flip-flop).
        for _ in 0..<2 {
            let again = try synchronizer.run()
            #expect(again.resources.map(\.counts.deleted) == [0, 0])
            #expect(again.resources.map(\.counts.inserted) == [0, 0])
            #expect(try SyncTest.heroDifferences(store, server) == [])
        }
        // A hero moves from low to high on the server, and one low hero is deleted there: the
        // mover keeps its object (high updates it before low's deletions look), the other goes.
        let hero = try #require(heroes.first { $0["power"]?.intValue == 10 })
        let gone = try #require(heroes.first { $0["power"]?.intValue == 20 })
        func objectID(_ record: JSONValue) throws -> ObjectID? {
            try ObjectContext(store: store.store).fetch("Hero", id: .string(record["objectId"]!.stringValue!))?.objectID
        }
        let before = try #require(try objectID(hero))
        try server.mutate([["op": "update", "objectId": hero["objectId"]!, "set": ["power": 60]], ["op": "delete", "objectId": gone["objectId"]!]])
        let moved = try synchronizer.run()
        #expect(moved.resources.map(\.counts.deleted) == [1, 0])
        #expect(moved.resource("high")?.counts.updated == 1)
        #expect(try objectID(hero) == before)
        #expect(try SyncTest.heroDifferences(store, server) == [])
    }

    @Test(arguments: StoreKind.allCases)
    func aFullScanOverASubEntityOfAnotherResourceIsRefusedBeforeAnyRequest(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "10", "--ties", "0"])
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Hero", attributes: [SyncTestModels.attribute("objectId", .string, "objectId")],
                userInfo: ["identityAttributes": "objectId"]),
            EntityDescription(name: "SuperHero", parentName: "Hero"),
        ])
        let store = try kind.makeStore(model: model)
        let source = try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/parse/", "headers": {"X-Parse-Application-Id": "test-app"}, "dialect": "parse"},
             "resources": [{"name": "heroes", "entity": "Hero", "path": "classes/Hero", "deletions": {"type": "fullScan"}},
                           {"name": "supers", "entity": "SuperHero", "path": "classes/SuperHero"}]}
            """#, server: server)
        let error = try #require(throws: SyncError.self) { try Synchronizer(source: source, context: ObjectContext(store: store.store)).run() }
        #expect(error.code == .invalidValue)
        #expect(
            error.description == "resource heroes: resources 'heroes' and 'supers' fill Hero and SuperHero (one inheritance hierarchy), and "
                + #"'heroes' deletes by full scan: it would delete the objects 'supers' brought in; give it a "scope" (a predicate selecting its own "#
                + #"objects, e.g. "power < 50")"#)
        #expect(try server.requestedPaths() == [])
        #expect(try store.dump() == "")
    }

    @Test(arguments: StoreKind.allCases)
    func aFullWalkAnsweredNotModifiedDecidesDeletionsByAScan(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "1"])
        let store = try kind.makeStore(model: try SyncTestModels.items())
        let source = try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://127.0.0.1:PORT/"},
             "resources": [{"name": "items", "entity": "Item", "path": "items", "records": "items", "params": {"style": "cursor", "per_page": 7},
                            "paginator": {"type": "cursor", "path": "meta.next_cursor", "parameter": "cursor"}, "deletions": {"type": "fullScan"}}]}
            """#, server: server)
        let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store.store))
        _ = try synchronizer.run()
        try server.mutate([["op": "delete", "class": "items", "id": 12]])
        // The first two pages (items 30 to 17) come back 304: their records are not read, so the
        // walk alone cannot tell which objects the server still has (before, their 14 objects
        // were deleted with item 12: 15 of 30, within maxFraction).
        let report = try #require(try synchronizer.run().resource("items"))
        #expect(report.pagesNotModified == 2)
        #expect(report.counts.deleted == 1)
        #expect(try SyncTest.itemDifferences(store, server) == [])
    }
}
