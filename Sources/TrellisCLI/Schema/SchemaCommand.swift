import Foundation
import Trellis
import TrellisModelFile

/// `trellis schema --model MODEL`: the SQL the SQLite store creates for a model.
enum SchemaCommand: LeafCommand {
    static let spec = CommandSpec(
        name: "schema",
        abstract: "Print the SQL schema the SQLite store uses for a model.",
        discussion: "The statements a new store runs to create its tables and indexes, one per line group.",
        options: [CommonOptions.model, CommonOptions.bindings])

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        // The tables do not depend on what value transformers or entity mappers do.
        let file = try ModelLoading.load(arguments[CommonOptions.model], bindings: arguments[CommonOptions.bindings],
                                         environment: context.environment, requiringBoundNames: false)
        context.stdout.write(try SchemaSQL.statements(for: file.model))
    }
}
