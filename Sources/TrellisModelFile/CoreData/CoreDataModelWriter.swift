import Foundation
import Trellis

/// Writes an ``ObjectModel`` as a Core Data model Xcode opens: the `contents` XML Xcode
/// writes (`<model type="com.apple.IDECoreDataModeler.DataModel" …>`, entities with
/// `representedClassName`, `syncable="YES"` and `codeGenerationType="class"`, attributes
/// with `attributeType`, `optional`, `usesScalarValueType`, relationships with
/// `deletionRule` and inverses, `<userInfo><entry key= value=/></userInfo>`), inside
/// `NAME.xcdatamodel`, inside `NAME.xcdatamodeld` with its `.xccurrentversion`.
///
/// Settings kept by ``CoreDataModelReader`` under ``CoreDataSettings``' reserved keys are
/// applied, so a model read from Xcode's XML is written back as it was (attribute order
/// aside). JSON attributes become `Transformable`. A model's ``ObjectModel/keyConvention``,
/// which a Core Data model has no place for, is written out as the `JSONKeyPath` of every
/// property without one, so the model maps the same JSON keys.
///
///     try CoreDataModelWriter().write(model, to: URL(fileURLWithPath: "Characters.xcdatamodeld"))
public struct CoreDataModelWriter: Sendable {
    /// `lastSavedToolsVersion` on `<model>` (Xcode's build number; 22522 is Xcode 15).
    public var lastSavedToolsVersion: String
    /// `systemVersion` on `<model>` (the macOS build Xcode ran on).
    public var systemVersion: String

    /// A writer stamping `<model>` with these Xcode and macOS build numbers (Xcode rewrites
    /// them when it saves; they do not change how the model opens).
    public init(lastSavedToolsVersion: String = "22522", systemVersion: String = "23A344") {
        self.lastSavedToolsVersion = lastSavedToolsVersion
        self.systemVersion = systemVersion
    }

    // MARK: - Public API

    /// The `contents` XML for `model`.
    ///
    /// - Parameter versionName: the `.xcdatamodel` name the XML goes into; the model's
    ///   ``ObjectModel/versionLabel`` becomes `userDefinedModelVersionIdentifier` unless it
    ///   equals this name.
    /// - Throws: ``CoreDataModelError`` `.unrepresentable` (a binary or JSON default value,
    ///   a reserved key that is not an XML name) or `.invalidValue` (kept XML that does not parse).
    public func contents(for model: ObjectModel, versionName: String? = nil) throws -> String {
        var root = XMLTreeElement(name: "model")
        root.set("type", "com.apple.IDECoreDataModeler.DataModel")
        root.set("documentVersion", "1.0")
        root.set("lastSavedToolsVersion", lastSavedToolsVersion)
        root.set("systemVersion", systemVersion)
        root.set("minimumToolsVersion", "Automatic")
        root.set("sourceLanguage", "Swift")
        let label = model.versionLabel == versionName ? nil : model.versionLabel
        root.set("userDefinedModelVersionIdentifier", label ?? "")
        var modelFragments: [XMLTreeElement] = []
        for entity in model.entities {
            root.children.append(try element(for: entity, keyConvention: model.keyConvention))
            if let text = entity.userInfo[CoreDataSettings.modelElementsKey] {
                modelFragments += try fragments(text, entity: entity.name, property: nil)
            }
        }
        root.children += modelFragments
        return "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n" + root.xmlText()
    }

    /// What ``write(_:to:versionName:)`` wrote.
    public struct Written: Sendable, Hashable {
        /// The version written into a bundle (`Library 3`); nil for a `.xcdatamodel`
        /// directory or a `contents` file.
        public var versionName: String?
        /// `true` when the version was added to a bundle that already had versions (which
        /// were left as they were).
        public var isNewVersion: Bool
    }

    /// Writes `model` to `url`:
    /// - `NAME.xcdatamodeld`: the bundle (created if needed) with the model as a version
    ///   `VERSION.xcdatamodel/contents`, made current in `.xccurrentversion`. Without
    ///   `versionName`, a new bundle's version is `NAME`, and a bundle that has versions
    ///   gets a new one named as Xcode's "Add Model Version" names it: `NAME N` with the
    ///   first free N ≥ 2 (`Library 2`, `Library 3`). The versions already there are not
    ///   touched. A `versionName` that is already in the bundle is replaced.
    /// - `NAME.xcdatamodel`: that directory with its `contents`; it must not exist yet.
    /// - any other path: the `contents` XML itself.
    ///
    /// Files are written with ``OutputFile``: atomically, through symbolic links, in place
    /// into a FIFO or device.
    ///
    /// - Returns: the version written and whether it was added to an existing bundle.
    /// - Throws: ``CoreDataModelError`` with the path: `.alreadyExists` for an existing
    ///   `.xcdatamodel`, `.writeFailed` (`cannot write: it is a directory`, the system's
    ///   reason), `.readFailed` for a bundle that cannot be listed, or the errors of
    ///   ``contents(for:versionName:)``.
    @discardableResult
    public func write(_ model: ObjectModel, to url: URL, versionName: String? = nil) throws -> Written {
        // A model the format cannot hold fails before anything is created (no empty bundle left).
        _ = try contents(for: model, versionName: versionName)
        switch url.pathExtension {
        case "xcdatamodeld":
            let bundleName = url.deletingPathExtension().lastPathComponent
            try perform(url.path) { try OutputFile.createDirectory(at: url) }
            var version = versionName ?? bundleName
            var isNewVersion = false
            if versionName == nil {
                let existing = Set(try CoreDataModelBundle(url: url).versionNames)
                if !existing.isEmpty {
                    version = (2...).lazy.map { "\(bundleName) \($0)" }.first { !existing.contains($0) } ?? bundleName
                    isNewVersion = true
                }
            }
            let versionURL = url.appendingPathComponent(version + ".xcdatamodel")
            let xml = try contents(for: model, versionName: version)
            if isNewVersion {
                try createNew(versionURL)
            } else {
                try perform(url.path) { try OutputFile.createDirectory(at: versionURL) }
            }
            try save(xml, to: versionURL.appendingPathComponent("contents"))
            try save(
                CoreDataModelBundle.currentVersionPlist(version: version),
                to: url.appendingPathComponent(".xccurrentversion"))
            return Written(versionName: version, isNewVersion: isNewVersion)
        case "xcdatamodel":
            let xml = try contents(for: model, versionName: url.deletingPathExtension().lastPathComponent)
            try perform(url.path) { try OutputFile.createDirectory(at: url.deletingLastPathComponent()) }
            try createNew(url)
            try save(xml, to: url.appendingPathComponent("contents"))
            return Written(versionName: nil, isNewVersion: false)
        default:
            try save(try contents(for: model, versionName: versionName), to: url)
            return Written(versionName: nil, isNewVersion: false)
        }
    }

    /// Names Xcode's model editor rejects (it opens the model but reports errors): entity
    /// names must start with an uppercase letter, property names with a lowercase one, and
    /// a property may not be named like an `NSManagedObject` member (`description`, …).
    public static func xcodeNamingProblems(in model: ObjectModel) -> [CoreDataModelWarning] {
        var problems: [CoreDataModelWarning] = []
        for entity in model.entities {
            if let first = entity.name.unicodeScalars.first, !first.properties.isUppercase {
                problems.append(
                    CoreDataModelWarning(
                        entity: entity.name, property: nil, line: 0,
                        message: "Xcode requires entity names to start with an uppercase letter"))
            }
            for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) {
                if let first = name.unicodeScalars.first, !first.properties.isLowercase {
                    problems.append(
                        CoreDataModelWarning(
                            entity: entity.name, property: name, line: 0,
                            message: "Xcode requires property names to start with a lowercase letter"))
                } else if reservedPropertyNames.contains(name) {
                    problems.append(
                        CoreDataModelWarning(
                            entity: entity.name, property: name, line: 0,
                            message: "Xcode rejects '\(name)' as a property name (an NSManagedObject member)"))
                }
            }
        }
        return problems
    }

    /// `NSManagedObject` / `NSObject` members Xcode refuses as property names.
    static let reservedPropertyNames: Set<String> = [
        "description", "entity", "objectID", "managedObjectContext", "isInserted", "isUpdated", "isDeleted",
        "hasChanges", "isFault", "hash", "superclass", "className",
    ]

    // MARK: - Elements

    private func element(for entity: EntityDescription, keyConvention: KeyConvention) throws -> XMLTreeElement {
        var element = XMLTreeElement(name: "entity")
        element.attributes = try applying(
            entity.userInfo, to: CoreDataXML.baseAttributes(of: entity),
            order: CoreDataSettings.entityAttributeOrder, entity: entity.name, property: nil)
        for attribute in entity.attributes {
            var attribute = attribute
            attribute.userInfo = CoreDataModelWriter.materialising(keyConvention, in: attribute.userInfo, name: attribute.name)
            element.children.append(try self.element(for: attribute, entity: entity.name))
        }
        for var relationship in entity.relationships {
            relationship.userInfo = CoreDataModelWriter.materialising(keyConvention, in: relationship.userInfo, name: relationship.name)
            var child = XMLTreeElement(name: "relationship")
            child.attributes = try applying(
                relationship.userInfo, to: CoreDataXML.baseAttributes(of: relationship),
                order: CoreDataSettings.relationshipAttributeOrder,
                entity: entity.name, property: relationship.name)
            child.children = try children(userInfo: relationship.userInfo, entity: entity.name, property: relationship.name)
            element.children.append(child)
        }
        element.children += try children(userInfo: entity.userInfo, entity: entity.name, property: nil)
        try CoreDataModelWriter.checkCharacters(of: element, entity: entity.name, property: nil)
        return element
    }

    /// Throws unless every name and value in `element` (and its children) is made of
    /// characters XML 1.0 allows (https://www.w3.org/TR/xml/#charsets: not U+0000–U+001F
    /// other than tab, line feed and carriage return, not U+FFFE or U+FFFF), which no escape
    /// can stand for: written, they make a `contents` file no XML parser reads, Xcode's and
    /// Trellis's included. Property elements are checked as they are made (`property` names
    /// them); the entity's own element and user info last.
    static func checkCharacters(of element: XMLTreeElement, entity: String, property: String?) throws {
        func check(_ text: String, what: String, property: String?) throws {
            guard
                let bad = text.unicodeScalars.first(where: { scalar in
                    (scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r") || scalar.value == 0xFFFE || scalar.value == 0xFFFF
                })
            else { return }
            let code = "U+" + String(repeating: "0", count: max(0, 4 - String(bad.value, radix: 16).count)) + String(bad.value, radix: 16, uppercase: true)
            throw CoreDataModelError(
                .unrepresentable, entity: entity, property: property,
                message: "\(what) holds \(code), a character a Core Data model (XML 1.0) cannot hold")
        }
        for attribute in element.attributes {
            let what =
                element.name != "entry"
                ? "its \(attribute.name)"
                : attribute.name == "key" ? "a user-info key" : "its user-info entry \(element[attribute: "key"] ?? "")"
            try check(attribute.value, what: what, property: property)
        }
        for child in element.children {
            let childProperty = child.name == "attribute" || child.name == "relationship" ? child[attribute: "name"] : property
            try checkCharacters(of: child, entity: entity, property: childProperty)
        }
    }

    private func element(for attribute: AttributeDescription, entity: String) throws -> XMLTreeElement {
        if let value = attribute.defaultValue, CoreDataAttributeType.formatDefault(value, type: attribute.type) == nil {
            throw CoreDataModelError(
                .unrepresentable, entity: entity, property: attribute.name,
                message: "Core Data has no text form for the default value \(value) of a \(attribute.type) attribute")
        }
        var element = XMLTreeElement(name: "attribute")
        element.attributes = try applying(
            attribute.userInfo, to: CoreDataXML.baseAttributes(of: attribute),
            order: CoreDataSettings.attributeAttributeOrder, entity: entity, property: attribute.name)
        element.children = try children(userInfo: attribute.userInfo, entity: entity, property: attribute.name)
        return element
    }

    /// `userInfo` with the `JSONKeyPath` the model's key convention gives a property that
    /// has none (`userID` → `user_id` under `snakeCase`), written in key path syntax (a dot in
    /// the name escaped: `a\.b`). Core Data has no model-level user info to hold the
    /// convention, and Groot maps only properties with a `JSONKeyPath`, so the converted
    /// model maps the same keys.
    static func materialising(_ keyConvention: KeyConvention, in userInfo: [String: String], name: String) -> [String: String] {
        guard userInfo[GrootAnnotation.jsonKeyPath] == nil, let key = keyConvention.jsonKey(forPropertyName: name) else { return userInfo }
        var userInfo = userInfo
        userInfo[GrootAnnotation.jsonKeyPath] = JSONKeyPath(key: key).description
        return userInfo
    }

    /// Kept child elements, then `<userInfo>` with the annotations (sorted by key).
    private func children(userInfo: [String: String], entity: String, property: String?) throws -> [XMLTreeElement] {
        var children: [XMLTreeElement] = []
        if let text = userInfo[CoreDataSettings.elementsKey] {
            children += try fragments(text, entity: entity, property: property)
        }
        let annotations = CoreDataSettings.annotations(in: userInfo)
        if !annotations.isEmpty {
            var info = XMLTreeElement(name: "userInfo")
            for key in annotations.keys.sorted() {
                info.children.append(
                    XMLTreeElement(
                        name: "entry",
                        attributes: [
                            .init(name: "key", value: key), .init(name: "value", value: annotations[key] ?? ""),
                        ]))
            }
            children.append(info)
        }
        return children
    }

    private func applying(
        _ userInfo: [String: String], to base: [XMLTreeElement.Attribute], order: [String],
        entity: String, property: String?
    ) throws -> [XMLTreeElement.Attribute] {
        for (name, _) in CoreDataSettings.overrides(in: userInfo) where !CoreDataModelWriter.isXMLName(name) {
            throw CoreDataModelError(
                .unrepresentable, entity: entity, property: property,
                message: "user-info key '\(CoreDataSettings.prefix)\(name)' does not name an XML attribute")
        }
        return CoreDataXML.applyingSettings(in: userInfo, to: base, order: order)
    }

    /// The elements of kept XML text (``CoreDataSettings/elementsKey``).
    private func fragments(_ text: String, entity: String, property: String?) throws -> [XMLTreeElement] {
        guard !text.isEmpty else { return [] }
        do {
            return try XMLTreeParser.parse(Data("<fragments>\(text)</fragments>".utf8)).children.map(CoreDataSettings.ordered)
        } catch {
            throw CoreDataModelError(
                .invalidValue, entity: entity, property: property,
                message: "kept Core Data XML is not well-formed: \(text.prefix(80))")
        }
    }

    // MARK: - Files

    /// Writes `text` with ``OutputFile`` (atomically; through symbolic links; never
    /// replacing a FIFO or device).
    private func save(_ text: String, to url: URL) throws {
        try perform(url.path) { try OutputFile.write(Data(text.utf8), to: url) }
    }

    /// Creates the version directory `url`, which must not exist (`mkdir(2)`, so two
    /// writers cannot both take it).
    private func createNew(_ url: URL) throws {
        var created = false
        try perform(url.path) { created = try OutputFile.createNewDirectory(at: url) }
        guard created else {
            throw CoreDataModelError(
                .alreadyExists, file: url.path,
                message: "already exists; a model version is not overwritten (remove it first, or write "
                    + "to a .xcdatamodeld bundle, which gets a new version)")
        }
    }

    private func perform(_ path: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            let reason = (error as? OutputFileError)?.reason ?? error.localizedDescription
            throw CoreDataModelError(.writeFailed, file: path, message: "cannot write: \(reason)")
        }
    }

    /// `[A-Za-z_][A-Za-z0-9_.-]*` (the XML names Core Data uses).
    static func isXMLName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first,
            first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first)
        else { return false }
        return name.unicodeScalars.allSatisfy { s in
            s == "_" || s == "." || s == "-" || ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s)
        }
    }
}
