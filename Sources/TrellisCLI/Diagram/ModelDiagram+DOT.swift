import Trellis

extension ModelDiagram {
    /// The model as a Graphviz DOT graph (https://graphviz.org/doc/info/lang.html), for
    /// `dot -Tsvg model.dot -o model.svg`:
    ///
    ///     digraph model {
    ///         graph [rankdir=LR];
    ///         node [shape=plaintext, fontname="Helvetica", fontsize=11];
    ///         edge [fontname="Helvetica", fontsize=9];
    ///         "Character" [label=<<table …><tr><td …><b>Character</b></td></tr>
    ///             <tr><td …><u>identifier</u>: integer64, identity, required</td></tr>…</table>>];
    ///         "Character" -> "Power" [dir=both, arrowtail=crowodot, arrowhead=crowodot, label=<powers (ordered) / characters>];
    ///         "Bike" -> "Vehicle" [arrowhead=empty, style=dashed, label=<sub-entity>];
    ///     }
    ///
    /// Each entity is a table: its name (in italics with `abstract` for an abstract
    /// entity), then one row per declared attribute, `name: type`, identity attributes
    /// underlined and marked `identity`, then `required` and the JSON key path. A
    /// relationship and its inverse are one edge with crow's-foot ends (`teeodot` zero or
    /// one, `teetee` exactly one, `crowodot` zero or more, `crowtee` one or more),
    /// labelled `name (traits) / inverse`; a sub-entity points at its parent with a hollow
    /// arrowhead (UML's generalisation).
    ///
    /// Every text is an HTML-like label with `&`, `<`, `>` and `"` escaped as entities, so
    /// any name reads back as it is; a node's identifier is its entity name in quotes when
    /// the name is an ASCII identifier, `"#N"` (the entity's position) otherwise, since a
    /// quoted DOT identifier cannot end in a backslash.
    var dot: String {
        var ids: [String: String] = [:]
        for (position, entity) in model.entities.enumerated() {
            ids[entity.name] = Self.isPlainIdentifier(entity.name) ? "\"\(entity.name)\"" : "\"#\(position + 1)\""
        }
        var out = """
            digraph model {
                graph [rankdir=LR];
                node [shape=plaintext, fontname="Helvetica", fontsize=11];
                edge [fontname="Helvetica", fontsize=9];

            """
        for entity in model.resolvedEntities {
            let name = Self.html(entity.name)
            let header = entity.isAbstract ? "<b><i>\(name)</i></b> (abstract)" : "<b>\(name)</b>"
            var table =
                "<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"4\">"
                + "<tr><td bgcolor=\"#e8e8e8\">\(header)</td></tr>"
            for row in rows(entity) {
                var text = Self.html(row.attribute.name)
                if row.isIdentity { text = "<u>\(text)</u>" }
                var parts = [row.attribute.type.rawValue]
                if row.isIdentity { parts.append("identity") }
                if !row.attribute.isOptional { parts.append("required") }
                if let keyPath = row.keyPath { parts.append("key path " + Self.html(keyPath)) }
                table += "<tr><td align=\"left\">\(text): \(parts.joined(separator: ", "))</td></tr>"
            }
            table += "</table>"
            out += "    \(ids[entity.name]!) [label=<\(table)>];\n"
        }
        for link in links {
            guard let destination = ids[link.destinationName] else { continue }
            out +=
                "    \(ids[link.source.name]!) -> \(destination) [dir=both, arrowtail=\(Self.arrow(link.sourceEnd)), "
                + "arrowhead=\(Self.arrow(link.destinationEnd)), label=<\(Self.html(link.label))>];\n"
        }
        for (parent, child) in inheritance {
            guard let parentID = ids[parent], let childID = ids[child] else { continue }
            out += "    \(childID) -> \(parentID) [arrowhead=empty, style=dashed, label=<sub-entity>];\n"
        }
        return out + "}\n"
    }

    /// `text` in an HTML-like label: `&`, `<`, `>`, `"` as entities.
    static func html(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    /// The Graphviz arrow shape of a crow's-foot end (the first shape nearest the node).
    private static func arrow(_ end: Cardinality) -> String {
        switch end {
        case .zeroOrOne: return "teeodot"
        case .exactlyOne: return "teetee"
        case .zeroOrMore: return "crowodot"
        case .oneOrMore: return "crowtee"
        }
    }
}
