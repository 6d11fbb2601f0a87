/// Validation of the objects an import creates or completes, with the JSON path of the
/// element that made them.
extension Importer {
    /// Every required attribute of a new or completed `object` has a value.
    /// - Throws: `.missingRequiredValue` at the attribute's key path (when mapped).
    func checkRequiredAttributes(_ object: ManagedObject, _ plan: EntityPlan) throws {
        for (i, attribute) in object.entity.attributes.enumerated() where !attribute.isOptional && object.values[i] == nil {
            let keyPath = plan.attributes.first(where: { $0.index == i })?.keyPath
            throw fail(.missingRequiredValue, keyPath, object.entity.name, attribute.name, nil,
                       "\(object.entity.name).\(attribute.name) is required" + (keyPath.map { "; the object has no value at '\($0)'" } ?? ""))
        }
    }
}
