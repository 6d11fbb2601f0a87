import Foundation
import Trellis

/// The URLs of one resource's walk: the first page (with the incremental start), and the
/// page after each page, by the resource's paginator. Stateless: everything a next page
/// needs is in the current URL, the response and its records, so a walk resumes from a
/// stored URL alone.
struct WalkPlanner {
    let resource: ResourceConfiguration
    let client: HTTPClient

    /// Parse: the keyset field (the incremental cursor, `updatedAt` by default).
    var parseField: String { resource.incremental?.cursor.components.first?.key ?? "updatedAt" }

    /// Parse: the page size (the resource's `limit`, or 1000).
    var parseLimit: Int {
        resource.params.first { $0.name == "limit" }.flatMap { Int($0.value) } ?? ParseDialect.defaultLimit
    }

    /// The first page's URL.
    /// - Parameters:
    ///   - start: the incremental start (already lagged), or nil for the whole resource.
    ///   - keysOnly: Parse: ask for the identity and the stamp only (a deletion scan).
    func firstURL(start: Watermark?, keysOnly: Bool = false) throws -> URL {
        var params: [(name: String, value: String)] = []
        for param in resource.params {
            guard param.value.contains("${incremental.start}") else { params.append(param); continue }
            guard let start else { continue }
            params.append((param.name, param.value.replacingOccurrences(of: "${incremental.start}", with: start.text)))
        }
        if let start, let parameter = resource.incremental?.parameter, resource.paginator != .parse {
            params.removeAll { $0.name == parameter }
            params.append((parameter, start.text))
        }
        switch resource.paginator {
        case .offset(let limit, let offsetParameter, let limitParameter, _):
            params.removeAll { $0.name == offsetParameter || $0.name == limitParameter }
            params += [(offsetParameter, "0"), (limitParameter, String(limit))]
        case .pageNumber(let parameter, let first, _):
            params.removeAll { $0.name == parameter }
            params.append((parameter, String(first)))
        case .parse:
            params.removeAll { $0.name == "limit" || $0.name == "where" || (keysOnly && $0.name == "keys") }
            params.append(("limit", String(parseLimit)))
            params.append(("order", "\(parseField),objectId"))
            if keysOnly { params.append(("keys", "objectId,\(parseField)")) }
            var conditions = try userWhere().map { [$0] } ?? []
            if let start {
                if let id = start.tieBreaker {
                    conditions.append(ParseDialect.keysetWhere(field: parseField, stamp: start.text, objectId: id))
                } else {
                    conditions.append(ParseDialect.sinceWhere(field: parseField, stamp: start.text))
                }
            }
            if let condition = ParseDialect.combine(conditions) { params.append(("where", try JSONWriter.string(for: condition))) }
        case .linkHeader, .nextURL, .cursor, .none:
            break
        }
        guard let url = client.url(path: resource.path, query: params) else {
            throw SyncError(.invalidValue, message: "the path \(JSONWriter.quoted(resource.path)) does not make a URL with the base URL",
                            resource: resource.name)
        }
        return url
    }

    /// The page after the one at `current`, or nil when it was the last.
    /// - Throws: ``SyncError`` `.invalidCursor` when a Parse page's last record lacks its
    ///   stamp or `objectId`.
    func nextURL(after current: URL, response: HTTPResponse, body: JSONValue?, records: [JSONValue],
                 recordsPath: JSONPath) throws -> URL? {
        switch resource.paginator {
        case .none:
            return nil
        case .linkHeader:
            return LinkHeader.target(response.headers.values("link"), relation: "next", base: response.url).map(client.storable)
        case .nextURL(let path):
            guard let body, let value = path.lookup(in: body).value else { return nil }
            let text: String
            switch value {
            case .string(let s): text = s
            case .null, .bool(false): return nil
            default: throw SyncError(.invalidCursor, message: "the next URL at '\(path)' is \(SourceFields.kindPhrase(value)), not a string",
                                     path: JSONPath(path))
            }
            guard !text.isEmpty else { return nil }
            guard let url = URL(string: text, relativeTo: response.url)?.absoluteURL else {
                throw SyncError(.invalidCursor, message: "the next URL at '\(path)' is not a URL: \(JSONWriter.quoted(client.redactor.redact(text)))",
                                path: JSONPath(path))
            }
            return client.storable(url)
        case .offset(let limit, let offsetParameter, _, let totalPath):
            guard !records.isEmpty, records.count >= limit else { return nil }
            let offset = QueryString.items(of: current).first { $0.name == offsetParameter }.flatMap { Int($0.value) } ?? 0
            if let totalPath, let body, let total = totalPath.lookup(in: body).value?.intValue, offset + records.count >= total { return nil }
            return QueryString.url(current, setting: offsetParameter, to: String(offset + records.count))
        case .pageNumber(let parameter, let first, let maxPages):
            guard !records.isEmpty else { return nil }
            let page = QueryString.items(of: current).first { $0.name == parameter }.flatMap { Int($0.value) } ?? first
            if let maxPages, page - first + 1 >= maxPages { return nil }
            return QueryString.url(current, setting: parameter, to: String(page + 1))
        case .cursor(let path, let parameter):
            guard let body, let value = path.lookup(in: body).value else { return nil }
            let cursor: String
            switch value {
            case .string(let s): cursor = s
            case .number(let n): cursor = n.text
            case .null, .bool(false): return nil
            default: throw SyncError(.invalidCursor, message: "the cursor at '\(path)' is \(SourceFields.kindPhrase(value))", path: JSONPath(path))
            }
            guard !cursor.isEmpty else { return nil }
            return QueryString.url(current, setting: parameter, to: cursor)
        case .parse:
            guard records.count >= parseLimit, let last = records.last else { return nil }
            let lastPath = recordsPath.appending(index: records.count - 1)
            guard case .object(let record) = last else {
                throw SyncError(.invalidCursor, message: "a Parse record is \(SourceFields.kindPhrase(last)), not an object", path: lastPath)
            }
            guard let stamp = record[parseField], let text = Watermark(json: stamp)?.text else {
                throw SyncError(.invalidCursor, message: "the last record has no date '\(parseField)' to page on", path: lastPath.appending(key: parseField))
            }
            guard let id = record["objectId"]?.stringValue else {
                throw SyncError(.invalidCursor, message: "the last record has no objectId to page on", path: lastPath.appending(key: "objectId"))
            }
            var conditions = try userWhere().map { [$0] } ?? []
            conditions.append(ParseDialect.keysetWhere(field: parseField, stamp: text, objectId: id))
            return QueryString.url(current, setting: "where", to: try JSONWriter.string(for: ParseDialect.combine(conditions)!))
        }
    }

    /// The resource's own Parse `where` (from `params`), if any.
    private func userWhere() throws -> JSONValue? {
        guard let text = resource.params.first(where: { $0.name == "where" })?.value else { return nil }
        guard let value = try? JSONReader.parse(text), case .object = value else {
            throw SyncError(.invalidValue, message: "the 'where' parameter is not a JSON object", resource: resource.name)
        }
        return value
    }
}

extension JSONPath {
    /// The path of a key path from the root (`results.items` → `$.results.items`).
    init(_ keyPath: JSONKeyPath) {
        var path = JSONPath.root
        for component in keyPath.components {
            if let index = component.index { path = path.appending(index: index) } else { path = path.appending(key: component.key) }
        }
        self = path
    }
}
