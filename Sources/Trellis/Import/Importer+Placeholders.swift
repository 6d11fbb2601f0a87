/// Placeholders: objects known only by their identity, created for a bare identifier that
/// finds nothing, and completed when a JSON object with that identity is imported.
extension Importer {
    /// A placeholder of `requested` holding only `identity` (its other attributes nil, no
    /// links); diagnosed as `.placeholderCreated`. `requested` may be abstract: the placeholder
    /// stands for "the `requested` with this identity", whichever sub-entity it turns out to
    /// be; only an object of a concrete sub-entity completes it (``ObjectContext/retype(_:as:)``).
    func createPlaceholder(_ requested: EntityInfo, _ identity: IdentityKey) throws -> ManagedObject {
        var values = [AttributeValue?](repeating: nil, count: requested.entity.attributes.count)
        for (position, index) in requested.entity.identityAttributeIndexes.enumerated() {
            values[index] = identity.values[position]
        }
        let object = context.createObject(requested, isPlaceholder: true, values: values)
        touch(object)
        diagnose(.placeholderCreated, "no \(requested.name) with identity \(identity): created a placeholder")
        return object
    }

    /// Checks that placeholder `object` can be completed by a JSON object walked as its
    /// own entity: not when that entity is abstract (no mapper chose a concrete sub-entity).
    /// - Throws: `.abstractEntity`.
    func checkCompletable(_ object: ManagedObject, _ json: JSONObject) throws {
        guard object.entity.isAbstract else { return }
        throw fail(
            .abstractEntity, nil, object.entity.name, nil, .object(json),
            "\(object.entity.name) is abstract: its placeholder is completed only by an object of one of its sub-entities "
                + "(\(object.entity.kindNames.dropFirst().joined(separator: ", "))), and no entity mapper chose one for this object")
    }

    /// Completes placeholder `object` with the JSON's `values`: like a new object, it takes the
    /// model's defaults for the attributes the JSON leaves out (`given[i]` false), not for
    /// those it sets to null. Returns whether a default changed `values`.
    func completionDefaults(_ object: ManagedObject, _ values: inout [AttributeValue?], given: [Bool]) -> Bool {
        var changed = false
        for (i, value) in object.info.defaultValues.enumerated() where value != nil && values[i] == nil && !given[i] {
            values[i] = value
            changed = true
        }
        return changed
    }

    /// Completes placeholder `placeholder` as `entity`, a strict sub-entity of its entity
    /// (``ObjectContext/retype(_:as:)``), keeping the report about the object it becomes: a
    /// count an earlier batch of this import recorded under the placeholder's entity moves
    /// to `entity` (`Dog inserted 1`, not `Animal inserted 1`), and a stored placeholder's
    /// old ID is renamed wherever it was recorded (``retypedIDs``). The batch's own objects
    /// are counted at the flush, as their replacements (``currentObjects()``).
    func retype(_ placeholder: ManagedObject, as entity: EntityInfo) -> ManagedObject {
        let old = placeholder.info
        let oldID = placeholder.objectID
        let object = context.retype(placeholder, as: entity)
        if !oldID.isTemporary {
            retypedIDs[oldID] = object.objectID
            if let code = status[old.rootNumber].code(of: oldID.primaryKey) {
                count(old.name, code, -1)
                count(entity.name, code, 1)
            }
        }
        return object
    }

    /// `id`, or the ID of the sub-entity object its stored placeholder became in this import.
    func renamed(_ id: ObjectID) -> ObjectID {
        var id = id
        while let next = retypedIDs[id] { id = next }  // (each retype goes down the hierarchy: no cycle)
        return id
    }

    /// Replaces the batch's touched and top-level placeholders that were completed as a
    /// sub-entity by the objects that replaced them (``ManagedObject/replacement``), so the
    /// flush counts and reports those: the placeholder itself is never written.
    func currentObjects() {
        func current(_ object: ManagedObject) -> ManagedObject {
            var object = object
            while let next = object.replacement { object = next }
            return object
        }
        for i in touched.indices where touched[i].replacement != nil { touched[i] = current(touched[i]) }
        for i in topLevel.indices {
            if case .new(let object) = topLevel[i], object.replacement != nil { topLevel[i] = .new(current(object)) }
        }
    }
}
