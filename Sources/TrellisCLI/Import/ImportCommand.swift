import Foundation
import Trellis
import TrellisModelFile

/// `trellis import FILE…|- [--model MODEL] --entity NAME [options]`: imports JSON files into
/// a store in one transaction, merging objects by identity, and prints a summary. Without
/// `--model`, the model is inferred from the payload (a new store) or is the one the store
/// records, extended with what the payload adds (``ImportModel``).
enum ImportCommand: LeafCommand {
    /// `--model`, optional here: without it, the store's recorded model or one inferred from the payload.
    static let model = OptionKey<String?>(
        "--model", valueName: "model",
        help: "The model: a Trellis JSON model file, a .xcdatamodeld, a .xcdatamodel, or a store (its recorded model). "
            + "Default: the store's recorded model, or one inferred from the payload.")
    static let files = ArgumentKey<[String]>(repeating: "file", help: "A JSON file to import; '-' reads standard input.")
    static let at = OptionKey<JSONKeyPath?>(
        "--at", valueName: "key-path", help: "The key path of the collection inside each document (statuses, response.docs).")
    static let keyAttribute = OptionKey<String?>(
        "--key-attribute", valueName: "attribute", help: "For an object of objects: store each object's key into this attribute.")
    static let valueKey = OptionKey<String?>(
        "--value-key", valueName: "key",
        help: "Wrap each element that is not an object as {\"key\": element} (for id → name tables).", allowsEmptyValue: true)
    static let report = OptionKey<ReportFormat>(
        "--report", valueName: "format", help: "The summary format on standard output.", default: "text")
    static let dryRun = OptionKey<Bool>(flag: "--dry-run", help: "Import and report, then roll back: the store is not changed.")
    static let local = OptionKey<Bool>(
        flag: "--local",
        help: "Record the import's changes as local changes in the store's outbox (trellis_outbox), to be pushed to the API; "
            + "default: the payload is the API's own data and is not recorded.")

    static let spec = CommandSpec(
        name: "import",
        abstract: "Import JSON files into a store, merging objects by identity.",
        discussion: """
            All files of one command are imported in one transaction: either every file is \
            imported, or (on any error) the store is left unchanged. The collection to import \
            is the whole document, or the value at --at: an array of objects, a single object, \
            or, with --key-attribute or --value-key, an object whose values are the objects \
            (keyed by id). Without --model, a new store gets a model inferred from the payload \
            (docs/ModelInference.md), and a store that records a model uses it, extended with \
            what the payload adds; every import records its model in the store ('trellis model \
            show STORE' prints it).
            """,
        arguments: [files],
        options: [
            model,
            CommonOptions.entity.with(help: "The entity of the imported objects."),
            CommonOptions.store.with(
                help: "The store: an SQLite file, or a PostgreSQL connection string (postgresql://user@host/dbname); "
                    + "created when missing."),
            CommonOptions.busyTimeout,
            at, keyAttribute, valueKey, InputFormat.option, report, dryRun, local,
            CommonOptions.bindings,
        ])

    /// `--report`.
    enum ReportFormat: String, CaseIterable, OptionValue {
        /// A table per entity and a summary line.
        case text
        /// One JSON object on one line.
        case json
    }

    /// The parsed and checked options.
    struct Options {
        var inputs: [InputFile]
        /// `--model`; nil: the store's recorded model, or one inferred from the payload.
        var modelPath: String?
        var bindingsPath: String?
        var entity: String
        var storePath: String
        var busyTimeoutMilliseconds: Int
        var at: JSONKeyPath?
        var keyAttribute: String?
        var valueKey: String?
        /// `--format`, if given (else each input's own, by its extension).
        var format: InputFormat?
        var jsonReport: Bool
        var dryRun: Bool
        /// `--local`: the changes are of origin local (recorded in the outbox).
        var local: Bool

        init(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) {
            inputs = arguments[files].map { InputFile(argument: $0, environment: environment) }
            if inputs.filter(\.isStandardInput).count > 1 {
                throw UsageError("'-' (standard input) can be given only once")
            }
            modelPath = arguments[ImportCommand.model]
            bindingsPath = arguments[CommonOptions.bindings]
            if modelPath == nil, bindingsPath != nil {
                throw UsageError("'--bindings' needs '--model' (a recorded or inferred model carries its bindings)")
            }
            entity = arguments[CommonOptions.entity]
            storePath = arguments[CommonOptions.store]
            busyTimeoutMilliseconds = arguments[CommonOptions.busyTimeout].milliseconds
            at = arguments[ImportCommand.at]
            keyAttribute = arguments[ImportCommand.keyAttribute]
            valueKey = arguments[ImportCommand.valueKey]
            format = arguments[InputFormat.option]
            jsonReport = arguments[report] == .json
            dryRun = arguments[ImportCommand.dryRun]
            local = arguments[ImportCommand.local]
        }
    }

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        let options = try Options(arguments, environment: context.environment)
        let runner = ImportRunner(options: options, environment: context.environment)
        let summary = try runner.run()
        for warning in runner.warnings.lines { context.stderr.write("warning: \(warning)\n") }
        context.stdout.write(summary)
    }
}

/// One input of `trellis import`: a file, or standard input (`-`).
struct InputFile {
    /// As given on the command line (used in messages; `<stdin>` for `-`).
    let name: String
    /// Resolved against the current directory; nil for standard input.
    let url: URL?
    /// The environment's standard input, read when ``url`` is nil.
    let standardInput: FileHandle

    init(argument: String, environment: CommandEnvironment) {
        if argument == "-" {
            name = "<stdin>"
            url = nil
        } else {
            name = argument
            url = environment.url(for: argument)
        }
        standardInput = environment.standardInput
    }

    var isStandardInput: Bool { url == nil }

    /// Whether the input is NDJSON: `format` when given, else by its name (``InputFormat/inferred(for:given:)``;
    /// standard input is one document).
    func readsLines(format: InputFormat?) -> Bool {
        InputFormat.inferred(for: isStandardInput ? "-" : name, given: format) == .ndjson
    }
}
