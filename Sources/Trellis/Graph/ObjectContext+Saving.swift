/// Saving, rolling back and deleting.
extension ObjectContext {
    // MARK: - Saving

    /// Writes every unsaved change in one `store.write { $0.apply(changes) }`; inserted
    /// objects get permanent IDs. Objects whose values equal their saved ones are not written.
    /// - Throws: ``ContextError`` `.missingRequiredValue` (a required attribute without a
    ///   value on a non-placeholder object; nothing is written); store errors (the store
    ///   rolls back and the context keeps its unsaved changes).
    public func save() throws {
        guard !dirty.isEmpty else { return }
        try validateRequiredValues()
        let changes = makeChangeSet()
        if changes.isEmpty {
            didSave([:], dropEpoch: nil)
            return
        }
        let mapping = try store.write { session in
            prepare(session, origin: origin)
            return try session.apply(changes)
        }
        didSave(mapping, dropEpoch: nil)
    }

    /// Gives `session` the origin and push rules of the changes about to be applied.
    func prepare(_ session: any StoreSession, origin: ChangeOrigin) {
        session.origin = origin
        session.pushRules = pushRules
    }

    /// As ``save()``, running `work` in the same write transaction after the changes are
    /// applied (also when there is nothing to save): what `work` writes through the session
    /// (``StoreSession/setMetadataValue(_:forKey:)``) commits or rolls back with the changes.
    ///
    ///     try context.delete(hero)
    ///     try context.save { session in try session.setMetadataValue(checkpoint, forKey: "sync/heroes") }
    ///
    /// - Parameters:
    ///   - origin: the origin of the changes (nil, the default: the context's ``origin``);
    ///     `TrellisSync` saves the deletions it finds as ``ChangeOrigin/sync``.
    ///   - work: receives the write session; it must not use the context.
    /// - Throws: as ``save()``, and whatever `work` throws (then nothing is written and the
    ///   context keeps its unsaved changes).
    public func save(origin: ChangeOrigin? = nil, inTransaction work: (any StoreSession) throws -> Void) throws {
        try validateRequiredValues()
        let changes = makeChangeSet()
        let mapping = try store.write { session in
            prepare(session, origin: origin ?? self.origin)
            let mapping = changes.isEmpty ? [:] : try session.apply(changes)
            try work(session)
            return mapping
        }
        didSave(mapping, dropEpoch: nil)
    }

    /// Returns every registered object to its last saved state: inserted objects are
    /// unregistered, deleted ones come back, changed values are restored.
    public func rollback() {
        for object in dirty {
            object.isInDirtyList = false
            if object.isInsertedFlag || object.retypedFrom != nil {
                // (A retyped stored placeholder is faulted in again, as its old entity.)
                unregister(object)
                object.retypedFrom = nil
                continue
            }
            if object.replacement != nil {
                object.replacement = nil
                continue
            }
            guard let committed = object.committed else { continue }
            unindexIdentity(object)
            object.values = committed.values
            object.links = committed.links
            object.isPlaceholder = committed.isPlaceholder
            object.isDeletedFlag = false
            object.directLinks = 0
            object.pending = nil
            indexIdentity(object)
        }
        dirty = []
        for object in registered.values where object.pending != nil { object.pending = nil }
        pendingUnregistered = [:]
        retyped = [:]
    }

    /// Checks required attributes of the dirty objects registered before `epoch` (the
    /// importer checks its own objects, with JSON paths).
    func validateRequiredValues(registeredBefore epoch: Int = .max) throws {
        for object in dirty where object.epoch < epoch && !object.isDeletedFlag && !object.isPlaceholder && object.replacement == nil {
            for (i, attribute) in object.entity.attributes.enumerated() where !attribute.isOptional && object.values[i] == nil {
                throw ContextError(
                    .missingRequiredValue, entity: object.entity.name, property: attribute.name,
                    message: "\(object.objectID) has no value for required attribute \(attribute.name)")
            }
        }
    }

    /// The change set of the dirty objects; sets each one's `flushWrote` (inserted, an
    /// ``ObjectChange``, or deleted).
    func makeChangeSet() -> ChangeSet {
        var changes = ChangeSet()
        if !retyped.isEmpty {
            // Links set before a placeholder was retyped name its old ID.
            for object in dirty where object.replacement == nil {
                for i in object.links.indices where object.links[i].contains(where: { retyped[$0] != nil }) {
                    object.links[i] = resolvingRetyped(object.links[i])
                }
            }
        }
        for object in dirty {
            if object.replacement != nil {
                object.flushWrote = false
                continue
            }
            if object.isDeletedFlag {
                if !object.isInsertedFlag { changes.deleted.append(object.objectID) }
                object.flushWrote = !object.isInsertedFlag
                continue
            }
            if object.isInsertedFlag {
                materializeLinks(object)
                changes.inserted.append(
                    ObjectSnapshot(
                        id: object.objectID, isPlaceholder: object.isPlaceholder,
                        attributes: object.values, relationships: object.links))
                object.flushWrote = true
                continue
            }
            guard let committed = object.committed else {
                object.flushWrote = false
                continue
            }
            var change = ObjectChange(id: object.retypedFrom ?? object.objectID)
            if object.retypedFrom != nil { change.entityName = object.entity.name }
            if object.isPlaceholder != committed.isPlaceholder { change.isPlaceholder = object.isPlaceholder }
            for i in object.values.indices where object.values[i] != committed.values[i] {
                change.attributes.append(AttributeChange(index: i, value: object.values[i]))
            }
            for (i, rel) in object.info.relationships.enumerated() where !rel.isToMany || object.directBit(i) {
                if !rel.isToMany || object.pending == nil {
                    if object.links[i] != committed.links[i] {
                        change.relationships.append(RelationshipChange(index: i, destinations: object.links[i]))
                    }
                } else {
                    let current = links(of: object, i)
                    if current != committed.links[i] {
                        change.relationships.append(RelationshipChange(index: i, destinations: current))
                    }
                }
            }
            let changed =
                change.entityName != nil || change.isPlaceholder != nil || !change.attributes.isEmpty
                || !change.relationships.isEmpty
            if changed { changes.updated.append(change) }
            object.flushWrote = changed
        }
        return changes
    }

    /// After a successful write: permanent IDs, saved state, and (for imports) dropping the
    /// objects registered at or after `dropEpoch`.
    func didSave(_ mapping: [ObjectID: ObjectID], dropEpoch: Int?) {
        let drop = dropEpoch ?? .max
        for object in dirty {
            object.isInDirtyList = false
            object.directLinks = 0
            if object.isDeletedFlag {
                unregister(object)
                continue
            }
            if object.isInsertedFlag {
                object.isInsertedFlag = false
                if let permanent = mapping[object.objectID] {
                    if object.epoch >= drop {  // dropped below; no need to re-key it
                        object.objectID = permanent
                        continue
                    }
                    if registered[object.objectID] === object { registered[object.objectID] = nil }
                    object.objectID = permanent
                    registered[permanent] = object
                }
            }
        }
        let saved = dirty
        dirty = []
        pendingUnregistered = [:]
        if !retyped.isEmpty {
            for object in saved { object.retypedFrom = nil }
            for object in registered.values {
                for i in object.links.indices where object.links[i].contains(where: { retyped[$0] != nil }) {
                    object.links[i] = resolvingRetyped(object.links[i])
                }
            }
            retyped = [:]
        }
        if let dropEpoch {
            var survivors = 0
            for object in registered.values {
                if object.epoch >= dropEpoch { object.context = nil } else { survivors += 1 }
            }
            for object in saved where object.epoch >= dropEpoch { object.context = nil }
            if survivors == 0 {
                registered.removeAll(keepingCapacity: true)
                identityMap.removeAll(keepingCapacity: true)
            } else {
                registered = registered.filter { $0.value.epoch < dropEpoch }
                identityMap = identityMap.filter { $0.value.epoch < dropEpoch }
            }
        }
        // Survivors: rewrite temporary IDs, apply pending operations, record the saved state.
        for object in registered.values {
            if !mapping.isEmpty {
                for i in object.links.indices where object.links[i].contains(where: \.isTemporary) {
                    object.links[i] = object.links[i].map { mapping[$0] ?? $0 }
                }
                if let pending = object.pending {
                    object.pending = pending.map { p in
                        PendingLinks(slot: p.slot, operations: p.operations.map { ($0.add, mapping[$0.id] ?? $0.id) })
                    }
                }
            }
            if object.pending != nil { materializeLinks(object) }
            if object.committed == nil || object.committed?.values != object.values || object.committed?.links != object.links
                || object.committed?.isPlaceholder != object.isPlaceholder
            {
                object.committed = CommittedState(values: object.values, links: object.links, isPlaceholder: object.isPlaceholder)
            }
        }
    }

    /// Drops the values of the objects registered at or after `epoch` (about to be dropped
    /// after a flush), keeping their IDs and flags.
    func releaseStorage(ofObjectsRegisteredSince epoch: Int) {
        for object in registered.values where object.epoch >= epoch {
            object.values = []
            object.links = []
            object.pending = nil
            object.committed = nil
        }
    }

    // MARK: - Deleting

    /// Marks `object` deleted and applies the delete rules of its relationships:
    /// `nullify` removes it from the destinations' inverse, `cascade` deletes the
    /// destinations too (recursively), `deny` refuses while any destination is linked,
    /// `noAction` leaves the destinations alone. Written by the next ``save()``.
    /// - Returns: what the call did: the objects it marked deleted (`object` first, then
    ///   the ones its cascades reached) and the number of links it nullified in objects
    ///   that stay; empty for an object already deleted or of another context.
    /// - Throws: ``ContextError`` `.deleteDenied` naming the relationship (nothing is
    ///   deleted then); store errors while faulting destinations in.
    @discardableResult
    public func delete(_ object: ManagedObject) throws -> DeleteResult {
        guard object.context === self, !object.isDeletedFlag else { return DeleteResult(deletedObjects: [], nullifiedLinks: 0) }
        // Collect the cascade closure and check deny rules before changing anything.
        var doomed: [ManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        var stack = [object]
        while let o = stack.popLast() {
            guard seen.insert(ObjectIdentifier(o)).inserted else { continue }
            doomed.append(o)
            for (i, rel) in o.info.relationships.enumerated() {
                let destinations = links(of: o, i)
                switch rel.description.deleteRule {
                case .deny:
                    if let first = destinations.first {
                        throw ContextError(
                            .deleteDenied, entity: o.entity.name, property: rel.description.name,
                            message: "cannot delete \(o.objectID): \(rel.description.name) still links \(first)"
                                + (destinations.count > 1 ? " and \(destinations.count - 1) more" : ""))
                    }
                case .cascade:
                    for d in destinations { if let dObject = try self.object(with: d) { stack.append(dObject) } }
                case .nullify, .noAction:
                    break
                }
            }
        }
        let doomedIDs = Set(doomed.map(\.objectID))
        var nullified = 0
        for o in doomed {
            for (i, rel) in o.info.relationships.enumerated() where rel.description.deleteRule == .nullify {
                guard let inverse = rel.inverseIndex else { continue }
                for d in o.links[i] where !doomedIDs.contains(d) {
                    if rel.inverseIsToMany {
                        addPending(d, inverse, add: false, o.objectID)
                        nullified += 1
                    } else if let dObject = try self.object(with: d), dObject.links[inverse].first == o.objectID {
                        dObject.links[inverse] = []
                        markDirty(dObject)
                        nullified += 1
                    }
                }
            }
        }
        for o in doomed {
            unindexIdentity(o)
            o.isDeletedFlag = true
            markDirty(o)
        }
        return DeleteResult(deletedObjects: doomed, nullifiedLinks: nullified)
    }

    /// What one ``delete(_:)`` did (`trellis delete` reports the sums).
    public struct DeleteResult {
        /// The objects marked deleted: the one asked for, then those its cascades reached.
        public let deletedObjects: [ManagedObject]
        /// Links from objects that stay to deleted ones removed by `nullify` rules.
        public let nullifiedLinks: Int
    }
}
