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

/// A record a ``JSONMap`` can read by property name: a stored object
/// (`ManagedObject`), a snapshot, or any dictionary-like value.
///
/// Implement ``jsonMapNode(forKey:)``; the map walks key paths one component at a time
/// (`owner.name` asks the record for `owner`, then the destination for `name`; `items.0`
/// indexes a to-many relationship).
public protocol JSONMapRecord {
    /// The value of the property `key`: nil when the record has no such property (the
    /// map reports it as missing), ``JSONMapNode/null`` when it has the property but no
    /// value.
    ///
    /// - Throws: an error reading the property (a store error faulting in a
    ///   relationship's destinations); it propagates unchanged out of `map.from`.
    func jsonMapNode(forKey key: String) throws -> JSONMapNode?

    /// The property names, in a stable order (used by ``JSONMap/root`` to render the
    /// record as a JSON object).
    var jsonMapKeys: [String] { get }
}

extension JSONMapRecord {
    /// The record as a JSON object of its keys: attributes in their export form;
    /// relationships as nested objects at depth 0 only (left out deeper).
    func jsonMapObject(depth: Int) throws -> JSONValue {
        var object = JSONObject(minimumCapacity: jsonMapKeys.count)
        for key in jsonMapKeys {
            let node = try jsonMapNode(forKey: key) ?? .null
            switch node {
            case .record, .records:
                if depth == 0 { object[key] = try node.jsonValue(depth: depth + 1) }
            default:
                object[key] = try node.jsonValue(depth: depth + 1)
            }
        }
        return .object(object)
    }
}

/// A simple in-memory record: attribute values and relationships by property name.
/// Useful for tests, and as the shape a stored object adapts to.
///
///     let record = AttributeRecord(
///         attributes: ["id": .string("7"), "born": .date(date)],
///         relationships: ["publisher": .toOne(AttributeRecord(attributes: ["name": .string("DC")]))])
///     let hero = try Hero(record: record)
public struct AttributeRecord: JSONMapRecord, Sendable, Hashable {
    /// A relationship's destinations.
    public enum Relationship: Sendable, Hashable {
        /// A to-one relationship (nil: no destination).
        case toOne(AttributeRecord?)
        /// A to-many relationship, in order.
        case toMany([AttributeRecord])
    }

    /// Attribute values by property name; a nil value is a property without a value.
    public var attributes: [String: AttributeValue?]
    /// Relationships by property name.
    public var relationships: [String: Relationship]

    /// A record with these attributes and relationships.
    public init(attributes: [String: AttributeValue?] = [:], relationships: [String: Relationship] = [:]) {
        self.attributes = attributes
        self.relationships = relationships
    }

    /// Attributes as ``JSONMapNode/attribute(_:)`` (nil values as `.null`);
    /// relationships as `.record`, `.null` or `.records`; nil for unknown names.
    public func jsonMapNode(forKey key: String) -> JSONMapNode? {
        if let value = attributes[key] {
            return value.map(JSONMapNode.attribute) ?? .null
        }
        switch relationships[key] {
        case .toOne(let destination?): return .record(destination)
        case .toOne(nil): return .null
        case .toMany(let destinations): return .records(destinations)
        case nil: return nil
        }
    }

    /// Attribute names then relationship names, each sorted.
    public var jsonMapKeys: [String] {
        attributes.keys.sorted() + relationships.keys.sorted()
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
