/// Relationships of the in-memory store: setting a slot keeps the inverse side in step.
extension InMemorySession {
    /// Runs `body` on the row of `id` in place; false when there is no such row.
    @discardableResult
    func modifyRow(_ id: ObjectID, _ body: (inout InMemoryRow) -> Void) -> Bool {
        guard let info = schema.info(named: id.entityName),
            let i = state.tables[info.rootNumber].rows.index(forKey: id.primaryKey)
        else { return false }
        body(&state.tables[info.rootNumber].rows.values[i])
        return true
    }

    /// Sets relationship `index` of `id` and keeps the inverse side in step.
    func setRelationship(_ id: ObjectID, _ info: EntityInfo, _ index: Int, _ given: [ObjectID]) throws {
        let rel = info.relationships[index]
        if rel.storage == .derivedFromInverse {
            // Membership is kept from the inverse's foreign keys; an ordered one takes its order
            // from here (members it does not list come last, by key), as in the SQLite store.
            if rel.isOrdered {
                var positions: [ObjectID: Int] = [:]
                for (i, d) in given.enumerated() where positions[d] == nil { positions[d] = i }
                let slot = OrderSlot(object: id, slot: index)
                state.orders[slot] = positions
                reorder.insert(slot)
            }
            return
        }
        var new = given
        if !rel.isToMany {
            guard new.count <= 1 else {
                throw StoreError(.engine, message: "\(id).\(rel.description.name) is a to-one; got \(new.count) destinations")
            }
        } else if new.count > 1 {
            if rel.isOrdered {
                if new.count <= 16 {
                    var unique: [ObjectID] = []
                    unique.reserveCapacity(new.count)
                    for d in new where !unique.contains(d) { unique.append(d) }
                    new = unique
                } else {
                    var seen = Set<ObjectID>()
                    new = new.filter { seen.insert($0).inserted }
                }
            } else if !zip(new, new.dropFirst()).allSatisfy({ $0 < $1 }) {
                new.sort()
                var unique: [ObjectID] = []
                unique.reserveCapacity(new.count)
                for d in new where unique.last != d { unique.append(d) }
                new = unique
            }
        }
        let table = info.rootNumber
        guard let own = state.tables[table].rows.index(forKey: id.primaryKey) else {
            throw StoreError(.unknownObject, message: "\(id) does not exist")
        }
        let old = state.tables[table].rows.values[own].relationships[index]
        state.tables[table].rows.values[own].relationships[index] = new
        let (removed, added) = difference(old, new)
        let inverse = rel.inverseIndex
        // Dictionary indexes stay valid: rows are only changed in place below.
        for d in added {
            guard let (root, k) = locate(d), schema.entities[rel.destinationNumber].includes(state.tables[root].rows.values[k].entity) else {
                throw StoreError(
                    .constraintViolation,
                    message: "\(id).\(rel.description.name) points at \(d), which does not exist "
                        + "or is not \(withIndefiniteArticle(schema.entities[rel.destinationNumber].name))")
            }
            guard let inverse else { continue }
            if rel.inverseIsToMany {
                InMemorySession.insert(id, into: &state.tables[root].rows.values[k].relationships[inverse], ordered: rel.inverseIsOrdered)
                if !rel.isToMany, rel.inverseIsOrdered { reorder.insert(OrderSlot(object: d, slot: inverse)) }
            } else {
                // One-to-one: the destination's previous source loses its link.
                let previous = state.tables[root].rows.values[k].relationships[inverse].first
                state.tables[root].rows.values[k].relationships[inverse] = [id]
                if let previous, previous != id {
                    modifyRow(previous) { row in
                        if row.relationships[index].first == d { row.relationships[index] = [] }
                    }
                }
            }
        }
        if let inverse {
            for d in removed {
                unlink(d, inverse, from: id)
                // An object that leaves an ordered to-many through its to-one loses its place
                // there: coming back, it joins the members the order does not list (the SQLite
                // store deletes its order row).
                if !rel.isToMany, rel.inverseIsOrdered {
                    state.orders[OrderSlot(object: d, slot: inverse)]?[id] = nil
                }
            }
        }
    }

    /// Puts the members of an ordered to-many whose inverse is a to-one in the order last
    /// given for it; members it does not list come after, by key.
    func applyOrder(_ slot: OrderSlot) {
        let positions = state.orders[slot] ?? [:]
        _ = modifyRow(slot.object) { row in
            let members = row.relationships[slot.slot]
            let listed = members.filter { positions[$0] != nil }.sorted { positions[$0]! < positions[$1]! }
            let unlisted = members.filter { positions[$0] == nil }.sorted { $0.primaryKey < $1.primaryKey }
            row.relationships[slot.slot] = listed + unlisted
        }
    }

    /// The table and dictionary index of the row of `id`, when it exists with that concrete entity.
    private func locate(_ id: ObjectID) -> (Int, Dictionary<Int64, InMemoryRow>.Index)? {
        guard let info = schema.info(named: id.entityName),
            let k = state.tables[info.rootNumber].rows.index(forKey: id.primaryKey),
            state.tables[info.rootNumber].rows.values[k].entity == info.number
        else { return nil }
        return (info.rootNumber, k)
    }

    private func difference(_ old: [ObjectID], _ new: [ObjectID]) -> (removed: [ObjectID], added: [ObjectID]) {
        if old.isEmpty { return ([], new) }
        if old.count * new.count <= 256 {
            return (old.filter { !new.contains($0) }, new.filter { !old.contains($0) })
        }
        let oldSet = Set(old)
        let newSet = Set(new)
        return (old.filter { !newSet.contains($0) }, new.filter { !oldSet.contains($0) })
    }

    private func unlink(_ destination: ObjectID, _ slot: Int, from source: ObjectID) {
        modifyRow(destination) { row in
            if let i = row.relationships[slot].firstIndex(of: source) { row.relationships[slot].remove(at: i) }
        }
    }

    /// Adds `source` to a to-many slot: appended when ordered, else at its sorted position.
    static func insert(_ source: ObjectID, into slot: inout [ObjectID], ordered: Bool) {
        if ordered {
            if !slot.contains(source) { slot.append(source) }
            return
        }
        // New keys are usually the largest, so check the end first.
        if let last = slot.last, last < source {
            slot.append(source)
            return
        }
        var low = 0
        var high = slot.count
        while low < high {
            let mid = (low + high) / 2
            if slot[mid] < source { low = mid + 1 } else { high = mid }
        }
        if low < slot.count, slot[low] == source { return }
        slot.insert(source, at: low)
    }
}
