import Trellis

/// The unique index on identity attributes each entity that introduces identity gets.
extension SchemaDescription {
    /// The unique index `entity` introduces: its identity columns, and, when the columns are
    /// inherited from an entity outside its sub-tree, the entities (itself and its
    /// sub-entities) a partial index covers (`WHERE "_entity" IN (…)`). Nil when the entity
    /// has no identity or inherits its parent's (the parent's index then already makes the
    /// rows unique).
    package static func identityIndex(of entity: Entity, byName: [String: Entity], in description: SchemaDescription)
        -> (columns: [String], partialKinds: [String]?)?
    {
        guard !entity.identity.isEmpty else { return nil }
        if let parent = entity.parent, let parentEntity = byName[parent], !parentEntity.identity.isEmpty { return nil }
        var columns: [String] = []
        var inheritedColumn = false
        for name in entity.identity {
            var current: Entity? = entity
            var found: String?
            while let e = current, found == nil {
                found = e.attributes.first { $0.name == name }?.column
                if found == nil {
                    inheritedColumn = true
                    current = e.parent.flatMap { byName[$0] }
                }
            }
            guard let column = found else { return nil }
            columns.append(column)
        }
        guard entity.parent != nil, inheritedColumn else { return (columns, nil) }
        return (columns, kindNames(of: entity.name, byName: byName, in: description))
    }

    /// `name` and its transitive sub-entities, in description order (self first).
    package static func kindNames(of name: String, byName: [String: Entity], in description: SchemaDescription) -> [String] {
        var kinds = [name]
        for entity in description.entities where entity.name != name {
            var parent = entity.parent
            var depth = 0
            while let p = parent, depth < description.entities.count {
                if p == name {
                    kinds.append(entity.name)
                    break
                }
                parent = byName[p]?.parent
                depth += 1
            }
        }
        return kinds
    }
}
