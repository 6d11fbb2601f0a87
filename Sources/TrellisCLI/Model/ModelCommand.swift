import Foundation
import Trellis
import TrellisModelFile

/// `trellis model convert|infer|show`: converts model files between the Trellis JSON model
/// format and Core Data's `.xcdatamodeld`, and prints a readable summary of a model.
/// This is the group (``spec``) and what its subcommands share; ``ModelConvertCommand``
/// and ``ModelShowCommand`` run.
enum ModelCommand {
    static let spec = CommandSpec(
        name: "model",
        abstract: "Convert a model between Trellis JSON and Core Data, infer one from samples, or summarise it.",
        discussion: """
            Subcommands: 'convert' (Trellis JSON ↔ .xcdatamodeld), 'infer' (a model from sample \
            JSON) and 'show' (entities, attributes with types and key paths, relationships, \
            identity; or a Mermaid or Graphviz diagram of them). A store (.sqlite) may stand for a model: its recorded model.
            """)

    /// `--version <name>`: a version of a `.xcdatamodeld`.
    static let version = OptionKey<String?>(
        "--version", valueName: "name", help: "The version of a .xcdatamodeld to read (default: its current version).")

    /// `3 entities, 8 attributes, 5 relationships`.
    static func counts(_ model: ObjectModel) -> String {
        let attributes = model.entities.reduce(0) { $0 + $1.attributes.count }
        let relationships = model.entities.reduce(0) { $0 + $1.relationships.count }
        return "\(plural(model.entities.count, "entity", "entities")), \(plural(attributes, "attribute", "attributes")), "
            + plural(relationships, "relationship", "relationships")
    }

    static func plural(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }

    // MARK: - Shared

    /// The model at `path` with `--bindings` and `--version`, errors naming the paths as given.
    /// Names need not be bound: `convert` carries them over and `show` lists them.
    static func load(_ path: String, _ arguments: ParsedArguments, environment: CommandEnvironment) throws -> LoadedModel {
        try ModelLoading.read(
            path, bindingsPath: arguments[CommonOptions.bindings], version: arguments[version],
            environment: environment, requiringBoundNames: false)
    }
}
