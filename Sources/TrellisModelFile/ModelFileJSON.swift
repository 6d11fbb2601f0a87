import Foundation
import Trellis

/// JSON text in and out for model files: ``JSONReader`` to read (errors with line and
/// column), and a pretty printer that keeps short arrays of scalars on one line
/// (`"identityAttributes": ["id"]`) so model files stay compact and diffable.
enum ModelFileJSON {
    /// Parses `data` as one JSON value.
    /// - Throws: ``ModelFileError`` `.malformedJSON` with the line and column.
    static func parse(_ data: Data) throws -> JSONValue {
        do {
            return try JSONReader.parse(data)
        } catch {
            throw ModelFileError(.malformedJSON, line: error.line, column: error.column, message: error.message)
        }
    }

    /// `value` as pretty-printed JSON text (two-space indent, keys in the object's order,
    /// short arrays of scalars on one line), ending with a newline.
    static func prettyText(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: 0, into: &out)
        out += "\n"
        return out
    }

    private static func write(_ value: JSONValue, indent: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closingPad = String(repeating: "  ", count: indent)
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n):
            if case .double(let d) = n.storage, !d.isFinite { out += "null" } else { out += n.text }  // never NaN or infinity
        case .string(let s): out += JSONWriter.quoted(s)
        case .array(let elements):
            if elements.isEmpty {
                out += "[]"
            } else if elements.allSatisfy({ $0.objectValue == nil && $0.arrayValue == nil }) {
                out += "["
                for (i, element) in elements.enumerated() {
                    if i > 0 { out += ", " }
                    write(element, indent: indent + 1, into: &out)
                }
                out += "]"
            } else {
                out += "[\n"
                for (i, element) in elements.enumerated() {
                    out += pad
                    write(element, indent: indent + 1, into: &out)
                    out += i + 1 < elements.count ? ",\n" : "\n"
                }
                out += closingPad + "]"
            }
        case .object(let object):
            if object.isEmpty {
                out += "{}"
                return
            }
            out += "{\n"
            for (i, member) in object.members.enumerated() {
                out += pad + JSONWriter.quoted(member.key) + ": "
                write(member.value, indent: indent + 1, into: &out)
                out += i + 1 < object.count ? ",\n" : "\n"
            }
            out += closingPad + "}"
        }
    }
}
