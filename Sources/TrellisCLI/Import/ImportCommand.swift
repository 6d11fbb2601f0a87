import Foundation
import Trellis
import TrellisModelFile

/// `trellis import FILE…|- --model MODEL --entity NAME [options]`: imports JSON files into
/// a store in one transaction, merging objects by identity, and prints a summary.
enum ImportCommand {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Import JSON files into a store, merging objects by identity.",
        discussion: """
            All files of one command are imported in one transaction: either every file is \
            imported, or (on any error) the store is left unchanged. The collection to import \
            is the whole document, or the value at --at: an array of objects, a single object, \
            or, with --key-attribute or --value-key, an object whose values are the objects \
            (keyed by id).
            """,
        arguments: [
            ArgumentSpec(valueName: "file", help: "A JSON file to import; '-' reads standard input.", isRepeating: true),
        ],
        options: [
            OptionSpec(name: "--model", valueName: "model", help: ModelLoading.modelHelp, isRequired: true),
            OptionSpec(name: "--entity", valueName: "entity", help: "The entity of the imported objects.", isRequired: true),
            OptionSpec(name: "--store", valueName: "path", help: "The SQLite store; created when missing.",
                       defaultValue: "trellis.sqlite"),
            StoreOpening.busyTimeoutOption,
            OptionSpec(name: "--at", valueName: "key-path",
                       help: "The key path of the collection inside each document (statuses, response.docs)."),
            OptionSpec(name: "--key-attribute", valueName: "attribute",
                       help: "For an object of objects: store each object's key into this attribute."),
            OptionSpec(name: "--value-key", valueName: "key",
                       help: "Wrap each element that is not an object as {\"key\": element} (for id → name tables).",
                       allowsEmptyValue: true),
            OptionSpec(name: "--format", valueName: "format", help: "The input format: one JSON document, or one per line.",
                       allowedValues: ["json", "ndjson"], defaultValue: "json"),
            OptionSpec(name: "--report", valueName: "format", help: "The summary format on standard output.",
                       allowedValues: ["text", "json"], defaultValue: "text"),
            OptionSpec(name: "--dry-run", help: "Import and report, then roll back: the store is not changed."),
            ModelLoading.bindingsOption,
        ])

    /// The parsed and checked options.
    struct Options {
        var inputs: [InputFile]
        var modelPath: String
        var bindingsPath: String?
        var entity: String
        var storePath: String
        var busyTimeoutMilliseconds: Int
        var at: JSONKeyPath?
        var keyAttribute: String?
        var valueKey: String?
        var lines: Bool
        var jsonReport: Bool
        var dryRun: Bool

        init(_ parsed: ParsedArguments, environment: CommandEnvironment) throws(UsageError) {
            inputs = parsed.positionals.map { InputFile(argument: $0, environment: environment) }
            if inputs.filter(\.isStandardInput).count > 1 {
                throw UsageError(spec: ImportCommand.spec, message: "'-' (standard input) can be given only once")
            }
            modelPath = parsed.value("--model") ?? ""
            bindingsPath = parsed.value("--bindings")
            entity = parsed.value("--entity") ?? ""
            storePath = parsed.value("--store") ?? "trellis.sqlite"
            busyTimeoutMilliseconds = try StoreOpening.busyTimeoutMilliseconds(parsed, spec: ImportCommand.spec)
            if let text = parsed.value("--at") {
                do {
                    at = try JSONKeyPath(parsing: text)
                } catch {
                    throw UsageError(spec: ImportCommand.spec, message: "invalid value for '--at': \(error)")
                }
            }
            keyAttribute = parsed.value("--key-attribute")
            valueKey = parsed.value("--value-key")
            lines = parsed.value("--format") == "ndjson"
            jsonReport = parsed.value("--report") == "json"
            dryRun = parsed.flag("--dry-run")
        }
    }

    static func run(arguments: [String], environment: CommandEnvironment,
                    stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        CommandRunner.run(spec, arguments, stdout: &stdout, stderr: &stderr) { parsed, out, _ in
            let options = try Options(parsed, environment: environment)
            out.write(try ImportRunner(options: options, environment: environment).run())
        }
    }
}

/// One input of `trellis import`: a file, or standard input (`-`).
struct InputFile {
    /// As given on the command line (used in messages).
    let name: String
    /// Resolved against the current directory; nil for standard input.
    let url: URL?

    init(argument: String, environment: CommandEnvironment) {
        if argument == "-" {
            name = "<stdin>"
            url = nil
        } else {
            name = argument
            url = environment.url(for: argument)
        }
    }

    var isStandardInput: Bool { url == nil }
}
