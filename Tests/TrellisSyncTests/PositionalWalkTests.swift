import Foundation
import Testing
import Trellis
import TrellisSync
import TrellisTestSupport

/// Walks by page numbers, links, offsets and cursors, over a list sorted by a key that
/// changes while walking (`sort=updated`), and the recorded GitHub pages.
@Suite struct PositionalWalkTests {
    static func itemsSource(
        _ server: TestServer, style: String, paginator: String, records: String? = nil,
        direction: String = "desc"
    ) throws -> SyncSource {
        let recordsKey = records.map { #""records": "\#($0)","# } ?? ""
        return try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://127.0.0.1:PORT/"},
             "resources": [{"name": "items", "entity": "Item", "path": "items", \#(recordsKey)
                            "params": {"style": "\#(style)", "per_page": 7, "limit": 7, "direction": "\#(direction)"},
                            "paginator": \#(paginator),
                            "incremental": {"cursor": "updated_at", "parameter": "since"},
                            "deletions": {"type": "fullScan"}}]}
            """#, server: server)
    }

    struct StyleCase: CustomStringConvertible, Sendable {
        let description: String
        let records: String?
        let paginator: String
    }

    static let styles: [StyleCase] = [
        StyleCase(description: "page", records: nil, paginator: #"{"type": "pageNumber", "parameter": "page", "start": 1}"#),
        StyleCase(description: "link", records: nil, paginator: #"{"type": "linkHeader"}"#),
        StyleCase(
            description: "offset", records: "data",
            paginator: #"{"type": "offset", "limit": 7, "offsetParameter": "offset", "limitParameter": "limit", "totalPath": "total"}"#),
        StyleCase(description: "cursor", records: "items", paginator: #"{"type": "cursor", "path": "meta.next_cursor", "parameter": "cursor"}"#),
        StyleCase(description: "next", records: "results", paginator: #"{"type": "nextURL", "path": "next"}"#),
    ]

    @Test(arguments: styles)
    func everyPaginatorReadsTheWholeList(_ style: StyleCase) throws {
        let server = try TestServer(["--heroes", "1"])
        let store = try StoreKind.sqlite.makeStore(model: try SyncTestModels.items())
        let synchronizer = Synchronizer(
            source: try Self.itemsSource(
                server, style: style.description, paginator: style.paginator,
                records: style.records),
            context: ObjectContext(store: store.store))
        let report = try #require(try synchronizer.run().resource("items"))
        #expect(try SyncTest.itemDifferences(store, server) == [])
        #expect(report.counts.inserted == 30)
        #expect(report.watermark == "2024-01-01T00:30:00.000Z")
        // Again: incremental from the watermark (since is inclusive: the newest item is read again,
        // unchanged), then the full scan of the deletions (identities only, nothing imported).
        try server.resetLog()
        let again = try #require(try synchronizer.run().resource("items"))
        #expect(again.records == 1)
        #expect(again.pagesChanged == 0)
        #expect(again.counts == ImportReport.Counts(unchanged: 1))
        let paths = try server.requestedPaths()
        #expect(paths.first?.contains("since=2024-01-01T00%3A30%3A00.000Z") == true)
        #expect(paths.last?.contains("since") == false)
    }

    struct ShiftCase: CustomStringConvertible, Sendable {
        let description: String
        let direction: String
        let updated: Int
        let deleted: Int
    }

    /// After the first page: one item is updated (it moves to the front of a descending list,
    /// or the end of an ascending one) and one on the first page is deleted, so the later pages
    /// shift. The walk notices (its first page changed, or a record came again or with a stamp
    /// after the walk began) and walks again; only the settled walk promotes its watermark and
    /// decides deletions.
    static let shifts: [ShiftCase] = [
        ShiftCase(description: "descending: updated item 5, deleted item 28", direction: "desc", updated: 5, deleted: 28),
        ShiftCase(description: "ascending: updated item 3, deleted item 4", direction: "asc", updated: 3, deleted: 4),
    ]

    @Test(arguments: StoreKind.allCases, shifts)
    func pagesThatShiftWhileWalkingLoseNothing(kind: StoreKind, shift: ShiftCase) throws {
        let server = try TestServer(["--heroes", "1"])
        try server.faults([
            [
                "match": "/items", "times": 1,
                "after": [
                    ["op": "update", "class": "items", "id": JSONValue(shift.updated), "set": ["name": "Changed"]],
                    ["op": "delete", "class": "items", "id": JSONValue(shift.deleted)],
                ],
            ]
        ])
        let store = try kind.makeStore(model: try SyncTestModels.items())
        let source = try Self.itemsSource(server, style: "link", paginator: #"{"type": "linkHeader"}"#, direction: shift.direction)
        let report = try #require(try Synchronizer(source: source, context: ObjectContext(store: store.store)).run().resource("items"))
        #expect(try SyncTest.itemDifferences(store, server) == [])
        #expect(report.walksCompleted == 2)
        #expect(report.counts.deleted == 1)
        #expect(report.diagnostics.first == "the pages shifted while walking (a record changed or appeared twice); walking again from the same start")
        let changed = try server.data("items").first { $0["id"]?.int64Value == Int64(shift.updated) }
        #expect(report.watermark == changed?["updated_at"]?.stringValue)
    }

    @Test(arguments: StoreKind.allCases)
    func theRecordedGitHubPagesFollowLinksAndComeBackNotModified(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "1"])
        let store = try kind.makeStore(model: try SyncTestModels.github())
        let source = try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/github/", "auth": {"type": "bearer", "token": "${env:GITHUB_TOKEN}"},
                        "headers": {"Accept": "application/vnd.github.v3+json"}},
             "resources": [{"name": "issues", "entity": "Issue", "path": "repos/octokit-fixture-org/paginate-issues/issues",
                            "params": {"per_page": 3}, "paginator": {"type": "linkHeader"}, "incremental": {"cursor": "updated_at"}}]}
            """#, server: server, environment: ["GITHUB_TOKEN": "ghp_s3cr3t"])
        let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store.store))
        let first = try #require(try synchronizer.run().resource("issues"))
        #expect(first.pages == 5)
        #expect(first.records == 13)
        #expect(first.counts.inserted == 13)
        #expect(first.relatedCounts["User"]?.inserted == 1)
        #expect(first.watermark == "2017-10-10T16:00:00Z")  // every issue has it: a tie at every page boundary
        let numbers = try store.snapshots(of: "Issue").compactMap { $0.attributes[1]?.integerValue }.sorted()
        #expect(numbers == Array(1...13))

        // Again: each page asked with its ETag; the server answers 304, nothing is imported.
        try server.resetLog()
        let second = try #require(try synchronizer.run().resource("issues"))
        #expect(second.pages == 5)
        #expect(second.pagesNotModified == 5)
        #expect(second.pagesChanged == 0)
        #expect(second.records == 0)
        let conditional = try server.requestedHeaders().compactMap { $0.first { $0.key.lowercased() == "if-none-match" }?.value.stringValue }
        #expect(conditional == Array(repeating: #""00000000000000000000000000000000""#, count: 5))
        #expect(try store.snapshots(of: "Issue").count == 13)
    }
}
