import Foundation

/// A non-null attribute value in the object graph, normalised to its attribute type
/// (see ``AttributeType`` for which case each type uses). A missing or cleared value is
/// `nil` at the use site (`AttributeValue?`), never a case of this enum.
///
/// Values of different cases are never equal (`.integer(1) != .double(1)`); importers
/// coerce JSON to the attribute's type first, so equal JSON inputs give equal values.
/// Strings are equal when their UTF-8 code units are, as SQLite compares text: `"é"`
/// precomposed (U+00E9) and decomposed ("e" U+0301) are two identities, and changing one
/// into the other is a change that is written.
public enum AttributeValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case integer(Int64)
    case decimal(Decimal)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case binary(Data)
    case uuid(UUID)
    case uri(URL)
    case json(JSONValue)

    public static func == (lhs: AttributeValue, rhs: AttributeValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return a.hasSameCodeUnits(as: b)
        case (.integer(let a), .integer(let b)): return a == b
        case (.decimal(let a), .decimal(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.binary(let a), .binary(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.uri(let a), .uri(let b)): return a == b
        case (.json(let a), .json(let b)): return a == b
        default: return false
        }
    }

    public var stringValue: String? {
        if case .string(let v) = self { return v }
        return nil
    }
    public var integerValue: Int64? {
        if case .integer(let v) = self { return v }
        return nil
    }
    public var decimalValue: Decimal? {
        if case .decimal(let v) = self { return v }
        return nil
    }
    public var doubleValue: Double? {
        if case .double(let v) = self { return v }
        return nil
    }
    public var boolValue: Bool? {
        if case .bool(let v) = self { return v }
        return nil
    }
    public var dateValue: Date? {
        if case .date(let v) = self { return v }
        return nil
    }
    public var binaryValue: Data? {
        if case .binary(let v) = self { return v }
        return nil
    }
    public var uuidValue: UUID? {
        if case .uuid(let v) = self { return v }
        return nil
    }
    public var uriValue: URL? {
        if case .uri(let v) = self { return v }
        return nil
    }
    public var jsonValue: JSONValue? {
        if case .json(let v) = self { return v }
        return nil
    }

    /// A short, human-readable rendering for messages and the CLI (`"Ada"`, `42`, `2011-08-21T18:02:52.249Z`).
    public var description: String {
        switch self {
        case .string(let s): return "\"\(s)\""
        case .integer(let i): return String(i)
        case .decimal(let d): return d.description
        case .double(let d): return JSONNumber.shortestText(d)
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return "\(d.timeIntervalSince1970)s since 1970"
        case .binary(let data): return "<\(data.count) bytes>"
        case .uuid(let u): return u.uuidString.lowercased()
        case .uri(let u): return u.absoluteString
        case .json(let j): return "json(\(j.kind))"
        }
    }
}
