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
        let modelPath: String
        let bindingsPath: String?
        do {
            switch try ArgumentParser(spec: spec).parse(arguments) {
            case .help:
                stdout.write(spec.helpText)
                return ExitStatus.success
            case .parsed(let parsed):
                modelPath = parsed.value("--model") ?? ""
                bindingsPath = parsed.value("--bindings")
            }
        } catch {
            stderr.write(error.text)
            return ExitStatus.usage
        }
        do {
            // The tables do not depend on what value transformers or entity mappers do.
            let file = try ModelLoading.load(modelPath, bindings: bindingsPath, environment: environment, requiringBoundNames: false)
            stdout.write(try SchemaSQL.statements(for: file.model))
            return ExitStatus.success
        } catch {
            stderr.write("error: \(CommandFailure.message(for: error))\n")
            return ExitStatus.failure
        }
    }
}
