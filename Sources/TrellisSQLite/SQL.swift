import Trellis

/// Quoting for SQL text. Every identifier Trellis writes into SQL goes through
/// ``identifier(_:)``; values are always bound as parameters, never written into SQL.
/// (The one exception is entity names inside a partial index's `WHERE` clause, which SQLite
/// does not allow to be parameters; they go through ``literal(_:)``.)
///
/// Rules: https://sqlite.org/lang_keywords.html — a double-quoted identifier may contain
/// any character but NUL; a `"` inside is written twice.
enum SQL {
    /// `name` as a quoted identifier: `Order` → `"Order"`, `a"b;c` → `"a""b;c"`.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as a quoted string literal: `it's` → `'it''s'`.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `?, ?, ?` with `count` parameters.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// The column type (and so the affinity, https://sqlite.org/datatype3.html) of an attribute type.
    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string, .decimal, .uuid, .uri, .json: return "TEXT"
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .double, .float, .date: return "REAL"
        case .binary: return "BLOB"
        }
    }
}

extension String {
    /// Replaces every `target` byte (works on UTF-8 bytes, so a quote followed by a
    /// combining mark is still found), without importing Foundation here.
    fileprivate func replacingOccurrences(of target: Unicode.Scalar, with replacement: String) -> String {
        let byte = UInt8(ascii: target)
        guard utf8.contains(byte) else { return self }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count + 4)
        for b in utf8 {
            if b == byte { out.append(contentsOf: replacement.utf8) } else { out.append(b) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
