/// Phase 3 of a batch, *apply*: the elements are walked again, in the order of phase 1
/// (``Importer/walkRelationships(of:_:_:)`` serves both), and each prepared element, taken in
/// turn, resolves to its object (``resolve(_:_:at:)``) and merges its values and links into it.
extension Importer {
    /// Applies a top-level element; a new object is kept to read its permanent ID after the flush.
    func applyTopLevel() throws -> TopLevelObject {
        let id = try apply(root)
        if id.isTemporary, let object = context.registered[id] { return .new(object) }
        return .stored(id)
    }

    /// Finds or creates the object of the next prepared element and sets its values and links.
    /// Returns its ID (temporary for a new object until the batch is flushed).
    func apply(_ requested: EntityInfo) throws -> ObjectID {
        let position = cursor
        let p = prepared[position]
        cursor += 1
        precondition(p.requested == requested.number, "import phases out of step at element \(position)")
        if p.leaf >= 0, let earlier = resolvedLeaves[p.leaf] {
            // The same nested object, without relationships, was applied earlier in this batch.
            return earlier
        }
        let resolution = try resolve(p, requested, at: position)
        guard let json = p.object else {
            if p.isReference { countTopLevelReference(resolution) }
            switch resolution {
            case .registered(let object), .new(let object): return object.objectID
            case .stored(let s): return stored[s].snapshot.id
            }
        }
        let id: ObjectID
        switch resolution {
        case .registered(let object):
            id = try applyValues(to: object, try plan(object.info), isNew: false, p, json, requested, position)
        case .new(let object):
            id = try applyValues(to: object, try plan(object.info), isNew: true, p, json, requested, position)
        case .stored(let s):
            let plan = try self.plan(stored[s].info)
            if try storedAttributesMatch(s, plan, json, p, requested) {
                id = try applyLinks(toStored: s, p, json, position)
            } else {
                // Something differs: the object is registered and updated as any other.
                id = try applyValues(to: try materialize(s), plan, isNew: false, p, json, requested, position)
            }
        }
        precondition(cursor == p.end, "import phases out of step after element \(position)")
        return id
    }

    /// Sets the JSON's attributes and relationships on a registered (or new) object.
    func applyValues(
        to object: ManagedObject, _ plan: EntityPlan, isNew: Bool, _ p: Prepared, _ json: JSONObject,
        _ requested: EntityInfo, _ position: Int
    ) throws -> ObjectID {
        if p.leaf == Prepared.firstLeaf { resolvedLeaves[position] = object.objectID }
        touch(object)
        var values = object.values
        let completes = object.isPlaceholder
        if completes { try checkCompletable(object, json) }
        var given: [Bool] = completes ? Array(repeating: false, count: values.count) : []
        var changed = try mergeAttributes(plan, json, into: &values, of: object, p, requested, given: &given)
        if completes, completionDefaults(object, &values, given: given) { changed = true }
        if changed { object.values = values }
        if completes { object.isPlaceholder = false }
        if changed || completes { context.markDirty(object) }
        if isNew { context.indexIdentity(object) }

        let walkPlan = p.walk === object.info ? plan : try self.plan(p.walk)
        try walkRelationships(of: json, walkPlan) { r, value in
            let current = r.findsOwnedObjects ? context.links(of: object, r.slot) : nil
            guard let links = try destinations(r, value, of: object.info, current: current) else { return }
            try setLinks(object, r, links)
        }
        if isNew || completes { try checkRequiredAttributes(object, plan) }
        return object.objectID
    }

    /// The relationship's new links from its JSON value, applying the nested objects (phase 3
    /// order); nil when it leaves them as they are (null under ``NullPolicy/ignore``).
    /// `current`, when ``RelationshipPlan/findsOwnedObjects``, holds the links of the object
    /// being applied (of entity `source`), among which nested objects without identity
    /// attributes are found (``matchOwnedDestinations(_:_:of:current:)``).
    func destinations(_ r: RelationshipPlan, _ value: JSONLookup, of source: EntityInfo, current: [ObjectID]?) throws -> NewLinks? {
        guard case .present(let v) = value else { return linksForNull }
        if let current, !current.isEmpty { try matchOwnedDestinations(r, v, of: source, current: current) }
        if !r.isToMany { return NewLinks(ids: [try apply(r.destination)], appends: false) }
        guard case .array(let items) = v else { return nil }  // phase 1 has thrown `.notAnArray`
        var ids: [ObjectID] = []
        ids.reserveCapacity(items.count)
        for i in items.indices {
            if case .null = items[i] { continue }  // skipped, and counted in phase 1 (``walkElements(of:_:)``)
            ids.append(try withStep(.index(i)) { try apply(r.destination) })
        }
        return toManyLinks(ids, r)
    }

    /// Sets a relationship of a registered object to the new links (after the current ones,
    /// without repeats, when they append).
    func setLinks(_ object: ManagedObject, _ r: RelationshipPlan, _ links: NewLinks) throws {
        try context.setLinksCore(object, r.slot, links.appends ? links.applied(to: context.links(of: object, r.slot)) : links.ids)
    }

    /// Records `object` as touched by this batch (once), for the report and the flush; `path`
    /// is where its JSON is in the element (the current path unless given).
    func touch(_ object: ManagedObject, at path: [PathStep]? = nil) {
        if object.mark != batchNumber {
            object.mark = batchNumber
            object.flushWrote = false
            touched.append(object)
            noteConstrained(object, path ?? steps)
        }
    }
}
