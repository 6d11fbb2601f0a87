/// Phase 3 of a batch, *apply*.
extension Importer {
    // MARK: - Phase 3: apply

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
        if p.leaf >= 0, let earlier = resolvedLeaves[p.leaf] {
            // The same nested object, without relationships, was applied earlier in this batch.
            return earlier
        }
        guard let json = p.object else { return try resolveBare(p, requested) }
        let object: ManagedObject
        var isNew = false
        if let identity = p.identity, let existing = context.registeredObject(inNamespaceOf: requested, identity) {
            var duplicate = existing.mark == batchNumber
            if !stored.isEmpty, let s = storedByIdentity[NamespacedIdentity(namespace: requested.namespace, key: identity)] {
                // Met earlier as a stored object, and registered since (an inverse faulted it in).
                duplicate = duplicate || stored[s].isMet
                stored[s].isMet = true
            }
            try check(existing.info, requested, p, identity, json, duplicate: duplicate, existing.objectID)
            object = existing
        } else if let identity = p.identity, !stored.isEmpty,
                  let s = storedByIdentity[NamespacedIdentity(namespace: requested.namespace, key: identity)] {
            let info = stored[s].info
            try check(info, requested, p, identity, json, duplicate: stored[s].isMet, stored[s].snapshot.id)
            stored[s].isMet = true
            let plan = try self.plan(info)
            guard try storedAttributesMatch(s, plan, json, p, requested) else {
                // Something differs: the object is registered and updated as any other.
                return try applyValues(to: try materialize(s), plan, isNew: false, p, json, requested, position)
            }
            return try applyLinks(toStored: s, p, json, position)
        } else {
            guard !p.walk.entity.isAbstract else {
                throw fail(.abstractEntity, nil, p.walk.name, nil, .object(json),
                           "\(p.walk.name) is abstract and has no entity mapper choosing a sub-entity for this object")
            }
            // Without an identity in the JSON, identity attributes get no default (the object
            // would take over the stored object that has the default as its identity).
            object = context.createObject(p.walk, isPlaceholder: false,
                                          values: p.identity == nil ? p.walk.defaultValuesWithoutIdentity : nil, indexingIdentity: false)
            isNew = true
        }
        return try applyValues(to: object, try plan(object.info), isNew: isNew, p, json, requested, position)
    }

    /// The checks on an object found by identity (registered, or stored): its entity must be
    /// the requested one or a sub-entity (else `.identityConflict`), and the entity mapper's
    /// choice must include it; a top-level object met twice in a batch is diagnosed.
    func check(_ found: EntityInfo, _ requested: EntityInfo, _ p: Prepared, _ identity: IdentityKey, _ json: JSONObject,
                       duplicate: Bool, _ id: ObjectID) throws {
        guard requested.includes(found.number) else {
            throw identityConflict(id, found, requested, identity, .object(json))
        }
        guard p.walk.includes(found.number) else {
            throw fail(.invalidEntity, nil, requested.name, nil, .object(json),
                       "\(found.name) \(identity) exists, but the entity mapper chose \(p.walk.name) for it, and an object cannot change its entity")
        }
        // Met in this batch, or a top-level element of an earlier one.
        if requested === root, steps.isEmpty,
           duplicate || (!id.isTemporary && status[root.rootNumber].isTopLevel(id.primaryKey)) {
            diagnose(.duplicateIdentity, "\(requested.name) \(identity) appears more than once; merged, last value wins")
        }
    }

    /// Sets the JSON's attributes and relationships on a registered (or new) object.
    func applyValues(to object: ManagedObject, _ plan: EntityPlan, isNew: Bool, _ p: Prepared, _ json: JSONObject,
                             _ requested: EntityInfo, _ position: Int) throws -> ObjectID {
        if p.leaf == Prepared.firstLeaf { resolvedLeaves[position] = object.objectID }
        touch(object)
        var values = object.values
        var changed = false
        let completes = object.isPlaceholder
        // A placeholder becomes a full object now: like a new object, it takes the model's
        // defaults for the attributes the JSON leaves out (not for those it sets to null).
        var givenByJSON: [Bool] = completes ? Array(repeating: false, count: values.count) : []
        for a in plan.attributes {
            guard let new = try incomingValue(a, json, object.info, p, requested) else { continue }
            if completes { givenByJSON[a.index] = true }
            if new == nil, !a.isOptional, !object.isPlaceholder, values[a.index] != nil {
                throw fail(.missingRequiredValue, a.keyPath, object.entity.name, a.name, .null,
                           "\(object.entity.name).\(a.name) is required; null cannot clear it")
            }
            if values[a.index] != new {
                values[a.index] = new
                changed = true
            }
        }
        if completes {
            for (i, value) in object.info.defaultValues.enumerated() where value != nil && values[i] == nil && !givenByJSON[i] {
                values[i] = value
                changed = true
            }
        }
        if changed { object.values = values }
        if completes { object.isPlaceholder = false }
        if changed || completes { context.markDirty(object) }
        if isNew { context.indexIdentity(object) }

        let walkPlan = p.walk === object.info ? plan : try self.plan(p.walk)
        for r in walkPlan.relationships {
            guard let links = try destinations(r, json) else { continue }
            try setLinks(object, r, links)
        }
        if isNew || completes {
            for (i, attribute) in object.entity.attributes.enumerated() where !attribute.isOptional && object.values[i] == nil {
                let keyPath = plan.attributes.first(where: { $0.index == i })?.keyPath
                throw fail(.missingRequiredValue, keyPath, object.entity.name, attribute.name, nil,
                           "\(object.entity.name).\(attribute.name) is required" + (keyPath.map { "; the object has no value at '\($0)'" } ?? ""))
            }
        }
        return object.objectID
    }

    /// What the JSON sets attribute `a` of an object of `info` to: nil leaves it as it is (a
    /// missing key, or null under `nullPolicy == .ignore`); `.some(nil)` clears it (null);
    /// otherwise the identity value prepared in phase 1 (an attribute of the identity looked
    /// up) or the JSON value converted.
    @inline(__always)
    func incomingValue(_ a: AttributePlan, _ json: JSONObject, _ info: EntityInfo, _ p: Prepared,
                               _ requested: EntityInfo) throws -> AttributeValue?? {
        switch a.lookup(in: json) {
        case .missing:
            return nil
        case .null:
            return options.nullPolicy == .ignore ? nil : .some(nil)
        case .present(let v):
            if a.identityPosition >= 0, let identity = p.identity, requested.namespace == info.namespace {
                switch identity {
                case .single(let value): return value
                case .composite(let values): return values[a.identityPosition]
                }
            }
            return try convert(v, a, info.entity, keyPath: a.keyPath)
        }
    }

    /// What an element sets a relationship to: `ids` in place of the current links, or after
    /// them (`appends`: an appending to-many given an array).
    struct NewLinks {
        let ids: [ObjectID]
        let appends: Bool
    }

    /// The relationship's new links from the element's JSON, applying the nested objects
    /// (phase 3 order); nil when it leaves them as they are (key missing, or null under
    /// ``NullPolicy/ignore``). A `null` empties even an appending to-many (``NullPolicy/clear``).
    func destinations(_ r: RelationshipPlan, _ json: JSONObject) throws -> NewLinks? {
        switch r.lookup(in: json) {
        case .missing:
            return nil
        case .null:
            return options.nullPolicy == .ignore ? nil : NewLinks(ids: [], appends: false)
        case .present(let v):
            steps.append(.keyPath(r.keyPath))
            defer { steps.removeLast() }
            if !r.isToMany { return NewLinks(ids: [try apply(r.destination)], appends: false) }
            guard case .array(let items) = v else { return nil }  // phase 1 has thrown `.notAnArray`
            var ids: [ObjectID] = []
            ids.reserveCapacity(items.count)
            for i in items.indices {
                steps.append(.index(i))
                ids.append(try apply(r.destination))
                steps.removeLast()
            }
            return NewLinks(ids: unique(ids), appends: r.append)
        }
    }

    /// Sets a relationship of a registered object to the new links (after the current ones,
    /// without repeats, when they append).
    func setLinks(_ object: ManagedObject, _ r: RelationshipPlan, _ links: NewLinks) throws {
        try context.setLinksCore(object, r.slot, links.appends ? appending(links.ids, to: context.links(of: object, r.slot)) : links.ids)
    }

    /// `current` followed by the IDs of `ids` it lacks (the `append` merge policy).
    func appending(_ ids: [ObjectID], to current: [ObjectID]) -> [ObjectID] {
        if current.isEmpty { return ids }
        let present = Set(current)
        return current + ids.filter { !present.contains($0) }
    }

    func touch(_ object: ManagedObject) {
        if object.mark != batchNumber {
            object.mark = batchNumber
            object.flushWrote = false
            touched.append(object)
        }
    }
}
