/// An entity: a named kind of object with attributes and relationships (Core Data's
/// `NSEntityDescription`). Holds only the properties it declares; the ``ObjectModel``
/// resolves inherited ones.
///
/// Entity annotations (Groot's spelling): `identityAttributes` (comma or space separated;
/// the legacy `identityAttribute` is accepted; unioned with the parent entities'),
/// `entityMapperName`, `JSONDictionaryTransformerName`.
public struct EntityDescription: Sendable, Hashable {
    public var name: String
    /// The parent entity's name, for a sub-entity.
    public var parentName: String?
    /// An abstract entity has no instances of its own; imports pick a sub-entity.
    public var isAbstract: Bool
    /// Attributes declared by this entity (not inherited ones), in declaration order.
    public var attributes: [AttributeDescription]
    /// Relationships declared by this entity, in declaration order.
    public var relationships: [RelationshipDescription]
    public var userInfo: [String: String]

    public init(
        name: String, parentName: String? = nil, isAbstract: Bool = false,
        attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.parentName = parentName
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.userInfo = userInfo
    }

    /// The identity attribute names this entity declares itself (not its parents'):
    /// `identityAttributes` split on commas and whitespace, else `identityAttribute`.
    public var declaredIdentityAttributeNames: [String] {
        let text = userInfo[GrootAnnotation.identityAttributes] ?? userInfo[GrootAnnotation.identityAttribute] ?? ""
        return text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
    }

    /// `userInfo["entityMapperName"]`.
    public var entityMapperName: String? { userInfo[GrootAnnotation.entityMapperName] }
    /// `userInfo["JSONDictionaryTransformerName"]`.
    public var dictionaryTransformerName: String? { userInfo[GrootAnnotation.jsonDictionaryTransformerName] }
}
