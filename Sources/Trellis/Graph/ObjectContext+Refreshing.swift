/// Bringing a registered object up to date with the store.
extension ObjectContext {
    /// Makes `snapshot`, the store's current row of `object`, the object's saved state,
    /// keeping the context's unsaved changes: each attribute and relationship the context
    /// changed keeps its value (and is written by the next save, as before), every other one
    /// takes the stored value (Core Data's refresh with `mergeChanges: true`).
    ///
    /// An object read before another connection committed still holds what it read; an
    /// import that compared its payload with such an object would skip values it believes
    /// are stored, and so leave the other connection's values in place (a lost update).
    /// The importer therefore refreshes the registered objects a payload names, in its write
    /// transaction, before comparing.
    ///
    /// To-many slots with unapplied inverse operations count as changed. Inverse slots of
    /// other registered objects are not adjusted (they may be as stale as any object read
    /// earlier).
    func refresh(_ object: ManagedObject, from snapshot: ObjectSnapshot) {
        guard let old = object.committed, snapshot.id == object.objectID,
            snapshot.attributes.count == object.values.count, snapshot.relationships.count == object.links.count
        else { return }
        let stored = CommittedState(values: snapshot.attributes, links: snapshot.relationships, isPlaceholder: snapshot.isPlaceholder)
        guard stored.values != old.values || stored.links != old.links || stored.isPlaceholder != old.isPlaceholder else { return }
        var values = object.values
        for i in values.indices where values[i] == old.values[i] { values[i] = stored.values[i] }
        if values != object.values {
            unindexIdentity(object)
            object.values = values
            indexIdentity(object)
        }
        if object.isPlaceholder == old.isPlaceholder { object.isPlaceholder = stored.isPlaceholder }
        for i in object.links.indices {
            let changed =
                object.links[i] != old.links[i] || object.directBit(i)
                || object.pending?.contains(where: { $0.slot == i }) == true
            if !changed { object.links[i] = stored.links[i] }
        }
        object.committed = stored
    }
}
