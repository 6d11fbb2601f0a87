/// Compact JSON text of a value for error messages, cut at a character limit.
enum ValueSnippet {
    /// The default limit, in characters, before `…`.
    static let limit = 40

    /// Compact JSON text of `value` (`"a\nb"`, `[1,2]`, `{"k":true}`), cut to `limit`
    /// characters followed by `…` when longer. Stops rendering early, so a huge value
    /// costs O(limit).
    static func text(of value: JSONValue, limit: Int = ValueSnippet.limit) -> String {
        var out = Output(limit: limit)
        render(value, into: &out)
        return out.isTruncated ? String(out.text.prefix(limit)) + "…" : out.text
    }

    private struct Output {
        let limit: Int
        var text = ""
        var count = 0
        var isTruncated = false

        mutating func write(_ s: String) {
            guard !isTruncated else { return }
            for character in s {
                if count == limit {
                    isTruncated = true
                    return
                }
                text.append(character)
                count += 1
            }
        }
    }

    private static func render(_ value: JSONValue, into out: inout Output) {
        guard !out.isTruncated else { return }
        switch value {
        case .null: out.write("null")
        case .bool(let b): out.write(b ? "true" : "false")
        case .number(let n): out.write(n.text)
        case .string(let s): renderString(s, into: &out)
        case .array(let elements):
            out.write("[")
            for (i, element) in elements.enumerated() {
                if out.isTruncated { return }
                if i > 0 { out.write(",") }
                render(element, into: &out)
            }
            out.write("]")
        case .object(let object):
            out.write("{")
            for (i, member) in object.members.enumerated() {
                if out.isTruncated { return }
                if i > 0 { out.write(",") }
                renderString(member.key, into: &out)
                out.write(":")
                render(member.value, into: &out)
            }
            out.write("}")
        }
    }

    private static func renderString(_ s: String, into out: inout Output) {
        out.write("\"")
        for scalar in s.unicodeScalars {
            if out.isTruncated { return }
            switch scalar {
            case "\"": out.write("\\\"")
            case "\\": out.write("\\\\")
            case "\n": out.write("\\n")
            case "\r": out.write("\\r")
            case "\t": out.write("\\t")
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out.write("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                } else {
                    out.write(String(scalar))
                }
            }
        }
        out.write("\"")
    }
}
