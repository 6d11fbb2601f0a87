/// Stored placeholders completed as a sub-entity (``ObjectChange/entityName``).
extension InMemorySession {
    /// Gives each stored placeholder an update names with a new entity that entity: its row
    /// keeps its key, values and links, widened to the sub-entity's properties (the parent's
    /// come first, so positions stay), and indexed in the sub-entity's identity namespaces;
    /// every link to it, in any row, then names its new ID.
    /// - Returns: old ID → new ID.
    /// - Throws: `.unknownObject` when there is no such placeholder; `.constraintViolation`
    ///   for an object that is not a placeholder, or an entity that is not a sub-entity of its own.
    /// - Complexity: O(changes) plus, when any object is retyped, one pass over every stored link.
    func retype(_ changes: [ObjectChange]) throws -> [ObjectID: ObjectID] {
        var retyped: [ObjectID: ObjectID] = [:]
        for change in changes {
            guard let name = change.entityName else { continue }
            let old = try entityInfo(change.id.entityName)
            let new = try entityInfo(name)
            let table = old.rootNumber
            guard let i = state.tables[table].rows.index(forKey: change.id.primaryKey),
                state.tables[table].rows.values[i].entity == old.number
            else {
                throw StoreError(.unknownObject, message: "cannot make \(change.id) \(withIndefiniteArticle(name)): no such object")
            }
            guard state.tables[table].rows.values[i].isPlaceholder, old !== new, old.includes(new.number) else {
                throw StoreError(
                    .constraintViolation,
                    message: "cannot make \(change.id) \(withIndefiniteArticle(name)): only a placeholder "
                        + "becomes one of its entity's sub-entities")
            }
            var row = state.tables[table].rows.values[i]
            row.entity = new.number
            row.attributes += Array(repeating: nil, count: max(0, new.entity.attributes.count - row.attributes.count))
            row.relationships += Array(repeating: [], count: max(0, new.relationships.count - row.relationships.count))
            try index(new, change.id.primaryKey, row.attributes)
            state.tables[table].rows.values[i] = row
            retyped[change.id] = ObjectID(entityName: name, primaryKey: change.id.primaryKey)
        }
        if retyped.isEmpty { return retyped }
        for t in state.tables.indices where !state.tables[t].rows.isEmpty {
            for k in state.tables[t].rows.indices {
                let entity = schema.entities[state.tables[t].rows.values[k].entity]
                for slot in state.tables[t].rows.values[k].relationships.indices {
                    let links = state.tables[t].rows.values[k].relationships[slot]
                    guard links.contains(where: { retyped[$0] != nil }) else { continue }
                    var renamed = links.map { retyped[$0] ?? $0 }
                    // Unordered to-manys are kept sorted by ID, which includes the entity name.
                    if entity.relationships[slot].isToMany, !entity.relationships[slot].isOrdered { renamed.sort() }
                    state.tables[t].rows.values[k].relationships[slot] = renamed
                }
            }
        }
        if !state.orders.isEmpty {
            var orders: [OrderSlot: [ObjectID: Int]] = [:]
            for (slot, positions) in state.orders {
                var renamed: [ObjectID: Int] = [:]
                for (member, position) in positions { renamed[retyped[member] ?? member] = position }
                orders[OrderSlot(object: retyped[slot.object] ?? slot.object, slot: slot.slot)] = renamed
            }
            state.orders = orders
        }
        return retyped
    }
}
