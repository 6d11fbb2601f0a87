import Foundation

/// The `Link` header (RFC 8288 §3): `<https://api.github.com/…?page=2>; rel="next", <…>; rel="last"`.
enum LinkHeader {
    /// The target of the first link whose `rel` (a space-separated list, case-insensitive)
    /// contains `relation`, resolved against `base` (RFC 3986 §5); nil when there is none.
    static func target(_ values: [String], relation: String, base: URL) -> URL? {
        for value in values {
            for link in links(in: value) where link.relations.contains(relation.lowercased()) {
                if let url = URL(string: link.target, relativeTo: base)?.absoluteURL { return url }
            }
        }
        return nil
    }

    /// The links of one header value, in order.
    static func links(in value: String) -> [(target: String, relations: [String])] {
        var result: [(String, [String])] = []
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let target = String(rest[rest.index(after: open)..<close])
            rest = rest[rest.index(after: close)...]
            // Parameters up to the next link (a comma outside quotes).
            var relations: [String] = []
            var parameters = ""
            var inQuotes = false
            var end = rest.endIndex
            for i in rest.indices {
                let c = rest[i]
                if c == "\"" { inQuotes.toggle() }
                if c == ",", !inQuotes {
                    end = i
                    break
                }
                parameters.append(c)
            }
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[rest.endIndex...]
            for parameter in parameters.split(separator: ";") {
                let parts = parameter.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else { continue }
                let raw = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                relations += raw.lowercased().split(separator: " ").map(String.init)
            }
            result.append((target, relations))
        }
        return result
    }
}
