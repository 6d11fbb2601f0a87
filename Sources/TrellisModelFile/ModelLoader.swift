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
    /// For a model recorded in a store (``ModelLoader/load(recordedModel:name:bindings:bindingsFile:)``):
    /// the store's name; nil for a model file.
    public var store: String?

    /// A model from a model file made in code (an inferred or extended model): its model
    /// and bindings, format `.json`; `store` names the store that records it, if any.
    public init(file: ModelFile, store: String? = nil) {
        self.init(
            model: file.model, bindings: file.bindings, bindingDeclarations: file.bindingDeclarations, format: .json,
            versionName: nil, warnings: [], store: store)
    }

    init(
        model: ObjectModel, bindings: MappingBindings, bindingDeclarations: BindingDeclarations, format: ModelFileFormat,
        versionName: String?, warnings: [String], store: String? = nil
    ) {
        self.model = model
        self.bindings = bindings
        self.bindingDeclarations = bindingDeclarations
        self.format = format
        self.versionName = versionName
        self.warnings = warnings
        self.store = store
    }

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
    ///   An error about a declaration of the bindings file names that file
    ///   (`bindingsURL.relativePath`) and its path there (`$.entityMappers.M.entities.car`).
    public static func load(url: URL, bindingsURL: URL? = nil, version: String? = nil) throws -> LoadedModel {
        let declarations = try bindingsURL.map(readBindings(from:)) ?? BindingDeclarations()
        return try load(url: url, bindings: declarations, version: version, bindingsFile: bindingsURL?.relativePath)
    }

    /// Reads the model at `url` with `bindings` declared in code or read from a bindings file.
    ///
    /// The declarations are checked against the model whatever `requiringBoundNames` says:
    /// each value transformer alias must name a built-in, each key path must parse, and
    /// each entity an entity mapper picks must exist and be the entity using the mapper or
    /// one of its sub-entities.
    ///
    /// - Parameters:
    ///   - requiringBoundNames: `false` lets a Core Data model load with names that are
    ///     not bound (for inspecting it, as `trellis model show` does); a JSON model file
    ///     always binds its names.
    ///   - bindingsFile: the name of the file `bindings` was read from, given to errors
    ///     about its declarations (whose paths start at that file's root: `$.transformers.X`);
    ///     nil for declarations made in code (paths from `$` too, no file).
    /// - Throws: as ``load(url:bindingsURL:version:)``.
    public static func load(
        url: URL, bindings extra: BindingDeclarations, version: String? = nil,
        requiringBoundNames: Bool = true, bindingsFile: String? = nil
    ) throws -> LoadedModel {
        try attributing(to: bindingsFile) { _ = try extra.makeBindings(at: .root) }
        switch format(of: url) {
        case .json:
            if let version {
                throw ModelFileError(
                    .invalidValue, file: url.relativePath,
                    message: "version '\(version)' asked for, but only a .xcdatamodeld bundle has versions")
            }
            let data = try ModelFile.contents(
                of: url,
                what: "a model file: give a Trellis JSON model file, "
                    + "a .xcdatamodeld bundle or a .xcdatamodel directory")
            return try loadJSON(data, name: url.relativePath, bindings: extra, bindingsFile: bindingsFile)
        case .xcdatamodel:
            let read = try CoreDataModelReader.read(from: url, version: version)
            try attributing(to: bindingsFile) {
                try ModelFileDecoder.checkEntityMappers(extra.entityMappers, in: read.model, at: .root)
            }
            if requiringBoundNames {
                try attributing(to: url.relativePath) { try checkUses(of: read.model, bindings: extra) }
            }
            return LoadedModel(
                model: read.model, bindings: try extra.makeBindings(at: .root), bindingDeclarations: extra,
                format: .xcdatamodel, versionName: read.versionName,
                warnings: read.warnings.map(\.description))
        }
    }

    /// Reads a Trellis JSON model file's text recorded in a store (`SQLiteStore.recordedModel(atPath:)`),
    /// with `bindings` added as for a model file; errors name the file `name` (the store's).
    ///
    /// - Throws: ``ModelFileError`` as ``load(url:bindingsURL:version:)`` does for a JSON model file.
    public static func load(
        recordedModel data: Data, name: String, bindings extra: BindingDeclarations = BindingDeclarations(),
        bindingsFile: String? = nil
    ) throws -> LoadedModel {
        try attributing(to: bindingsFile) { _ = try extra.makeBindings(at: .root) }
        var loaded = try loadJSON(data, name: name, bindings: extra, bindingsFile: bindingsFile)
        loaded.store = name
        return loaded
    }

    /// Reads a bindings file: the `bindings` section of the JSON model format as a file of
    /// its own, with its declarations checked (built-in names, key paths).
    /// - Throws: ``ModelFileError`` naming the file: `.readFailed`, `.malformedJSON`, or
    ///   `.unknownKey` / `.wrongType` / `.missingKey` / `.invalidValue` with the JSON path
    ///   in the file (`$.entityMappers.M.keyPath`, `$.transformers["A.B"]`).
    public static func readBindings(from url: URL) throws -> BindingDeclarations {
        let data = try ModelFile.contents(of: url, what: "a bindings file")
        return try attributing(to: url.relativePath) {
            let declarations = try ModelFileDecoder.decodeBindings(try ModelFileJSON.parse(data), at: .root)
            _ = try declarations.makeBindings(at: .root)
            return declarations
        }
    }

    /// Checks that every name `model` uses is bound in `bindings` (value transformers may
    /// also be built-ins), and that entity mappers name entities of the model: the entity
    /// using the mapper or one of its sub-entities.
    ///
    /// - Throws: ``ModelFileError`` `.unboundName` listing every unbound name with the
    ///   entity and property using it, the names the model uses, those bound and the
    ///   built-in transformers; `.invalidValue` for an entity mapper naming an unknown
    ///   entity or one that is not a kind of the entity using it (path `$.entityMappers.…`).
    public static func checkNames(of model: ObjectModel, bindings: BindingDeclarations) throws {
        try checkUses(of: model, bindings: bindings)
        try ModelFileDecoder.checkEntityMappers(bindings.entityMappers, in: model, at: .root)
    }

    // MARK: - Internals

    /// Every name `model` uses is bound (see ``checkNames(of:bindings:)``).
    private static func checkUses(of model: ObjectModel, bindings: BindingDeclarations) throws {
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
        guard !unbound.isEmpty else { return }
        func list(_ names: [String]) -> String { BindingDeclarations.listing(Array(Set(names)).sorted()) }
        let message =
            (unbound.count == 1 ? "a name the model uses is not bound: " : "names the model uses are not bound: ")
            + unbound.joined(separator: ", ") + ". "
            + "The model uses value transformers: \(list(uses.transformers.map(\.name))); "
            + "entity mappers: \(list(uses.entityMappers.map(\.name))); "
            + "dictionary transformers: \(list(uses.dictionaryTransformers.map(\.name))). "
            + "Bound: \(list(Array(bindings.transformers.keys) + Array(bindings.entityMappers.keys) + Array(bindings.dictionaryTransformers.keys))). "
            + "Built-in value transformers: \(BindingDeclarations.listing(builtIns))."
        throw ModelFileError(.unboundName, message: message)
    }

    /// Runs `body`, giving a ``ModelFileError`` it throws without a file the name `file`.
    @discardableResult
    private static func attributing<T>(to file: String?, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as ModelFileError {
            if error.file == nil { error.file = file }
            throw error
        }
    }

    /// A JSON model file's bytes (named `name` in errors) with the bindings in `extra`: the
    /// file's own section and `extra` are checked each where it is, the names the model
    /// uses against both.
    private static func loadJSON(
        _ data: Data, name: String, bindings extra: BindingDeclarations,
        bindingsFile: String?
    ) throws -> LoadedModel {
        let file = try attributing(to: name) {
            try ModelFileDecoder.decode(try ModelFileJSON.parse(data), checkingNames: extra.isEmpty)
        }
        guard !extra.isEmpty else {
            return LoadedModel(
                model: file.model, bindings: file.bindings, bindingDeclarations: file.bindingDeclarations,
                format: .json, versionName: nil, warnings: [])
        }
        var own = file.bindingDeclarations.entityMappers
        for name in extra.entityMappers.keys { own[name] = nil }
        try attributing(to: name) {
            try ModelFileDecoder.checkEntityMappers(own, in: file.model, at: .root.appending(key: "bindings"))
        }
        try attributing(to: bindingsFile) {
            try ModelFileDecoder.checkEntityMappers(extra.entityMappers, in: file.model, at: .root)
        }
        let declarations = merging(file.bindingDeclarations, extra)
        try attributing(to: name) {
            try ModelFileDecoder.checkUses(entities: file.model.entities, bindings: declarations)
        }
        return LoadedModel(
            model: file.model, bindings: try declarations.makeBindings(), bindingDeclarations: declarations,
            format: .json, versionName: nil, warnings: [])
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
