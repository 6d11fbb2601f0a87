import Trellis
import TrellisPostgres
import TrellisSQLite

/// The SQL statements a new SQLite store runs for a model (``SQLiteStore/schemaStatements(for:)``).
enum SchemaSQL {
    /// `CREATE TABLE …;` and `CREATE INDEX …;` statements, in creation order, each ending
    /// with `;` and a newline. Nothing is opened or created.
    /// - Throws: ``CommandError`` `.store` when the model's names cannot be stored.
    static func statements(for model: ObjectModel) throws -> String {
        do {
            return try SQLiteStore.schemaStatements(for: model).map { $0 + ";\n" }.joined()
        } catch {
            throw CommandError(.store, "cannot make the schema: \(error)")
        }
    }

    /// The PostgreSQL store's statements for `model` in `schema` (``PostgresStore/schemaStatements(for:schema:)``),
    /// each ending with `;` and a newline.
    /// - Throws: ``CommandError`` `.store` when the model's names cannot be stored (longer than 63 bytes, …).
    static func postgresStatements(for model: ObjectModel, schema: String) throws -> String {
        do {
            return try PostgresStore.schemaStatements(for: model, schema: schema).map { $0 + ";\n" }.joined()
        } catch let error as StoreError {
            throw CommandError(.store, "cannot make the schema: \(error.message)")
        }
    }
}
