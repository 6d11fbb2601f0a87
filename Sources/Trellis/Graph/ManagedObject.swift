/// An object of the graph, registered in one ``ObjectContext`` (Core Data's
/// `NSManagedObject`). Values are kept by position in the entity's resolved attributes and
/// relationships; the by-name accessors look the position up once.
///
///     let batman = try context.fetch("Character", id: .integer(1699))
///     batman?["name"]                                   // .string("Batman")
///     try batman?.destination(forKey: "publisher")?["name"]  // .string("DC Comics")
///
/// Relationships hold ``ObjectID``s; the accessors returning objects fault destinations in
/// from the store. Setting a relationship keeps its inverse in step on the other side.
/// A managed object is not thread-safe: use it on the thread that uses its context.
public final class ManagedObject: CustomStringConvertible {
    /// The object's concrete entity.
    public let entity: ResolvedEntity
    let info: EntityInfo
    /// Temporary (negative key) until the object is saved; permanent after.
    @exclusivity(unchecked) public internal(set) var objectID: ObjectID
    /// `true` for an object that holds only its identity (created from a bare identifier);
    /// an import of the full object completes it.
    @exclusivity(unchecked) public internal(set) var isPlaceholder: Bool
    weak var context: ObjectContext?

    @exclusivity(unchecked) var values: [AttributeValue?]
    @exclusivity(unchecked) var links: [[ObjectID]]
    /// Inverse-maintenance operations not yet applied to to-many slots (applied on read).
    @exclusivity(unchecked) var pending: [PendingLinks]?
    /// The last saved state; nil for an inserted object.
    @exclusivity(unchecked) var committed: CommittedState?
    @exclusivity(unchecked) var isInsertedFlag: Bool
    @exclusivity(unchecked) var isDeletedFlag = false
    /// Relationship slots set directly since the last save (bit i; slots ≥ 63 share bit 63).
    @exclusivity(unchecked) var directLinks: UInt64 = 0
    @exclusivity(unchecked) var isInDirtyList = false
    /// The registration epoch (imports drop the objects they registered).
    @exclusivity(unchecked) var epoch: Int
    /// Scratch mark for the importer (last batch that touched the object).
    @exclusivity(unchecked) var mark: Int = -1
    /// Scratch flag for the importer: the last flush wrote this object.
    @exclusivity(unchecked) var flushWrote = false
    /// The object that took this placeholder's place as a sub-entity
    /// (``ObjectContext/retype(_:as:)``); this one is then left out of every save.
    @exclusivity(unchecked) var replacement: ManagedObject?
    /// For an object retyped from a stored placeholder: the stored object's ID before (the
    /// next save writes the new entity, ``ObjectChange/entityName``).
    @exclusivity(unchecked) var retypedFrom: ObjectID?

    init(
        info: EntityInfo, id: ObjectID, isPlaceholder: Bool, values: [AttributeValue?], links: [[ObjectID]],
        committed: CommittedState?, context: ObjectContext, epoch: Int
    ) {
        self.entity = info.entity
        self.info = info
        self.objectID = id
        self.isPlaceholder = isPlaceholder
        self.values = values
        self.links = links
        self.committed = committed
        self.isInsertedFlag = committed == nil
        self.context = context
        self.epoch = epoch
    }

    // MARK: - State

    /// `true` from ``ObjectContext/insert(_:)`` (or an import creating it) until saved.
    public var isInserted: Bool { isInsertedFlag }
    /// `true` after ``ObjectContext/delete(_:)`` until saved or rolled back.
    public var isDeleted: Bool { isDeletedFlag }

    /// `true` when the object has unsaved changes (inserted, deleted, or values that
    /// differ from the saved ones).
    public var hasChanges: Bool {
        if isInsertedFlag || isDeletedFlag { return true }
        guard let committed else { return true }
        if committed.values != values || committed.isPlaceholder != isPlaceholder { return true }
        for i in links.indices where directBit(i) || !info.relationships[i].isToMany {
            if links[i] != committed.links[i] { return true }
        }
        return false
    }

    // MARK: - Attributes

    /// The value of the attribute named `name`; nil when it has no value or there is no
    /// such attribute (use ``value(forKey:)`` to tell the two apart).
    public subscript(name: String) -> AttributeValue? {
        guard let i = entity.attributeIndex(of: name) else { return nil }
        return values[i]
    }

    /// The value of the attribute named `key` (nil: no value).
    /// - Throws: ``ContextError`` `.unknownProperty` when the entity has no such attribute.
    public func value(forKey key: String) throws -> AttributeValue? {
        values[try attributeIndex(key)]
    }

    /// The value of the attribute at `index` in ``ResolvedEntity/attributes`` (nil: no value
    /// or an index out of range).
    public func value(at index: Int) -> AttributeValue? {
        values.indices.contains(index) ? values[index] : nil
    }

    /// All attribute values, by position.
    public var attributeValues: [AttributeValue?] { values }

    /// Sets the attribute named `key`. The value must already have the attribute's type
    /// (see ``AttributeType``); nil clears it.
    /// - Throws: ``ContextError`` `.unknownProperty`, `.typeMismatch`, `.objectDeleted`,
    ///   or `.invalidIdentity` when another registered object already has the new identity.
    public func setValue(_ value: AttributeValue?, forKey key: String) throws {
        try setValue(value, at: try attributeIndex(key))
    }

    /// Sets the attribute at `index` in ``ResolvedEntity/attributes``.
    /// - Throws: as ``setValue(_:forKey:)``.
    public func setValue(_ value: AttributeValue?, at index: Int) throws {
        guard values.indices.contains(index) else {
            throw ContextError(
                .unknownProperty, entity: entity.name, property: "#\(index)",
                message: "\(entity.name) has \(values.count) attributes")
        }
        let attribute = entity.attributes[index]
        if let value, !ModelResolver.value(value, fits: attribute.type) {
            throw ContextError(
                .typeMismatch, entity: entity.name, property: attribute.name,
                message: "\(value) is not a value of type \(attribute.type)")
        }
        try requireContext().setAttribute(self, index, value)
    }

    // MARK: - Relationships

    /// The destination of the to-one relationship named `key` (faulted in when needed).
    /// - Throws: ``ContextError`` `.unknownProperty` (also for a to-many), store errors.
    public func destination(forKey key: String) throws -> ManagedObject? {
        let i = try relationshipIndex(key, toMany: false)
        guard let id = links[i].first else { return nil }
        return try requireContext().object(with: id)
    }

    /// The destinations of the to-many relationship named `key`: in order for an ordered
    /// relationship, otherwise in the order links were made.
    /// - Throws: ``ContextError`` `.unknownProperty` (also for a to-one), store errors.
    public func destinations(forKey key: String) throws -> [ManagedObject] {
        let i = try relationshipIndex(key, toMany: true)
        let context = try requireContext()
        return try context.links(of: self, i).compactMap { try context.object(with: $0) }
    }

    /// The object IDs linked by the relationship named `key` (to-one: zero or one).
    public func destinationIDs(forKey key: String) throws -> [ObjectID] {
        guard let i = entity.relationshipIndex(of: key) else { throw unknownProperty(key) }
        return try requireContext().links(of: self, i)
    }

    /// The object IDs linked by the relationship at `index` in ``ResolvedEntity/relationships``.
    public func destinationIDs(at index: Int) throws -> [ObjectID] {
        guard links.indices.contains(index) else {
            throw ContextError(
                .unknownProperty, entity: entity.name, property: "#\(index)",
                message: "\(entity.name) has \(links.count) relationships")
        }
        return try requireContext().links(of: self, index)
    }

    /// Sets the to-one relationship named `key` (nil clears it); the inverse follows.
    public func setDestination(_ destination: ManagedObject?, forKey key: String) throws {
        let i = try relationshipIndex(key, toMany: false)
        try requireContext().setLinks(self, i, destination.map { [$0.objectID] } ?? [], checking: destination.map { [$0] } ?? [])
    }

    /// Replaces the content of the to-many relationship named `key`; inverses follow.
    public func setDestinations(_ destinations: [ManagedObject], forKey key: String) throws {
        let i = try relationshipIndex(key, toMany: true)
        try requireContext().setLinks(self, i, destinations.map(\.objectID), checking: destinations)
    }

    // MARK: - Description

    /// `Character/3 {id: 1699, name: "Batman"}` (identity attributes, or the first three
    /// attributes; `placeholder` marked).
    /// The object's current values (with unsaved changes) as a snapshot, for evaluating a
    /// predicate on it (to-many slots without inverse changes not yet applied).
    var currentSnapshot: ObjectSnapshot {
        ObjectSnapshot(id: objectID, isPlaceholder: isPlaceholder, attributes: values, relationships: links)
    }

    public var description: String {
        let shown = entity.identityAttributeIndexes.isEmpty ? Array(values.indices.prefix(3)) : entity.identityAttributeIndexes
        let parts = shown.map { "\(entity.attributes[$0].name): \(values[$0]?.description ?? "nil")" }
        return "\(objectID) {\(parts.joined(separator: ", "))}\(isPlaceholder ? " placeholder" : "")"
    }

    // MARK: - Internals

    func directBit(_ i: Int) -> Bool { directLinks & (1 << UInt64(min(i, 63))) != 0 }

    private func requireContext() throws -> ObjectContext {
        guard let context else {
            throw ContextError(
                .objectDeleted, entity: entity.name, property: nil,
                message: "\(objectID) is no longer registered in a context")
        }
        return context
    }

    private func attributeIndex(_ key: String) throws -> Int {
        guard let i = entity.attributeIndex(of: key) else { throw unknownProperty(key) }
        return i
    }

    private func relationshipIndex(_ key: String, toMany: Bool) throws -> Int {
        guard let i = entity.relationshipIndex(of: key), entity.relationships[i].isToMany == toMany else {
            throw ContextError(
                .unknownProperty, entity: entity.name, property: key,
                message: "\(entity.name) has no \(toMany ? "to-many" : "to-one") relationship '\(key)'")
        }
        return i
    }

    private func unknownProperty(_ key: String) -> ContextError {
        ContextError(.unknownProperty, entity: entity.name, property: key, message: "\(entity.name) has no property '\(key)'")
    }
}

/// The saved state of a managed object (for change detection and rollback).
struct CommittedState {
    var values: [AttributeValue?]
    var links: [[ObjectID]]
    var isPlaceholder: Bool
}

/// Pending inverse-maintenance operations on one to-many slot.
struct PendingLinks {
    var slot: Int
    /// (added?, object) in the order they happened.
    var operations: [(add: Bool, id: ObjectID)]
}
