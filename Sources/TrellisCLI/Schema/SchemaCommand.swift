import Foundation
import Trellis
import TrellisModelFile
import TrellisPostgres

/// `trellis schema --model MODEL [--dialect sqlite|postgresql] [--store STORE]`: the SQL a
/// store creates for a model.
enum SchemaCommand: LeafCommand {
    /// `--dialect`: which store's SQL.
    enum Dialect: String, CaseIterable, OptionValue {
        /// The SQLite store's (the default).
        case sqlite
        /// The PostgreSQL store's, in the schema `--store` names (`?schema=…`), else `public`.
        case postgresql
    }

    static let dialect = OptionKey<Dialect?>(
        "--dialect", valueName: "dialect",
        help: "Whose SQL: the SQLite store's (default) or the PostgreSQL store's (the default with --store postgresql://…).")
    static let store = OptionKey<String?>(
        "--store", valueName: "path",
        help: "A store location: a PostgreSQL connection string selects the PostgreSQL dialect and its ?schema= (nothing is opened).")

    static let spec = CommandSpec(
        name: "schema",
        abstract: "Print the SQL schema a store uses for a model.",
        discussion: "The statements a new store runs to create its tables and indexes, one per line group: the SQLite store's, "
            + "or with --dialect postgresql (or --store postgresql://…) the PostgreSQL store's. Nothing is opened or created.",
        options: [CommonOptions.model, dialect, store, CommonOptions.bindings])

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        let location = arguments[store].map { StoreLocation($0, environment: context.environment) }
        let isPostgresStore = location?.isPostgres ?? false
        let chosen = arguments[dialect] ?? (isPostgresStore ? .postgresql : .sqlite)
        if chosen == .sqlite, isPostgresStore {
            throw UsageError("--dialect sqlite contradicts --store, which is a PostgreSQL connection string")
        }
        // The tables do not depend on what value transformers or entity mappers do.
        let file = try ModelLoading.load(
            arguments[CommonOptions.model], bindings: arguments[CommonOptions.bindings],
            environment: context.environment, requiringBoundNames: false)
        switch chosen {
        case .sqlite:
            context.stdout.write(try SchemaSQL.statements(for: file.model))
        case .postgresql:
            let schema = location.flatMap { PostgresStore.schemaParameter(of: $0.text) } ?? "public"
            context.stdout.write(try SchemaSQL.postgresStatements(for: file.model, schema: schema))
        }
    }
}
