import Foundation
import Trellis

/// The JSON form of attribute default values in a model file, one per attribute type:
/// strings; integers as numbers (in the type's range); decimals as numbers or decimal
/// strings; doubles and floats as numbers; booleans; dates as RFC 3339 strings (UTC,
/// optional fraction); binary as base64 (RFC 4648 §4); UUIDs and URIs as strings; `json`
/// as any value. The writer produces the same forms, so defaults round-trip exactly.
enum AttributeDefaultCoding {
    static func value(from json: JSONValue, type: AttributeType, at path: JSONPath) throws -> AttributeValue {
        func fail(_ expected: String) -> ModelFileError {
            ModelFileError(
                .invalidValue, path: path,
                message: "\(withIndefiniteArticle(type.description)) default must be \(expected), found \(FieldReader.kindPhrase(json))")
        }
        switch type {
        case .string:
            guard case .string(let s) = json else { throw fail("a string") }
            return .string(s)
        case .integer16, .integer32, .integer64:
            guard let i = json.int64Value, let range = type.integerRange, range.contains(i) else {
                throw fail("an integer in \(type.integerRange.map { "\($0.lowerBound)...\($0.upperBound)" } ?? "range")")
            }
            return .integer(i)
        case .decimal:
            let decimal: Decimal?
            switch json {
            case .number(let n): decimal = n.decimalValue
            case .string(let s): decimal = JSONNumber(text: s)?.decimalValue
            default: decimal = nil
            }
            guard let decimal else { throw fail("a decimal number") }
            return .decimal(decimal)
        case .double:
            guard let d = json.doubleValue else { throw fail("a number") }
            return .double(d)
        case .float:
            guard let d = json.doubleValue else { throw fail("a number") }
            return .double(Double(Float(d)))
        case .boolean:
            guard case .bool(let b) = json else { throw fail("true or false") }
            return .bool(b)
        case .date:
            guard case .string(let s) = json, let date = parseDate(s) else {
                throw fail("an RFC 3339 date string (\"2014-08-31T00:29:15Z\")")
            }
            return .date(date)
        case .binary:
            guard case .string(let s) = json, let data = Data(base64Encoded: s) else { throw fail("a base64 string") }
            return .binary(data)
        case .uuid:
            guard case .string(let s) = json, let uuid = UUID(uuidString: s) else { throw fail("a UUID string") }
            return .uuid(uuid)
        case .uri:
            guard case .string(let s) = json, let url = URL(string: s) else { throw fail("a URI string") }
            return .uri(url)
        case .json:
            return .json(json)
        }
    }

    static func json(from value: AttributeValue) -> JSONValue {
        switch value {
        case .string(let s): return .string(s)
        case .integer(let i): return .number(JSONNumber(i))
        case .decimal(let d): return JSONNumber(text: d.description).map(JSONValue.number) ?? .string(d.description)
        case .double(let d): return .number(JSONNumber(d))
        case .bool(let b): return .bool(b)
        case .date(let d): return .string(formatDate(d))
        case .binary(let data): return .string(data.base64EncodedString())
        case .uuid(let u): return .string(u.uuidString.lowercased())
        case .uri(let u): return .string(u.absoluteString)
        case .json(let j): return j
        }
    }

    // MARK: - Dates

    private static func parseDate(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle())
    }

    private static func formatDate(_ date: Date) -> String {
        let whole = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
        return whole
            ? date.formatted(Date.ISO8601FormatStyle())
            : date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
