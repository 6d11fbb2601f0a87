import Foundation
import Trellis
import TrellisPostgres

/// `--store postgresql://…` (any libpq connection string, ``PostgresStore/isConnectionString(_:)``):
/// opening the PostgreSQL store, with messages that name the server without its password.
enum PostgresStoreOpening {
    /// `postgresql://user@host:port/dbname`, plus `?schema=NAME` when the string names a
    /// schema: how messages and summaries show the store (never the password).
    static func name(_ connection: String) -> String {
        let base = PostgresStore.describe(connection: connection)
        return PostgresStore.schemaParameter(of: connection).map { base + "?schema=" + $0 } ?? base
    }

    /// Opens the store for `model`. The schema work a new or outdated store needs is done
    /// inside each write transaction (``PostgresStore/MigrationPolicy/inWriteTransactions``),
    /// so a failed import or a dry run leaves the database exactly as it was (PostgreSQL's DDL
    /// is transactional); an export (`readOnly`) reads as the migration would leave it and
    /// writes nothing.
    /// `modelRecord` (the model file's text) is recorded in the store by the first write
    /// transaction that commits, as SQLite stores record it (``RecordedModel``).
    /// - Throws: ``CommandError`` `.store`.
    static func open(_ connection: String, model: ObjectModel, readOnly: Bool, modelRecord: String? = nil) throws -> PostgresStore {
        do {
            return try PostgresStore(
                connection: connection, model: model,
                configuration: .init(
                    isReadOnly: readOnly, migrationPolicy: .inWriteTransactions,
                    modelRecord: readOnly ? nil : modelRecord))
        } catch let error as StoreError {
            throw commandError(error, connection: connection)
        }
    }

    /// The command's message for a store error: `NAME: not a Trellis store: …`,
    /// `cannot connect to postgresql://app@db:5432/catalog: …`, `NAME: the store's schema cannot be migrated …`.
    static func commandError(_ error: StoreError, connection: String) -> CommandError {
        let name = name(connection)
        switch error.code {
        case .unavailable, .permissionDenied: return CommandError(.store, error.message)
        case .notAStore: return CommandError(.store, "\(name): not a Trellis store: \(error.message)")
        case .readOnly: return CommandError(.store, "\(name): the store is read-only")
        case .incompatibleSchema, .transactionConflict, .constraintViolation, .unsupportedValue:
            return CommandError(.store, "\(name): \(error.message)")
        default: return CommandError(.store, "\(name): \(error)")
        }
    }
}
