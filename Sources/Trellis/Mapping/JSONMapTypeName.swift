/// Swift type names as written in source, for error messages: `[String]` rather than
/// `Array<String>`, `[String: Int]`, `Date?`.
enum JSONMapTypeName {
    /// The name of `type` in source spelling.
    static func of(_ type: Any.Type) -> String {
        sugared(String(describing: type))
    }

    /// Rewrites `Array<X>`, `Dictionary<K, V>`, `Optional<X>` and `Set<X>` spellings.
    static func sugared(_ name: String) -> String {
        guard let open = name.firstIndex(of: "<"), name.last == ">" else { return name }
        let head = name[..<open]
        let inner = String(name[name.index(after: open)..<name.index(before: name.endIndex)])
        let arguments = splitTopLevel(inner).map(sugared)
        switch (head, arguments.count) {
        case ("Array", 1): return "[\(arguments[0])]"
        case ("Optional", 1): return "\(arguments[0])?"
        case ("Dictionary", 2): return "[\(arguments[0]): \(arguments[1])]"
        default: return "\(head)<\(arguments.joined(separator: ", "))>"
        }
    }

    /// Splits `A, B<C, D>` at top-level commas.
    private static func splitTopLevel(_ text: String) -> [String] {
        var parts: [String] = []
        var depth = 0
        var current = ""
        for character in text {
            switch character {
            case "<":
                depth += 1
                current.append(character)
            case ">":
                depth -= 1
                current.append(character)
            case "," where depth == 0:
                parts.append(current.trimmingLeadingSpaces())
                current = ""
            default: current.append(character)
            }
        }
        parts.append(current.trimmingLeadingSpaces())
        return parts
    }
}

extension String {
    fileprivate func trimmingLeadingSpaces() -> String {
        String(drop(while: { $0 == " " }))
    }
}
