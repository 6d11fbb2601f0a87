import Foundation
import Trellis
import TrellisModelFile

/// Reading `--model` and checking names against it, with the messages every command shares.
enum ModelLoading {
    /// The model at `path` (relative to the current directory): a Trellis JSON model file,
    /// a `.xcdatamodeld` bundle or a `.xcdatamodel` (see ``ModelLoader``), with the bindings
    /// file at `bindingsPath`.
    /// `requiringBoundNames: false` lets a Core Data model whose names are not bound load (for
    /// `trellis schema`, whose SQL does not depend on them).
    /// - Throws: ``CommandError`` `.invalidModel` with the file, JSON path or line:column.
    static func load(
        _ path: String, bindings bindingsPath: String? = nil, environment: CommandEnvironment,
        requiringBoundNames: Bool = true
    ) throws -> LoadedModel {
        do {
            return try read(
                path, bindingsPath: bindingsPath, version: nil, environment: environment,
                requiringBoundNames: requiringBoundNames)
        } catch let error as ModelFileError {
            throw CommandError(.invalidModel, error.description)
        } catch let error as CoreDataModelError {
            throw CommandError(.invalidModel, error.description)
        }
    }

    /// The model of a command that reads the store at `storePath`: the one at `path` when
    /// `--model` is given, else the model the store records (`trellis_metadata` key `model`,
    /// which every `trellis import` writes), with the bindings file's declarations.
    /// - Returns: the model, and the name that stands for it in messages (`path`, or `storePath`).
    /// - Throws: as ``load(_:bindings:environment:requiringBoundNames:)``; without `path`,
    ///   ``CommandError`` `.store` when there is no store at `storePath` or it is not an SQLite
    ///   file, `.invalidModel` when it records no model, each saying to give `--model`.
    static func load(
        _ path: String?, orRecordedIn storePath: String, bindings bindingsPath: String?,
        environment: CommandEnvironment
    ) throws -> (file: LoadedModel, name: String) {
        if let path { return (try load(path, bindings: bindingsPath, environment: environment), path) }
        let location = StoreLocation(storePath, environment: environment)
        guard case .sqlite(_, let url) = location else {
            return (try load(storePath, bindings: bindingsPath, environment: environment), location.name)
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CommandError(
                .store,
                "\(storePath): no such store, and no --model: give the model with --model, "
                    + "or a store that records one (every trellis import records its model)")
        }
        guard RecordedModel.isSQLiteFile(url) else { throw RecordedModel.notAStore(url, path: storePath) }
        do {
            var bindings = BindingDeclarations()
            if let bindingsPath {
                do {
                    bindings = try ModelLoader.readBindings(from: environment.url(for: bindingsPath))
                } catch var error as ModelFileError {
                    error.file = bindingsPath
                    throw error
                }
            }
            return (try RecordedModel.load(store: url, path: storePath, bindings: bindings, bindingsPath: bindingsPath), storePath)
        } catch let error as ModelFileError {
            throw CommandError(.invalidModel, error.description)
        }
    }

    /// As ``load(_:bindings:environment:)``, throwing the loader's own errors, which name
    /// the files as given: the model's `path`, or `bindingsPath` for a problem with a
    /// declaration in the bindings file (with its path in that file: `$.transformers["A"]`).
    static func read(
        _ path: String, bindingsPath: String?, version: String?, environment: CommandEnvironment,
        requiringBoundNames: Bool
    ) throws -> LoadedModel {
        let url = environment.url(for: path)
        var bindings = BindingDeclarations()
        if let bindingsPath {
            do {
                bindings = try ModelLoader.readBindings(from: environment.url(for: bindingsPath))
            } catch var error as ModelFileError {
                error.file = bindingsPath
                throw error
            }
        }
        let location = StoreLocation(path, environment: environment)
        if case .postgres(let connection) = location {
            if let version {
                throw CommandError(
                    .invalidModel, "\(location.name): version '\(version)' asked for, but only a .xcdatamodeld bundle has versions")
            }
            return try RecordedModel.load(postgres: connection, bindings: bindings, bindingsPath: bindingsPath)
        }
        if RecordedModel.isSQLiteFile(url) {
            if let version {
                throw CommandError(.invalidModel, "\(path): version '\(version)' asked for, but only a .xcdatamodeld bundle has versions")
            }
            return try RecordedModel.load(store: url, path: path, bindings: bindings, bindingsPath: bindingsPath)
        }
        do {
            return try ModelLoader.load(
                url: url, bindings: bindings, version: version, requiringBoundNames: requiringBoundNames,
                bindingsFile: bindingsPath)
        } catch var error as ModelFileError {
            if let file = error.file, file != bindingsPath { error.file = path }
            throw error
        } catch var error as CoreDataModelError {
            error.file = error.file.map { relative($0, to: url, as: path) }
            throw error
        }
    }

    /// `file` (an absolute path inside `url`) rewritten to start with `path` as the user gave it.
    static func relative(_ file: String, to url: URL, as path: String) -> String {
        let base = url.path
        guard file.hasPrefix(base) else { return file }
        return path + file.dropFirst(base.count)
    }

    /// The entity named `name`.
    /// - Throws: ``CommandError`` `.unknownName` listing the model's entities.
    static func entity(_ name: String, in model: ObjectModel, modelPath: String) throws -> ResolvedEntity {
        if let entity = model.entity(named: name) { return entity }
        throw CommandError(
            .unknownName,
            "unknown entity '\(name)' in \(modelPath); the model has: "
                + model.entities.map(\.name).joined(separator: ", "))
    }

    /// The attribute named `name` of `entity`, for the option `option`.
    /// - Parameter corrected: the option as it would read with another attribute name, for
    ///   the suggestion (`{ "--where \($0)=jack" }`).
    /// - Throws: ``CommandError`` `.unknownName` with ``PropertySuggestion/unknownAttributeMessage(_:of:corrected:)``:
    ///   the attribute mapped to `name` when it is a JSON key, or a close name, and the entity's attributes.
    static func attribute(
        _ name: String, of entity: ResolvedEntity, option: String,
        corrected: @escaping (String) -> String
    ) throws -> AttributeDescription {
        if let attribute = entity.attribute(named: name) { return attribute }
        throw CommandError(.unknownName, "\(option): " + PropertySuggestion.unknownAttributeMessage(name, of: entity, corrected: corrected))
    }
}

/// The text after `error: ` for any error a command throws.
enum CommandFailure {
    static func message(for error: any Error) -> String {
        switch error {
        case let error as CommandError: return error.message
        case let error as ModelFileError: return error.description
        case let error as CoreDataModelError: return error.description
        default: return String(describing: error)
        }
    }
}
