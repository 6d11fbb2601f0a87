import Trellis

/// The user-info keys that carry the Core Data settings Trellis does not model, so a
/// model read from an `.xcdatamodeld`, converted to the Trellis JSON model format and
/// written back as an `.xcdatamodeld` loses nothing.
///
/// The rule is a diff: for each entity, attribute and relationship the reader compares
/// the XML attributes Xcode wrote with those ``CoreDataModelWriter`` would write for the
/// Trellis description, and keeps each difference as `coreData.<XML attribute>` in that
/// element's user info (an empty value means "Xcode wrote no such attribute"). A model
/// that uses Xcode's defaults therefore carries no such keys at all. Child elements
/// Trellis does not model (fetched properties, fetch indexes, uniqueness constraints,
/// skipped attributes) are kept verbatim as XML in ``elementsKey``; model-level ones
/// (fetch requests, configurations, composite definitions) in the first entity's
/// ``modelElementsKey``.
///
///     <entity name="Character" representedClassName="CDCharacter" syncable="YES">
///     // → userInfo["coreData.representedClassName"] == "CDCharacter"
///     //   (no "coreData.codeGenerationType": Xcode's default "class" was replaced by "")
///
/// Keys under the `coreData.` prefix are reserved; a Core Data model's own user-info
/// entries with that prefix are read with a warning.
public enum CoreDataSettings {
    /// `coreData.`: the prefix of every reserved key.
    public static let prefix = "coreData."
    /// Child elements Trellis does not model, as XML text (entities, attributes, relationships).
    public static let elementsKey = "coreData.elements"
    /// On the model's first entity: model-level elements other than entities, as XML text.
    public static let modelElementsKey = "coreData.modelElements"

    /// The user-info key for the XML attribute `name` (`coreData.usesScalarValueType`).
    public static func key(forXMLAttribute name: String) -> String { prefix + name }

    /// `true` for keys under the reserved prefix.
    public static func isReserved(_ key: String) -> Bool { key.hasPrefix(prefix) }

    /// `userInfo` without the reserved keys: the annotations a user wrote.
    public static func annotations(in userInfo: [String: String]) -> [String: String] {
        userInfo.filter { !isReserved($0.key) }
    }

    /// The XML attribute overrides in `userInfo` (XML attribute name → value; "" removes).
    static func overrides(in userInfo: [String: String]) -> [(name: String, value: String)] {
        userInfo.keys.sorted().compactMap { key in
            guard isReserved(key), key != elementsKey, key != modelElementsKey, let value = userInfo[key] else { return nil }
            return (String(key.dropFirst(prefix.count)), value)
        }
    }

    /// XML attributes the reader never keeps: `syncable` on properties (an iOS 5 iCloud
    /// setting current Xcode no longer writes on properties and Core Data ignores).
    static let ignoredPropertyAttributes: Set<String> = ["syncable"]

    /// The order Xcode writes XML attributes in, per element; unknown ones follow, sorted.
    static let entityAttributeOrder = [
        "name", "representedClassName", "parentEntity", "isAbstract", "elementID",
        "versionHashModifier", "syncable", "codeGenerationType",
    ]
    static let attributeAttributeOrder = [
        "name", "optional", "transient", "attributeType", "minValueString",
        "maxValueString", "defaultValueString", "usesScalarValueType",
        "valueTransformerName", "customClassName", "composite",
        "allowsExternalBinaryDataStorage", "preserveAfterDeletion",
        "indexed", "spotlightIndexingEnabled", "allowsCloudEncryption", "elementID",
        "versionHashModifier", "derived", "derivationExpression",
    ]
    static let relationshipAttributeOrder = [
        "name", "optional", "transient", "toMany", "minCount", "maxCount",
        "deletionRule", "ordered", "destinationEntity", "inverseName",
        "inverseEntity", "elementID", "versionHashModifier",
    ]

    /// The order for any other element's XML attributes (kept fragments).
    static let otherAttributeOrder = ["name", "key", "value", "entity", "property", "type", "order", "predicateString"]

    /// The attribute order for an element named `elementName`.
    static func attributeOrder(forElement elementName: String) -> [String] {
        switch elementName {
        case "entity": return entityAttributeOrder
        case "attribute": return attributeAttributeOrder
        case "relationship": return relationshipAttributeOrder
        default: return otherAttributeOrder
        }
    }

    /// `element` and its descendants with attributes in Xcode's order.
    static func ordered(_ element: XMLTreeElement) -> XMLTreeElement {
        var copy = element
        copy.attributes = sorted(element.attributes, by: attributeOrder(forElement: element.name))
        copy.children = element.children.map(ordered)
        return copy
    }

    /// Sorts `attributes` by `order` (unknown names last, alphabetically).
    static func sorted(_ attributes: [XMLTreeElement.Attribute], by order: [String]) -> [XMLTreeElement.Attribute] {
        func rank(_ name: String) -> Int { order.firstIndex(of: name) ?? order.count }
        return attributes.enumerated().sorted { a, b in
            let (ra, rb) = (rank(a.element.name), rank(b.element.name))
            if ra != rb { return ra < rb }
            if ra == order.count, a.element.name != b.element.name { return a.element.name < b.element.name }
            return a.offset < b.offset
        }.map(\.element)
    }
}
