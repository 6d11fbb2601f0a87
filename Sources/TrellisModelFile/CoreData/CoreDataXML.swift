import Trellis

/// The XML attributes Trellis writes for an entity, attribute or relationship before any
/// ``CoreDataSettings`` override: what Xcode writes for a fresh element with those values.
/// The reader diffs Xcode's XML against these; the writer starts from them.
enum CoreDataXML {
    typealias Attribute = XMLTreeElement.Attribute

    static func baseAttributes(of entity: EntityDescription) -> [Attribute] {
        var element = XMLTreeElement(name: "entity")
        element.set("name", entity.name)
        element.set("representedClassName", entity.name)
        element.set("parentEntity", entity.parentName)
        element.set("isAbstract", entity.isAbstract ? "YES" : nil)
        element.set("syncable", "YES")
        element.set("codeGenerationType", "class")
        return element.attributes
    }

    static func baseAttributes(of attribute: AttributeDescription) -> [Attribute] {
        var element = XMLTreeElement(name: "attribute")
        element.set("name", attribute.name)
        element.set("optional", attribute.isOptional ? "YES" : nil)
        element.set("attributeType", CoreDataAttributeType.xcodeName(for: attribute.type))
        element.set("defaultValueString", attribute.defaultValue.flatMap { CoreDataAttributeType.formatDefault($0, type: attribute.type) })
        element.set("usesScalarValueType", CoreDataAttributeType.usesScalarValueType(attribute.type))
        return element.attributes
    }

    static func baseAttributes(of relationship: RelationshipDescription) -> [Attribute] {
        var element = XMLTreeElement(name: "relationship")
        element.set("name", relationship.name)
        element.set("optional", relationship.isOptional ? "YES" : nil)
        element.set("toMany", relationship.isToMany ? "YES" : nil)
        if relationship.isToMany {
            element.set("minCount", relationship.minCount > 0 ? String(relationship.minCount) : nil)
            element.set("maxCount", relationship.maxCount > 0 ? String(relationship.maxCount) : nil)
        } else {
            element.set("maxCount", "1")
        }
        element.set("deletionRule", xcodeName(for: relationship.deleteRule))
        element.set("ordered", relationship.isOrdered ? "YES" : nil)
        element.set("destinationEntity", relationship.destinationEntity)
        element.set("inverseName", relationship.inverseName)
        element.set("inverseEntity", relationship.inverseName == nil ? nil : relationship.destinationEntity)
        return element.attributes
    }

    // MARK: - Delete rules

    static func xcodeName(for rule: RelationshipDescription.DeleteRule) -> String {
        switch rule {
        case .nullify: return "Nullify"
        case .cascade: return "Cascade"
        case .deny: return "Deny"
        case .noAction: return "No Action"
        }
    }

    static let deleteRules: [String: RelationshipDescription.DeleteRule] = [
        "Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction,
    ]

    // MARK: - Settings diff

    /// The settings that turn `base` into `actual`: `coreData.<name>` → value for each
    /// attribute that differs or is extra, → "" for each base attribute `actual` lacks.
    static func settings(actual: [Attribute], base: [Attribute], ignoring ignored: Set<String>) -> [String: String] {
        var settings: [String: String] = [:]
        var baseValues: [String: String] = [:]
        for attribute in base { baseValues[attribute.name] = attribute.value }
        var seen: Set<String> = []
        for attribute in actual where !ignored.contains(attribute.name) {
            seen.insert(attribute.name)
            if baseValues[attribute.name] != attribute.value {
                settings[CoreDataSettings.key(forXMLAttribute: attribute.name)] = attribute.value
            }
        }
        for attribute in base where !seen.contains(attribute.name) && !ignored.contains(attribute.name) {
            settings[CoreDataSettings.key(forXMLAttribute: attribute.name)] = ""
        }
        return settings
    }

    /// `base` with the overrides in `userInfo` applied ("" removes), in Xcode's order.
    static func applyingSettings(in userInfo: [String: String], to base: [Attribute], order: [String]) -> [Attribute] {
        var element = XMLTreeElement(name: "", attributes: base)
        for (name, value) in CoreDataSettings.overrides(in: userInfo) {
            if value.isEmpty {
                element.attributes.removeAll { $0.name == name }
            } else {
                element.set(name, value)
            }
        }
        return CoreDataSettings.sorted(element.attributes, by: order)
    }
}
