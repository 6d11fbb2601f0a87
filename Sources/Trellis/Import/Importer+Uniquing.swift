/// Uniquing: the one find-or-create by identity, shared by nested objects, top-level
/// elements and bare identifiers.
///
/// An identity is looked up in the identity namespace (``EntityInfo/namespace``: the topmost
/// entity declaring those identity attributes) of the entity the element is walked as: the
/// entity mapper's choice for a JSON object, else the requested entity. So a Cat chosen
/// by Animal's mapper is found among the Cats when Cat declares its own identity (cats and
/// dogs numbered apart), among all Animals when it inherits Animal's. The lookup goes first
/// to the registered objects, then to the batch's stored objects (``lookUpIdentities()``
/// fetched them). Whatever is found must be the requested entity or one of its sub-entities
/// (else `.identityConflict`); a JSON object's entity mapper must have chosen an entity that
/// includes it (else `.invalidEntity`). Nothing found: a JSON object becomes a new object of
/// the entity its mapper chose (``createObject(_:_:)``), a bare identifier a placeholder
/// (``createPlaceholder(_:_:)``). A nested object of an entity without identity attributes
/// is first looked for among its relationship's current destinations (Importer+OwnedObjects).
extension Importer {
    /// What one prepared element resolves to.
    enum Resolution {
        /// A registered object found by its identity.
        case registered(ManagedObject)
        /// An object created now: a new object for a JSON object, a placeholder for a bare identifier.
        case new(ManagedObject)
        /// The stored, unregistered object at this position in ``stored``.
        case stored(Int)
    }

    /// Finds the object of `p` by its identity, or creates it.
    /// - Throws: `.identityConflict`, `.invalidEntity` (an entity mapper's choice that excludes
    ///   the object found), `.abstractEntity` (nothing to create), `.noSingleIdentity`.
    func resolve(_ p: Prepared, _ requested: EntityInfo, at position: Int) throws -> Resolution {
        if let identity = p.identity {
            var registered = context.registeredObject(inNamespaceOf: p.walk, identity)
            var storedPosition: Int?
            if registered == nil, !stored.isEmpty, let s = storedByIdentity[NamespacedIdentity(namespace: p.walk.namespace, key: identity)] {
                if stored[s].snapshot.isPlaceholder, becomesSubEntity(stored[s].info, p) {
                    registered = try materialize(s)  // retyped below
                } else {
                    storedPosition = s
                }
            }
            if var existing = registered {
                if existing.isPlaceholder, becomesSubEntity(existing.info, p) { existing = retype(existing, as: p.walk) }
                guard requested.includes(existing.info.number) else {
                    throw identityConflict(existing.info, requested, identity, p)
                }
                if let json = p.object {
                    var duplicate = existing.mark == batchNumber
                    if !stored.isEmpty, let s = storedByIdentity[NamespacedIdentity(namespace: p.walk.namespace, key: identity)] {
                        // Met earlier as a stored object, and registered since (an inverse faulted it in).
                        duplicate = duplicate || stored[s].isMet
                        stored[s].isMet = true
                    }
                    try checkFound(existing.info, requested, p, identity, json, duplicate: duplicate, existing.objectID)
                }
                return .registered(existing)
            }
            if let s = storedPosition {
                let info = stored[s].info
                guard requested.includes(info.number) else { throw identityConflict(info, requested, identity, p) }
                if let json = p.object {
                    try checkFound(info, requested, p, identity, json, duplicate: stored[s].isMet, stored[s].snapshot.id)
                    stored[s].isMet = true
                }
                return .stored(s)
            }
            guard let json = p.object else { return .new(try createPlaceholder(requested, identity)) }
            return .new(try createObject(p, json))
        }
        guard let json = p.object else {
            throw fail(.noSingleIdentity, nil, requested.name, nil, nil, "an identifier without a value")
        }
        // Without identity attributes: one of the relationship's current destinations, if any.
        if let owned = ownedDestination(at: position) { return .registered(owned) }
        return .new(try createObject(p, json))
    }

    /// Whether a placeholder of `entity` found for `p` becomes `p`'s walked entity: a strict
    /// sub-entity of its own (``ObjectContext/retype(_:as:)``). A bare identifier to `Car`, or an
    /// object the mapper makes a `Car`, completes the `Vehicle 12` placeholder as Car 12.
    @inline(__always)
    private func becomesSubEntity(_ entity: EntityInfo, _ p: Prepared) -> Bool {
        entity !== p.walk && entity.includes(p.walk.number)
    }

    /// A new object for JSON `json` that no identity finds, of the entity its mapper chose.
    /// Left out of the identity map until its values are set (``applyValues(to:_:isNew:_:_:_:_:)``).
    private func createObject(_ p: Prepared, _ json: JSONObject) throws -> ManagedObject {
        guard !p.walk.entity.isAbstract else {
            throw fail(
                .abstractEntity, nil, p.walk.name, nil, .object(json),
                "\(p.walk.name) is abstract and has no entity mapper choosing a sub-entity for this object")
        }
        // Without an identity in the JSON, identity attributes get no default (the object
        // would take over the stored object that has the default as its identity).
        return context.createObject(
            p.walk, isPlaceholder: false,
            values: p.identity == nil ? p.walk.defaultValuesWithoutIdentity : nil, indexingIdentity: false)
    }

    /// The checks on an object found by identity for a JSON object: the entity mapper's
    /// choice must include it; a top-level object met twice in a batch, or met as a
    /// top-level element of an earlier batch, is diagnosed.
    private func checkFound(
        _ found: EntityInfo, _ requested: EntityInfo, _ p: Prepared, _ identity: IdentityKey, _ json: JSONObject,
        duplicate: Bool, _ id: ObjectID
    ) throws {
        guard p.walk.includes(found.number) else {
            throw fail(
                .invalidEntity, nil, requested.name, nil, .object(json),
                "\(found.name) \(identity) exists, but the entity mapper chose \(p.walk.name) for it, and an object cannot change its entity")
        }
        if requested === root, steps.isEmpty,
            duplicate || (!id.isTemporary && status[root.rootNumber].isTopLevel(id.primaryKey))
        {
            diagnose(.duplicateIdentity, "\(requested.name) \(identity) appears more than once; merged, last value wins")
        }
    }

    /// `.identityConflict`: an object of `existing` (say a Dog) holds the identity a
    /// `requested` object (a Cat) has, in the namespace of the entity declaring it (Animal).
    /// Creating the Cat would make the store's upsert overwrite the Dog's row.
    private func identityConflict(_ existing: EntityInfo, _ requested: EntityInfo, _ identity: IdentityKey, _ p: Prepared) -> ImportError {
        let declaring = schema.entities[p.walk.namespace].name
        return fail(
            .identityConflict, nil, requested.name, nil, p.object.map(JSONValue.object) ?? .string(identity.description),
            "\(requested.name) \(identity) has the identity of \(existing.name) \(identity): "
                + "identities are unique across \(declaring) and its sub-entities, and an object cannot change its entity")
    }
}
