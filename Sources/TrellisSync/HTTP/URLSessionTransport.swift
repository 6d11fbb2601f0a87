import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLSession on Linux (swift-corelibs-foundation, over libcurl)
#endif

/// ``HTTPTransport`` over Foundation's `URLSession` (on Linux, FoundationNetworking's, which
/// runs on libcurl).
///
/// - No cache, no cookies (an ephemeral session): conditional requests are the caller's
///   (`If-None-Match`), and a `304 Not Modified` reaches it as such.
/// - `Content-Encoding: gzip` (and deflate) bodies are decompressed by URLSession, which
///   also sends `Accept-Encoding`.
/// - Redirects are followed only to the same scheme, host and port; any other redirect is
///   not followed, and its 3xx response is returned (the client reports it).
/// - Failures below HTTP become ``TransportFailure``: connection refused or reset, a
///   timeout (no data for `timeout` seconds: URLSession's `timeoutIntervalForRequest`), a
///   body shorter than its `Content-Length` (libcurl's "transfer closed with N bytes
///   remaining", error -1 on Linux: URLSession there has no specific code for it).
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// A transport with its own session.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        session = URLSession(configuration: configuration, delegate: SameHostRedirects(), delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(
        _ request: HTTPRequest, timeout: Double,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportFailure>) -> Void
    ) {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval = timeout
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        let task = session.dataTask(with: urlRequest) { data, response, error in
            if let error {
                completion(.failure(URLSessionTransport.failure(error, timeout: timeout)))
                return
            }
            guard let http = response as? HTTPURLResponse else {
                completion(.failure(TransportFailure(message: "the response is not HTTP", isRetryable: false)))
                return
            }
            var headers: [(name: String, value: String)] = []
            for (name, value) in http.allHeaderFields {
                headers.append(("\(name)", "\(value)"))
            }
            headers.sort { $0.name.lowercased() < $1.name.lowercased() }
            completion(
                .success(
                    HTTPResponse(
                        url: http.url ?? request.url, status: http.statusCode,
                        headers: HTTPHeaders(headers), body: data ?? Data())))
        }
        task.resume()
    }

    /// A `TransportFailure` worded for people, from URLSession's error.
    static func failure(_ error: any Error, timeout: Double) -> TransportFailure {
        let ns = error as NSError
        let detail = ns.localizedDescription
        guard ns.domain == NSURLErrorDomain else { return TransportFailure(message: detail) }
        switch ns.code {
        case NSURLErrorTimedOut:
            return TransportFailure(message: "no data for \(SourceFields.format(timeout)) s (timeoutSeconds)")
        case NSURLErrorCannotConnectToHost:
            return TransportFailure(message: "cannot connect to the server (\(detail))")
        case NSURLErrorNetworkConnectionLost:
            return TransportFailure(message: "the connection was lost (\(detail))")
        case NSURLErrorUnsupportedURL, NSURLErrorBadURL:
            return TransportFailure(message: "the URL cannot be requested (\(detail))", isRetryable: false)
        case NSURLErrorCancelled:
            return TransportFailure(message: "the request was cancelled", isRetryable: false)
        default:
            if detail.contains("transfer closed") { return TransportFailure(message: "the body ended early (\(detail))") }
            return TransportFailure(message: detail)
        }
    }
}

/// Follows a redirect only to the same scheme, host and port as the request that got it.
private final class SameHostRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let from = response.url ?? task.currentRequest?.url, let to = request.url else {
            completionHandler(nil)
            return
        }
        completionHandler(SameHostRedirects.sameOrigin(from, to) ? request : nil)
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && (a.port ?? defaultPort(a)) == (b.port ?? defaultPort(b))
    }

    static func defaultPort(_ url: URL) -> Int { url.scheme?.lowercased() == "https" ? 443 : 80 }
}
