/// An entity with inheritance resolved: every attribute and relationship it has
/// (parents' first), its identity attributes, its JSON mappings and its sub-entities.
/// Created by ``ObjectModel``; immutable.
///
/// Property positions (``attributeIndex(of:)``, ``relationshipIndex(of:)``) are stable
/// for the life of the model and are how managed objects and store snapshots lay out
/// their values.
public final class ResolvedEntity: Sendable, Hashable, CustomStringConvertible {
    /// The entity as declared.
    public let declaration: EntityDescription
    public var name: String { declaration.name }
    public var isAbstract: Bool { declaration.isAbstract }
    public var userInfo: [String: String] { declaration.userInfo }
    /// Parent, grandparent, … up to the root (empty for a root entity).
    public let ancestorNames: [String]
    /// The root of the inheritance hierarchy (the entity itself for a root entity).
    public var rootName: String { ancestorNames.last ?? name }
    /// Direct sub-entities, in model order.
    public let subentityNames: [String]
    /// This entity and all its transitive sub-entities, in model order (self first).
    public let kindNames: [String]
    /// All attributes, inherited ones first.
    public let attributes: [AttributeDescription]
    /// All relationships, inherited ones first.
    public let relationships: [RelationshipDescription]
    /// Positions in ``attributes`` of the identity attributes (unioned up the parent chain, parents first).
    public let identityAttributeIndexes: [Int]
    /// Mapped attributes: position in ``attributes`` and the key path to read/write.
    public let attributeMappings: [(index: Int, keyPath: JSONKeyPath)]
    /// Mapped relationships: position in ``relationships`` and the key path.
    public let relationshipMappings: [(index: Int, keyPath: JSONKeyPath)]
    /// `entityMapperName`, inherited from the nearest ancestor that has one.
    public let entityMapperName: String?
    /// `JSONDictionaryTransformerName`, inherited from the nearest ancestor that has one.
    public let dictionaryTransformerName: String?
    /// `true` when two mapped key paths are equal or one runs through the other (`owner`
    /// and `owner.id`): the exporter then checks each JSON location is written once.
    let mappedKeyPathsOverlap: Bool
    /// Where the mapped key paths address arrays (`weather.0.description`), for the
    /// exporter; nil when none does.
    let exportArrayShape: ExportArrayShape?
    /// `true` when every mapped key path is one key and none overlaps another: the exporter
    /// then writes the entity's objects straight as text (``ObjectExporter/emit(_:into:indent:index:)``).
    let exportsFlat: Bool
    /// When ``exportsFlat``: the keys of ``attributeMappings`` then ``relationshipMappings``
    /// as JSON string text (quoted, escaped as `JSONWriter` escapes without `\/`).
    let flatExportKeys: [[UInt8]]
    /// Whether a key of ``flatExportKeys`` holds a `/` (which a writer escaping slashes writes otherwise).
    let flatExportKeysHoldSlash: Bool
    /// By attribute position: its type and `JSONTransformerName` (read once, for the exporter).
    let attributeTypes: [AttributeType]
    let attributeTransformerNames: [String?]

    /// Whether a key path of `paths` is a prefix of (or equal to) another, keys compared by
    /// UTF-8 code units as JSON objects compare them.
    static func overlap(_ paths: [JSONKeyPath]) -> Bool {
        for i in paths.indices {
            for j in paths.indices where j > i {
                let a = paths[i].components
                let b = paths[j].components
                if zip(a, b).allSatisfy({ $0.key.hasSameCodeUnits(as: $1.key) }) { return true }
            }
        }
        return false
    }

    private let attributePositions: [String: Int]
    private let relationshipPositions: [String: Int]

    init(
        declaration: EntityDescription, ancestorNames: [String], subentityNames: [String], kindNames: [String],
        attributes: [AttributeDescription], relationships: [RelationshipDescription], identityAttributeIndexes: [Int],
        attributeMappings: [(index: Int, keyPath: JSONKeyPath)], relationshipMappings: [(index: Int, keyPath: JSONKeyPath)],
        entityMapperName: String?, dictionaryTransformerName: String?
    ) {
        self.declaration = declaration
        self.ancestorNames = ancestorNames
        self.subentityNames = subentityNames
        self.kindNames = kindNames
        self.attributes = attributes
        self.relationships = relationships
        self.identityAttributeIndexes = identityAttributeIndexes
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.entityMapperName = entityMapperName
        self.dictionaryTransformerName = dictionaryTransformerName
        let keyPaths = attributeMappings.map(\.keyPath) + relationshipMappings.map(\.keyPath)
        self.mappedKeyPathsOverlap = ResolvedEntity.overlap(keyPaths)
        self.exportArrayShape = ExportArrayShape(keyPaths: keyPaths)
        self.exportsFlat = !mappedKeyPathsOverlap && exportArrayShape == nil && keyPaths.allSatisfy { $0.components.count == 1 }
        self.flatExportKeys =
            !exportsFlat
            ? []
            : keyPaths.map { keyPath in
                var emitter = JSONEmitter(options: .compact)
                emitter.appendString(keyPath.components[0].key)
                return emitter.output
            }
        self.flatExportKeysHoldSlash = exportsFlat && keyPaths.contains { $0.components[0].key.utf8.contains(UInt8(ascii: "/")) }
        self.attributeTypes = attributes.map(\.type)
        self.attributeTransformerNames = attributes.map(\.transformerName)
        var ap: [String: Int] = [:]
        for (i, a) in attributes.enumerated() { ap[a.name] = i }
        var rp: [String: Int] = [:]
        for (i, r) in relationships.enumerated() { rp[r.name] = i }
        attributePositions = ap
        relationshipPositions = rp
    }

    // MARK: - Lookup

    /// Position of the attribute named `name` in ``attributes``, or nil.
    public func attributeIndex(of name: String) -> Int? { attributePositions[name] }
    /// Position of the relationship named `name` in ``relationships``, or nil.
    public func relationshipIndex(of name: String) -> Int? { relationshipPositions[name] }
    /// The attribute named `name`, or nil.
    public func attribute(named name: String) -> AttributeDescription? { attributePositions[name].map { attributes[$0] } }
    /// The relationship named `name`, or nil.
    public func relationship(named name: String) -> RelationshipDescription? { relationshipPositions[name].map { relationships[$0] } }

    /// Positions (in ``relationships``) of the to-many relationships an import neither reads
    /// nor writes: those with an inverse (their links follow from the other side's writes),
    /// not mapped to JSON, whose delete rule is `nullify` or `noAction`. Stores may leave them
    /// empty in ``StoreSession/fetchForImport(entity:identities:)``.
    /// - Complexity: O(relationships).
    public var importSkippableToManyIndexes: [Int] {
        relationships.indices.filter { i in
            let r = relationships[i]
            return r.isToMany && r.inverseName != nil && (r.deleteRule == .nullify || r.deleteRule == .noAction)
                && !relationshipMappings.contains { $0.index == i }
        }
    }

    /// The identity attributes (empty: objects are always inserted; one: uniquing; several: composite uniquing).
    public var identityAttributes: [AttributeDescription] { identityAttributeIndexes.map { attributes[$0] } }

    /// The import strategy the identity attributes imply.
    public var identityStrategy: IdentityStrategy {
        switch identityAttributeIndexes.count {
        case 0: return .insert
        case 1: return .unique
        default: return .composite
        }
    }

    public var description: String { "entity \(name)" }

    public static func == (lhs: ResolvedEntity, rhs: ResolvedEntity) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// How an import finds existing objects of an entity.
public enum IdentityStrategy: Sendable, Hashable {
    /// No identity attributes: every JSON object inserts a new object.
    case insert
    /// One identity attribute: objects are uniqued by its value.
    case unique
    /// Several identity attributes: objects are uniqued by the tuple of their values.
    case composite
}
