import Foundation
import Trellis
import TrellisModelFile

/// Reading `--model` and checking names against it, with the messages every command shares.
enum ModelLoading {
    /// The model at `path` (relative to the current directory): a Trellis JSON model file,
    /// a `.xcdatamodeld` bundle or a `.xcdatamodel` (see ``ModelLoader``).
    /// - Throws: ``CommandError`` `.invalidModel` with the file, JSON path or line:column.
    static func load(_ path: String, environment: CommandEnvironment) throws -> LoadedModel {
        do {
            return try ModelLoader.load(url: environment.url(for: path))
        } catch var error as ModelFileError {
            error.file = path
            throw CommandError(.invalidModel, error.description)
        } catch var error as CoreDataModelError {
            error.file = error.file.map { ModelCommand.relative($0, to: environment.url(for: path), as: path) }
            throw CommandError(.invalidModel, error.description)
        }
    }

    /// The entity named `name`.
    /// - Throws: ``CommandError`` `.unknownName` listing the model's entities.
    static func entity(_ name: String, in model: ObjectModel, modelPath: String) throws -> ResolvedEntity {
        if let entity = model.entity(named: name) { return entity }
        throw CommandError(.unknownName, "unknown entity '\(name)' in \(modelPath); the model has: "
                               + model.entities.map(\.name).joined(separator: ", "))
    }

    /// The attribute named `name` of `entity`, for the option `option`.
    /// - Throws: ``CommandError`` `.unknownName` listing the entity's attributes.
    static func attribute(_ name: String, of entity: ResolvedEntity, option: String) throws -> AttributeDescription {
        if let attribute = entity.attribute(named: name) { return attribute }
        throw CommandError(.unknownName, "\(option): '\(name)' is not an attribute of \(entity.name); its attributes: "
                               + entity.attributes.map(\.name).joined(separator: ", "))
    }
}

/// The text after `error: ` for any error a command throws.
enum CommandFailure {
    static func message(for error: any Error) -> String {
        switch error {
        case let error as CommandError: return error.message
        case let error as ModelFileError: return error.description
        default: return String(describing: error)
        }
    }
}
