/// Everything one save writes: inserted objects, per-property updates, deletions.
/// A store applies a change set atomically (all of it or none of it).
///
/// IDs may be temporary (negative keys) anywhere in the set: in inserted snapshots, in
/// updates, and as relationship destinations. The store assigns permanent keys to the
/// inserted objects and rewrites every reference before writing.
///
/// Relationship storage: a to-one is a foreign key; a to-many whose inverse is a to-one is
/// stored by that foreign key only (stores ignore its slot and rely on the inverse being
/// in the change set, which ``ObjectContext`` guarantees); every other to-many (no inverse,
/// many-to-many, ordered) is a join table, whose rows for an object are replaced by the
/// relationship's new content. A link between two inserted objects may be in one side's
/// snapshot only: an import leaves a to-many slot that no mapping of its entity reads empty
/// (`InverseBookkeeping`), so a store writes a many-to-many link from whichever side holds it
/// (`RoundTripRuleTests.manyToManyLinksBetweenNewObjectsAreKept`).
public struct ChangeSet: Sendable {
    /// New objects (complete snapshots, temporary or permanent IDs).
    public var inserted: [ObjectSnapshot]
    /// Changes to stored objects.
    public var updated: [ObjectChange]
    /// Objects to delete (delete rules were already applied by the context).
    public var deleted: [ObjectID]

    public init(inserted: [ObjectSnapshot] = [], updated: [ObjectChange] = [], deleted: [ObjectID] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// `true` when there is nothing to write.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// The changed properties of one stored object. Only changed slots are listed, so a store
/// writes exactly those columns (`INSERT … ON CONFLICT DO UPDATE SET` of the changed columns).
public struct ObjectChange: Sendable, Hashable {
    public var id: ObjectID
    /// The object's new entity, when a placeholder of `id`'s entity is completed as one of
    /// its sub-entities (an import of `{"kind": "car", "id": 12}` completing the `Vehicle 12`
    /// a bare identifier made): the stored object keeps its primary key, its values and every
    /// link to it, and its ID becomes `ObjectID(entityName: entityName, primaryKey: id.primaryKey)`
    /// (the store's returned mapping maps `id` to it). `attributes` and `relationships`
    /// positions are then those of the new entity. Only a placeholder is retyped, only to a
    /// sub-entity of its entity (else `.constraintViolation`); nil otherwise.
    public var entityName: String?
    /// New placeholder flag, when it changed (a placeholder completed by an import: `false`).
    public var isPlaceholder: Bool?
    /// (position in the entity's attributes, new value)
    public var attributes: [AttributeChange]
    /// (position in the entity's relationships, new destinations: `[]`/`[x]` for a to-one)
    public var relationships: [RelationshipChange]

    public init(
        id: ObjectID, entityName: String? = nil, isPlaceholder: Bool? = nil, attributes: [AttributeChange] = [],
        relationships: [RelationshipChange] = []
    ) {
        self.id = id
        self.entityName = entityName
        self.isPlaceholder = isPlaceholder
        self.attributes = attributes
        self.relationships = relationships
    }
}

/// A new value for the attribute at `index`.
public struct AttributeChange: Sendable, Hashable {
    public var index: Int
    public var value: AttributeValue?
    public init(index: Int, value: AttributeValue?) {
        self.index = index
        self.value = value
    }
}

/// New destinations for the relationship at `index`.
public struct RelationshipChange: Sendable, Hashable {
    public var index: Int
    public var destinations: [ObjectID]
    public init(index: Int, destinations: [ObjectID]) {
        self.index = index
        self.destinations = destinations
    }
}
