/// A validated object model: entities with their attributes, relationships and JSON
/// annotations, with inheritance resolved (Core Data's `NSManagedObjectModel`).
///
/// Build one from Swift code, or read one with `TrellisModelFile` (Trellis JSON model
/// files, Core Data `.xcdatamodeld`):
///
///     let model = try ObjectModel(entities: [
///         EntityDescription(name: "Character",
///             attributes: [
///                 AttributeDescription(name: "id", type: .integer64, isOptional: false,
///                                      userInfo: ["JSONKeyPath": "id"]),
///                 AttributeDescription(name: "name", type: .string, userInfo: ["JSONKeyPath": "name"]),
///             ],
///             relationships: [
///                 RelationshipDescription(name: "powers", destinationEntity: "Power", isToMany: true,
///                                         userInfo: ["JSONKeyPath": "powers"]),
///             ],
///             userInfo: ["identityAttributes": "id"]),
///         EntityDescription(name: "Power", ...),
///     ])
///
/// - Throws: ``ModelValidationError`` listing every problem found (unknown or cyclic
///   parent, duplicate names, unknown destination, an inverse that does not point back,
///   an identity attribute that does not exist, a key path that cannot be parsed, a
///   default value of the wrong type); construction never traps.
public struct ObjectModel: Sendable {
    /// The entities, in the order given.
    public let entities: [EntityDescription]
    /// How properties without a `JSONKeyPath` are mapped (default: not mapped).
    public let keyConvention: KeyConvention
    /// A free-form version label recorded by stores (e.g. "2"); nil when unversioned.
    public let versionLabel: String?

    private let resolvedByName: [String: ResolvedEntity]

    // MARK: - Initialisers

    public init(entities: [EntityDescription], keyConvention: KeyConvention = .none, versionLabel: String? = nil) throws {
        self.entities = entities
        self.keyConvention = keyConvention
        self.versionLabel = versionLabel
        self.resolvedByName = try ModelResolver(entities: entities, keyConvention: keyConvention).resolve()
    }

    // MARK: - Lookup

    /// The resolved entity named `name` (inherited properties included), or nil.
    public func entity(named name: String) -> ResolvedEntity? { resolvedByName[name] }

    /// The resolved entity named `name`.
    /// - Throws: ``ModelError`` `.unknownEntity`, listing the model's entity names.
    public func requireEntity(_ name: String) throws -> ResolvedEntity {
        if let entity = resolvedByName[name] { return entity }
        throw ModelError(
            .unknownEntity, entity: name, property: nil,
            message: "unknown entity '\(name)'; the model has: \(entities.map(\.name).sorted().joined(separator: ", "))")
    }

    /// All resolved entities, in model order.
    public var resolvedEntities: [ResolvedEntity] { entities.compactMap { resolvedByName[$0.name] } }

    /// `true` when `name` is `ancestor` or one of its (transitive) sub-entities.
    public func entity(_ name: String, isKindOf ancestor: String) -> Bool {
        guard let e = resolvedByName[name] else { return false }
        return e.name == ancestor || e.ancestorNames.contains(ancestor)
    }
}

/// How properties without an explicit `JSONKeyPath` map to JSON keys.
public enum KeyConvention: String, Sendable, Hashable, Codable {
    /// Only properties with a `JSONKeyPath` annotation are mapped (Groot's rule).
    case none
    /// Every property is mapped; its camelCase name becomes a snake_case key, acronyms as
    /// one word (`userID` ↔ `user_id`, `profileImageURL` ↔ `profile_image_url`).
    /// An explicit `JSONKeyPath` always overrides.
    case snakeCase
    /// Every property is mapped under its own name.
    case propertyName

    /// The JSON key for a property named `name` under this convention; nil for `.none`.
    public func jsonKey(forPropertyName name: String) -> String? {
        switch self {
        case .none: return nil
        case .propertyName: return name
        case .snakeCase: return KeyConvention.snakeCased(name)
        }
    }

    /// `userID` → `user_id`, `URLString` → `url_string`, `realName` → `real_name`.
    static func snakeCased(_ name: String) -> String {
        let scalars = Array(name.unicodeScalars)
        var out = String.UnicodeScalarView()
        func isUpper(_ s: Unicode.Scalar) -> Bool { s.properties.isUppercase }
        func isLower(_ s: Unicode.Scalar) -> Bool { s.properties.isLowercase || ("0"..."9").contains(s) }
        for (i, s) in scalars.enumerated() {
            if isUpper(s), i > 0 {
                let previous = scalars[i - 1]
                let nextIsLower = i + 1 < scalars.count && scalars[i + 1].properties.isLowercase
                if isLower(previous) || (isUpper(previous) && nextIsLower) {
                    out.append("_")
                }
            }
            for l in s.properties.lowercaseMapping.unicodeScalars { out.append(l) }
        }
        return String(out)
    }
}
