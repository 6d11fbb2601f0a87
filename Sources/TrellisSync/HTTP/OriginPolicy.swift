import Foundation

/// Where requests may go, and where credentials may go: the rule of redirects (RFC 9110
/// §15.4: a client must not forward credentials to another origin) applied to every URL a
/// walk follows, the first page, next links, cursors that are URLs and resumed checkpoints.
///
/// - The **base origin** is the scheme, host and port of `client.baseURL` (RFC 6454 §4;
///   the port defaults to 80 for `http`, 443 for `https`).
/// - A URL of another origin is refused, unless its host is listed in `client.allowedHosts`
///   (`"cdn.example.com"`, or `"cdn.example.com:8443"` for one port only), and then only over
///   `https` or the base URL's own scheme (never a downgrade from `https` to `http`).
/// - Credentials (`Authorization`, cookies, API keys in a header or a query parameter, every
///   header whose value is a secret) are sent to the base origin only, also when another
///   origin is allowed.
struct OriginPolicy: Sendable {
    /// A URL's scheme, host and port.
    struct Origin: Sendable, Hashable, CustomStringConvertible {
        var scheme: String
        var host: String
        var port: Int

        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = url.port ?? (scheme == "https" ? 443 : 80)
        }

        /// `http://127.0.0.1:8080`.
        var description: String { "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    }

    /// The origin of the base URL.
    let base: Origin?
    /// The hosts (lowercased) other origins may be on, with a port or any port (nil).
    let allowed: [(host: String, port: Int?)]

    init(baseURL: URL, allowedHosts: [String]) {
        base = Origin(baseURL)
        allowed = allowedHosts.compactMap(OriginPolicy.entry)
    }

    /// An `allowedHosts` entry: a host, or `host:port`; nil when it is neither.
    static func entry(_ text: String) -> (host: String, port: Int?)? {
        let lowered = text.lowercased()
        guard !lowered.isEmpty, !lowered.contains("/"), !lowered.contains("@"), !lowered.contains(" ") else { return nil }
        if let colon = lowered.lastIndex(of: ":"), !lowered.hasSuffix("]"), lowered.filter({ $0 == ":" }).count == 1 {
            guard let port = ServerNumber.digits(String(lowered[lowered.index(after: colon)...]), maximum: 65_535), port > 0 else { return nil }
            let host = String(lowered[..<colon])
            return host.isEmpty ? nil : (host, port)
        }
        let host = lowered.hasPrefix("[") && lowered.hasSuffix("]") ? String(lowered.dropFirst().dropLast()) : lowered
        return (host, nil)
    }

    /// Whether `url` is on the base origin (credentials go there).
    func isBase(_ url: URL) -> Bool {
        guard let base, let origin = Origin(url) else { return false }
        return origin == base
    }

    /// Why `url` may not be requested, or nil when it may (the base origin, or an allowed host).
    func refusal(of url: URL) -> String? {
        guard let origin = Origin(url), origin.scheme == "http" || origin.scheme == "https" else {
            return "it is not an http or https URL"
        }
        guard let base else { return "the base URL has no host" }
        if origin == base { return nil }
        let listed = allowed.contains { $0.host == origin.host && ($0.port == nil || $0.port == origin.port) }
        guard listed else {
            return "it is on another origin (\(origin)) than the base URL (\(base)); credentials are never sent there, and "
                + "it is followed only when client.allowedHosts lists its host"
        }
        if base.scheme == "https", origin.scheme == "http" {
            return "it downgrades from https to http (\(origin)); allowed hosts are followed over https or the base URL's scheme"
        }
        return nil
    }
}
