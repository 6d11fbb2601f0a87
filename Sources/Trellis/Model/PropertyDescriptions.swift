/// An attribute of an entity: a named, typed value (Core Data's `NSAttributeDescription`).
///
/// JSON mapping comes from the user-info annotations, with Groot's spelling:
/// `JSONKeyPath` (where the value is in an object; without it the attribute is not
/// mapped, unless the model opts into a key convention) and `JSONTransformerName` (a
/// named ``JSONValueTransformer`` applied on import, and reversed on export).
public struct AttributeDescription: Sendable, Hashable {
    /// The property name (unique within the entity and its parents).
    public var name: String
    /// The attribute type; JSON values are coerced to it (see ``JSONCoercion``).
    public var type: AttributeType
    /// `false` makes a value required on every non-placeholder object (checked on import and save).
    public var isOptional: Bool
    /// The value a new object gets when its JSON has no value for the attribute.
    public var defaultValue: AttributeValue?
    /// User-info annotations (`JSONKeyPath`, `JSONTransformerName`, and any others, kept verbatim).
    public var userInfo: [String: String]

    public init(
        name: String, type: AttributeType, isOptional: Bool = true, defaultValue: AttributeValue? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.userInfo = userInfo
    }

    /// `userInfo["JSONKeyPath"]`, the raw key path text (Groot's annotation).
    public var jsonKeyPathText: String? { userInfo[GrootAnnotation.jsonKeyPath] }
    /// `userInfo["JSONTransformerName"]` (Groot's annotation).
    public var transformerName: String? { userInfo[GrootAnnotation.jsonTransformerName] }
}

/// A relationship from one entity to another (Core Data's `NSRelationshipDescription`).
///
/// Annotations: `JSONKeyPath` (Groot), and Trellis's `JSONMergePolicy` = `replace`
/// (default: the JSON array replaces the set of links) or `append` (links are added).
public struct RelationshipDescription: Sendable, Hashable {
    /// What deleting the source object does to the destination objects.
    public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
        /// Clear the inverse link (default).
        case nullify
        /// Delete the destination objects too.
        case cascade
        /// Refuse to delete the source while destinations are linked.
        case deny
        /// Do nothing to the destinations (the inverse may point at a deleted object).
        case noAction
    }

    public var name: String
    /// The destination entity's name.
    public var destinationEntity: String
    /// The inverse relationship's name on the destination entity, if any.
    public var inverseName: String?
    public var isToMany: Bool
    /// Ordered to-many: JSON order is kept (and stored as a position).
    public var isOrdered: Bool
    public var deleteRule: DeleteRule
    public var isOptional: Bool
    /// Minimum number of destinations (to-many); 0 when unconstrained.
    public var minCount: Int
    /// Maximum number of destinations (to-many); 0 when unconstrained.
    public var maxCount: Int
    public var userInfo: [String: String]

    public init(
        name: String, destinationEntity: String, inverseName: String? = nil, isToMany: Bool = false,
        isOrdered: Bool = false, deleteRule: DeleteRule = .nullify, isOptional: Bool = true,
        minCount: Int = 0, maxCount: Int = 0, userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.destinationEntity = destinationEntity
        self.inverseName = inverseName
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.minCount = minCount
        self.maxCount = maxCount
        self.userInfo = userInfo
    }

    /// `userInfo["JSONKeyPath"]`.
    public var jsonKeyPathText: String? { userInfo[GrootAnnotation.jsonKeyPath] }
    /// `userInfo["JSONMergePolicy"]` parsed; nil when absent (the import option decides).
    public var mergePolicy: ToManyMergePolicy? {
        userInfo[GrootAnnotation.jsonMergePolicy].flatMap(ToManyMergePolicy.init(rawValue:))
    }
}

/// How a JSON array merges into a stored to-many relationship.
public enum ToManyMergePolicy: String, Sendable, Hashable, Codable {
    /// The array becomes the relationship's content; dropped objects are unlinked, not deleted.
    case replace
    /// The array's objects are added to the relationship; existing links stay.
    case append
}

/// The user-info keys Trellis reads, spelled as Groot spells them (plus Trellis's own).
/// (Not named `Annotation`: MapKit's SwiftUI map content has a type of that name, which an
/// app importing both would find ambiguous.)
public enum GrootAnnotation {
    /// Entity: identity attribute names, comma or space separated (Groot 2+).
    public static let identityAttributes = "identityAttributes"
    /// Entity: legacy single identity attribute (Groot 1).
    public static let identityAttribute = "identityAttribute"
    /// Entity: name of an entity mapper choosing the concrete sub-entity.
    public static let entityMapperName = "entityMapperName"
    /// Entity: name of a dictionary transformer rewriting each JSON object before import.
    public static let jsonDictionaryTransformerName = "JSONDictionaryTransformerName"
    /// Property: JSON key path.
    public static let jsonKeyPath = "JSONKeyPath"
    /// Property: value transformer name.
    public static let jsonTransformerName = "JSONTransformerName"
    /// Relationship (Trellis): `replace` or `append`.
    public static let jsonMergePolicy = "JSONMergePolicy"
}
