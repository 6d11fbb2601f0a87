/// Completing a placeholder as a sub-entity of its entity.
///
/// A placeholder holds only its identity: a bare identifier to `Vehicle` (`"favorite_id": 12`)
/// cannot tell a Car from a Bike. When the object with that identity is imported and turns
/// out to be a Car, the placeholder *becomes* Car 12: same primary key, same links (every
/// owner still points at it), values of its own now. Only placeholders change entity, and
/// only downwards (to a sub-entity of the entity they have): a full object never does.
///
/// In the context the placeholder is replaced by a new ``ManagedObject`` of the sub-entity
/// (``ManagedObject/replacement``), registered under the new ID; links still naming the old
/// ID (a source set earlier in the batch) are rewritten when the change set is made. In the
/// store the change is an ``ObjectChange/entityName`` for a stored placeholder (SQLite: its
/// `_entity` column; the in-memory store: its row and every link to it), nothing for a new
/// one (it is inserted as the sub-entity).
extension ObjectContext {
    /// Replaces placeholder `placeholder` by an object of `entity` (a sub-entity of its entity)
    /// with the same primary key, values (the sub-entity's own attributes nil) and links.
    /// - Returns: the replacement, registered and dirty.
    func retype(_ placeholder: ManagedObject, as entity: EntityInfo) -> ManagedObject {
        precondition(
            placeholder.isPlaceholder && placeholder.info.includes(entity.number) && placeholder.info !== entity,
            "only a placeholder becomes one of its sub-entities")
        let old = placeholder.objectID
        let id = ObjectID(entityName: entity.name, primaryKey: old.primaryKey)
        let extraValues = entity.entity.attributes.count - placeholder.values.count
        let extraLinks = entity.relationships.count - placeholder.links.count
        func widened(_ values: [AttributeValue?]) -> [AttributeValue?] { values + Array(repeating: nil, count: max(0, extraValues)) }
        func widened(_ links: [[ObjectID]]) -> [[ObjectID]] { links + Array(repeating: [], count: max(0, extraLinks)) }
        let committed = placeholder.committed.map {
            CommittedState(values: widened($0.values), links: widened($0.links), isPlaceholder: $0.isPlaceholder)
        }
        let object = ManagedObject(
            info: entity, id: id, isPlaceholder: true, values: widened(placeholder.values),
            links: widened(placeholder.links), committed: committed, context: self, epoch: placeholder.epoch)
        object.isInsertedFlag = placeholder.isInsertedFlag
        object.pending = placeholder.pending
        object.directLinks = placeholder.directLinks
        object.mark = placeholder.mark
        object.flushWrote = placeholder.flushWrote
        object.retypedFrom = placeholder.isInsertedFlag ? nil : (placeholder.retypedFrom ?? old)

        unregister(placeholder)
        placeholder.replacement = object  // it stays in the dirty list, left out of every save
        registered[id] = object
        registrationCount += 1
        indexIdentity(object)
        markDirty(object)
        retyped[old] = id
        for (from, to) in retyped where to == old { retyped[from] = id }  // retyped twice
        return object
    }

    /// `ids` with every retyped placeholder's old ID replaced by its new one.
    @inline(__always)
    func resolvingRetyped(_ ids: [ObjectID]) -> [ObjectID] {
        if retyped.isEmpty || ids.isEmpty { return ids }
        return ids.map { retyped[$0] ?? $0 }
    }
}
