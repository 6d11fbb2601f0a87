import Foundation
import Testing
import Trellis
import TrellisSync
import TrellisTestSupport

/// Bad pages and records: each a located error; the store as it was after the last
/// committed page, and the checkpoint not advanced past it.
@Suite struct SyncBadInputTests {
    /// Syncs 300 heroes in pages of 100 with `faults`, expecting an error; returns it, the
    /// store, and the server.
    func failingSync(
        kind: StoreKind, faults: @Sendable ([JSONValue]) -> JSONValue, mutations: @Sendable ([JSONValue]) -> JSONValue = { _ in [] },
        records: String = "results"
    ) throws -> (SyncError, TestStore, TestServer, SyncCheckpoint) {
        let server = try TestServer(["--heroes", "300", "--ties", "0"])
        let heroes = try server.data("Hero")
        try server.faults(faults(heroes))
        try server.mutate(mutations(heroes))
        let store = try kind.makeStore(model: try SyncTestModels.parse())
        var source = try SyncTest.parseSource(server: server, deletions: #"{"type": "none"}"#)
        if records != "results" { source.resources[0].records = try JSONKeyPath(parsing: records) }
        let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store.store), clock: RecordingClock().clock)
        let error = try #require(throws: SyncError.self) { try synchronizer.run() }
        let checkpoint = try #require(try synchronizer.status().first).checkpoint
        return (error, store, server, checkpoint)
    }

    /// The objectIds stored, and those of the server's first `count` records.
    func stored(_ store: TestStore) throws -> [String] {
        try store.snapshots(of: "Hero").compactMap { $0.attributes[0]?.stringValue }.sorted()
    }

    func firstRecords(_ server: TestServer, _ count: Int) throws -> [String] {
        try server.data("Hero").prefix(count).compactMap { $0["objectId"]?.stringValue }.sorted()
    }

    @Test(arguments: StoreKind.allCases)
    func aRecordsPathThatSelectsNothing(kind: StoreKind) throws {
        let (error, store, _, checkpoint) = try failingSync(kind: kind, faults: { _ in [] }, records: "items")
        #expect(error.code == .recordsNotFound)
        #expect(error.path == JSONPath.root.appending(key: "items"))
        #expect(error.message == "the records key path 'items' selects nothing in the body; its keys: results")
        #expect(error.resource == "heroes")
        #expect(error.pageURL?.contains("/parse/classes/Hero?limit=100") == true)
        #expect(try store.dump() == "")
        #expect(checkpoint.walk == nil)
        #expect(checkpoint.watermark == nil)
        #expect(checkpoint.lastRun?.status == .failed)
    }

    struct ErrorBodyCase: CustomStringConvertible, Sendable {
        let description: String
        let body: JSONValue
        let message: String
    }

    /// A `200` whose body is an error names the body's own message.
    static let errorBodies: [ErrorBodyCase] = [
        ErrorBodyCase(
            description: "error", body: ["status": "failure", "error": "upstream timeout"],
            message: "the records key path 'results' selects nothing in the body; its keys: status, error; the server says: upstream timeout"),
        ErrorBodyCase(
            description: "message", body: ["message": "quota exceeded for today", "documentation_url": "https://docs.example"],
            message: "the records key path 'results' selects nothing in the body; its keys: message, documentation_url; "
                + "the server says: quota exceeded for today"),
        ErrorBodyCase(
            description: "errors[0].message", body: ["errors": [["message": "Field 'x' doesn't exist", "locations": []]]],
            message: "the records key path 'results' selects nothing in the body; its keys: errors; the server says: Field 'x' doesn't exist"),
        ErrorBodyCase(
            description: "Parse's error and code", body: ["code": 141, "error": "Cloud function failed"],
            message: "the records key path 'results' selects nothing in the body; its keys: code, error; "
                + "the server says: Cloud function failed (Parse error 141)"),
        ErrorBodyCase(
            description: "records that are not an array, with a message", body: ["results": "unavailable", "error": "shard down"],
            message: #"expected an array of records, found the string "unavailable"; the server says: shard down"#),
    ]

    @Test(arguments: StoreKind.allCases, errorBodies)
    func aSuccessWhoseBodyIsAnErrorSaysWhatTheServerSaid(kind: StoreKind, body: ErrorBodyCase) throws {
        let (error, store, server, checkpoint) = try failingSync(
            kind: kind,
            faults: { _ in
                [["match": "classes/Hero", "skip": 1, "status": 200, "body": body.body]]
            })
        #expect(error.code == .recordsNotFound)
        #expect(error.status == 200)
        #expect(error.message == body.message)
        #expect(try stored(store) == (try firstRecords(server, 100)))
        #expect(checkpoint.walk?.pages == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func anHTMLPageIsNotJSON(kind: StoreKind) throws {
        let (error, store, server, checkpoint) = try failingSync(
            kind: kind,
            faults: { _ in
                [["match": "classes/Hero", "skip": 1, "status": 200, "html": true, "title": "Service Unavailable"]]
            })
        #expect(error.code == .malformedPage)
        #expect(
            error.message == #"the body is not JSON (Content-Type text/html; charset=utf-8), it looks like an HTML page: "Service Unavailable": "#
                + "expected a JSON value, found '<'")
        #expect(error.line == 1)
        #expect(error.column == 1)
        #expect(error.status == 200)
        #expect(error.pageURL?.contains("where=") == true)  // the second page
        #expect(try stored(store) == (try firstRecords(server, 100)))
        #expect(checkpoint.walk?.pages == 1)
        #expect(checkpoint.walk?.next.map { error.pageURL == $0 } == true)
    }

    @Test(arguments: StoreKind.allCases)
    func anHTMLErrorPageIsRetriedThenNamed(kind: StoreKind) throws {
        let (error, store, server, _) = try failingSync(
            kind: kind,
            faults: { _ in
                [["match": "classes/Hero", "skip": 2, "status": 502, "html": true, "times": 3]]
            })
        #expect(error.code == .httpStatus)
        #expect(error.message == "HTTP 502 Bad Gateway: 502 Bad Gateway (after 3 attempts)")
        #expect(try stored(store) == (try firstRecords(server, 200)))
    }

    /// The failed page's requests are counted in the run's report (`--report json` of a failed
    /// sync): two pages of 100, then the third page's three attempts, each a 502.
    @Test func aFailedRunReportsTheRequestsOfThePageThatFailed() throws {
        let server = try TestServer(["--heroes", "300", "--ties", "0"])
        try server.faults([["match": "classes/Hero", "skip": 2, "status": 502, "html": true, "times": 3]])
        let store = try StoreKind.inMemory.makeStore(model: try SyncTestModels.parse())
        let source = try SyncTest.parseSource(server: server, deletions: #"{"type": "none"}"#)
        let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store.store), clock: RecordingClock().clock)
        let error = try #require(throws: SyncError.self) { try synchronizer.run() }
        #expect(error.attempts == 3)
        let report = try #require(synchronizer.lastReport.resources.first)
        #expect(report.pages == 2)
        #expect(report.requests == 5)
        #expect(report.retries == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aBodyCutShort(kind: StoreKind) throws {
        let (error, store, server, checkpoint) = try failingSync(
            kind: kind,
            faults: { _ in
                [["match": "classes/Hero", "skip": 1, "truncate": true]]
            })
        #expect(error.code == .malformedPage)
        #expect(error.message.hasPrefix("the body is not JSON (Content-Type application/json; charset=utf-8); it ends early ("))
        #expect(error.line == 1)
        #expect(try stored(store) == (try firstRecords(server, 100)))
        #expect(checkpoint.walk?.pages == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aRecordThatDoesNotFitTheModel(kind: StoreKind) throws {
        let (error, store, server, checkpoint) = try failingSync(
            kind: kind, faults: { _ in [] },
            mutations: { heroes in
                [["op": "update", "objectId": heroes[130]["objectId"]!, "set": ["power": "strong"], "updatedAt": heroes[130]["updatedAt"]!]]
            })
        #expect(error.code == .importFailed)
        #expect(error.path == JSONPath.root.appending(key: "results").appending(index: 30).appending(key: "power"))
        #expect(error.entity == "Hero")
        #expect(error.attribute == "power")
        #expect(
            error.description.hasPrefix("resource heroes, page http://127.0.0.1:\(server.port)/parse/classes/Hero?limit=100&order=updatedAt%2CobjectId&where="))
        #expect(error.description.hasSuffix(#": $.results[30].power: cannot store "strong" in Hero.power (integer64): not a decimal number"#))
        #expect(try stored(store) == (try firstRecords(server, 100)))
        #expect(checkpoint.walk?.pages == 1)
        #expect(checkpoint.walk?.records == 100)
        #expect(checkpoint.totalRecords == 100)
    }
}
