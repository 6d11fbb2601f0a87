/// Positional facts about a model that the context, the importer and ``InMemoryStore``
/// consult in their hot loops: entity numbers, identity namespaces and, per relationship,
/// where its inverse sits and how a store keeps it. Built once per model; immutable.
final class ModelSchema: Sendable {
    /// One per resolved entity, in model order (``EntityInfo/number`` is the position).
    let entities: [EntityInfo]
    private let byName: [String: Int]

    init(model: ObjectModel) {
        let resolved = model.resolvedEntities
        var byName: [String: Int] = [:]
        for (i, e) in resolved.enumerated() { byName[e.name] = i }
        // Identity namespace: the topmost ancestor-or-self with the same identity attributes.
        func namespaceRoot(_ e: ResolvedEntity) -> String {
            var root = e.name
            for ancestor in e.ancestorNames {
                guard let a = model.entity(named: ancestor), a.identityAttributeIndexes == e.identityAttributeIndexes else { break }
                root = ancestor
            }
            return root
        }
        var infos: [EntityInfo] = []
        for (i, e) in resolved.enumerated() {
            let lineage = [e.name] + e.ancestorNames
            var namespaces: [Int] = []
            for name in lineage {
                guard let a = model.entity(named: name), !a.identityAttributeIndexes.isEmpty else { continue }
                if namespaceRoot(a) == name, let n = byName[name] { namespaces.append(n) }
            }
            var kinds = [Bool](repeating: false, count: resolved.count)
            for k in e.kindNames { if let n = byName[k] { kinds[n] = true } }
            var relationships: [RelationshipInfo] = []
            for r in e.relationships {
                let destination = model.entity(named: r.destinationEntity)
                let inverse = r.inverseName.flatMap { destination?.relationship(named: $0) }
                let inverseIndex = r.inverseName.flatMap { destination?.relationshipIndex(of: $0) }
                let storage: RelationshipInfo.Storage
                if !r.isToMany {
                    storage = .foreignKey
                } else if let inverse, !inverse.isToMany {
                    storage = .derivedFromInverse
                } else {
                    storage = .joinTable
                }
                relationships.append(
                    RelationshipInfo(
                        description: r, destinationNumber: byName[r.destinationEntity] ?? 0,
                        inverseIndex: inverseIndex, inverseIsToMany: inverse?.isToMany ?? false,
                        inverseIsOrdered: inverse?.isOrdered ?? false, storage: storage))
            }
            let root = model.entity(named: e.rootName) ?? e
            infos.append(
                EntityInfo(
                    entity: e, number: i, rootNumber: byName[root.name] ?? i,
                    namespace: e.identityAttributeIndexes.isEmpty ? -1 : (byName[namespaceRoot(e)] ?? i),
                    lineageNamespaces: namespaces, kinds: kinds, relationships: relationships))
        }
        self.entities = infos
        self.byName = byName
    }

    /// The entity named `name`, or nil. Models of up to 16 entities are scanned (comparing
    /// short strings is cheaper than hashing them); larger ones use a dictionary.
    func info(named name: String) -> EntityInfo? {
        if entities.count <= 16 {
            for info in entities where info.entity.name == name { return info }
            return nil
        }
        return byName[name].map { entities[$0] }
    }
}

/// Positional facts about one resolved entity.
final class EntityInfo: Sendable {
    let entity: ResolvedEntity
    /// Position in ``ModelSchema/entities``.
    let number: Int
    /// The inheritance root's number (object IDs are unique per root).
    let rootNumber: Int
    /// The identity namespace (the number of the topmost ancestor-or-self with the same
    /// identity attributes); -1 without identity attributes.
    let namespace: Int
    /// Every identity namespace an object of this concrete entity belongs to (self and ancestors).
    let lineageNamespaces: [Int]
    /// `kinds[n]`: entity number `n` is this entity or one of its sub-entities.
    let kinds: [Bool]
    /// One per relationship, same positions as ``ResolvedEntity/relationships``.
    let relationships: [RelationshipInfo]
    /// The model's default value of every attribute, by position.
    let defaultValues: [AttributeValue?]
    /// ``defaultValues`` without those of the identity attributes: the values of a new object
    /// whose JSON gives no identity. A default identity would make every such object the
    /// same object (the store keeps identities unique), so they stay nil: a required
    /// identity attribute is then reported missing, an optional one is stored as NULL.
    let defaultValuesWithoutIdentity: [AttributeValue?]
    /// An empty slot per relationship.
    let emptyLinks: [[ObjectID]]

    init(
        entity: ResolvedEntity, number: Int, rootNumber: Int, namespace: Int, lineageNamespaces: [Int],
        kinds: [Bool], relationships: [RelationshipInfo]
    ) {
        self.entity = entity
        self.number = number
        self.rootNumber = rootNumber
        self.namespace = namespace
        self.lineageNamespaces = lineageNamespaces
        self.kinds = kinds
        self.relationships = relationships
        self.defaultValues = entity.attributes.map(\.defaultValue)
        var withoutIdentity = defaultValues
        for i in entity.identityAttributeIndexes { withoutIdentity[i] = nil }
        self.defaultValuesWithoutIdentity = withoutIdentity
        self.emptyLinks = Array(repeating: [], count: relationships.count)
    }

    var name: String { entity.name }

    /// `true` when entity number `n` is this entity or a sub-entity of it.
    func includes(_ n: Int) -> Bool { n >= 0 && n < kinds.count && kinds[n] }

    /// The identity of an object with these attribute values; nil when a value is missing.
    func identity(of values: [AttributeValue?]) -> IdentityKey? {
        let indexes = entity.identityAttributeIndexes
        guard values.count >= entity.attributes.count else { return nil }  // released storage
        if indexes.count == 1 {
            guard let v = values[indexes[0]] else { return nil }
            return .single(v)
        }
        var parts: [AttributeValue] = []
        parts.reserveCapacity(indexes.count)
        for i in indexes {
            guard let v = values[i] else { return nil }
            parts.append(v)
        }
        return parts.isEmpty ? nil : .composite(parts)
    }
}

/// Positional facts about one relationship of an entity.
struct RelationshipInfo: Sendable {
    /// How stores keep the relationship (see ``ChangeSet``).
    enum Storage: Sendable {
        /// A to-one: a foreign key on the source.
        case foreignKey
        /// A to-many whose inverse is a to-one: derived from the inverse's foreign keys.
        case derivedFromInverse
        /// Any other to-many: a join table.
        case joinTable
    }

    let description: RelationshipDescription
    let destinationNumber: Int
    /// Position of the inverse in the destination entity's relationships (the same in its sub-entities).
    let inverseIndex: Int?
    let inverseIsToMany: Bool
    let inverseIsOrdered: Bool
    let storage: Storage

    var isToMany: Bool { description.isToMany }
    var isOrdered: Bool { description.isOrdered }
}

/// The identity attribute values of an object: one value (uniquing) or several (composite).
enum IdentityKey: Hashable, Sendable, CustomStringConvertible {
    case single(AttributeValue)
    case composite([AttributeValue])

    /// The values, in identity attribute order.
    var values: [AttributeValue] {
        switch self {
        case .single(let v): return [v]
        case .composite(let vs): return vs
        }
    }

    init(_ values: [AttributeValue]) {
        self = values.count == 1 ? .single(values[0]) : .composite(values)
    }

    var description: String {
        switch self {
        case .single(let v): return v.description
        case .composite(let vs): return "(" + vs.map(\.description).joined(separator: ", ") + ")"
        }
    }
}

/// An identity within a namespace: the key of identity maps.
struct NamespacedIdentity: Hashable {
    let namespace: Int
    let key: IdentityKey
}
