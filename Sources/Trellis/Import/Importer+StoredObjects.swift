/// Stored objects fetched for a batch and left unregistered until they differ.
extension Importer {
    /// Keeps a fetched snapshot for phase 3 without registering it, findable by its
    /// identity in each of its entity's identity namespaces.
    func keepStored(_ snapshot: ObjectSnapshot) throws {
        guard let info = schema.info(named: snapshot.id.entityName) else {
            throw StoreError(.unknownObject, message: "the store returned an object of unknown entity '\(snapshot.id.entityName)'")
        }
        let position = stored.count
        stored.append(StoredObject(snapshot: snapshot, info: info))
        for namespace in info.lineageNamespaces {
            if let key = schema.entities[namespace].identity(of: snapshot.attributes) {
                storedByIdentity[NamespacedIdentity(namespace: namespace, key: key)] = position
            }
        }
    }

    /// The stored object `s` as a registered object (registered now, unless an inverse or
    /// a nested occurrence registered it already).
    func materialize(_ s: Int) throws -> ManagedObject {
        try context.register(stored[s].snapshot)
    }

    /// The registered object with stored object `id`; no lookup while nothing was
    /// registered since the fetch (a re-import of unchanged objects registers nothing).
    @inline(__always)
    func registered(_ id: ObjectID) -> ManagedObject? {
        context.registrationCount == storedRegistrationCount ? nil : context.registered[id]
    }

    /// `true` when stored object `id` may differ from its snapshot: registered since the fetch
    /// (by a nested occurrence or an inverse faulting it in), or with inverse changes waiting.
    @inline(__always)
    func isAheadOfSnapshot(_ id: ObjectID) -> Bool {
        registered(id) != nil || (!context.pendingUnregistered.isEmpty && context.pendingUnregistered[id] != nil)
    }

    /// `true` when setting the JSON's attributes on stored object `s` would change nothing
    /// (the same test as ``applyValues(to:_:isNew:_:_:_:_:)``); `false` also for a
    /// placeholder (it completes) and for an object with inverse changes waiting.
    func storedAttributesMatch(
        _ s: Int, _ plan: EntityPlan, _ json: JSONObject, _ p: Prepared,
        _ requested: EntityInfo
    ) throws -> Bool {
        let id = stored[s].snapshot.id
        if stored[s].snapshot.isPlaceholder || isAheadOfSnapshot(id) { return false }
        return try attributesMatch(stored[s].snapshot.attributes, stored[s].info, plan, json, p, requested)
    }

    /// Applies the relationships of stored object `s`, whose attributes match: the nested
    /// objects are applied, and the object is registered only when a relationship changes
    /// (the same test as ``ObjectContext/setLinksCore(_:_:_:)``). Otherwise it is recorded
    /// as unchanged and stays unregistered.
    func applyLinks(toStored s: Int, _ p: Prepared, _ json: JSONObject, _ position: Int) throws -> ObjectID {
        let id = stored[s].snapshot.id
        if p.leaf == Prepared.firstLeaf { resolvedLeaves[position] = id }
        let walkPlan = try plan(p.walk)
        var object: ManagedObject?
        // Where the object is (touched below, inside the walk), kept only for relationship rules.
        let path: [PathStep]? = relationshipRules[stored[s].info.number] != nil ? steps : nil
        try walkRelationships(of: json, walkPlan) { r, value in
            let current =
                !r.findsOwnedObjects
                ? nil
                : registered(id).map { context.links(of: $0, r.slot) } ?? stored[s].snapshot.relationships[r.slot]
            guard let links = try destinations(r, value, of: stored[s].info, current: current) else { return }
            if object == nil {
                // Registered meanwhile by a nested occurrence, or with inverse changes waiting
                // (a member moving to another team): its links are set as for any object.
                // Otherwise only a link that differs from the snapshot registers it.
                if !isAheadOfSnapshot(id), linksUnchanged(stored[s].snapshot.relationships[r.slot], links, r, stored[s].info) {
                    return
                }
                let materialized = try materialize(s)
                touch(materialized, at: path)
                object = materialized
            }
            if let object { try setLinks(object, r, links) }
        }
        if object == nil { unchangedStored.append(s) }
        return id
    }
}

/// A stored object fetched for a batch and not registered (yet): phase 3 compares the JSON
/// with its snapshot and registers it only when something differs.
struct StoredObject {
    let snapshot: ObjectSnapshot
    let info: EntityInfo
    /// An earlier element of the batch had the same identity (for `.duplicateIdentity`).
    var isMet = false
}
