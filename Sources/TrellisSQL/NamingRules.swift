import Trellis

/// What an SQL engine allows in the names ``SchemaDescription`` gives tables and columns.
///
/// Both stores give a model the same names (see `docs/SQLiteSchema.md`); the rules only add
/// what one engine refuses:
///
/// - SQLite reserves table names starting with `sqlite_` (https://sqlite.org/lang_createtable.html),
///   which get a leading `_`.
/// - PostgreSQL reserves the system column names `tableoid`, `xmin`, `cmin`, `xmax`, `cmax`
///   and `ctid` (https://www.postgresql.org/docs/15/ddl-system-columns.html), which a
///   property column then avoids like a taken name (`Character.xmin`); and it truncates
///   identifiers longer than 63 bytes (`NAMEDATALEN` − 1,
///   https://www.postgresql.org/docs/15/sql-syntax-lexical.html#SQL-SYNTAX-IDENTIFIERS), so
///   such a name is refused instead, naming the entity and property.
package struct NamingRules: Sendable {
    /// `an SQLite identifier`, `a PostgreSQL identifier` (for messages).
    package var identifierPhrase: String
    /// Table names starting with this (ASCII case-insensitively) get a leading `_`.
    package var reservedTablePrefix: String?
    /// Names no table takes (besides `trellis_metadata`).
    package var reservedTables: [String]
    /// Names no property column takes (besides `_pk`, `_entity`, `_placeholder`).
    package var reservedColumns: [String]
    /// The longest identifier in UTF-8 bytes; nil for no limit.
    package var maxIdentifierBytes: Int?

    /// SQLite's rules.
    package static let sqlite = NamingRules(
        identifierPhrase: "an SQLite identifier", reservedTablePrefix: "sqlite_",
        reservedTables: [], reservedColumns: [], maxIdentifierBytes: nil)

    /// PostgreSQL's rules (`trellis_locks` is the PostgreSQL store's lock-row table,
    /// `trellis_commits seq` its change log's sequence).
    package static let postgreSQL = NamingRules(
        identifierPhrase: "a PostgreSQL identifier", reservedTablePrefix: nil,
        reservedTables: [
            "trellis_locks", "trellis_commits seq", "trellis_outbox object", "trellis_outbox server_identity",
            "trellis_outbox_seq_seq", "trellis_outbox_pkey", "trellis_outbox_key_key",
        ],
        reservedColumns: ["tableoid", "xmin", "cmin", "xmax", "cmax", "ctid"], maxIdentifierBytes: 63)

    /// Throws when the table of `entity`'s hierarchy is too long a name.
    func check(table: String, entity: String) throws(StoreError) {
        try check(table, what: "entity \(entity): the table name")
    }

    /// Throws when the column of `entity`'s `property` is too long a name.
    func check(column: String, entity: String, property: String) throws(StoreError) {
        try check(column, what: "entity \(entity), property \(property): the column name")
    }

    /// Throws when the join table of `entity`'s `property` is too long a name.
    func check(joinTable: String, entity: String, property: String) throws(StoreError) {
        try check(joinTable, what: "entity \(entity), property \(property): the join table name")
    }

    private func check(_ name: String, what: String) throws(StoreError) {
        guard let limit = maxIdentifierBytes, name.utf8.count > limit else { return }
        throw StoreError(
            .incompatibleSchema,
            message: "\(what) '\(name)' is \(name.utf8.count) bytes long, but \(identifierPhrase) holds at most "
                + "\(limit) bytes (a longer one would be cut short): shorten the name in the model")
    }
}
