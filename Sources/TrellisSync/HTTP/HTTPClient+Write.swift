import Foundation
import Trellis

extension HTTPClient {
    /// Sends one write (`POST`, `PUT`, `DELETE`) once, with the source's headers and
    /// credentials, the host's pacing and a rate limit's block honoured; nothing is retried
    /// here: the pusher decides what a failure means for each operation (a create whose
    /// request may have reached the server is reconciled, never resent blind).
    ///
    /// - Parameters:
    ///   - body: JSON bytes, sent with `Content-Type: application/json`.
    ///   - headers: extra headers (`X-Parse-Request-Id`), after the source's.
    /// - Returns: the response whatever its status, or the transport's failure (the request
    ///   may or may not have reached the server).
    /// - Throws: ``SyncError`` `.foreignLink` (a URL on another origin than the base URL's:
    ///   nothing is sent), `.rateLimited` (a block longer than `maxRateLimitWaitSeconds`).
    public func write(
        _ method: String, _ url: URL, body: Data?, headers: HTTPHeaders = HTTPHeaders(),
        resource: String?
    ) throws -> Result<HTTPResponse, TransportFailure> {
        guard origins.isBase(url) else {
            throw SyncError(
                .foreignLink, message: "the URL \(printable(url)) is not written to: pushes go to the base URL's origin only",
                resource: resource, pageURL: printable(url))
        }
        var extra = headers
        if body != nil, extra["content-type"] == nil { extra.set("Content-Type", "application/json") }
        let request = authorized(HTTPRequest(url: url, headers: extra, method: method, body: body))
        let host = url.host?.lowercased() ?? ""
        let now = clock.now()
        if let until = pacer.blocked(host, now: now) {
            let wait = until.timeIntervalSince(now)
            guard wait <= configuration.maxRateLimitWaitSeconds else {
                throw SyncError(
                    .rateLimited,
                    message: "the rate limit is exhausted until \(SyncInstant(until).rfc3339), more than "
                        + "maxRateLimitWaitSeconds away; retry after \(SyncInstant(until).rfc3339)", resource: resource,
                    pageURL: printable(url))
            }
            clock.sleep(wait)
        }
        let pause = pacer.reserve(host, now: clock.now())
        if pause > 0 { clock.sleep(pause) }
        let result = send(request)
        if case .success(let response) = result, let reset = RetryPolicy.rateLimitReset(response.headers, now: clock.now()) {
            pacer.block(host, until: reset)
        }
        return result
    }

    /// The wait a retryable write response asks for (`Retry-After`, a rate limit's reset),
    /// else the policy's backoff after `attempt`.
    func retryWait(_ response: HTTPResponse?, attempt: Int) -> Double {
        if let response {
            if let hint = RetryPolicy.retryAfter(response.headers, now: clock.now()) { return hint }
            if let reset = RetryPolicy.rateLimitReset(response.headers, now: clock.now()), reset > clock.now() {
                return reset.timeIntervalSince(clock.now())
            }
        }
        return policy.backoff(after: attempt, random: clock.random())
    }
}
