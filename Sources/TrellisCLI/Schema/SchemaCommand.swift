import Foundation
import Trellis
import TrellisModelFile

/// `trellis schema --model MODEL`: the SQL the SQLite store creates for a model.
enum SchemaCommand {
    static let spec = CommandSpec(
        name: "schema",
        abstract: "Print the SQL schema the SQLite store uses for a model.",
        discussion: "The statements a new store runs to create its tables and indexes, one per line group.",
        options: [
            OptionSpec(name: "--model", valueName: "model", help: ModelLoading.modelHelp, isRequired: true),
            ModelLoading.bindingsOption,
        ])

    static func run(arguments: [String], environment: CommandEnvironment,
                    stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        CommandRunner.run(spec, arguments, stdout: &stdout, stderr: &stderr) { parsed, out, _ in
            // The tables do not depend on what value transformers or entity mappers do.
            let file = try ModelLoading.load(parsed.value("--model") ?? "", bindings: parsed.value("--bindings"),
                                             environment: environment, requiringBoundNames: false)
            out.write(try SchemaSQL.statements(for: file.model))
        }
    }
}
