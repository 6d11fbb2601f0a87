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
