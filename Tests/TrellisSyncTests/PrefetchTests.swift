import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSync

/// The next page is fetched on another thread while a page commits (``PageReader``); a walk
/// that ends early must not leave that request running once `run()` has returned.
@Suite struct PrefetchTests {
    /// Answers page 1 at once and page 2 after a pause, counting the answers it completed.
    final class SlowSecondPage: HTTPTransport, @unchecked Sendable {
        // SAFETY: `started` and `completed` are read and written only while `lock` is held.
        private let lock = NSLock()
        private var started = 0
        private var completed = 0
        var counts: (started: Int, completed: Int) { lock.withLock { (started, completed) } }

        func send(_ request: HTTPRequest, timeout: Double, completion: @escaping @Sendable (Result<HTTPResponse, TransportFailure>) -> Void) {
            let n = lock.withLock { () -> Int in
                started += 1
                return started
            }
            if n > 1 { Thread.sleep(forTimeInterval: 0.3) }
            let body = n == 1 ? #"{"data":[{"id":1,"updated_at":"202<-05-01"}]}"# : #"{"data":[]}"#
            lock.withLock { completed += 1 }
            completion(.success(HTTPResponse(url: request.url, status: 200, headers: HTTPHeaders(), body: Data(body.utf8))))
        }
    }

    /// Found by the `http-response` fuzz target (LeakSanitizer saw page 2's response alive
    /// after the run had returned): page 1's date does not read, so its commit fails while page 2
    /// is in flight; the run's error comes only once page 2's request has ended.
    @Test func aWalkThatFailsWaitsForThePageInFlight() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    SyncTestModels.attribute("id", .integer64, "id"), SyncTestModels.attribute("updatedAt", .date, "updated_at"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        let source = try SyncSource(
            json: try JSONReader.parse(
                Array(
                    #"""
                    {"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://api.test/"},
                     "resources": [{"name": "items", "entity": "Item", "path": "items", "records": "data",
                                    "paginator": {"type": "pageNumber", "maxPages": 50}}]}
                    """#.utf8)), environment: [:])
        let transport = SlowSecondPage()
        let store = InMemoryStore(model: model)
        let error = #expect(throws: SyncError.self) {
            try Synchronizer(source: source, context: ObjectContext(store: store), transport: transport).run()
        }
        #expect(error?.description.contains("updated_at") == true)
        let counts = transport.counts
        #expect(counts.started == 2)
        #expect(counts.completed == 2)
        #expect(try ObjectContext(store: store).count(ObjectFetchRequest(entity: "Item")) == 0)
    }
}
