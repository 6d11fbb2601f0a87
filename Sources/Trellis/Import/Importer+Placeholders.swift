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
        throw fail(.abstractEntity, nil, object.entity.name, nil, .object(json),
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
}
