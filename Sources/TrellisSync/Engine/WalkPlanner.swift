import Foundation
import Trellis

/// The URLs of one resource's walk: the first page (with the incremental start), and what
/// each page gives for the next (``Continuation``), by the resource's paginator. Stateless:
/// everything a next page needs is in the current URL, the response and its records, so a
/// walk resumes from a stored URL alone.
struct WalkPlanner {
    let resource: ResourceConfiguration
    let client: HTTPClient

    /// Parse: the keyset field (the incremental cursor, `updatedAt` by default).
    var parseField: String { resource.incremental?.cursor.components.first?.key ?? "updatedAt" }

    /// Parse: the page size (the resource's `limit`, or 1000).
    var parseLimit: Int {
        resource.params.first { $0.name == "limit" }.flatMap { ServerNumber.digits($0.value) }.map { max(1, $0) } ?? ParseDialect.defaultLimit
    }

    /// The first page's URL.
    /// - Parameters:
    ///   - start: the incremental start (already lagged), or nil for the whole resource.
    ///   - keysOnly: Parse: ask for the identity and the stamp only (a deletion scan).
    func firstURL(start: Watermark?, keysOnly: Bool = false) throws -> URL {
        var params: [(name: String, value: String)] = []
        for param in resource.params {
            guard param.value.contains("${incremental.start}") else {
                params.append(param)
                continue
            }
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
            throw SyncError(
                .invalidValue, message: "the path \(JSONWriter.quoted(resource.path)) does not make a URL with the base URL",
                resource: resource.name)
        }
        return url
    }

    /// What the page at `current` gives for the next one, by the resource's paginator: a
    /// link, a position, a keyset; ``WalkMachine`` decides from it (and what it learned of the
    /// walk) whether and where the walk goes on. Pure: reads the URL, headers and body only.
    /// - Throws: ``SyncError`` `.invalidCursor` for a next URL or cursor of the wrong JSON
    ///   type, a Parse page whose last record lacks its stamp or `objectId`, a page URL whose
    ///   offset or page number is not a number, a total that is not a count.
    func continuation(
        after current: URL, response: HTTPResponse, body: JSONValue?, records: [JSONValue],
        recordsPath: JSONPath
    ) throws -> Continuation {
        switch resource.paginator {
        case .none:
            return .single
        case .linkHeader:
            return .link(LinkHeader.target(response.headers.values("link"), relation: "next", base: response.url).map(client.storable))
        case .nextURL(let path):
            guard let body, let value = path.lookup(in: body).value else { return .link(nil) }
            let text: String
            switch value {
            case .string(let s): text = s
            case .null, .bool(false): return .link(nil)
            default:
                throw SyncError(
                    .invalidCursor, message: "the next URL at '\(path)' is \(SourceFields.kindPhrase(value)), not a string",
                    path: JSONPath(path))
            }
            guard !text.isEmpty else { return .link(nil) }
            guard let url = URL(string: text, relativeTo: response.url)?.absoluteURL, url.host != nil else {
                throw SyncError(
                    .invalidCursor, message: "the next URL at '\(path)' is not a URL: \(JSONWriter.quoted(client.redactor.redact(text)))",
                    path: JSONPath(path))
            }
            return .link(client.storable(url))
        case .offset(_, let offsetParameter, _, let totalPath):
            let offset = try number(offsetParameter, in: current) ?? 0
            var total: Int?
            if let totalPath, let body, let value = totalPath.lookup(in: body).value, !value.isNull {
                guard let count = ServerNumber.count(value) else {
                    throw SyncError(
                        .invalidCursor,
                        message: "the total at '\(totalPath)' is \(SourceFields.snippet(value)), not a count "
                            + "(an integer from 0 to 2^53)", path: JSONPath(totalPath))
                }
                total = count
            }
            return .offset(offset, total: total)
        case .pageNumber(let parameter, let first, _):
            return .pageNumber(try number(parameter, in: current) ?? first)
        case .cursor(let path, let parameter):
            guard let body, let value = path.lookup(in: body).value else { return .link(nil) }
            let cursor: String
            switch value {
            case .string(let s): cursor = s
            case .number(let n): cursor = n.text
            case .null, .bool(false): return .link(nil)
            default: throw SyncError(.invalidCursor, message: "the cursor at '\(path)' is \(SourceFields.kindPhrase(value))", path: JSONPath(path))
            }
            guard !cursor.isEmpty else { return .link(nil) }
            // A cursor that is an absolute URL is the next page (some APIs give one in place of a token).
            if let url = URL(string: cursor), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil {
                return .link(client.storable(url))
            }
            return .link(QueryString.url(current, setting: parameter, to: cursor))
        case .parse:
            guard let last = records.last else { return .keyset(nil) }
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
            return .keyset(QueryString.url(current, setting: "where", to: try JSONWriter.string(for: ParseDialect.combine(conditions)!)))
        }
    }

    /// `current` with the offset parameter set to `offset` (offset paginator).
    func url(_ current: URL, offset: Int) -> URL? {
        guard case .offset(_, let parameter, _, _) = resource.paginator else { return nil }
        return QueryString.url(current, setting: parameter, to: String(offset))
    }

    /// `current` with the page parameter set to `page` (page-number paginator).
    func url(_ current: URL, page: Int) -> URL? {
        guard case .pageNumber(let parameter, _, _) = resource.paginator else { return nil }
        return QueryString.url(current, setting: parameter, to: String(page))
    }

    /// The value of the integer parameter `name` of `url` (nil when absent), read with bounds.
    private func number(_ name: String, in url: URL) throws -> Int? {
        guard let text = QueryString.items(of: url).first(where: { $0.name == name })?.value else { return nil }
        guard let value = ServerNumber.digits(text) else {
            throw SyncError(
                .invalidCursor,
                message: "the page URL's '\(name)' is \(JSONWriter.quoted(client.redactor.redact(text))), "
                    + "not a number from 0 to 2^53")
        }
        return value
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

/// What a page gives for the next one (``WalkPlanner/continuation(after:response:body:records:recordsPath:)``).
enum Continuation: Sendable, Equatable {
    /// The `none` paginator: there is no next page.
    case single
    /// A next page's URL: a `Link` header, a next URL in the body, a cursor (as a parameter of
    /// the current URL, or a URL itself); nil when the page gives none.
    case link(URL?)
    /// The page's offset (from its URL) and the total at `totalPath`, if the body gives one.
    case offset(Int, total: Int?)
    /// The page's number (from its URL).
    case pageNumber(Int)
    /// Parse: the page after the last record's key; nil after an empty page.
    case keyset(URL?)
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
