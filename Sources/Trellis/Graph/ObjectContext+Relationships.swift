/// Relationship reads and writes, with inverse maintenance.
///
/// Emission rule (what ``ObjectContext/save()`` writes): a to-one slot is written whenever
/// its value changed (it is a foreign key); a to-many slot only when it was set directly.
/// Changes a to-many receives as the inverse of another relationship are implied by that
/// relationship's change (a foreign key or a join table row), so they are kept as pending
/// operations and applied when the slot is read.
extension ObjectContext {
    /// The current destinations of slot `slot`, with pending inverse operations applied.
    func links(of object: ManagedObject, _ slot: Int) -> [ObjectID] {
        guard var pending = object.pending, let k = pending.firstIndex(where: { $0.slot == slot }) else {
            return object.links[slot]
        }
        let operations = pending[k].operations
        pending.remove(at: k)
        object.pending = pending.isEmpty ? nil : pending
        var list = object.links[slot]
        if list.count + operations.count <= 32 {
            for (add, id) in operations {
                if add {
                    if !list.contains(id) { list.append(id) }
                } else if let i = list.firstIndex(of: id) {
                    list.remove(at: i)
                }
            }
        } else {
            var members = Set(list)
            var removed = false
            for (add, id) in operations {
                if add {
                    if members.insert(id).inserted {
                        if removed, let i = list.firstIndex(of: id) { list.remove(at: i) }
                        list.append(id)
                    }
                } else if members.remove(id) != nil {
                    removed = true
                }
            }
            if removed { list.removeAll { !members.contains($0) } }
        }
        object.links[slot] = list
        return list
    }

    /// Applies every pending operation of `object`.
    func materializeLinks(_ object: ManagedObject) {
        while let slot = object.pending?.first?.slot { _ = links(of: object, slot) }
    }

    /// Public path: checks the destinations, then sets.
    func setLinks(_ object: ManagedObject, _ slot: Int, _ ids: [ObjectID], checking destinations: [ManagedObject]) throws {
        let rel = object.info.relationships[slot]
        guard !object.isDeletedFlag else {
            throw ContextError(
                .objectDeleted, entity: object.entity.name, property: rel.description.name,
                message: "\(object.objectID) is deleted")
        }
        let destinationInfo = schema.entities[rel.destinationNumber]
        for d in destinations {
            guard d.context === self, !d.isDeletedFlag else {
                throw ContextError(
                    .objectDeleted, entity: object.entity.name, property: rel.description.name,
                    message: "\(d.objectID) is deleted or belongs to another context")
            }
            guard destinationInfo.includes(d.info.number) else {
                throw ContextError(
                    .wrongDestination, entity: object.entity.name, property: rel.description.name,
                    message: "\(d.objectID) is not \(withIndefiniteArticle(destinationInfo.name))")
            }
        }
        var unique = ids
        if rel.isToMany {
            var seen = Set<ObjectID>()
            unique = ids.filter { seen.insert($0).inserted }
        }
        try setLinksCore(object, slot, unique)
    }

    /// Sets slot `slot` of `object` to `new` (no duplicates) and updates the inverses.
    func setLinksCore(_ object: ManagedObject, _ slot: Int, _ new: [ObjectID]) throws {
        let rel = object.info.relationships[slot]
        let old = links(of: object, slot)
        if linksEqual(old, new, unorderedToMany: rel.isToMany && !rel.isOrdered) { return }
        object.links[slot] = new
        object.directLinks |= 1 << UInt64(min(slot, 63))
        markDirty(object)
        guard let inverse = rel.inverseIndex else { return }
        let (removed, added) = difference(old, new)
        for d in removed { try inverseRemove(d, inverse, source: object.objectID, rel) }
        for d in added { try inverseAdd(d, inverse, source: object.objectID, rel, slot) }
    }

    /// `true` when setting `new` over `old` changes nothing: the same list, or, for an
    /// unordered to-many, the same members in another order.
    func linksEqual(_ old: [ObjectID], _ new: [ObjectID], unorderedToMany: Bool) -> Bool {
        old == new || (unorderedToMany && old.count == new.count && sameMembers(old, new))
    }

    /// `true` when two duplicate-free lists hold the same IDs (in any order).
    func sameMembers(_ a: [ObjectID], _ b: [ObjectID]) -> Bool {
        if a.count <= 16 { return b.allSatisfy(a.contains) }
        return Set(a) == Set(b)
    }

    func difference(_ old: [ObjectID], _ new: [ObjectID]) -> (removed: [ObjectID], added: [ObjectID]) {
        if old.isEmpty { return ([], new) }
        if new.isEmpty { return (old, []) }
        if old.count * new.count <= 256 {
            return (old.filter { !new.contains($0) }, new.filter { !old.contains($0) })
        }
        let oldSet = Set(old)
        let newSet = Set(new)
        return (old.filter { !newSet.contains($0) }, new.filter { !oldSet.contains($0) })
    }

    /// Records an operation on a to-many slot of the object with `id` (registered or not).
    func addPending(_ id: ObjectID, _ slot: Int, add: Bool, _ other: ObjectID) {
        if let object = registered[id] {
            if let unread = unreadInverses, unread.skips(object, slot) { return }
            if object.pending == nil { object.pending = [] }
            if let k = object.pending?.firstIndex(where: { $0.slot == slot }) {
                object.pending?[k].operations.append((add, other))
            } else {
                object.pending?.append(PendingLinks(slot: slot, operations: [(add, other)]))
            }
        } else if !id.isTemporary {
            // Mutated in place: a copy taken out of the dictionary would copy the list on
            // every append (quadratic for a popular destination: a publisher of 5,000 characters).
            if let k = pendingUnregistered[id]?.firstIndex(where: { $0.slot == slot }) {
                pendingUnregistered[id]?[k].operations.append((add, other))
            } else {
                pendingUnregistered[id, default: []].append(PendingLinks(slot: slot, operations: [(add, other)]))
            }
        }
    }

    /// `destination` gained `source` in the relationship whose inverse is slot `inverse`.
    private func inverseAdd(
        _ destination: ObjectID, _ inverse: Int, source: ObjectID, _ rel: RelationshipInfo,
        _ slot: Int
    ) throws {
        if rel.inverseIsToMany {
            addPending(destination, inverse, add: true, source)
            return
        }
        guard let d = try object(with: destination) else { return }
        let previous = d.links[inverse].first
        if previous == source { return }
        d.links[inverse] = [source]
        markDirty(d)
        guard let previous else { return }
        // The destination's previous source loses its link to it.
        if rel.isToMany {
            addPending(previous, slot, add: false, destination)
        } else if let p = try object(with: previous), p.links[slot].first == destination {
            p.links[slot] = []
            markDirty(p)
        }
    }

    /// `destination` lost `source` in the relationship whose inverse is slot `inverse`.
    private func inverseRemove(_ destination: ObjectID, _ inverse: Int, source: ObjectID, _ rel: RelationshipInfo) throws {
        if rel.inverseIsToMany {
            addPending(destination, inverse, add: false, source)
            return
        }
        guard let d = try object(with: destination), d.links[inverse].first == source else { return }
        d.links[inverse] = []
        markDirty(d)
    }
}

/// Which inverse to-many changes an import may leave unrecorded: those of objects it
/// registered itself (dropped after the batch is written, epoch ≥ `epoch`) in slots no
/// mapping of their entity reads. The store writes a link from the side that set it (a
/// character's powers, its publisher), never from these pending lists, and nothing reads
/// them before the objects are dropped; objects registered before the import keep theirs.
struct InverseBookkeeping {
    let epoch: Int
    /// `unread[entity number][slot]`: the entity maps no JSON key path to that relationship.
    let unread: [[Bool]]

    init(schema: ModelSchema, epoch: Int) {
        self.epoch = epoch
        unread = schema.entities.map { info in
            var unread = [Bool](repeating: true, count: info.relationships.count)
            for mapping in info.entity.relationshipMappings where mapping.index < unread.count { unread[mapping.index] = false }
            return unread
        }
    }

    @inline(__always)
    func skips(_ object: ManagedObject, _ slot: Int) -> Bool {
        object.epoch >= epoch && unread[object.info.number][slot]
    }
}
