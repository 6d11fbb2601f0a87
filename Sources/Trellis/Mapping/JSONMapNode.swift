import Foundation

/// What a ``JSONMap`` reads: a JSON value, a stored attribute value, or a record (a
/// stored object) whose properties are looked up by name.
///
/// The typed layer reads JSON documents and stored objects with the same `init(map:)`:
/// a JSON object's keys and a stored object's property names play the same role, a
/// to-one relationship is a nested map and a to-many relationship an array of maps.
public enum JSONMapNode {
    /// No value: JSON `null`, a nil attribute, an empty to-one relationship.
    case null
    /// A JSON value (never `.null`, which is ``null``).
    case json(JSONValue)
    /// A stored attribute value, already normalised to its attribute type.
    case attribute(AttributeValue)
    /// A record (a stored object, a to-one destination): keys are property names.
    case record(any JSONMapRecord)
    /// Records in order (a to-many relationship).
    case records([any JSONMapRecord])

    /// The node as JSON: JSON as is; an attribute in its export form
    /// (``JSONCoercion/json(from:as:)``: dates as RFC 3339 strings with milliseconds,
    /// data as base64, …); a record as an object of its ``JSONMapRecord/jsonMapKeys``
    /// whose relationships show their destinations' attributes only (one level, so
    /// cycles through inverse relationships end); records as an array of such objects.
    ///
    /// - Throws: what a record throws when a relationship is read (a store error).
    public var jsonValue: JSONValue {
        get throws { try jsonValue(depth: 0) }
    }

    /// The JSON form, rendering relationships of records only at depth 0.
    func jsonValue(depth: Int) throws -> JSONValue {
        switch self {
        case .null: return .null
        case .json(let value): return value
        case .attribute(let value): return value.mappingJSONValue
        case .record(let record): return try record.jsonMapObject(depth: depth)
        case .records(let records): return .array(try records.map { try $0.jsonMapObject(depth: depth) })
        }
    }

    /// The value for error messages: JSON and attributes as JSON, `null`; nil for
    /// records (not rendered, which could fault in relationships).
    var foundValue: JSONValue? {
        switch self {
        case .null: return .null
        case .json(let value): return value
        case .attribute(let value): return value.mappingJSONValue
        case .record, .records: return nil
        }
    }

    /// A short name of the node's kind for error messages.
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .json(let value): return value.kind.rawValue
        case .attribute: return "attribute"
        case .record: return "object"
        case .records: return "array"
        }
    }
}

extension AttributeValue {
    /// The JSON form of the value, as the exporter writes it
    /// (``JSONCoercion/json(from:as:)``): dates as RFC 3339 UTC strings with
    /// milliseconds, data as base64, UUIDs lowercase.
    var mappingJSONValue: JSONValue {
        JSONCoercion.json(from: self, as: .double)
    }
}
