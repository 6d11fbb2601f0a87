/// Placeholders: objects known only by their identity, created for a bare identifier that
/// finds nothing, and completed when a JSON object with that identity is imported.
extension Importer {
    /// A placeholder of `requested` holding only `identity` (its other attributes nil, no
    /// links); diagnosed as `.placeholderCreated`.
    /// - Throws: `.abstractEntity` when `requested` is abstract.
    func createPlaceholder(_ requested: EntityInfo, _ identity: IdentityKey) throws -> ManagedObject {
        guard !requested.entity.isAbstract else {
            throw fail(.abstractEntity, nil, requested.name, nil, .string(identity.description),
                       "cannot create a placeholder for \(identity): \(requested.name) is abstract")
        }
        var values = [AttributeValue?](repeating: nil, count: requested.entity.attributes.count)
        for (position, index) in requested.entity.identityAttributeIndexes.enumerated() {
            values[index] = identity.values[position]
        }
        let object = context.createObject(requested, isPlaceholder: true, values: values)
        touch(object)
        diagnose(.placeholderCreated, "no \(requested.name) with identity \(identity): created a placeholder")
        return object
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
