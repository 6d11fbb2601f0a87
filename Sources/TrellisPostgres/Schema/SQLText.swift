/// Quoting for PostgreSQL SQL text. Every identifier the store writes goes through
/// ``identifier(_:)``; values are always bound as parameters. The exceptions are the entity
/// names of a partial index's `WHERE` clause and a sequence's name in a column default,
/// which DDL cannot take as parameters: they go through ``literal(_:)``.
///
/// Rules: https://www.postgresql.org/docs/15/sql-syntax-lexical.html — a quoted identifier
/// holds any character but NUL, a `"` inside written twice, and is case-sensitive; a string
/// constant doubles `'` (with `standard_conforming_strings` on, the default since 9.1,
/// backslashes are ordinary characters).
enum SQLText {
    /// `name` as a quoted identifier: `Order` → `"Order"`, `a"b;c` → `"a""b;c"`.
    static func identifier(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// `schema.name`, both quoted: `"public"."Character"`.
    static func qualified(_ schema: String, _ name: String) -> String {
        identifier(schema) + "." + identifier(name)
    }

    /// `text` as a string constant: `it's` → `'it''s'`.
    static func literal(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    }
}
