/// Stored objects fetched for a batch and left unregistered until they differ.
extension Importer {
    // MARK: - Stored objects

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
    func storedAttributesMatch(_ s: Int, _ plan: EntityPlan, _ json: JSONObject, _ p: Prepared,
                                       _ requested: EntityInfo) throws -> Bool {
        let id = stored[s].snapshot.id
        if stored[s].snapshot.isPlaceholder || isAheadOfSnapshot(id) { return false }
        let info = stored[s].info
        for a in plan.attributes {
            guard let new = try incomingValue(a, json, info, p, requested) else { continue }
            if stored[s].snapshot.attributes[a.index] != new { return false }
        }
        return true
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
        for r in walkPlan.relationships {
            guard let links = try destinations(r, json) else { continue }
            if object == nil {
                // Registered meanwhile by a nested occurrence, or with inverse changes waiting
                // (a member moving to another team): its links are set as for any object.
                // Otherwise only a link that differs from the snapshot registers it.
                if !isAheadOfSnapshot(id) {
                    let current = stored[s].snapshot.relationships[r.slot]
                    if context.linksEqual(current, links.appends ? appending(links.ids, to: current) : links.ids,
                                          unorderedToMany: r.isToMany && !stored[s].info.relationships[r.slot].isOrdered) {
                        continue
                    }
                }
                let materialized = try materialize(s)
                touch(materialized)
                object = materialized
            }
            if let object { try setLinks(object, r, links) }
        }
        if object == nil { unchangedStored.append(s) }
        return id
    }

    func resolveBare(_ p: Prepared, _ requested: EntityInfo) throws -> ObjectID {
        guard let identity = p.identity else {
            throw fail(.noSingleIdentity, nil, requested.name, nil, nil, "an identifier without a value")
        }
        if let existing = context.registeredObject(inNamespaceOf: requested, identity) {
            guard requested.includes(existing.info.number) else {
                throw identityConflict(existing.objectID, existing.info, requested, identity, .string(identity.description))
            }
            return existing.objectID
        }
        if !stored.isEmpty, let s = storedByIdentity[NamespacedIdentity(namespace: requested.namespace, key: identity)] {
            guard requested.includes(stored[s].info.number) else {
                throw identityConflict(stored[s].snapshot.id, stored[s].info, requested, identity, .string(identity.description))
            }
            return stored[s].snapshot.id
        }
        guard !requested.entity.isAbstract else {
            throw fail(.abstractEntity, nil, requested.name, nil, identity.values.first.map { _ in .string(identity.description) },
                       "cannot create a placeholder for \(identity): \(requested.name) is abstract")
        }
        var values = [AttributeValue?](repeating: nil, count: requested.entity.attributes.count)
        for (position, index) in requested.entity.identityAttributeIndexes.enumerated() {
            values[index] = identity.values[position]
        }
        let object = context.createObject(requested, isPlaceholder: true, values: values)
        object.mark = batchNumber
        touched.append(object)
        diagnose(.placeholderCreated, "no \(requested.name) with identity \(identity): created a placeholder")
        return object.objectID
    }

    /// `.identityConflict`: `existing` (say a Dog) holds the identity a `requested` object
    /// (a Cat) has, in the namespace of the entity declaring it (Animal). Creating the Cat
    /// would make the store's upsert overwrite the Dog's row.
    func identityConflict(_ existing: ObjectID, _ existingInfo: EntityInfo, _ requested: EntityInfo, _ identity: IdentityKey,
                                  _ value: JSONValue?) -> ImportError {
        let declaring = schema.entities[requested.namespace].name
        return fail(.identityConflict, nil, requested.name, nil, value,
                    "\(requested.name) \(identity) has the identity of \(existingInfo.name) \(identity): "
                        + "identities are unique across \(declaring) and its sub-entities, and an object cannot change its entity")
    }

    /// `ids` without repeats, first occurrence kept.
    func unique(_ ids: [ObjectID]) -> [ObjectID] {
        if ids.count < 2 { return ids }
        if ids.count <= 16 {
            var out: [ObjectID] = []
            out.reserveCapacity(ids.count)
            for id in ids where !out.contains(id) { out.append(id) }
            return out
        }
        var seen = Set<ObjectID>(minimumCapacity: ids.count)
        return ids.filter { seen.insert($0).inserted }
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
