/// A managed object is a record the typed layer reads: its attribute and relationship
/// names are the keys, a to-one relationship is a nested map (or `null` when empty), a
/// to-many relationship an array of maps in relationship order.
///
///     let batman = try context.fetch("Character", id: .integer(1699))
///     let hero = try Hero(managedObject: batman)   // the same init(map:) that reads JSON
///
/// Keys are **property names** (`realName`), not the JSON key paths of the model's
/// annotations (`real_name`): the model's mapping already ran when the object was
/// imported. Attribute values are taken as stored (a date attribute is a `Date` at full
/// precision) or converted by the leaf type's usual rules (`.integer(1699)` for a
/// `String` property gives `"1699"`).
extension ManagedObject: JSONMapRecord {
    /// The attribute's value (`.null` when it has none), or the relationship's
    /// destinations (faulted in from the store); nil when the entity has no property
    /// named `key`.
    ///
    /// - Throws: ``ContextError`` or a store error when destinations cannot be faulted in.
    public func jsonMapNode(forKey key: String) throws -> JSONMapNode? {
        if let index = entity.attributeIndex(of: key) {
            return value(at: index).map(JSONMapNode.attribute) ?? .null
        }
        guard let index = entity.relationshipIndex(of: key) else { return nil }
        if entity.relationships[index].isToMany {
            return .records(try destinations(forKey: key))
        }
        return try destination(forKey: key).map(JSONMapNode.record) ?? .null
    }

    /// Attribute names, then relationship names, in the entity's order.
    public var jsonMapKeys: [String] {
        entity.attributes.map(\.name) + entity.relationships.map(\.name)
    }
}

extension JSONMapValue {
    /// Reads a value of this type from a managed object, with the same `init(map:)`
    /// that reads JSON (see ``ManagedObject``'s ``JSONMapRecord`` conformance for how
    /// properties appear as keys).
    ///
    ///     let hero = try Hero(managedObject: batman)
    ///
    /// - Throws: ``MappingError`` with the property path (`$.powers[1].name`); context or
    ///   store errors from faulting in relationships, unchanged.
    public init(managedObject: ManagedObject, options: JSONMap.Options = JSONMap.Options()) throws {
        try self.init(record: managedObject, options: options)
    }
}
