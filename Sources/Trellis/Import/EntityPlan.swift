/// The mapped properties of one entity, resolved once per import.
final class EntityPlan {
    let info: EntityInfo
    let attributes: [AttributePlan]
    /// The identity attributes, in identity order (only when all are mapped).
    let identity: [AttributePlan]
    let relationships: [RelationshipPlan]

    init(info: EntityInfo, schema: ModelSchema, defaultPolicy: ToManyMergePolicy) {
        self.info = info
        let entity = info.entity
        let identityIndexes = entity.identityAttributeIndexes
        attributes = entity.attributeMappings.map { m in
            let a = entity.attributes[m.index]
            return AttributePlan(
                index: m.index, keyPath: m.keyPath, type: a.type, name: a.name,
                transformerName: a.transformerName, identityPosition: identityIndexes.firstIndex(of: m.index) ?? -1,
                isOptional: a.isOptional)
        }
        let identity = identityIndexes.compactMap { i in
            entity.attributeMappings.first(where: { $0.index == i }).map { m in
                let a = entity.attributes[i]
                return AttributePlan(
                    index: i, keyPath: m.keyPath, type: a.type, name: a.name,
                    transformerName: a.transformerName, identityPosition: identityIndexes.firstIndex(of: i) ?? -1,
                    isOptional: a.isOptional)
            }
        }
        self.identity = identity.count == identityIndexes.count ? identity : []
        relationships = entity.relationshipMappings.map { m in
            let r = info.relationships[m.index]
            return RelationshipPlan(
                slot: m.index, keyPath: m.keyPath, name: r.description.name, isToMany: r.isToMany,
                destination: schema.entities[r.destinationNumber],
                append: r.isToMany && (r.description.mergePolicy ?? defaultPolicy) == .append)
        }
    }
}

final class AttributePlan {
    let index: Int
    let keyPath: JSONKeyPath
    /// The key, when the key path has one component (the common case, looked up directly).
    let type: AttributeType
    let name: String
    let transformerName: String?
    /// Position among the identity attributes, or -1.
    let identityPosition: Int
    let isOptional: Bool

    init(
        index: Int, keyPath: JSONKeyPath, type: AttributeType, name: String, transformerName: String?, identityPosition: Int,
        isOptional: Bool
    ) {
        self.index = index
        self.isOptional = isOptional
        self.keyPath = keyPath
        keyCache = keyPath.firstKeyCache()
        self.type = type
        self.name = name
        self.transformerName = transformerName
        self.identityPosition = identityPosition
    }

    /// Where the key is in objects of the last shape met (one plan serves one importer).
    @exclusivity(unchecked) var keyCache: JSONObject.KeyPositionCache

    /// The value at the key path in `object` (``JSONKeyPath/lookup(in:)-JSONObject``).
    @inline(__always)
    func lookup(in object: JSONObject) -> JSONLookup { keyPath.lookup(in: object, cache: &keyCache) }
}

final class RelationshipPlan {
    let slot: Int
    let keyPath: JSONKeyPath
    let name: String
    let isToMany: Bool
    let destination: EntityInfo
    let append: Bool
    /// Nested objects are looked for among the current destinations (Importer+OwnedObjects):
    /// the destination entity has no identity attributes, and the links are replaced.
    let findsOwnedObjects: Bool

    init(slot: Int, keyPath: JSONKeyPath, name: String, isToMany: Bool, destination: EntityInfo, append: Bool) {
        self.slot = slot
        self.keyPath = keyPath
        keyCache = keyPath.firstKeyCache()
        self.name = name
        self.isToMany = isToMany
        self.destination = destination
        self.append = append
        findsOwnedObjects = !append && destination.entity.identityAttributeIndexes.isEmpty
    }

    /// Where the key is in objects of the last shape met (one plan serves one importer).
    @exclusivity(unchecked) var keyCache: JSONObject.KeyPositionCache

    /// The value at the key path in `object` (``JSONKeyPath/lookup(in:)-JSONObject``).
    @inline(__always)
    func lookup(in object: JSONObject) -> JSONLookup { keyPath.lookup(in: object, cache: &keyCache) }
}
