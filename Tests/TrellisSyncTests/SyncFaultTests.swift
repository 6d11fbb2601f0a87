import Foundation
import Testing
import Trellis
import TrellisSync
import TrellisTestSupport

/// Injected faults during a sync; after each, the store holds exactly the server's records.
@Suite struct SyncFaultTests {
    struct FaultCase: CustomStringConvertible, Sendable {
        let description: String
        /// Faults for the Parse emulator (300 heroes, pages of 100).
        let faults: @Sendable ([JSONValue]) -> JSONValue
        let retries: Int
    }

    static let cases: [FaultCase] = [
        FaultCase(description: "503 then success", faults: { _ in [["match": "classes/Hero", "skip": 1, "status": 503]] }, retries: 1),
        FaultCase(
            description: "429 with Retry-After: 1", faults: { _ in [["match": "classes/Hero", "skip": 2, "status": 429, "retryAfter": "1"]] },
            retries: 1),
        FaultCase(
            description: "Retry-After: 0", faults: { _ in [["match": "classes/Hero", "skip": 1, "status": 429, "retryAfter": "0", "times": 2]] },
            retries: 2),
        FaultCase(
            description: "429 with Retry-After: 9223372036854775807 (no hint: the backoff applies)",
            faults: { _ in [["match": "classes/Hero", "skip": 1, "status": 429, "retryAfter": "9223372036854775807"]] }, retries: 1),
        FaultCase(description: "a connection reset mid-body", faults: { _ in [["match": "classes/Hero", "skip": 1, "reset": true]] }, retries: 1),
        FaultCase(
            description: "a record updated and one deleted between two pages",
            faults: { heroes in
                [
                    [
                        "match": "classes/Hero", "times": 1,
                        "after": [
                            ["op": "update", "objectId": heroes[150]["objectId"]!, "set": ["name": "Moved to the end"]],
                            ["op": "delete", "objectId": heroes[250]["objectId"]!],
                        ],
                    ]
                ]
            }, retries: 0),
    ]

    @Test(arguments: StoreKind.allCases, cases)
    func theStoreEndsWithExactlyTheServersRecords(kind: StoreKind, fault: FaultCase) throws {
        let server = try TestServer(["--heroes", "300", "--ties", "150"])
        try server.faults(fault.faults(try server.data("Hero")))
        let store = try kind.makeStore(model: try SyncTestModels.parse())
        let clock = RecordingClock()
        let report = try Synchronizer(
            source: try SyncTest.parseSource(server: server), context: ObjectContext(store: store.store),
            clock: clock.clock
        ).run()
        let differences = try SyncTest.heroDifferences(store, server)
        #expect(differences == [])
        #expect(report.resource("heroes")?.retries == fault.retries)
        if fault.description.contains("Retry-After: 1") { #expect(clock.waits == [1]) }
        if fault.description.contains("Retry-After: 0") { #expect(clock.waits == [0.25, 0.5]) }
        if fault.description.contains("9223372036854775807") { #expect(clock.waits == [0.25]) }
    }

    @Test(arguments: StoreKind.allCases)
    func aNextLinkEqualToTheCurrentPageIsAnError(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "1"])
        try server.faults([["match": "/items", "skip": 1, "selfNext": true]])
        let store = try kind.makeStore(model: try SyncTestModels.items())
        let source = try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://127.0.0.1:PORT/"},
             "resources": [{"name": "items", "entity": "Item", "path": "items", "params": {"style": "next", "per_page": 7},
                            "records": "results", "paginator": {"type": "nextURL", "path": "next"}}]}
            """#, server: server)
        let error = try #require(throws: SyncError.self) { try Synchronizer(source: source, context: ObjectContext(store: store.store)).run() }
        let loop = "http://127.0.0.1:\(server.port)/items?style=next&per_page=7&page=2"
        #expect(error.code == .paginationLoop)
        #expect(error.description == "resource items, page \(loop): the next page \(loop) was already fetched in this walk (the walk would never end)")
        // The first page is committed, with its checkpoint pointing at the second.
        #expect(try store.snapshots(of: "Item").count == 7)
        let status = try #require(try Synchronizer(source: source, context: ObjectContext(store: store.store)).status().first)
        #expect(status.checkpoint.walk?.next == loop)
        #expect(status.checkpoint.lastRun?.status == .failed)
        #expect(status.checkpoint.lastRun?.message == error.description)
    }

    @Test func anUnreachableServerIsATransportErrorAndChangesNothing() throws {
        let store = try StoreKind.sqlite.makeStore(model: try SyncTestModels.items())
        let port = try { () throws -> Int in try TestServer(["--heroes", "1"]).port }()  // stopped again: nothing listens there
        let json = try JSONReader.parse(
            #"""
            {"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://127.0.0.1:\#(port)/", "maxAttempts": 2},
             "resources": [{"name": "items", "entity": "Item", "path": "items"}]}
            """#)
        let source = try SyncSource(json: json, environment: [:])
        let clock = RecordingClock()
        let error = try #require(throws: SyncError.self) {
            try Synchronizer(source: source, context: ObjectContext(store: store.store), clock: clock.clock).run()
        }
        #expect(error.code == .transport)
        #expect(error.message.hasPrefix("cannot connect to the server"))
        #expect(error.message.hasSuffix("(after 2 attempts)"))
        #expect(try store.dump() == "")
    }
}
