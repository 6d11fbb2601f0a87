/// Objects without identity attributes, nested under a relationship: found again among that
/// relationship's current destinations, so an import of what an export wrote changes nothing
/// (and a re-imported payload does not leave the old objects behind, unlinked).
///
/// No identity finds such an object; it belongs to the object that links it. So a JSON object
/// of an entity without identity attributes, in a relationship that replaces its links (not
/// one with the `append` merge policy), resolves to one of the relationship's current
/// destinations of the entity its mapper chose, in the order an export writes them (an
/// ordered to-many's order; otherwise by object ID):
/// 1. the first whose attributes the JSON leaves as they are (an unchanged object);
/// 2. else the first that no JSON object of the relationship took (updated in place);
/// 3. else a new object.
/// For a to-one, the current destination. The matching is done for all of a to-many's JSON
/// objects before any is applied, so an unchanged object is never taken by an earlier,
/// changed one. Destinations no JSON object took are unlinked, as before (not deleted).
extension Importer {
    /// Assigns the JSON objects of relationship `r`'s `value` (the elements phase 3 applies
    /// next, from ``cursor``) to the current destinations `current` of the object being
    /// applied, in ``ownedDestinations``, by the rules above.
    func matchOwnedDestinations(
        _ r: RelationshipPlan, _ value: JSONValue, of source: EntityInfo,
        current: [ObjectID]
    ) throws {
        // The JSON objects without identity, by their position in `prepared` (an object of a
        // sub-entity with identity attributes of its own is found by them).
        var positions: [Int] = []
        var position = cursor
        func consider(_ position: Int) {
            let p = prepared[position]
            if p.object != nil, p.identity == nil, p.walk.entity.identityAttributeIndexes.isEmpty { positions.append(position) }
        }
        switch value {
        case .object:
            consider(position)
        case .array(let items):
            for item in items {
                if case .null = item { continue }
                consider(position)
                position = prepared[position].end
            }
        default:
            return
        }
        if positions.isEmpty { return }
        var candidates = current
        if r.isToMany, !source.relationships[r.slot].isOrdered { candidates.sort() }
        let objects = try ownedObjects(candidates)
        var taken = [Bool](repeating: false, count: objects.count)
        var assigned = [ManagedObject?](repeating: nil, count: positions.count)
        // 1. Unchanged objects.
        for (k, position) in positions.enumerated() {
            let p = prepared[position]
            guard let json = p.object else { continue }
            let plan = try self.plan(p.walk)
            for (i, object) in objects.enumerated() where !taken[i] && object.info === p.walk {
                if try attributesMatch(object.values, object.info, plan, json, p, r.destination) {
                    taken[i] = true
                    assigned[k] = object
                    break
                }
            }
        }
        // 2. Objects left over, in order.
        for (k, position) in positions.enumerated() where assigned[k] == nil {
            let walk = prepared[position].walk
            if let i = objects.indices.first(where: { !taken[$0] && objects[$0].info === walk }) {
                taken[i] = true
                assigned[k] = objects[i]
            }
        }
        for (k, position) in positions.enumerated() {
            if let object = assigned[k] { ownedDestinations[position] = object }
        }
    }

    /// The object a JSON object at `position` resolves to by the rules above, if any (taken
    /// once).
    @inline(__always)
    func ownedDestination(at position: Int) -> ManagedObject? {
        if ownedDestinations.isEmpty { return nil }
        return ownedDestinations.removeValue(forKey: position)
    }

    /// The registered objects with `ids` (fetched in one store read for those not registered),
    /// in the order of `ids`; deleted or missing ones are left out.
    private func ownedObjects(_ ids: [ObjectID]) throws -> [ManagedObject] {
        let missing = ids.filter { context.registered[$0] == nil && !$0.isTemporary }
        if !missing.isEmpty {
            for snapshot in try session.fetch(ids: missing) { _ = try context.register(snapshot) }
        }
        return ids.compactMap { id in
            guard let object = context.registered[id], !object.isDeletedFlag else { return nil }
            return object
        }
    }
}
