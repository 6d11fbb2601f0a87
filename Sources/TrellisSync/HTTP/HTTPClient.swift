import Foundation
import Trellis

/// GET requests to one API with the source's headers and credentials, pacing, retries
/// (``RetryPolicy``), rate limits and redirect rules; every failure is a ``SyncError`` that
/// names the resource, the URL (secrets replaced by `***`), the status and the body's message.
///
///     let client = HTTPClient(configuration: source.client, redactor: source.redactor)
///     let exchange = try client.get(url, resource: "heroes")     // a 2xx or 304 response
///
/// Thread-safe: the sync engine fetches the next page on another thread while it imports
/// the current one.
public final class HTTPClient: Sendable {
    public let configuration: ClientConfiguration
    public let transport: any HTTPTransport
    public let redactor: Redactor
    public let policy: RetryPolicy
    let clock: ClientClock
    let pacer: HostPacer
    /// Where requests and credentials may go.
    let origins: OriginPolicy

    /// A client for `configuration`; `transport` defaults to URLSession.
    public init(
        configuration: ClientConfiguration, redactor: Redactor, transport: any HTTPTransport = URLSessionTransport(),
        clock: ClientClock = .system, policy: RetryPolicy? = nil
    ) {
        self.configuration = configuration
        self.transport = transport
        self.redactor = redactor
        self.clock = clock
        self.policy = policy ?? RetryPolicy(maxAttempts: configuration.maxAttempts)
        self.pacer = HostPacer(interval: configuration.minIntervalSeconds)
        self.origins = OriginPolicy(baseURL: configuration.baseURL, allowedHosts: configuration.allowedHosts)
    }

    /// A response, and what it took to get it.
    public struct Exchange: Sendable {
        /// A 2xx or 304 response.
        public var response: HTTPResponse
        /// Attempts made (1 when the first succeeded).
        public var attempts: Int
        /// Seconds waited before each retry (backoff, `Retry-After`, rate-limit resets), in order.
        public var waits: [Double]
    }

    /// `path` (relative to the base URL, or absolute) with `query` (encoded by ``QueryString``).
    public func url(path: String, query: [(name: String, value: String)]) -> URL? {
        guard let url = URL(string: path, relativeTo: configuration.baseURL)?.absoluteURL else { return nil }
        let existing = QueryString.items(of: url)
        return QueryString.url(url, replacingQueryWith: existing + query)
    }

    /// The text of `url` for messages: secrets replaced by `***`.
    public func printable(_ url: URL) -> String { redactor.redact(url.absoluteString) }

    /// Sends a GET for `url` until it succeeds or may not be retried.
    ///
    /// - Parameters:
    ///   - headers: extra headers (`If-None-Match`), after the source's.
    ///   - resource: named in errors.
    /// - Returns: a 2xx or `304 Not Modified` response.
    /// - Throws: ``SyncError`` `.transport` (after the last attempt), `.httpStatus` (a status
    ///   that is not retried, or the last attempt's), `.rateLimited` (a wait longer than
    ///   `maxRateLimitWaitSeconds`; the message says when to retry), `.redirectRefused`,
    ///   `.foreignLink` (a URL on another origin than the base URL that `allowedHosts` does
    ///   not list, or one that carries a secret of the source outside its query items: nothing
    ///   is sent). Credentials go to the base URL's origin only (``OriginPolicy``); query items
    ///   whose name or value carries a secret are dropped from a URL on another origin.
    public func get(_ url: URL, headers: HTTPHeaders = HTTPHeaders(), resource: String?) throws -> Exchange {
        if let reason = origins.refusal(of: url) {
            throw SyncError(
                .foreignLink, message: "the URL \(printable(url)) is not requested: \(redactor.redact(reason))", resource: resource,
                pageURL: printable(url))
        }
        let request = authorized(HTTPRequest(url: url, headers: headers))
        if !origins.isBase(url), carriesSecret(request.url) {
            throw SyncError(
                .foreignLink,
                message: "the URL \(printable(url)) is not requested: it is on another origin than the base URL and carries a secret "
                    + "of the source outside its query parameters; secrets are sent to the base URL's origin only",
                resource: resource, pageURL: printable(url))
        }
        var sent = 0
        do {
            return try get(request, url: url, resource: resource, sent: &sent)
        } catch var error as SyncError {
            if sent > 0 { error.attempts = sent }
            throw error
        }
    }

    /// ``get(_:headers:resource:)``'s attempts of `request` (`url` with the credentials: errors
    /// name `url`); `sent` counts the requests that went out.
    private func get(_ request: HTTPRequest, url: URL, resource: String?, sent: inout Int) throws -> Exchange {
        let host = url.host?.lowercased() ?? ""
        var waits: [Double] = []
        var attempt = 0
        while true {
            attempt += 1
            try waitForRateLimit(host: host, url: url, resource: resource)
            let pause = pacer.reserve(host, now: clock.now())
            if pause > 0 { clock.sleep(pause) }
            let result = send(request)
            sent = attempt
            let wait: Double
            switch result {
            case .failure(let failure):
                guard failure.isRetryable, attempt < policy.maxAttempts else {
                    throw SyncError(
                        .transport, message: "\(failure.message)" + (attempt > 1 ? " (after \(attempt) attempts)" : ""),
                        resource: resource, pageURL: printable(url))
                }
                wait = policy.backoff(after: attempt, random: clock.random())
            case .success(let response):
                let reset = RetryPolicy.rateLimitReset(response.headers, now: clock.now())
                if let reset { pacer.block(host, until: reset) }
                if (200...299).contains(response.status) || response.status == 304 {
                    return Exchange(response: response, attempts: attempt, waits: waits)
                }
                if (300...399).contains(response.status) {
                    let location = response.headers["location"].map { redactor.redact($0) } ?? "no Location header"
                    throw SyncError(
                        .redirectRefused,
                        message: "HTTP \(response.status): a redirect to another host, scheme or port "
                            + "is not followed (\(location))", resource: resource, pageURL: printable(url), status: response.status)
                }
                guard RetryPolicy.isRetryable(status: response.status, headers: response.headers, body: response.body),
                    attempt < policy.maxAttempts
                else {
                    throw statusError(response, url: url, resource: resource, attempts: attempt)
                }
                if let hint = RetryPolicy.retryAfter(response.headers, now: clock.now()) {
                    wait = hint
                } else if let reset, reset > clock.now() {
                    wait = reset.timeIntervalSince(clock.now())
                } else if response.status == 403 && RetryPolicy.isSecondaryRateLimit(response.body) {
                    wait = max(60, policy.backoff(after: attempt, random: clock.random()))
                } else {
                    wait = policy.backoff(after: attempt, random: clock.random())
                }
                if wait > configuration.maxRateLimitWaitSeconds {
                    let until = clock.now().addingTimeInterval(wait)
                    throw SyncError(
                        .rateLimited,
                        message: "HTTP \(response.status): the server asks to wait \(ServerNumber.secondsText(wait)), "
                            + "more than maxRateLimitWaitSeconds (\(SourceFields.format(configuration.maxRateLimitWaitSeconds))); "
                            + "retry after \(SyncInstant(until).rfc3339)",
                        resource: resource, pageURL: printable(url), status: response.status)
                }
            }
            waits.append(wait)
            let end = clock.now().addingTimeInterval(wait)
            clock.sleep(wait)
            pacer.waited(host, until: end)
        }
    }

    /// Starts ``get(_:headers:resource:)`` on another thread; ``PendingExchange/wait()`` gives its result.
    public func start(_ url: URL, headers: HTTPHeaders = HTTPHeaders(), resource: String?) -> PendingExchange {
        let pending = PendingExchange()
        DispatchQueue.global().async { [self] in
            pending.fulfil(Result { try self.get(url, headers: headers, resource: resource) })
        }
        return pending
    }

    // MARK: - Internals

    /// The request with the source's headers and credentials; to another origin than the
    /// base URL's (an allowed host), without credentials: no `auth`, no header that is a
    /// credential by its name (``Redactor/isSecretHeader(_:)``) or holds a secret, no query
    /// parameter that holds a secret (a key from `params`, echoed in a next link).
    func authorized(_ request: HTTPRequest) -> HTTPRequest {
        var result = request
        let trusted = origins.isBase(request.url)
        if !trusted {
            let items = QueryString.items(of: request.url)
            let redactor = self.redactor
            let holdsSecret = { (item: (name: String, value: String)) in redactor.containsSecret(item.name) || redactor.containsSecret(item.value) }
            if items.contains(where: holdsSecret) {
                result.url = QueryString.url(request.url, replacingQueryWith: items.filter { !holdsSecret($0) }) ?? request.url
            }
        }
        var headers = HTTPHeaders(
            configuration.headers.filter {
                trusted || (!Redactor.isSecretHeader($0.name) && !redactor.containsSecret($0.value))
            })
        for field in request.headers { headers.set(field.name, field.value) }
        switch trusted ? configuration.auth : nil {
        case .bearer(let token)?: headers.set("Authorization", "Bearer \(token)")
        case .basic(let username, let password)?:
            headers.set("Authorization", "Basic " + Data("\(username):\(password)".utf8).base64EncodedString())
        case .apiKey(.header, let name, let value)?: headers.set(name, value)
        case .apiKey(.query, let name, let value)?:
            result.url = QueryString.url(request.url, setting: name, to: value) ?? request.url
        case nil: break
        }
        if headers["accept"] == nil { headers.set("Accept", "application/json") }
        result.headers = headers
        return result
    }

    /// Whether `url`'s text, as sent or percent-decoded, contains a secret of the source.
    private func carriesSecret(_ url: URL) -> Bool {
        let text = url.absoluteString
        return redactor.containsSecret(text) || redactor.containsSecret(text.removingPercentEncoding ?? text)
    }

    /// `url` as it may be stored: without the API key of a `query` credential.
    func storable(_ url: URL) -> URL {
        if case .apiKey(.query, let name, _)? = configuration.auth { return QueryString.url(url, removing: name) }
        return url
    }

    func send(_ request: HTTPRequest) -> Result<HTTPResponse, TransportFailure> {
        let pending = PendingResult<HTTPResponse, TransportFailure>()
        transport.send(request, timeout: configuration.timeoutSeconds) { pending.fulfil($0) }
        return pending.wait()
    }

    private func waitForRateLimit(host: String, url: URL, resource: String?) throws {
        let now = clock.now()
        guard let until = pacer.blocked(host, now: now) else { return }
        let wait = until.timeIntervalSince(now)
        guard wait <= configuration.maxRateLimitWaitSeconds else {
            throw SyncError(
                .rateLimited,
                message: "the rate limit is exhausted (x-ratelimit-remaining: 0) until "
                    + "\(SyncInstant(until).rfc3339), more than maxRateLimitWaitSeconds away; retry after \(SyncInstant(until).rfc3339)",
                resource: resource, pageURL: printable(url))
        }
    }

    private func statusError(_ response: HTTPResponse, url: URL, resource: String?, attempts: Int) -> SyncError {
        var message = "HTTP \(response.status)"
        if let phrase = HTTPClient.reasonPhrases[response.status] { message += " \(phrase)" }
        if let body = BodyMessage.message(in: response.body, contentType: response.headers["content-type"]) {
            message += ": " + redactor.redact(body)
        }
        if attempts > 1 { message += " (after \(attempts) attempts)" }
        return SyncError(.httpStatus, message: message, resource: resource, pageURL: printable(url), status: response.status)
    }

    static let reasonPhrases: [Int: String] = [
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
        409: "Conflict", 410: "Gone", 422: "Unprocessable Content", 429: "Too Many Requests", 500: "Internal Server Error",
        501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
    ]
}

/// The result of a request running on another thread.
public final class PendingExchange: @unchecked Sendable {
    // SAFETY: `result` is written once under `condition` and read only after it is set.
    private let condition = NSCondition()
    private var result: Result<HTTPClient.Exchange, any Error>?

    func fulfil(_ value: Result<HTTPClient.Exchange, any Error>) {
        condition.withLock {
            result = value
            condition.broadcast()
        }
    }

    /// Blocks until the request is done; returns its exchange or throws its error.
    public func wait() throws -> HTTPClient.Exchange {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return try result!.get()
    }
}

/// A value delivered once by a callback, waited for by one thread.
final class PendingResult<Success: Sendable, Failure: Error>: @unchecked Sendable {
    // SAFETY: `value` is written once under `condition` and read only after it is set.
    private let condition = NSCondition()
    private var value: Result<Success, Failure>?

    func fulfil(_ result: Result<Success, Failure>) {
        condition.withLock {
            value = result
            condition.broadcast()
        }
    }

    func wait() -> Result<Success, Failure> {
        condition.lock()
        defer { condition.unlock() }
        while value == nil { condition.wait() }
        return value!
    }
}
