/// Renders predicates and values in the NSPredicate format (for messages and
/// ``ObjectPredicate/description``); parsing the text gives back an equal predicate.
enum PredicateFormatter {
    /// `"text"` with `"` and `\` escaped, control characters as `\n`, `\t`, `\u{…}`.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func text(_ predicate: ObjectPredicate) -> String {
        switch predicate {
        case .constant(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let c):
            let quantifier = c.quantifier.map { $0.rawValue + " " } ?? ""
            return "\(quantifier)\(keyPath(c.keyPath)) \(c.op.rawValue)\(c.options) \(c.value)"
        case .and(let ps):
            if ps.isEmpty { return "TRUEPREDICATE" }
            return ps.count == 1 ? text(ps[0]) : "(" + ps.map(text).joined(separator: " AND ") + ")"
        case .or(let ps):
            if ps.isEmpty { return "FALSEPREDICATE" }
            return ps.count == 1 ? text(ps[0]) : "(" + ps.map(text).joined(separator: " OR ") + ")"
        case .not(let p): return "NOT " + (isAtomic(p) ? text(p) : "(" + text(p) + ")")
        }
    }

    /// Names the parser would read as keywords where a key path starts, written with `#`.
    static let reservedNames: Set<String> = [
        "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH",
        "BETWEEN", "TRUEPREDICATE", "FALSEPREDICATE", "NIL", "NULL", "TRUE", "YES", "FALSE", "NO",
    ]

    /// `keyPath` as predicate text: each keyword component with `#` (`#in`, `#not.name`).
    static func keyPath(_ keyPath: String) -> String {
        keyPath.split(separator: ".", omittingEmptySubsequences: false)
            .map { reservedNames.contains($0.uppercased()) ? "#" + $0 : String($0) }
            .joined(separator: ".")
    }

    private static func isAtomic(_ p: ObjectPredicate) -> Bool {
        switch p {
        case .constant, .and, .or, .not: return true
        case .comparison: return false
        }
    }
}

extension ObjectPredicate: CustomStringConvertible {
    /// The predicate in NSPredicate format: `(name BEGINSWITH[cd] "bat" AND rating > 2.5)`.
    public var description: String { PredicateFormatter.text(self) }
}
