import Foundation
import Trellis

/// The query parameters of a typed request model (the Mantle seed's request model): the
/// members of the JSON object its ``JSONRepresentable/write(to:)`` writes, in order.
///
///     struct ArticleSearch: JSONRepresentable {
///         var query: String
///         var beginDate: Date
///         var page: Int?
///         func write(to map: inout JSONWriteMap) throws {
///             try map.write(query, to: "q")
///             try map.write(beginDate, to: "begin_date", using: .dateFormat("yyyyMMdd"))  // the reverse transformer
///             try map.write(page, to: "page")
///         }
///     }
///     try QueryParameters.items(of: ArticleSearch(query: "moon", beginDate: july1, page: nil))
///     // [("q", "moon"), ("begin_date", "20150701")]   (nil is left out)
///
/// A string is sent as it is, a number as its JSON text, a boolean as `true`/`false`, an
/// array of scalars as its elements joined by commas; `null` leaves the parameter out.
public enum QueryParameters {
    /// The parameters of `request`.
    /// - Throws: ``SyncError`` `.mapping`: the model is not written as an object, or a
    ///   member is an object (or an array holding one), which has no query form (the message
    ///   names its path, `$.filter`); the ``MappingError`` of a value that cannot be written.
    public static func items<Request: JSONRepresentable>(
        of request: Request,
        options: JSONWriteMap.Options = JSONWriteMap.Options()
    ) throws -> [(name: String, value: String)] {
        let json: JSONValue
        do {
            json = try request.jsonValue(options: options)
        } catch {
            throw SyncError(.mapping, message: "the request \(Request.self) cannot be written: \(error)")
        }
        guard case .object(let object) = json else {
            throw SyncError(.mapping, message: "the request \(Request.self) is written as \(SourceFields.kindPhrase(json)), not an object")
        }
        var items: [(name: String, value: String)] = []
        for (name, value) in object {
            guard let text = try text(of: value, at: JSONPath.root.appending(key: name), request: Request.self) else { continue }
            items.append((name, text))
        }
        return items
    }

    static func text(of value: JSONValue, at path: JSONPath, request: Any.Type) throws -> String? {
        switch value {
        case .null: return nil
        case .string(let s): return s
        case .number(let n): return n.text
        case .bool(let b): return b ? "true" : "false"
        case .array(let elements):
            return try elements.enumerated().compactMap { try text(of: $1, at: path.appending(index: $0), request: request) }
                .joined(separator: ",")
        case .object:
            throw SyncError(.mapping, message: "\(path): an object in the request \(request) has no query parameter form", path: path)
        }
    }
}
