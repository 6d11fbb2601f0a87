import Foundation
import Testing

/// Checks that an export reproduces every mapped value of a payload: each exported object's
/// attributes and relationships equal what one of its occurrences in the payload had (the
/// import merges occurrences, the last value winning), compared by type: dates as instants
/// (RFC 3339 and Twitter's format read with Foundation's own formatters), numbers as
/// decimals, numeric strings as their digits, JSON values structurally; `null` and a missing
/// key are alike.
enum ExportReproduction {
    /// Problems found comparing `exported` (the `trellis export --relationships identifiers`
    /// array of `entity`) with the walk's occurrences; empty when the export reproduces them.
    static func problems(_ exported: [[String: Any]], entity name: String, walk: PayloadWalk) -> [String] {
        guard let entity = walk.entities[name] else { return ["no entity \(name)"] }
        var problems: [String] = []
        var seen = 0
        for object in exported {
            guard let id = walk.identity(of: object, entity) else {
                problems.append("\(name): an exported object without identity: \(object)")
                continue
            }
            seen += 1
            let occurrences = walk.objects[name]?[id] ?? []
            if occurrences.isEmpty {
                // Known only by identifier: a placeholder, whose other values are null.
                guard walk.referenced[name]?.contains(id) == true else {
                    problems.append("\(name) \(id): exported but not in the payload")
                    continue
                }
                continue
            }
            for a in entity.attributes {
                let candidates = occurrences.compactMap { $0.attributes[a.name] }.map { normalized($0, type: a.type, transformer: a.transformer) }
                let value = normalized(PayloadWalk.value(at: a.keyPath, in: object) ?? NSNull(), type: a.type, transformer: a.transformer)
                let allowed = candidates.isEmpty ? ["null"] : candidates
                if !allowed.contains(value) {
                    problems.append("\(name) \(id).\(a.name): exported \(value), the payload has \(Set(allowed).sorted())")
                }
            }
            for r in entity.relationships {
                let candidates = occurrences.compactMap { $0.relationships[r.name] }.map(deduplicated)
                let exportedValue = PayloadWalk.value(at: r.keyPath, in: object)
                var ids: [String] = []
                if let destination = walk.entities[r.destination] {
                    let items = r.toMany ? (exportedValue as? [Any] ?? []) : (exportedValue.map { [$0] } ?? [])
                    for item in items where !(item is NSNull) {
                        if let dictionary = item as? [String: Any], let id = walk.identity(of: dictionary, destination) {
                            ids.append(id)
                        } else {
                            ids.append(PayloadWalk.identityText(item))
                        }
                    }
                }
                let allowed = candidates.isEmpty ? [[]] : candidates
                if !allowed.contains(ids) {
                    problems.append("\(name) \(id).\(r.name): exported \(ids), the payload has \(allowed)")
                }
            }
        }
        let expected = walk.count(name)
        if seen != expected { problems.append("\(name): \(seen) objects exported, the payload has \(expected)") }
        return problems
    }

    static func deduplicated(_ ids: [String]) -> [String] {
        var seen: Set<String> = []
        return ids.filter { seen.insert($0).inserted }
    }

    /// A comparable text for a JSON value of an attribute of `type`.
    static func normalized(_ value: Any, type: String, transformer: String?) -> String {
        if value is NSNull { return "null" }
        switch type {
        case "date":
            guard let text = value as? String, let date = date(text) else { return "unreadable date \(value)" }
            return String(format: "%.3f", date.timeIntervalSince1970)
        case "integer16", "integer32", "integer64", "double", "float", "decimal":
            let text = PayloadWalk.identityText(value)
            return Decimal(string: text).map { "\($0)" } ?? text
        case "json":
            let data = (try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        case "boolean":
            return (value as? NSNumber)?.boolValue == true ? "true" : "false"
        default:
            return PayloadWalk.identityText(value)
        }
    }

    /// RFC 3339 (with or without a fraction), a full-date, or Twitter's format.
    static func date(_ text: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        let twitter = DateFormatter()
        twitter.locale = Locale(identifier: "en_US_POSIX")
        twitter.dateFormat = "EEE MMM dd HH:mm:ss Z yyyy"
        return withFraction.date(from: text) ?? plain.date(from: text) ?? (text.count == 10 ? day.date(from: text) : nil)
            ?? twitter.date(from: text)
    }
}
