import Foundation

/// Query strings as this module writes them: `name=value` pairs joined by `&`, each part
/// percent-encoded except RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`, §2.3), so
/// that `where={"updatedAt":…}` and `+` arrive intact whatever the server's decoder.
enum QueryString {
    /// RFC 3986 §2.3 unreserved characters.
    static let unreserved: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return set
    }()

    /// `text` percent-encoded for a query name or value.
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// `a=1&b=x%20y`.
    static func encode(_ items: [(name: String, value: String)]) -> String {
        items.map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&")
    }

    /// The pairs of a URL's query, decoded (`+` is kept as `+`: RFC 3986 gives it no meaning).
    static func items(of url: URL) -> [(name: String, value: String)] {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let query = components.percentEncodedQuery, !query.isEmpty
        else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            return (name, value)
        }
    }

    /// `url` with its query replaced by `items` (nil when the result is not a URL).
    static func url(_ url: URL, replacingQueryWith items: [(name: String, value: String)]) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        components.percentEncodedQuery = items.isEmpty ? nil : encode(items)
        return components.url
    }

    /// `url` with parameter `name` set to `value` (replacing every occurrence, or appended).
    static func url(_ url: URL, setting name: String, to value: String) -> URL? {
        var items = self.items(of: url)
        if let first = items.firstIndex(where: { $0.name == name }) {
            items[first].value = value
            items = items.enumerated().filter { $0.offset == first || $0.element.name != name }.map(\.element)
        } else {
            items.append((name, value))
        }
        return self.url(url, replacingQueryWith: items)
    }

    /// `url` without the parameter `name`.
    static func url(_ url: URL, removing name: String) -> URL {
        let items = self.items(of: url)
        guard items.contains(where: { $0.name == name }) else { return url }
        return self.url(url, replacingQueryWith: items.filter { $0.name != name }) ?? url
    }
}
