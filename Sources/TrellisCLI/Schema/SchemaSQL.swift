import Trellis
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
}
