import Foundation
import Trellis
import TrellisModelFile

/// `trellis export --model MODEL --entity NAME [options]`: the objects of an entity as a
/// JSON array on standard output.
enum ExportCommand {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Export the objects of an entity as a JSON array.",
        discussion: """
            Each object is written with its mapped properties at their JSON key paths \
            (nested key paths rebuild nested objects), with the reverse value transformers \
            applied. Objects are in store order.
            """,
        options: [
            OptionSpec(name: "--model", valueName: "model", help: ModelLoading.modelHelp, isRequired: true),
            OptionSpec(name: "--entity", valueName: "entity", help: "The entity to export (with its sub-entities).",
                       isRequired: true),
            OptionSpec(name: "--store", valueName: "path", help: "The SQLite store.", defaultValue: "trellis.sqlite"),
            StoreOpening.busyTimeoutOption,
            OptionSpec(name: "--pretty", help: "Indent the JSON (two spaces, one member per line)."),
            OptionSpec(name: "--where", valueName: "attribute=value",
                       help: "Only objects whose attribute equals the value (coerced to the attribute's type)."),
            OptionSpec(name: "--relationships", valueName: "mode",
                       help: "Related objects as nested objects or as their identifiers.",
                       allowedValues: ["ids", "nested"], defaultValue: "ids"),
            ModelLoading.bindingsOption,
        ])

    /// The parsed options.
    struct Options {
        var modelPath: String
        var bindingsPath: String?
        var entity: String
        var storePath: String
        var busyTimeoutMilliseconds: Int
        var pretty: Bool
        var condition: (attribute: String, value: String)?
        var nested: Bool

        init(_ parsed: ParsedArguments) throws(UsageError) {
            modelPath = parsed.value("--model") ?? ""
            bindingsPath = parsed.value("--bindings")
            entity = parsed.value("--entity") ?? ""
            storePath = parsed.value("--store") ?? "trellis.sqlite"
            busyTimeoutMilliseconds = try StoreOpening.busyTimeoutMilliseconds(parsed, spec: ExportCommand.spec)
            pretty = parsed.flag("--pretty")
            nested = parsed.value("--relationships") == "nested"
            if let text = parsed.value("--where") {
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                    throw UsageError(spec: ExportCommand.spec,
                                     message: "invalid value '\(text)' for '--where'; expected ATTRIBUTE=VALUE")
                }
                condition = (String(text[..<equals]), String(text[text.index(after: equals)...]))
            }
        }
    }

    static func run(arguments: [String], environment: CommandEnvironment,
                    stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        CommandRunner.run(spec, arguments, stdout: &stdout, stderr: &stderr) { parsed, out, _ in
            out.write(try ExportRunner(options: try Options(parsed), environment: environment).run())
        }
    }
}
