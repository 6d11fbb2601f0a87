import Foundation
import Trellis

/// The formats a model can be read from.
public enum ModelFileFormat: String, Sendable, Hashable, CaseIterable {
    /// The Trellis JSON model format (`docs/ModelFormat.md`).
    case json
    /// A Core Data `.xcdatamodeld` bundle, `.xcdatamodel` directory or its `contents` XML.
    case xcdatamodel
}

/// A model read by ``ModelLoader``: the object model and the bindings for the names it uses.
public struct LoadedModel: Sendable {
    /// The validated object model.
    public var model: ObjectModel
    /// The standard value transformers plus every declared name.
    public var bindings: MappingBindings
    /// The declarations the bindings were made from (the JSON model file's `bindings`
    /// section merged with the bindings file, whose entries win).
    public var bindingDeclarations: BindingDeclarations
    /// The format the model was read from.
    public var format: ModelFileFormat
    /// For a Core Data bundle: the version read (`Model 2`); nil otherwise.
    public var versionName: String?
    /// Things the reader noticed but did not fail on (Core Data: skipped attributes, reserved keys).
    public var warnings: [String]

    /// The model and its binding declarations as a Trellis JSON model file (for writing).
    public var modelFile: ModelFile {
        ModelFile(model: model, bindingDeclarations: bindingDeclarations, bindings: bindings)
    }
}

/// One entry point for every model format: `trellis import`, `export`, `schema`, `model`
/// and Swift callers read models through it, so a Core Data model and a Trellis JSON model
/// file work alike.
///
///     let loaded = try ModelLoader.load(url: URL(fileURLWithPath: "Characters.xcdatamodeld"),
///                                       bindingsURL: URL(fileURLWithPath: "bindings.json"))
///     let context = ObjectContext(store: store, bindings: loaded.bindings)
///
/// The format follows the path (``format(of:)``): a `.xcdatamodeld` or `.xcdatamodel`
/// (or the `contents` file inside one) is a Core Data model; anything else is a JSON model file.
///
/// A bindings file holds the `bindings` section of the JSON model format on its own
/// (`{"transformers": {…}, "entityMappers": {…}, "dictionaryTransformers": {…}}`). Core
/// Data models have nowhere to declare bindings, so they take them from such a file.
/// Every value transformer, entity mapper and dictionary transformer name the model uses
/// must be bound (transformers may also be built-ins).
public enum ModelLoader {
    /// The format of the model at `url`, by its path.
    public static func format(of url: URL) -> ModelFileFormat {
        let ext = url.pathExtension
        if ext == "xcdatamodeld" || ext == "xcdatamodel" { return .xcdatamodel }
        if url.lastPathComponent == "contents", url.deletingLastPathComponent().pathExtension == "xcdatamodel" {
            return .xcdatamodel
        }
        return .json
    }

    /// Reads the model at `url` with the bindings in the file at `bindingsURL` (if any).
    ///
    /// - Parameters:
    ///   - url: a Trellis JSON model file, a `.xcdatamodeld` bundle, a `.xcdatamodel` directory.
    ///   - bindingsURL: a bindings file; its names are added to (and override) a JSON model file's own.
    ///   - version: for a `.xcdatamodeld` bundle, the version to read (default: the current one).
    /// - Throws: ``ModelFileError`` (JSON model or bindings file problems, `.unboundName`
    ///   listing the names the model uses and the built-ins) or ``CoreDataModelError``.
    public static func load(url: URL, bindingsURL: URL? = nil, version: String? = nil) throws -> LoadedModel {
        let declarations = try bindingsURL.map(readBindings(from:)) ?? BindingDeclarations()
        return try load(url: url, bindings: declarations, version: version)
    }

    /// Reads the model at `url` with `bindings` declared in code.
    ///
    /// - Parameter requiringBoundNames: `false` lets a Core Data model load with names
    ///   that are not bound (for inspecting it, as `trellis model show` does); a JSON
    ///   model file always binds its names.
    /// - Throws: as ``load(url:bindingsURL:version:)``.
    public static func load(url: URL, bindings extra: BindingDeclarations, version: String? = nil,
                            requiringBoundNames: Bool = true) throws -> LoadedModel {
        switch format(of: url) {
        case .json:
            if let version {
                throw ModelFileError(.invalidValue, file: url.relativePath,
                                     message: "version '\(version)' asked for, but only a .xcdatamodeld bundle has versions")
            }
            let file = extra.isEmpty ? try ModelFile.read(from: url) : try readJSONModel(url, adding: extra)
            return LoadedModel(model: file.model, bindings: file.bindings, bindingDeclarations: file.bindingDeclarations,
                               format: .json, versionName: nil, warnings: [])
        case .xcdatamodel:
            let read = try CoreDataModelReader.read(from: url, version: version)
            return try loaded(read.model, extra, format: .xcdatamodel, versionName: read.versionName,
                              warnings: read.warnings.map(\.description), file: url.relativePath,
                              checkingNames: requiringBoundNames)
        }
    }

    /// Reads a bindings file: the `bindings` section of the JSON model format as a file of its own.
    /// - Throws: ``ModelFileError`` naming the file: `.readFailed`, `.malformedJSON`, or
    ///   `.unknownKey` / `.wrongType` / `.missingKey` with the JSON path (`$.entityMappers.M.keyPath`).
    public static func readBindings(from url: URL) throws -> BindingDeclarations {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "no such file"
            throw ModelFileError(.readFailed, file: url.relativePath, message: reason)
        }
        do {
            return try ModelFileDecoder.decodeBindings(try ModelFileJSON.parse(data), at: .root)
        } catch var error as ModelFileError {
            error.file = url.relativePath
            throw error
        }
    }

    /// Checks that every name `model` uses is bound in `bindings` (value transformers may
    /// also be built-ins), and that entity mappers name entities of the model.
    ///
    /// - Throws: ``ModelFileError`` `.unboundName` listing every unbound name with the
    ///   entity and property using it, the names the model uses, those bound and the
    ///   built-in transformers; `.invalidValue` for an entity mapper naming an unknown entity.
    public static func checkNames(of model: ObjectModel, bindings: BindingDeclarations) throws {
        let uses = NameUses(model)
        let builtIns = BindingDeclarations.builtInTransformerNames
        var unbound: [String] = []
        for use in uses.transformers where bindings.transformers[use.name] == nil && !builtIns.contains(use.name) {
            unbound.append("value transformer '\(use.name)' (\(use.site))")
        }
        for use in uses.entityMappers where bindings.entityMappers[use.name] == nil {
            unbound.append("entity mapper '\(use.name)' (\(use.site))")
        }
        for use in uses.dictionaryTransformers where bindings.dictionaryTransformers[use.name] == nil {
            unbound.append("dictionary transformer '\(use.name)' (\(use.site))")
        }
        if !unbound.isEmpty {
            func list(_ names: [String]) -> String { BindingDeclarations.listing(Array(Set(names)).sorted()) }
            let message = (unbound.count == 1 ? "a name the model uses is not bound: " : "names the model uses are not bound: ")
                + unbound.joined(separator: ", ") + ". "
                + "The model uses value transformers: \(list(uses.transformers.map(\.name))); "
                + "entity mappers: \(list(uses.entityMappers.map(\.name))); "
                + "dictionary transformers: \(list(uses.dictionaryTransformers.map(\.name))). "
                + "Bound: \(list(Array(bindings.transformers.keys) + Array(bindings.entityMappers.keys) + Array(bindings.dictionaryTransformers.keys))). "
                + "Built-in value transformers: \(BindingDeclarations.listing(builtIns))."
            throw ModelFileError(.unboundName, message: message)
        }
        let entityNames = Set(model.entities.map(\.name))
        for name in bindings.entityMappers.keys.sorted() {
            guard let mapper = bindings.entityMappers[name] else { continue }
            let at = JSONPath.root.appending(key: "entityMappers").appending(key: name)
            for value in mapper.entities.keys.sorted() {
                if let target = mapper.entities[value], !entityNames.contains(target) {
                    throw ModelFileError(.invalidValue, path: at.appending(key: "entities").appending(key: value),
                                         message: "unknown entity '\(target)'; the model has: \(entityNames.sorted().joined(separator: ", "))")
                }
            }
            if let target = mapper.defaultEntity, !entityNames.contains(target) {
                throw ModelFileError(.invalidValue, path: at.appending(key: "default"),
                                     message: "unknown entity '\(target)'; the model has: \(entityNames.sorted().joined(separator: ", "))")
            }
        }
    }

    // MARK: - Internals

    private static func loaded(_ model: ObjectModel, _ declarations: BindingDeclarations, format: ModelFileFormat,
                               versionName: String?, warnings: [String], file: String,
                               checkingNames: Bool = true) throws -> LoadedModel {
        do {
            if checkingNames { try checkNames(of: model, bindings: declarations) }
            return LoadedModel(model: model, bindings: try declarations.makeBindings(), bindingDeclarations: declarations,
                               format: format, versionName: versionName, warnings: warnings)
        } catch var error as ModelFileError {
            if error.file == nil, error.path == nil { error.file = file }
            throw error
        }
    }

    /// A JSON model file whose `bindings` section gets `extra`'s entries before it is
    /// decoded (so its names are checked against both).
    private static func readJSONModel(_ url: URL, adding extra: BindingDeclarations) throws -> ModelFile {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "no such file"
            throw ModelFileError(.readFailed, file: url.relativePath, message: reason)
        }
        do {
            guard case .object(var top) = try ModelFileJSON.parse(data) else { return try ModelFile.read(data: data) }
            var declarations = BindingDeclarations()
            if let section = top["bindings"] {
                declarations = try ModelFileDecoder.decodeBindings(section, at: .root.appending(key: "bindings"))
            }
            top["bindings"] = ModelFileEncoder.bindings(merging(declarations, extra))
            return try ModelFile.read(json: .object(top))
        } catch var error as ModelFileError {
            error.file = url.relativePath
            throw error
        }
    }

    /// `base` with `extra`'s entries added; `extra` wins for a name declared in both.
    static func merging(_ base: BindingDeclarations, _ extra: BindingDeclarations) -> BindingDeclarations {
        var result = base
        result.transformers.merge(extra.transformers) { _, new in new }
        result.entityMappers.merge(extra.entityMappers) { _, new in new }
        result.dictionaryTransformers.merge(extra.dictionaryTransformers) { _, new in new }
        return result
    }
}

/// Where a model uses each bindable name, in model order.
struct NameUses {
    struct Use {
        var name: String
        /// `entity Character, attribute identifier`.
        var site: String
    }

    var transformers: [Use] = []
    var entityMappers: [Use] = []
    var dictionaryTransformers: [Use] = []

    init(_ model: ObjectModel) {
        for entity in model.entities {
            if let name = entity.entityMapperName { entityMappers.append(Use(name: name, site: "entity \(entity.name)")) }
            if let name = entity.dictionaryTransformerName {
                dictionaryTransformers.append(Use(name: name, site: "entity \(entity.name)"))
            }
            for attribute in entity.attributes {
                if let name = attribute.transformerName {
                    transformers.append(Use(name: name, site: "entity \(entity.name), attribute \(attribute.name)"))
                }
            }
        }
    }
}
