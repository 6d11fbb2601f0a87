import Foundation
import Trellis
import TrellisModelFile

/// `trellis export [--model MODEL] --entity NAME [options]`: the objects of an entity as a
/// JSON array on standard output (the model: `--model`, else the one the store records).
enum ExportCommand: LeafCommand {
    static let pretty = OptionKey<Bool>(flag: "--pretty", help: "Indent the JSON (two spaces, one member per line).")
    static let relationships = OptionKey<RelationshipMode>(
        "--relationships", valueName: "mode",
        help: "Related objects as nested objects (each written in full once per exported object) or as their identifiers.",
        default: "nested")
    static let placeholders = OptionKey<PlaceholderMode>(
        "--placeholders", valueName: "mode",
        help: "Placeholders (objects known only by their identifier) as their identifiers, or left out of the array.",
        default: "include")

    static let spec = CommandSpec(
        name: "export",
        abstract: "Export the objects of an entity as a JSON array.",
        discussion: """
            Each object is written with its mapped properties at their JSON key paths \
            (nested key paths rebuild nested objects), with the reverse value transformers \
            applied. Objects are in store order (object ID) unless --sort says otherwise; \
            --where takes NSPredicate format or ATTRIBUTE=VALUE (see docs/Queries.md). What \
            export writes, import reads back: into the same store every object is unchanged.
            """,
        options: [
            CommonOptions.storeModel,
            CommonOptions.entity.with(help: "The entity to export (with its sub-entities)."),
            CommonOptions.store,
            CommonOptions.busyTimeout,
            pretty, QueryOptions.wheres, QueryOptions.sort, QueryOptions.limit, QueryOptions.offset, relationships,
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

    /// `--placeholders`.
    enum PlaceholderMode: String, CaseIterable, OptionValue {
        /// Each placeholder at its place, as its identifier (the default, as
        /// ``ExportOptions/PlaceholderPolicy/include``).
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
            nested = arguments[relationships] == .nested
            excludesPlaceholders = arguments[ExportCommand.placeholders] == .exclude
            self.arguments = arguments
        }
    }

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        context.stdout.write(try ExportRunner(options: Options(arguments), environment: context.environment).run())
    }
}
