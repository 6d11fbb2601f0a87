/// Batch doors: many objects by ID or by identity in one store round trip (the store
/// chunks below its parameter limit), for callers that would otherwise fetch one object at a
/// time (the sync's full-scan deletions and tombstones).
extension ObjectContext {
    /// The objects with `ids`, in the order of `ids`: registered instances as they are, the
    /// rest faulted in with one ``StoreSession/fetch(ids:)``. An ID given twice comes once
    /// (at its first place); IDs of no object, of objects deleted in this context, and
    /// temporary IDs not registered here are left out.
    ///
    ///     let doomed = try context.objects(with: candidates.map(\.id))
    ///     for object in doomed { try context.delete(object) }
    ///
    /// - Throws: store errors (`StoreError` `.unknownObject` for an ID of an entity the
    ///   store does not know).
    /// - Complexity: O(n) in `ids`, one store fetch for the IDs not registered.
    public func objects(with ids: [ObjectID]) throws -> [ManagedObject] {
        var missing: [ObjectID] = []
        var asked = Set<ObjectID>()
        for id in ids where asked.insert(id).inserted && registered[id] == nil && !id.isTemporary {
            missing.append(id)
        }
        if !missing.isEmpty {
            for snapshot in try withSession({ try $0.fetch(ids: missing) }) { _ = try register(snapshot) }
        }
        var result: [ManagedObject] = []
        result.reserveCapacity(asked.count)
        var given = Set<ObjectID>()
        for id in ids where given.insert(id).inserted {
            if let object = registered[id], !object.isDeletedFlag { result.append(object) }
        }
        return result
    }

    /// The objects of `entity` (or a sub-entity) whose identity attributes have these
    /// identities (each one value per identity attribute, in
    /// ``ResolvedEntity/identityAttributes`` order, of the attributes' types), in the order
    /// of `identities`: registered objects first, the rest with one
    /// ``StoreSession/fetch(entity:identities:)``. An identity given twice comes once; missing
    /// identities (and objects deleted in this context) are left out.
    ///
    ///     let named = try context.fetch("Hero", identities: [[.string("h00001")], [.string("h00002")]])
    ///
    /// - Throws: ``ModelError`` `.unknownEntity`; ``ContextError`` `.invalidIdentity` when
    ///   the entity has no identity attributes or a value does not fit (naming the attribute);
    ///   store errors.
    /// - Complexity: O(n) in `identities`, one store fetch for those not registered.
    public func fetch(_ entity: String, identities: [[AttributeValue]]) throws -> [ManagedObject] {
        let info = try entityInfo(entity)
        var keys: [IdentityKey] = []
        keys.reserveCapacity(identities.count)
        var missing: [[AttributeValue]] = []
        var asked = Set<IdentityKey>()
        for identity in identities {
            try checkIdentity(identity, of: info)
            let key = IdentityKey(identity)
            guard asked.insert(key).inserted else { continue }
            keys.append(key)
            if registeredObject(info, key) == nil { missing.append(identity) }
        }
        if !missing.isEmpty {
            for snapshot in try withSession({ try $0.fetch(entity: entity, identities: missing) }) { _ = try register(snapshot) }
        }
        return keys.compactMap { registeredObject(info, $0) }
    }

    /// Throws ``ContextError`` `.invalidIdentity` unless `identity` has one value per identity
    /// attribute of `info`'s entity, each of the attribute's type.
    func checkIdentity(_ identity: [AttributeValue], of info: EntityInfo) throws {
        let indexes = info.entity.identityAttributeIndexes
        guard !indexes.isEmpty, indexes.count == identity.count else {
            throw ContextError(
                .invalidIdentity, entity: info.name, property: nil,
                message: "\(info.name) has \(indexes.count) identity attribute(s); got \(identity.count) value(s)")
        }
        for (value, i) in zip(identity, indexes) where !ModelResolver.value(value, fits: info.entity.attributes[i].type) {
            throw ContextError(
                .invalidIdentity, entity: info.name, property: info.entity.attributes[i].name,
                message: "\(value) is not a value of type \(info.entity.attributes[i].type)")
        }
    }
}
