/// The stored state of one object, as a store returns it and a change set carries it.
///
/// Values are laid out by position in the entity's resolved property lists
/// (``ResolvedEntity/attributes`` and ``ResolvedEntity/relationships``), so a snapshot is
/// only meaningful together with its entity. `nil` means no value / no destination.
public struct ObjectSnapshot: Sendable, Hashable {
    public var id: ObjectID
    /// A placeholder holds only its identity; a later import completes it.
    public var isPlaceholder: Bool
    /// One slot per attribute of the entity (`attributes.count` elements).
    public var attributes: [AttributeValue?]
    /// One slot per relationship of the entity (`relationships.count` elements): for a
    /// to-one, `[]` or `[destination]`; for a to-many, the destinations (in order for an
    /// ordered relationship; sorted by ``ObjectID`` otherwise).
    public var relationships: [[ObjectID]]

    public init(id: ObjectID, isPlaceholder: Bool, attributes: [AttributeValue?], relationships: [[ObjectID]]) {
        self.id = id
        self.isPlaceholder = isPlaceholder
        self.attributes = attributes
        self.relationships = relationships
    }
}
