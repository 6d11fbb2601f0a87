import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisSync
import TrellisTestSupport

/// The typed request/response path on `Examples/nytimes`: a request model becomes the query,
/// the response maps onto a response model, `syncResource` stores the records, and the stored
/// objects are still read when the network fails.
@Suite struct TypedRequestTests {
    /// The article search's request model: dates written by their reverse transformers.
    struct ArticleSearch: JSONRepresentable {
        var query: String
        var beginDate: Date
        var endDate: Date?
        var filter: String?

        func write(to map: inout JSONWriteMap) throws {
            try map.write(query, to: "q")
            try map.write(beginDate, to: "begin_date", using: .dateFormat("yyyyMMdd"))
            try map.write(endDate, to: "end_date", using: .dateFormat("yyyyMMdd"))
            try map.write(filter, to: "fq")
        }
    }

    /// One page of the response.
    struct ArticleSearchResponse: JSONMappable {
        let status: String
        let hits: Int
        let docs: [Doc]

        struct Doc: JSONMappable {
            let id: String
            let headline: String
            let published: Date
            init(map: JSONMap) throws {
                id = try map.from("_id")
                headline = try map.from("headline.main")
                published = try map.from("pub_date", using: .iso8601)
            }
        }

        init(map: JSONMap) throws {
            status = try map.from("status")
            hits = try map.from("response.meta.hits")
            docs = try map.from("response.docs")
        }
    }

    /// A stored article, read back from the store with the same typed layer.
    struct StoredArticle: JSONMappable {
        let id: String
        let headline: String
        let section: String?
        init(map: JSONMap) throws {
            id = try map.from("id")
            headline = try map.from("headline")
            section = try map.from("section")
        }
    }

    static let july1 = RFC3339.date(from: "2015-07-01T00:00:00Z")!
    static let july31 = RFC3339.date(from: "2015-07-31T00:00:00Z")!

    func example(_ server: TestServer?) throws -> (SyncSource, ObjectModel) {
        let directory = TestServer.root.appendingPathComponent("Examples/nytimes")
        var source = try SyncSource(contentsOf: directory.appendingPathComponent("articles.source.json"), environment: ["NYT_API_KEY": "test-app"])
        source.client.baseURL = URL(string: "http://127.0.0.1:\(server?.port ?? 9)/nytimes/")!
        let model = try ModelFile.read(from: directory.appendingPathComponent("model.json")).model
        return (source, model)
    }

    @Test func theRequestModelBecomesTheQuery() throws {
        let items = try QueryParameters.items(of: ArticleSearch(query: "moon landing", beginDate: Self.july1, endDate: nil, filter: nil))
        #expect(items.map(\.name) == ["q", "begin_date"])
        #expect(items.map(\.value) == ["moon landing", "20150701"])
    }

    @Test func theResponseMapsOntoTheResponseModel() throws {
        let server = try TestServer()
        let (source, model) = try example(server)
        let synchronizer = Synchronizer(
            source: source, context: ObjectContext(store: InMemoryStore(model: model)),
            clock: RecordingClock().clock)
        let response = try synchronizer.fetch(
            "articles", request: ArticleSearch(query: "moon landing", beginDate: Self.july1, endDate: Self.july31),
            as: ArticleSearchResponse.self)
        #expect(response.status == "OK")
        #expect(response.hits == 14)
        #expect(response.docs.count == 10)
        #expect(response.docs.first?.headline == "Example Article 1: Looking Back at the Moon Landing")
        #expect(response.docs.first?.published == RFC3339.date(from: "2015-07-03T09:00:00Z"))
        let path = try #require(try server.requestedPaths().first)
        #expect(path == "/nytimes/svc/search/v2/articlesearch.json?sort=oldest&q=moon%20landing&begin_date=20150701&end_date=20150731&page=0&api-key=test-app")
    }

    @Test(arguments: StoreKind.allCases)
    func syncResourceStoresTheRecordsAndTheyStayReadableOffline(kind: StoreKind) throws {
        let (source, model) = try example(nil)
        let store = try kind.makeStore(model: model)
        let search = ArticleSearch(query: "moon landing", beginDate: Self.july1, endDate: Self.july31)
        let clock = RecordingClock(now: Date(timeIntervalSince1970: 1_800_000_000))  // it stands still: the waits add up
        do {
            let server = try TestServer()
            var online = source
            online.client.baseURL = URL(string: "http://127.0.0.1:\(server.port)/nytimes/")!
            let synchronizer = Synchronizer(source: online, context: ObjectContext(store: store.store), clock: clock.clock)
            let report = try synchronizer.syncResource("articles", request: search)
            #expect(report.pages == 3)  // 10 + 4 docs, then an empty page
            #expect(report.counts.inserted == 14)
            #expect(report.relatedCounts["Keyword"]?.inserted == 3)
            // Pages 0, 1, 2 (empty: the end), then page 0 again: a page-number walk checks that its
            // first page did not change meanwhile. Paced 12 s apart (the NYT API allows 5 a minute).
            let pages = try server.requestedPaths().map { URLComponents(string: $0)!.queryItems!.first { $0.name == "page" }!.value! }
            #expect(pages == ["0", "1", "2", "0"])
            #expect(clock.waits == [12, 24, 36])
        }
        // The server is gone: syncing fails, the stored articles are still read.
        let offline = Synchronizer(source: source, context: ObjectContext(store: store.store), clock: clock.clock)
        let error = try #require(throws: SyncError.self) { try offline.syncResource("articles", request: search) }
        #expect(error.code == .transport)
        let context = ObjectContext(store: store.store)
        let articles = try context.fetch("Article").map { try StoredArticle(managedObject: $0) }
        #expect(articles.count == 14)
        #expect(Set(articles.map(\.headline)).count == 14)
        #expect(articles.first { $0.id.hasSuffix("000000000003") }?.section == "Opinion")
        #expect(!error.description.contains("test-app"))
    }

    @Test func aRequestModelWithAnObjectHasNoQueryForm() throws {
        struct Nested: JSONRepresentable {
            func write(to map: inout JSONWriteMap) throws { try map.write("x", to: "filter.kind") }
        }
        let error = try #require(throws: SyncError.self) { try QueryParameters.items(of: Nested()) }
        #expect(error.code == .mapping)
        #expect(error.message == "$.filter: an object in the request Nested has no query parameter form")
    }
}
