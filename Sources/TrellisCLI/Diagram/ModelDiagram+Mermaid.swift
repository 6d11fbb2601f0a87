import Trellis

extension ModelDiagram {
    /// The model as a Mermaid entity–relationship diagram (https://mermaid.js.org/syntax/entityRelationshipDiagram.html):
    ///
    ///     erDiagram
    ///         Character {
    ///             integer64 identifier PK "key path id, required"
    ///             string name "key path name"
    ///         }
    ///         Character }o--o{ Power : "powers (ordered) / characters"
    ///         Vehicle ||..o| Bike : "sub-entity"
    ///
    /// Identity attributes are `PK` (each of a composite identity); the comment gives the
    /// JSON key path and `required`. A relationship and its inverse are one solid line with
    /// crow's-foot ends (`|o` zero or one, `||` exactly one, `}o` zero or more, `}|` one or
    /// more), labelled `name (traits) / inverse`; a sub-entity hangs from its parent by a
    /// dashed `||..o|` line labelled `sub-entity` (erDiagram has no inheritance arrow).
    ///
    /// Names: an ASCII identifier is written as it is; any other entity name is quoted, with
    /// the characters a quoted Mermaid name cannot hold (`"`, `%`, `\`) written as `_` (and
    /// `_2`, `_3`… appended to a name so changed should it then meet another). An attribute name that is not an
    /// identifier (or is one of Mermaid's keys `PK`, `FK`, `UK`) is written with `_` for each
    /// other character (and before a key), its real name in the comment.
    var mermaid: String {
        let ids = mermaidIdentifiers
        var out = "erDiagram\n"
        for entity in model.resolvedEntities {
            let id = ids[entity.name]!
            let rows = rows(entity)
            guard !rows.isEmpty else {
                out += "    \(id)\n"
                continue
            }
            out += "    \(id) {\n"
            for row in rows {
                var comment: [String] = []
                var name = row.attribute.name
                if !Self.isPlainIdentifier(name) || Self.mermaidKeys.contains(name.uppercased()) {
                    comment.append("name " + name)
                    name = Self.mermaidAttributeName(name)
                }
                if let keyPath = row.keyPath { comment.append("key path " + keyPath) }
                if !row.attribute.isOptional { comment.append("required") }
                var line = "        \(row.attribute.type.rawValue) \(name)"
                if row.isIdentity { line += " PK" }
                if !comment.isEmpty { line += " \"\(Self.mermaidQuotable(comment.joined(separator: ", ")))\"" }
                out += line + "\n"
            }
            out += "    }\n"
        }
        for link in links {
            guard let destination = ids[link.destinationName] else { continue }
            out +=
                "    \(ids[link.source.name]!) \(Self.mermaidLeft(link.sourceEnd))--\(Self.mermaidRight(link.destinationEnd)) "
                + "\(destination) : \"\(Self.mermaidQuotable(link.label))\"\n"
        }
        for (parent, child) in inheritance {
            guard let parentID = ids[parent], let childID = ids[child] else { continue }
            out += "    \(parentID) ||..o| \(childID) : \"sub-entity\"\n"
        }
        return out
    }

    // MARK: - Mermaid names

    /// Words of Mermaid's erDiagram grammar (its lexer reads them case-insensitively, before
    /// names), quoted even as plain identifiers.
    private static let mermaidWords: Set<String> = [
        "erdiagram", "direction", "title", "acctitle", "accdescr", "style", "classdef", "class", "subgraph", "end",
        "to", "optionally", "one", "zero", "many", "only", "or", "more", "pk", "fk", "uk", "u", "md",
    ]

    /// The attribute keys of Mermaid's grammar, which an attribute name must not be.
    private static let mermaidKeys: Set<String> = ["PK", "FK", "UK"]

    /// Each entity's identifier in the Mermaid text, unique across the model.
    private var mermaidIdentifiers: [String: String] {
        var ids: [String: String] = [:]
        // Mermaid reads `"Name"` and `Name` as one entity: names are compared unquoted, and
        // a name written as it is keeps it, whatever comes first.
        var used: Set<String> = Set(model.entities.map(\.name).filter { Self.mermaidQuotable($0, quote: "_") == $0 })
        for entity in model.entities {
            if Self.isPlainIdentifier(entity.name) {
                ids[entity.name] = Self.mermaidWords.contains(entity.name.lowercased()) ? "\"\(entity.name)\"" : entity.name
                continue
            }
            let text = Self.mermaidQuotable(entity.name, quote: "_")
            guard text != entity.name else {
                ids[entity.name] = "\"\(text)\""  // reserved for it above
                continue
            }
            var name = text
            var n = 2
            while used.contains(name) {
                name = "\(text)_\(n)"
                n += 1
            }
            used.insert(name)
            ids[entity.name] = "\"\(name)\""
        }
        return ids
    }

    /// `text` with the characters a quoted Mermaid string cannot hold replaced: `"` by
    /// `quote` (`'` in labels and comments), `%` and `\` by `_`.
    static func mermaidQuotable(_ text: String, quote: Character = "'") -> String {
        String(
            text.map { c -> Character in
                switch c {
                case "\"": return quote
                case "%", "\\": return "_"
                default: return c
                }
            })
    }

    /// An attribute name as a Mermaid attribute-name token: `_` for each character that is
    /// not an ASCII letter, digit or `_`, and a leading `_` before a digit or a key word
    /// (`pk` → `_pk`).
    static func mermaidAttributeName(_ name: String) -> String {
        var text = String(
            name.unicodeScalars.map { c -> Character in
                c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) ? Character(c) : "_"
            })
        if text.first.map({ $0.isNumber }) ?? true || mermaidKeys.contains(text.uppercased()) { text = "_" + text }
        return text
    }

    private static func mermaidLeft(_ end: Cardinality) -> String {
        switch end {
        case .zeroOrOne: return "|o"
        case .exactlyOne: return "||"
        case .zeroOrMore: return "}o"
        case .oneOrMore: return "}|"
        }
    }

    private static func mermaidRight(_ end: Cardinality) -> String {
        switch end {
        case .zeroOrOne: return "o|"
        case .exactlyOne: return "||"
        case .zeroOrMore: return "o{"
        case .oneOrMore: return "|{"
        }
    }
}
