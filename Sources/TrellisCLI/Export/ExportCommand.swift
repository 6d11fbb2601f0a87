import Foundation
import Trellis
import TrellisModelFile

/// `trellis export [--model MODEL] --entity NAME [--format json|ndjson] [-o FILE] [options]`:
/// the objects of an entity as a JSON array (or NDJSON) on standard output or in a file (the
/// model: `--model`, else the one the store records), written as they are read.
enum ExportCommand: LeafCommand {
    static let pretty = OptionKey<Bool>(flag: "--pretty", help: "Indent the JSON (two spaces, one member per line).")
    static let relationships = OptionKey<RelationshipMode>(
        "--relationships", valueName: "mode",
        help: "Related objects as nested objects (each written in full once per exported object) or as their identifiers.",
        default: "nested")
    static let placeholders = OptionKey<PlaceholderMode>(
        "--placeholders", valueName: "mode",
        help: "Placeholders (objects known only by their identifier) as objects of their identity attributes, or left out of the array.",
        default: "include")

    static let format = OptionKey<OutputFormat?>(
        "--format", valueName: "format",
        help: "The output format: one JSON array, or one object per line (NDJSON).",
        defaultDescription: "ndjson for an -o file named .ndjson or .jsonl, json otherwise")
    static let output = OptionKey<String?>(
        "-o", valueName: "file",
        help: "Write to this file instead of standard output (- for standard output): a temporary file renamed over it once complete.")

    static let spec = CommandSpec(
        name: "export",
        abstract: "Export the objects of an entity as a JSON array.",
        discussion: """
            Each object is written with its mapped properties at their JSON key paths \
            (nested key paths rebuild nested objects), with the reverse value transformers \
            applied. Objects are in store order (object ID) unless --sort says otherwise; \
            --where takes NSPredicate format or ATTRIBUTE=VALUE (see docs/Queries.md). What \
            export writes, import reads back: into the same store every object is unchanged. \
            Objects are read in batches and written as they are built, so memory stays \
            bounded whatever the number of objects; with -o the file appears only once \
            complete (a failed export leaves it as it was).
            """,
        options: [
            CommonOptions.storeModel,
            CommonOptions.entity.with(help: "The entity to export (with its sub-entities)."),
            CommonOptions.store,
            CommonOptions.busyTimeout,
            format, output, pretty, QueryOptions.wheres, QueryOptions.sort, QueryOptions.limit, QueryOptions.offset, relationships,
            placeholders, CommonOptions.bindings,
        ])

    /// `--relationships`.
    enum RelationshipMode: String, CaseIterable, OptionValue {
        /// Related objects as their identity values.
        case ids
        /// Related objects written in full, once per exported object (the default, as
        /// ``ExportOptions/RelationshipStyle/nested``).
        case nested
    }

    /// `--format`.
    enum OutputFormat: String, CaseIterable, OptionValue {
        /// One JSON array.
        case json
        /// One compact object per line (NDJSON, JSON Lines), as `trellis import --format ndjson` reads.
        case ndjson
    }

    /// `--placeholders`.
    enum PlaceholderMode: String, CaseIterable, OptionValue {
        /// Each placeholder at its place, as the object of its identity attributes (the
        /// default, as ``ExportOptions/PlaceholderPolicy/include``).
        case include
        /// Placeholders left out (``ExportOptions/PlaceholderPolicy/exclude``).
        case exclude
    }

    /// The parsed options.
    struct Options {
        /// `--model`; nil: the model the store records.
        var modelPath: String?
        var bindingsPath: String?
        var entity: String
        var storePath: String
        var busyTimeoutMilliseconds: Int
        var pretty: Bool
        /// `--format`, or what the `-o` file's name implies.
        var format: OutputFormat
        /// `-o`; nil (or `-`): standard output.
        var outputPath: String?
        var nested: Bool
        var excludesPlaceholders: Bool
        var arguments: ParsedArguments

        init(_ arguments: ParsedArguments) {
            modelPath = arguments[CommonOptions.storeModel]
            bindingsPath = arguments[CommonOptions.bindings]
            entity = arguments[CommonOptions.entity]
            storePath = arguments[CommonOptions.store]
            busyTimeoutMilliseconds = arguments[CommonOptions.busyTimeout].milliseconds
            pretty = arguments[ExportCommand.pretty]
            let outputPath = arguments[ExportCommand.output]
            self.outputPath = outputPath == "-" ? nil : outputPath
            format =
                arguments[ExportCommand.format]
                ?? (InputFormat.inferred(for: outputPath ?? "-", given: nil) == .ndjson ? .ndjson : .json)
            nested = arguments[relationships] == .nested
            excludesPlaceholders = arguments[ExportCommand.placeholders] == .exclude
            self.arguments = arguments
        }
    }

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        let options = Options(arguments)
        if options.pretty && options.format == .ndjson {
            throw UsageError("--pretty writes a JSON array; NDJSON is one compact object per line (drop --pretty or --format ndjson)")
        }
        try ExportRunner(options: options, environment: context.environment).run(stdout: &context.stdout)
    }
}
