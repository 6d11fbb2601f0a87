import Foundation
import Testing
import Trellis
import TrellisSync
import TrellisTestSupport

/// Servers that do not behave: pages capped below `limit`, page numbers past the end that
/// answer again, next links to another host. Each kind on every store.
@Suite struct PaginationTests {
    // MARK: - Capped pages

    @Test(arguments: StoreKind.allCases, [false, true])
    func aServerThatCapsThePageSizeIsNotTheEndOfTheWalk(kind: StoreKind, fullScan: Bool) throws {
        let server = try TestServer(["--heroes", "230", "--ties", "0"])
        let store = try kind.makeStore(model: try SyncTestModels.parse())
        let source = try SyncTest.parseSource(
            server: server, limit: 100,
            deletions: fullScan ? #"{"type": "fullScan", "maxFraction": 1}"# : #"{"type": "none"}"#)
        if fullScan {
            // A store already holding every hero: a capped walk must not take the rest for deleted.
            _ = try Synchronizer(source: source, context: ObjectContext(store: store.store)).run()
            #expect(try store.snapshots(of: "Hero").count == 230)
        }
        try server.configure(["parseMaxLimit": 40])  // Parse Server's maxLimit: 40 records whatever `limit` asks
        try server.resetLog()
        var options = SyncOptions()
        options.full = true
        let report = try #require(
            try Synchronizer(source: source, context: ObjectContext(store: store.store), options: options).run()
                .resource("heroes"))
        #expect(try SyncTest.heroDifferences(store, server) == [])
        #expect(report.records == 230)
        #expect(report.pages == 7)  // 5 pages of 40, one of 30, then nothing after the last key
        #expect(report.counts.deleted == 0)
        #expect(report.watermark == (try server.data("Hero")).last?["updatedAt"]?.stringValue)
        #expect(try server.requestedPaths().count == 7)
        guard fullScan else { return }
        // An incremental run's deletion scan pages through the cap too; three deleted heroes go.
        let heroes = try server.data("Hero")
        try server.mutate(.array([heroes[5], heroes[100], heroes[222]].map { ["op": "delete", "objectId": $0["objectId"]!] }))
        let next = try #require(try Synchronizer(source: source, context: ObjectContext(store: store.store)).run().resource("heroes"))
        #expect(next.counts.deleted == 3)
        #expect(try SyncTest.heroDifferences(store, server) == [])
    }

    static func offsetSource(_ server: TestServer, total: Bool) throws -> SyncSource {
        try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://127.0.0.1:PORT/"},
             "resources": [{"name": "items", "entity": "Item", "path": "items", "records": "data",
                            "params": {"style": "offset", "direction": "asc", "total": \#(total ? 1 : 0)},
                            "paginator": {"type": "offset", "limit": 7 \#(total ? #", "totalPath": "total""# : "")},
                            "incremental": {"cursor": "updated_at", "parameter": "since"}, "deletions": {"type": "fullScan"}}]}
            """#, server: server)
    }

    @Test(arguments: StoreKind.allCases, [true, false])
    func anOffsetAPIThatClampsLimitReadsEveryRecord(kind: StoreKind, total: Bool) throws {
        let server = try TestServer(["--heroes", "1"])
        try server.configure(["itemsMaxLimit": 5])
        let store = try kind.makeStore(model: try SyncTestModels.items())
        let report = try #require(
            try Synchronizer(source: try Self.offsetSource(server, total: total), context: ObjectContext(store: store.store))
                .run().resource("items"))
        #expect(try SyncTest.itemDifferences(store, server) == [])
        #expect(report.counts.inserted == 30)
        let offsets = try server.requestedPaths().compactMap { URLComponents(string: $0)?.queryItems?.first { $0.name == "offset" }?.value }
        if total {
            // Six pages of 5, the total reached; then the first page asked for again (pages shift?).
            #expect(offsets == ["0", "5", "10", "15", "20", "25", "0"])
            #expect(report.diagnostics == [])
        } else {
            // No total: the page size is learned from the first page; a walk deciding deletions
            // ends only on an empty page.
            #expect(offsets == ["0", "5", "10", "15", "20", "25", "30", "0"])
            #expect(report.diagnostics == ["the first page has 5 records of the 7 asked for: 5 is taken as the server's page size"])
        }
    }

    // MARK: - Endless page numbers

    struct EndlessCase: CustomStringConvertible, Sendable {
        let description: String
        let mode: String
        let pages: Int
        let diagnostic: String
        let deletes: Bool
    }

    static let endless: [EndlessCase] = [
        EndlessCase(
            description: "past the end, the last page again", mode: "last", pages: 6,
            diagnostic: "page 6 repeats page 5 of the walk: the walk ends there", deletes: true),
        EndlessCase(
            description: "past the end, page 1 again", mode: "first", pages: 6,
            diagnostic: "page 6 repeats page 1 of the walk: the walk ends there", deletes: true),
        EndlessCase(
            description: "past the end, earlier records in another order", mode: "mixed", pages: 10,
            diagnostic: "5 pages in a row brought no record new to this walk (maxStalePages): the walk ends there", deletes: false),
    ]

    static func pageSource(_ server: TestServer, mode: String, strict: Bool = false) throws -> SyncSource {
        try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://127.0.0.1:PORT/"},
             "resources": [{"name": "items", "entity": "Item", "path": "items",
                            "params": {"style": "page", "per_page": 7, "direction": "asc", "past_end": "\#(mode)"},
                            "paginator": {"type": "pageNumber" \#(strict ? #", "repeatedPage": "error""# : "")},
                            "incremental": {"cursor": "updated_at", "parameter": "since"}, "deletions": {"type": "fullScan"}}]}
            """#, server: server)
    }

    @Test(arguments: StoreKind.allCases, endless)
    func endlessPageNumbersEnd(kind: StoreKind, endless: EndlessCase) throws {
        let server = try TestServer(["--heroes", "1"])
        let store = try kind.makeStore(model: try SyncTestModels.items())
        let synchronizer = Synchronizer(source: try Self.pageSource(server, mode: endless.mode), context: ObjectContext(store: store.store))
        let report = try #require(try synchronizer.run().resource("items"))
        #expect(try SyncTest.itemDifferences(store, server) == [])
        #expect(report.pages == endless.pages)
        #expect(report.requests == endless.pages + 1)  // and the first page, asked for again at the end
        #expect(report.walksCompleted == 1)
        #expect(report.diagnostics.first == endless.diagnostic)
        if !endless.deletes {
            #expect(report.diagnostics.last == "no deletions: the walk ended on pages bringing no new record, which does not prove it saw the whole resource")
        }
        let status = try #require(try synchronizer.status().first)
        #expect(status.checkpoint.walk == nil)  // the next run does not resume inside the endless pages
        #expect(status.checkpoint.lastRun?.status == .completed)
        #expect(status.checkpoint.watermark?.text == "2024-01-01T00:30:00.000Z")
        // The next run starts at the watermark: one item, its page answered again past the end.
        try server.resetLog()
        let again = try #require(try synchronizer.run().resource("items"))
        #expect(again.records == 2)
        #expect(again.counts.inserted == 0)
        #expect(try server.requestedPaths().first?.contains("since=2024-01-01T00%3A30%3A00.000Z") == true)
    }

    @Test(arguments: StoreKind.allCases)
    func aRepeatedPageIsAnErrorWhenTheSourceAsks(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "1"])
        let store = try kind.makeStore(model: try SyncTestModels.items())
        let synchronizer = Synchronizer(source: try Self.pageSource(server, mode: "last", strict: true), context: ObjectContext(store: store.store))
        let error = try #require(throws: SyncError.self) { try synchronizer.run() }
        #expect(error.code == .paginationLoop)
        let page6 = "http://127.0.0.1:\(server.port)/items?style=page&per_page=7&direction=asc&past_end=last&page=6"
        #expect(
            error.description == "resource items, page \(page6): the page repeats page 5 of this walk (the same records, identities and stamps): "
                + "the server answers pages past the end with earlier ones (repeatedPage: error)")
        #expect(try store.snapshots(of: "Item").count == 30)  // pages 1 to 5 are committed
        #expect(try synchronizer.status().first?.checkpoint.walk?.next == page6)
    }

    // MARK: - Next links to other hosts

    struct ForeignCase: CustomStringConvertible, Sendable {
        let description: String
        /// The resource's JSON, `FOREIGN` replaced by the foreign listener's base URL.
        let resource: String
        /// Whether the first page's next link is what leads away (otherwise the path does).
        let byLink: Bool
        /// Requests to the API's own host: the first page, and for a positional walk the first
        /// page again at its end.
        var home: Int { byLink ? (description == "a cursor that is a URL" ? 1 : 2) : 0 }
    }

    static let foreign: [ForeignCase] = [
        ForeignCase(
            description: "linkHeader",
            resource: #"""
                {"name": "items", "entity": "Item", "path": "items", "params": {"style": "link", "per_page": 7, "foreign": 1, "key": "${env:QKEY}"},
                 "paginator": {"type": "linkHeader"}}
                """#, byLink: true),
        ForeignCase(
            description: "nextURL",
            resource: #"""
                {"name": "items", "entity": "Item", "path": "items", "records": "results",
                 "params": {"style": "next", "per_page": 7, "foreign": 1, "key": "${env:QKEY}"}, "paginator": {"type": "nextURL", "path": "next"}}
                """#, byLink: true),
        ForeignCase(
            description: "a cursor that is a URL",
            resource: #"""
                {"name": "items", "entity": "Item", "path": "items", "records": "items",
                 "params": {"style": "cursorurl", "per_page": 7, "foreign": 1, "key": "${env:QKEY}"},
                 "paginator": {"type": "cursor", "path": "meta.next_cursor", "parameter": "cursor"}}
                """#, byLink: true),
        ForeignCase(
            description: "offset (a path on the other host)",
            resource: #"""
                {"name": "items", "entity": "Item", "path": "FOREIGN/items", "records": "data", "params": {"style": "offset", "key": "${env:QKEY}"},
                 "paginator": {"type": "offset", "limit": 7, "totalPath": "total"}}
                """#, byLink: false),
        ForeignCase(
            description: "pageNumber (a path on the other host)",
            resource: #"""
                {"name": "items", "entity": "Item", "path": "FOREIGN/items", "params": {"style": "page", "per_page": 7, "key": "${env:QKEY}"},
                 "paginator": {"type": "pageNumber"}}
                """#, byLink: false),
        ForeignCase(
            description: "cursor (a path on the other host)",
            resource: #"""
                {"name": "items", "entity": "Item", "path": "FOREIGN/items", "records": "items",
                 "params": {"style": "cursor", "per_page": 7, "key": "${env:QKEY}"},
                 "paginator": {"type": "cursor", "path": "meta.next_cursor", "parameter": "cursor"}}
                """#, byLink: false),
        ForeignCase(
            description: "none (a path on the other host)",
            resource: #"""
                {"name": "items", "entity": "Item", "path": "FOREIGN/items", "params": {"style": "page", "per_page": 50, "key": "${env:QKEY}"}}
                """#, byLink: false),
    ]

    static func foreignSource(_ server: TestServer, _ foreign: ForeignCase, allowed: Bool) throws -> SyncSource {
        let host = String(server.foreignBase.dropFirst("http://".count))
        let resource = foreign.resource.replacingOccurrences(of: "FOREIGN", with: server.foreignBase)
        return try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/", "auth": {"type": "bearer", "token": "${env:TOKEN}"},
                        "headers": {"X-Api-Key": "${env:HKEY}", "Cookie": "session=c00kie-s3cr3t", "Accept": "application/json"}
                        \#(allowed ? #", "allowedHosts": ["\#(host)"]"# : "")},
             "resources": [\#(resource)]}
            """#, server: server, environment: ["TOKEN": "t0k3n-s3cr3t", "HKEY": "h3ader-s3cr3t", "QKEY": "qu3ry-s3cr3t"])
    }

    static let secrets = ["t0k3n-s3cr3t", "h3ader-s3cr3t", "qu3ry-s3cr3t", "c00kie-s3cr3t"]

    @Test(arguments: foreign)
    func foreignNextLinksAreRefused(_ foreign: ForeignCase) throws {
        let server = try TestServer(["--heroes", "1"])
        let store = try StoreKind.sqlite.makeStore(model: try SyncTestModels.items())
        guard foreign.byLink else {
            // A path on another origin is an error of the source file, before any request.
            let error = try #require(throws: SyncError.self) { try Self.foreignSource(server, foreign, allowed: false) }
            #expect(error.code == .invalidValue)
            #expect(
                error.description == #"test.source.json: $.resources[0].path: the path "\#(server.foreignBase)/items" is not requested: "#
                    + "it is on another origin (\(server.foreignBase)) than the base URL (\(server.base)); credentials are never sent there, "
                    + "and it is followed only when client.allowedHosts lists its host")
            return
        }
        let error = try #require(throws: SyncError.self) {
            try Synchronizer(source: try Self.foreignSource(server, foreign, allowed: false), context: ObjectContext(store: store.store)).run()
        }
        #expect(error.code == .foreignLink)
        #expect(error.message.hasPrefix("the next page \(server.foreignBase)/items?"))
        #expect(error.message.contains("key=***"))
        #expect(
            error.message.hasSuffix(
                "is not followed: it is on another origin (\(server.foreignBase)) than the base URL (\(server.base)); "
                    + "credentials are never sent there, and it is followed only when client.allowedHosts lists its host"))
        for secret in Self.secrets { #expect(!error.description.contains(secret)) }
        #expect(try server.foreignRequests().isEmpty)
        #expect(try store.dump() == "")  // the page leading away is not committed
    }

    @Test(arguments: StoreKind.allCases, foreign)
    func foreignNextLinksToAllowedHostsNeverGetCredentials(kind: StoreKind, foreign: ForeignCase) throws {
        let server = try TestServer(["--heroes", "1"])
        let store = try kind.makeStore(model: try SyncTestModels.items())
        let report = try #require(
            try Synchronizer(
                source: try Self.foreignSource(server, foreign, allowed: true),
                context: ObjectContext(store: store.store)
            ).run().resource("items"))
        #expect(try SyncTest.itemDifferences(store, server) == [])
        #expect(report.counts.inserted == 30)
        let arrived = try server.foreignRequests()
        #expect(arrived.count >= (foreign.byLink ? 4 : 1))
        for request in arrived {
            let headers = request.headers.map { "\($0.key.lowercased()): \($0.value.stringValue ?? "")" }
            #expect(!headers.contains { $0.hasPrefix("authorization:") || $0.hasPrefix("cookie:") || $0.hasPrefix("x-api-key:") })
            for secret in Self.secrets {
                #expect(!request.path.contains(secret))
                #expect(!headers.contains { $0.contains(secret) })
            }
            #expect(headers.contains("accept: application/json"))  // what is not a credential is still sent
        }
        // The API's own host got the credentials.
        let home = try server.requestedHeaders()
        #expect(home.count == foreign.home)
        for headers in home {
            #expect(headers.first { $0.key.lowercased() == "authorization" }?.value.stringValue == "Bearer t0k3n-s3cr3t")
        }
    }
}
