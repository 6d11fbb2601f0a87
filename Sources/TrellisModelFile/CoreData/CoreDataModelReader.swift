import Foundation
import Trellis

/// A Core Data model read into a Trellis ``ObjectModel``, with what the reader noticed.
public struct CoreDataModel: Sendable {
    /// The validated object model. Core Data settings Trellis does not use are kept in the
    /// user info under ``CoreDataSettings``' reserved keys.
    public let model: ObjectModel
    /// Things read but not used (skipped `Undefined` / `Object ID` attributes, reserved keys).
    public let warnings: [CoreDataModelWarning]
    /// The version read (`Model 2`, without `.xcdatamodel`); nil for a lone `contents` file.
    public let versionName: String?
    /// Every version in the bundle, sorted; just ``versionName`` for a lone `.xcdatamodel`.
    public let versionNames: [String]

    /// A read model with its warnings and versions.
    public init(model: ObjectModel, warnings: [CoreDataModelWarning], versionName: String?, versionNames: [String]) {
        self.model = model
        self.warnings = warnings
        self.versionName = versionName
        self.versionNames = versionNames
    }
}

/// Reads Core Data model files (the `contents` XML Xcode writes inside each
/// `.xcdatamodel`) into an ``ObjectModel``, with the Groot user-info annotations.
///
///     let current = try CoreDataModelReader.read(from: URL(fileURLWithPath: "Model.xcdatamodeld"))
///     let first = try CoreDataModelReader.read(from: bundleURL, version: "Model")
///
/// Entities, attributes (types per ``CoreDataAttributeType``), relationships, parent
/// entities, abstract entities and every `<userInfo>` entry become the Trellis model;
/// everything else Xcode writes is kept (see ``CoreDataSettings``) or ignored (`<elements>`
/// layout, `syncable` on properties, the `<model>` element's tool versions).
public enum CoreDataModelReader {
    /// Reads a `.xcdatamodeld` bundle (the version `version`, else the current version
    /// named by its `.xccurrentversion`), a `.xcdatamodel` directory, or a `contents` file.
    ///
    /// The model's ``ObjectModel/versionLabel`` is the XML's `userDefinedModelVersionIdentifier`
    /// when set, else the version name in a bundle with several versions, else nil.
    ///
    /// - Parameters:
    ///   - url: the bundle, version directory or `contents` file.
    ///   - version: a version name in a bundle (`Model 2` or `Model 2.xcdatamodel`); nil for the current one.
    /// - Throws: ``CoreDataModelError`` (`.readFailed`, `.unknownVersion`,
    ///   `.missingCurrentVersion`, `.malformedXML` with line and column, and the semantic codes).
    public static func read(from url: URL, version: String? = nil) throws -> CoreDataModel {
        let location = try CoreDataModelBundle.locate(url, version: version)
        let data: Data
        do {
            data = try Data(contentsOf: location.contentsURL)
        } catch {
            throw CoreDataModelError(
                .readFailed, file: location.displayPath,
                message: "cannot read the model contents: \(error.localizedDescription)")
        }
        do {
            // A version name labels the model only where there are versions to tell apart.
            let label = location.versionNames.count > 1 ? location.versionName : nil
            let read = try parse(contents: data, defaultVersionLabel: label)
            return CoreDataModel(
                model: read.model, warnings: read.warnings, versionName: location.versionName,
                versionNames: location.versionNames)
        } catch var error as CoreDataModelError {
            error.file = location.displayPath
            throw error
        }
    }

    /// Reads the `contents` XML of one `.xcdatamodel`.
    ///
    /// - Parameters:
    ///   - data: the XML bytes.
    ///   - versionLabel: the model's ``ObjectModel/versionLabel`` when the XML's
    ///     `userDefinedModelVersionIdentifier` is empty.
    /// - Throws: ``CoreDataModelError``; `.malformedXML` carries the line, column and reason of
    ///   libxml2's first error (or of the first byte that is not UTF-8).
    public static func read(contents data: Data, versionLabel: String? = nil) throws -> CoreDataModel {
        let read = try parse(contents: data, defaultVersionLabel: versionLabel)
        return CoreDataModel(model: read.model, warnings: read.warnings, versionName: nil, versionNames: [])
    }

    // MARK: - Internals

    private static func parse(contents data: Data, defaultVersionLabel: String?) throws
        -> (model: ObjectModel, warnings: [CoreDataModelWarning])
    {
        let root: XMLTreeElement
        do {
            root = try XMLTreeParser.parse(data)
        } catch let error as XMLTreeParser.SyntaxError {
            throw CoreDataModelError(.malformedXML, line: error.line, column: error.column, message: error.message)
        }
        guard root.name == "model" else {
            throw CoreDataModelError(
                .notACoreDataModel, line: root.line,
                message: "the root element is <\(root.name)>, not a Core Data <model>")
        }
        var reader = ElementReader()
        return try reader.readModel(root, defaultVersionLabel: defaultVersionLabel)
    }
}

/// Turns the `<model>` element into entity descriptions, collecting warnings and the XML
/// line of every entity and property (for locating validation problems).
private struct ElementReader {
    var warnings: [CoreDataModelWarning] = []
    var lines: [String: Int] = [:]

    mutating func readModel(_ root: XMLTreeElement, defaultVersionLabel: String?) throws
        -> (model: ObjectModel, warnings: [CoreDataModelWarning])
    {
        var entities: [EntityDescription] = []
        var modelFragments: [XMLTreeElement] = []
        for child in root.children {
            switch child.name {
            case "entity": entities.append(try readEntity(child))
            case "elements": continue  // the diagram layout
            default: modelFragments.append(child)
            }
        }
        if !modelFragments.isEmpty, !entities.isEmpty {
            entities[0].userInfo[CoreDataSettings.modelElementsKey] = modelFragments.map(\.compactXMLText).joined()
        }
        let identifier = root[attribute: "userDefinedModelVersionIdentifier"] ?? ""
        let label = identifier.isEmpty ? defaultVersionLabel : identifier
        do {
            return (try ObjectModel(entities: entities, versionLabel: label), warnings)
        } catch let error as ModelValidationError {
            let problemLines = error.problems.map { lines[lineKey($0.entity, $0.property)] ?? lines[lineKey($0.entity, nil)] ?? 0 }
            if error.problems.count == 1, let problem = error.problems.first {
                throw CoreDataModelError(
                    CoreDataModelError.Code(rawValue: problem.code.rawValue), line: problemLines[0],
                    entity: problem.entity, property: problem.property, message: problem.message,
                    problems: error.problems, problemLines: problemLines)
            }
            throw CoreDataModelError(
                .invalidModel, message: "invalid model (\(error.problems.count) problems)",
                problems: error.problems, problemLines: problemLines)
        }
    }

    private func lineKey(_ entity: String, _ property: String?) -> String {
        property.map { "\(entity)\u{0}\($0)" } ?? entity
    }

    // MARK: Entities

    private mutating func readEntity(_ element: XMLTreeElement) throws -> EntityDescription {
        let name = try required("name", of: element, entity: nil, property: nil)
        lines[lineKey(name, nil)] = element.line
        var entity = EntityDescription(
            name: name, parentName: element[attribute: "parentEntity"],
            isAbstract: try flag("isAbstract", of: element, entity: name, property: nil))
        var fragments: [XMLTreeElement] = []
        var userInfo: [String: String] = [:]
        for child in element.children {
            switch child.name {
            case "attribute":
                if let attribute = try readAttribute(child, entity: name) {
                    entity.attributes.append(attribute)
                } else {
                    fragments.append(child)
                }
            case "relationship":
                entity.relationships.append(try readRelationship(child, entity: name))
            case "userInfo":
                userInfo.merge(readUserInfo(child, entity: name, property: nil)) { _, last in last }
            default:
                fragments.append(child)
            }
        }
        let settings = CoreDataXML.settings(
            actual: element.attributes, base: CoreDataXML.baseAttributes(of: entity),
            ignoring: ["name"])
        entity.userInfo = userInfo.merging(settings) { _, setting in setting }
        if !fragments.isEmpty {
            entity.userInfo[CoreDataSettings.elementsKey] = fragments.map(\.compactXMLText).joined()
        }
        return entity
    }

    // MARK: Attributes

    /// The attribute, or nil for a skipped type (kept as XML by the caller, with a warning).
    private mutating func readAttribute(_ element: XMLTreeElement, entity: String) throws -> AttributeDescription? {
        let name = try required("name", of: element, entity: entity, property: nil)
        lines[lineKey(entity, name)] = element.line
        let typeName = try required("attributeType", of: element, entity: entity, property: name)
        guard let type = CoreDataAttributeType.trellisTypes[typeName] else {
            if CoreDataAttributeType.skippedTypes.contains(typeName) {
                warnings.append(
                    CoreDataModelWarning(
                        entity: entity, property: name, line: element.line,
                        message: "attribute type '\(typeName)' has no stored form; the attribute is skipped (kept for writing)"))
                return nil
            }
            throw CoreDataModelError(
                .unknownAttributeType, line: element.line, entity: entity, property: name,
                message: "unknown attribute type '\(typeName)'; known types: "
                    + CoreDataAttributeType.knownNames.joined(separator: ", "))
        }
        var attribute = AttributeDescription(
            name: name, type: type,
            isOptional: try flag("optional", of: element, entity: entity, property: name))
        if let text = element[attribute: "defaultValueString"], type != .binary, type != .json {
            guard let value = CoreDataAttributeType.parseDefault(text, as: type) else {
                throw CoreDataModelError(
                    .invalidValue, line: element.line, entity: entity, property: name,
                    message: "default value '\(text)' is not a valid \(typeName)")
            }
            attribute.defaultValue = value
        }
        var ignored = CoreDataSettings.ignoredPropertyAttributes.union(["name"])
        if attribute.defaultValue != nil { ignored.insert("defaultValueString") }  // same value, maybe other digits
        let settings = CoreDataXML.settings(
            actual: element.attributes, base: CoreDataXML.baseAttributes(of: attribute),
            ignoring: ignored)
        attribute.userInfo = readChildren(of: element, entity: entity, property: name).merging(settings) { _, s in s }
        return attribute
    }

    // MARK: Relationships

    private mutating func readRelationship(_ element: XMLTreeElement, entity: String) throws -> RelationshipDescription {
        let name = try required("name", of: element, entity: entity, property: nil)
        lines[lineKey(entity, name)] = element.line
        let destination = try required("destinationEntity", of: element, entity: entity, property: name)
        let isToMany = try flag("toMany", of: element, entity: entity, property: name)
        var rule = RelationshipDescription.DeleteRule.nullify
        if let text = element[attribute: "deletionRule"] {
            guard let parsed = CoreDataXML.deleteRules[text] else {
                throw CoreDataModelError(
                    .invalidValue, line: element.line, entity: entity, property: name,
                    message: "unknown deletionRule '\(text)'; expected Nullify, Cascade, Deny or No Action")
            }
            rule = parsed
        }
        let inverseName = element[attribute: "inverseName"]
        if let inverseEntity = element[attribute: "inverseEntity"], inverseEntity != destination {
            throw CoreDataModelError(
                .inverseMismatch, line: element.line, entity: entity, property: name,
                message: "inverseEntity '\(inverseEntity)' is not the destination entity '\(destination)'")
        }
        var relationship = RelationshipDescription(
            name: name, destinationEntity: destination, inverseName: inverseName, isToMany: isToMany,
            isOrdered: try flag("ordered", of: element, entity: entity, property: name), deleteRule: rule,
            isOptional: try flag("optional", of: element, entity: entity, property: name))
        if isToMany {
            relationship.minCount = try count("minCount", of: element, entity: entity, property: name)
            relationship.maxCount = try count("maxCount", of: element, entity: entity, property: name)
        }
        let settings = CoreDataXML.settings(
            actual: element.attributes, base: CoreDataXML.baseAttributes(of: relationship),
            ignoring: CoreDataSettings.ignoredPropertyAttributes.union(["name"]))
        relationship.userInfo = readChildren(of: element, entity: entity, property: name).merging(settings) { _, s in s }
        if let policy = relationship.userInfo[GrootAnnotation.jsonMergePolicy], relationship.mergePolicy == nil {
            throw CoreDataModelError(
                .invalidValue, line: element.line, entity: entity, property: name,
                message: "JSONMergePolicy '\(policy)' is not replace or append")
        }
        return relationship
    }

    // MARK: Shared pieces

    /// A property's `<userInfo>` entries, plus its other children kept as XML.
    private mutating func readChildren(of element: XMLTreeElement, entity: String, property: String) -> [String: String] {
        var userInfo: [String: String] = [:]
        var fragments: [XMLTreeElement] = []
        for child in element.children {
            if child.name == "userInfo" {
                userInfo.merge(readUserInfo(child, entity: entity, property: property)) { _, last in last }
            } else {
                fragments.append(child)
            }
        }
        if !fragments.isEmpty { userInfo[CoreDataSettings.elementsKey] = fragments.map(\.compactXMLText).joined() }
        return userInfo
    }

    /// `<userInfo><entry key="…" value="…"/></userInfo>`; a later entry with the same key wins.
    private mutating func readUserInfo(_ element: XMLTreeElement, entity: String, property: String?) -> [String: String] {
        var userInfo: [String: String] = [:]
        for entry in element.children(named: "entry") {
            guard let key = entry[attribute: "key"] else { continue }
            if CoreDataSettings.isReserved(key) {
                warnings.append(
                    CoreDataModelWarning(
                        entity: entity, property: property, line: entry.line,
                        message: "user-info key '\(key)' uses the reserved prefix '\(CoreDataSettings.prefix)'"))
            }
            userInfo[key] = entry[attribute: "value"] ?? ""
        }
        return userInfo
    }

    private func required(_ name: String, of element: XMLTreeElement, entity: String?, property: String?) throws -> String {
        if let value = element[attribute: name], !value.isEmpty { return value }
        throw CoreDataModelError(
            .missingAttribute, line: element.line, entity: entity, property: property,
            message: "<\(element.name)> has no \(name)")
    }

    /// `YES` / `NO` (absent: `NO`).
    private func flag(_ name: String, of element: XMLTreeElement, entity: String, property: String?) throws -> Bool {
        switch element[attribute: name] {
        case nil, "NO": return false
        case "YES": return true
        case let other?:
            throw CoreDataModelError(
                .invalidValue, line: element.line, entity: entity, property: property,
                message: "\(name)=\"\(other)\" is not YES or NO")
        }
    }

    /// A non-negative count (absent: 0).
    private func count(_ name: String, of element: XMLTreeElement, entity: String, property: String) throws -> Int {
        guard let text = element[attribute: name] else { return 0 }
        guard let value = Int(text), value >= 0 else {
            throw CoreDataModelError(
                .invalidValue, line: element.line, entity: entity, property: property,
                message: "\(name)=\"\(text)\" is not a non-negative integer")
        }
        return value
    }
}
