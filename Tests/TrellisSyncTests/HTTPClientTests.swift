import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSync

/// The HTTP client against the loopback server: retries and their waits (recorded, not
/// slept), rate limits, redirects, gzip, credentials, failures that name the page.
@Suite struct HTTPClientTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    func client(
        _ server: TestServer, clock: RecordingClock, auth: Authentication? = nil, maxAttempts: Int = 3,
        minInterval: Double = 0, maxWait: Double = 900
    ) -> HTTPClient {
        let configuration = ClientConfiguration(
            baseURL: URL(string: server.base + "/")!, auth: auth, timeoutSeconds: 5,
            maxAttempts: maxAttempts, minIntervalSeconds: minInterval, maxRateLimitWaitSeconds: maxWait)
        return HTTPClient(configuration: configuration, redactor: SyncSource(client: configuration, resources: []).redactor, clock: clock.clock)
    }

    func items(_ server: TestServer) -> URL { URL(string: server.base + "/items?style=page&per_page=3")! }

    struct RetryCase: CustomStringConvertible, Sendable {
        let description: String
        let fault: JSONValue
        let attempts: Int
        let waits: [Double]
    }

    /// Each fault hits the first request once; the second attempt succeeds. The jitter draw is 0.5,
    /// so the first backoff is 0.5 × min(30, 0.5 × 2⁰) = 0.25 s.
    static let retryCases: [RetryCase] = [
        RetryCase(description: "503 then success", fault: ["status": 503], attempts: 2, waits: [0.25]),
        RetryCase(description: "429 with Retry-After: 1", fault: ["status": 429, "retryAfter": "1"], attempts: 2, waits: [1]),
        RetryCase(description: "Retry-After: 0 is no hint", fault: ["status": 429, "retryAfter": "0"], attempts: 2, waits: [0.25]),
        RetryCase(description: "Retry-After: -5 is no hint", fault: ["status": 503, "retryAfter": "-5"], attempts: 2, waits: [0.25]),
        RetryCase(
            description: "Retry-After as an HTTP date", fault: ["status": 503, "retryAfter": "Fri, 15 Jan 2027 08:00:30 GMT"],
            attempts: 2, waits: [30]),
        RetryCase(description: "a connection reset mid-body", fault: ["reset": true], attempts: 2, waits: [0.25]),
        RetryCase(
            description: "403 naming a secondary rate limit",
            fault: ["status": 403, "body": ["message": "You have exceeded a secondary rate limit. Please wait a few minutes."]],
            attempts: 2, waits: [60]),
        RetryCase(
            description: "Retry-After: 9223372036854775807 is no hint", fault: ["status": 429, "retryAfter": "9223372036854775807"],
            attempts: 2, waits: [0.25]),
        RetryCase(description: "Retry-After: 10^14 is no hint", fault: ["status": 503, "retryAfter": "100000000000000"], attempts: 2, waits: [0.25]),
        RetryCase(
            description: "Retry-After: 99999999999999999999 (beyond Int64) is no hint", fault: ["status": 503, "retryAfter": "99999999999999999999"],
            attempts: 2, waits: [0.25]),
        RetryCase(description: "Retry-After: 1e3 is no hint", fault: ["status": 503, "retryAfter": "1e3"], attempts: 2, waits: [0.25]),
        RetryCase(description: "Retry-After: inf is no hint", fault: ["status": 503, "retryAfter": "inf"], attempts: 2, waits: [0.25]),
        RetryCase(description: "Retry-After: +5 is no hint", fault: ["status": 503, "retryAfter": "+5"], attempts: 2, waits: [0.25]),
        RetryCase(
            description: "Retry-After: a date in the year 9999 is no hint", fault: ["status": 503, "retryAfter": "Fri, 31 Dec 9999 23:59:59 GMT"],
            attempts: 2, waits: [0.25]),
        RetryCase(
            description: "x-ratelimit-reset beyond Int64 is no hint",
            fault: ["status": 429, "headers": ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "99999999999999999999"]],
            attempts: 2, waits: [0.25]),
        RetryCase(
            description: "x-ratelimit-reset below 10^9 is seconds from now",
            fault: ["status": 429, "headers": ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "45"]], attempts: 2, waits: [45]),
        RetryCase(
            description: "403 with x-ratelimit-remaining: 0 waits for the reset",
            fault: [
                "status": 403, "headers": ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "1800000020"],
                "body": ["message": "API rate limit exceeded"],
            ], attempts: 2, waits: [20]),
    ]

    @Test(arguments: retryCases)
    func retriesWaitAsTheServerAsks(_ retry: RetryCase) throws {
        let server = try TestServer(["--heroes", "1"])
        var fault = retry.fault.objectValue!
        fault.append(key: "match", value: "/items")
        try server.faults([.object(fault)])
        let clock = RecordingClock(now: Self.now)
        let exchange = try client(server, clock: clock).get(items(server), resource: "items")
        #expect(exchange.response.status == 200)
        #expect(exchange.attempts == retry.attempts)
        #expect(exchange.waits == retry.waits)
        #expect(clock.waits == retry.waits)
        #expect(try JSONReader.parse(exchange.response.body).arrayValue?.count == 3)
    }

    @Test func exhaustedRetriesNameThePageStatusAndMessage() throws {
        let server = try TestServer(["--heroes", "1"])
        try server.faults([["match": "/items", "status": 503, "times": 5, "body": ["message": "down for maintenance"]]])
        let clock = RecordingClock(now: Self.now)
        let error = try #require(throws: SyncError.self) { try client(server, clock: clock).get(items(server), resource: "items") }
        #expect(error.code == .httpStatus)
        #expect(
            error.description
                == "resource items, page \(server.base)/items?style=page&per_page=3: HTTP 503 Service Unavailable: down for maintenance (after 3 attempts)")
        #expect(clock.waits == [0.25, 0.5])  // 0.5 × 0.5, 0.5 × 1: capped exponential, full jitter
        #expect(error.attempts == 3)
    }

    @Test func resetsOnEveryAttemptAreATransportError() throws {
        let server = try TestServer(["--heroes", "1"])
        try server.faults([["match": "/items", "reset": true, "times": 5]])
        let error = try #require(throws: SyncError.self) {
            try client(server, clock: RecordingClock(now: Self.now)).get(items(server), resource: "items")
        }
        #expect(error.code == .transport)
        #expect(error.message.hasPrefix("the connection was lost") || error.message.hasPrefix("the body ended early"))
        #expect(error.message.hasSuffix("(after 3 attempts)"))
        #expect(error.attempts == 3)
    }

    @Test func aRateLimitBeyondTheLongestWaitSaysWhenToRetry() throws {
        let server = try TestServer(["--heroes", "1"])
        try server.faults([["match": "/items", "status": 429, "headers": ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "1800003600"]]])
        let error = try #require(throws: SyncError.self) {
            try client(server, clock: RecordingClock(now: Self.now), maxWait: 900).get(items(server), resource: "items")
        }
        #expect(error.code == .rateLimited)
        #expect(error.message == "HTTP 429: the server asks to wait 3600 s, more than maxRateLimitWaitSeconds (900); retry after 2027-01-15T09:00:00Z")
        #expect(error.attempts == 1)
    }

    struct LongWaitCase: CustomStringConvertible, Sendable {
        let description: String
        let headers: JSONValue
        let message: String
    }

    /// Waits within the bounds a server may ask for, but beyond `maxRateLimitWaitSeconds`: a
    /// clear error saying when to retry (before, 9223372036854775807 trapped: "Double value
    /// cannot be converted to Int").
    static let longWaits: [LongWaitCase] = [
        LongWaitCase(
            description: "Retry-After: 86400", headers: ["Retry-After": "86400"],
            message: "HTTP 429: the server asks to wait 86400 s, more than maxRateLimitWaitSeconds (900); retry after 2027-01-16T08:00:00Z"),
        LongWaitCase(
            description: "Retry-After: 315360000 (ten years)", headers: ["Retry-After": "315360000"],
            message: "HTTP 429: the server asks to wait 315360000 s, more than maxRateLimitWaitSeconds (900); retry after 2037-01-12T08:00:00Z"),
        LongWaitCase(
            description: "a reset in epoch milliseconds a year away", headers: ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "1831536000000"],
            message: "HTTP 429: the server asks to wait 31536000 s, more than maxRateLimitWaitSeconds (900); retry after 2028-01-15T08:00:00Z"),
    ]

    @Test(arguments: longWaits)
    func aWaitBeyondTheLongestAllowedIsAClearError(_ wait: LongWaitCase) throws {
        let server = try TestServer(["--heroes", "1"])
        try server.faults([["match": "/items", "status": 429, "headers": wait.headers]])
        let clock = RecordingClock(now: Self.now)
        let error = try #require(throws: SyncError.self) { try client(server, clock: clock).get(items(server), resource: "items") }
        #expect(error.code == .rateLimited)
        #expect(error.message == wait.message)
        #expect(clock.waits == [])
    }

    @Test func serverNumbersAreReadWithBounds() throws {
        #expect(ServerNumber.digits("9007199254740992") == 9_007_199_254_740_992)
        #expect(ServerNumber.digits("9007199254740993") == nil)
        #expect(ServerNumber.digits(" 42\t") == 42)
        for bad in ["", " ", "-1", "+1", "1.5", "1e3", "inf", "nan", "0x10", "１２", "99999999999999999999"] {
            #expect(ServerNumber.digits(bad) == nil, "\(bad)")
        }
        #expect(ServerNumber.count(230) == 230)
        #expect(ServerNumber.count("230") == 230)
        for bad: JSONValue in [-1, 2.5, 1e300, "x", true, .null, 9_007_199_254_740_993] {
            #expect(ServerNumber.count(bad) == nil, "\(bad)")
        }
        #expect(ServerNumber.adding(.max, 1) == .max)
        #expect(ServerNumber.adding(.min, -1) == .min)
        #expect(ServerNumber.secondsText(1e300) == "more than 315360000 s")
        #expect(ServerNumber.secondsText(.nan) == "more than 315360000 s")
        #expect(ServerNumber.secondsText(0.2) == "1 s")
    }

    @Test func anExhaustedRateLimitHoldsTheNextRequestUntilItsReset() throws {
        let server = try TestServer(["--heroes", "1"])
        // Milliseconds, as in the recorded GitHub pages: 1,800,000,010,000 ms is 10 s after now.
        try server.faults([
            [
                "match": "/items", "status": 200, "headers": ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "1800000010000"],
                "body": [],
            ]
        ])
        let clock = RecordingClock(now: Self.now)
        let http = client(server, clock: clock)
        _ = try http.get(items(server), resource: "items")
        _ = try http.get(items(server), resource: "items")
        #expect(clock.waits == [10])
    }

    @Test func requestsToOneHostArePaced() throws {
        let server = try TestServer(["--heroes", "1"])
        let clock = RecordingClock(now: Self.now)
        let http = client(server, clock: clock, minInterval: 12)
        for _ in 0..<3 { _ = try http.get(items(server), resource: "items") }
        #expect(clock.waits == [12, 24])  // the clock stands still here: each start is 12 s after the previous one
    }

    @Test func redirectsAreFollowedOnTheSameHostOnly() throws {
        let server = try TestServer(["--heroes", "1"])
        let http = client(server, clock: RecordingClock(now: Self.now))
        let same = try http.get(URL(string: server.base + "/redirect/same")!, resource: "items")
        #expect(same.response.status == 200)
        #expect(same.response.url.absoluteString == server.base + "/items?style=page&per_page=50")
        let error = try #require(throws: SyncError.self) { try http.get(URL(string: server.base + "/redirect/other")!, resource: "items") }
        #expect(error.code == .redirectRefused)
        #expect(
            error.message
                == "HTTP 302: a redirect to another host, scheme or port is not followed (http://localhost:\(server.port)/items?style=page&per_page=50)")
    }

    @Test func gzipBodiesArriveDecompressed() throws {
        let server = try TestServer(["--heroes", "1"])
        try server.faults([["match": "/items", "gzip": true]])
        let exchange = try client(server, clock: RecordingClock(now: Self.now)).get(items(server), resource: "items")
        #expect(try JSONReader.parse(exchange.response.body).arrayValue?.count == 3)
        let sent = try server.requestedHeaders().first { $0.keys.contains { $0.lowercased() == "accept-encoding" } }
        #expect(sent?.first { $0.key.lowercased() == "accept-encoding" }?.value.stringValue?.contains("gzip") == true)
    }

    @Test func credentialsAreSentAndNeverPrinted() throws {
        let server = try TestServer(["--heroes", "1"])
        let clock = RecordingClock(now: Self.now)
        _ = try client(server, clock: clock, auth: .bearer(token: "t0k3n-abc")).get(items(server), resource: "items")
        _ = try client(server, clock: clock, auth: .basic(username: "ann", password: "pa55word")).get(items(server), resource: "items")
        try server.faults([["match": "/items", "status": 404, "body": ["message": "no such page"]]])
        let error = try #require(throws: SyncError.self) {
            try client(server, clock: clock, auth: .apiKey(location: .query, name: "api-key", value: "k3y-in-query")).get(items(server), resource: "items")
        }
        let authorizations = try server.requestedHeaders().compactMap { headers in
            headers.first { $0.key.lowercased() == "authorization" }?.value.stringValue
        }
        #expect(authorizations == ["Bearer t0k3n-abc", "Basic " + Data("ann:pa55word".utf8).base64EncodedString()])
        #expect(try server.requestedPaths().last == "/items?style=page&per_page=3&api-key=k3y-in-query")
        #expect(error.description == "resource items, page \(server.base)/items?style=page&per_page=3: HTTP 404 Not Found: no such page")
        #expect(!error.description.contains("k3y-in-query"))
    }

    /// Records every request and answers each with an empty page.
    final class RecordingTransport: HTTPTransport, @unchecked Sendable {
        // SAFETY: `sent` is read and written only while `lock` is held.
        private let lock = NSLock()
        private var sent: [HTTPRequest] = []
        var requests: [HTTPRequest] { lock.withLock { sent } }

        func send(_ request: HTTPRequest, timeout: Double, completion: @escaping @Sendable (Result<HTTPResponse, TransportFailure>) -> Void) {
            lock.withLock { sent.append(request) }
            completion(.success(HTTPResponse(url: request.url, status: 200, headers: HTTPHeaders(), body: Data("[]".utf8))))
        }
    }

    /// Found by the `http-response` fuzz target: a next link to an allowed host whose query
    /// item *name* held the API key (`?page=2&keyk3y-s3cr3t`) took it there, because only
    /// values were checked. Names, values and the rest of the URL (also percent-decoded) are
    /// checked now: a query item carrying a secret is dropped, and a URL that still carries one
    /// (in its path) is refused before anything is sent.
    @Test func secretsInAForeignURLNeverLeaveTheBaseOrigin() throws {
        let configuration = ClientConfiguration(
            baseURL: URL(string: "http://api.test/")!, headers: [("X-Api-Key", "k3y-s3cr3t")], auth: .bearer(token: "t0k3n-s3cr3t"),
            allowedHosts: ["other.test"])
        let transport = RecordingTransport()
        let client = HTTPClient(
            configuration: configuration, redactor: Redactor(secrets: ["k3y-s3cr3t", "t0k3n-s3cr3t"]), transport: transport,
            clock: RecordingClock(now: Self.now).clock)
        _ = try client.get(URL(string: "http://other.test/items?page=2&keyk3y-s3cr3t&k3y-s3cr3t=1&size=5")!, resource: "items")
        for path in ["http://other.test/k3y-s3cr3t/items?page=2", "http://other.test/items/k3y%2Ds3cr3t"] {
            let error = try #require(throws: SyncError.self) { try client.get(URL(string: path)!, resource: "items") }
            #expect(error.code == .foreignLink)
            #expect(!error.description.contains("k3y-s3cr3t"))
            #expect(
                error.message.hasSuffix(
                    "is not requested: it is on another origin than the base URL and carries a secret of the source outside its "
                        + "query parameters; secrets are sent to the base URL's origin only"))
        }
        // A host that holds the secret (`http://othe&key=k3y-s3cr3t`, found by the fuzz target):
        // the refusal names its origin, redacted.
        let foreignHost = try #require(throws: SyncError.self) { try client.get(URL(string: "http://othe&key=k3y-s3cr3t")!, resource: "items") }
        #expect(foreignHost.code == .foreignLink)
        #expect(foreignHost.message.contains("it is on another origin (http://othe&key=***:80)"))
        #expect(!foreignHost.description.contains("k3y-s3cr3t"))
        _ = try client.get(URL(string: "http://api.test/k3y-s3cr3t/items")!, resource: "items")
        let sent = transport.requests
        #expect(sent.map(\.url.absoluteString) == ["http://other.test/items?page=2&size=5", "http://api.test/k3y-s3cr3t/items"])
        #expect(sent[0].headers["authorization"] == nil)
        #expect(sent[0].headers["x-api-key"] == nil)
        #expect(sent[1].headers["authorization"] == "Bearer t0k3n-s3cr3t")
        #expect(sent[1].headers["x-api-key"] == "k3y-s3cr3t")
    }
}
