// INTERIM: replaced by `ValueSnippet` when the `transform` branch lands.

/// Compact, shortened JSON text of a value for error messages.
enum MappingSnippet {
    static func text(of value: JSONValue, limit: Int = 40) -> String {
        var text: String
        switch value {
        case .null: text = "null"
        case .bool(let b): text = b ? "true" : "false"
        case .number(let n): text = n.text
        case .string(let s): text = "\"" + s + "\""
        case .array(let a): text = "[" + a.map { Self.text(of: $0, limit: limit) }.joined(separator: ",") + "]"
        case .object(let o): text = "{" + o.members.map { "\"\($0.key)\":" + Self.text(of: $0.value, limit: limit) }.joined(separator: ",") + "}"
        }
        if text.count > limit { text = String(text.prefix(limit)) + "…" }
        return text
    }
}
