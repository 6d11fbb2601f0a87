import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A small, immutable XML element tree: just what Core Data model files use (elements and
/// attributes; text content is ignored). Built with `XMLParser` so syntax errors carry a
/// line and column, and serialised deterministically (attributes in a given order).
struct XMLTreeElement: Sendable, Hashable {
    /// One attribute; order is kept for writing.
    struct Attribute: Sendable, Hashable {
        var name: String
        var value: String
    }

    var name: String
    var attributes: [Attribute]
    var children: [XMLTreeElement]
    /// 1-based line of the element's start tag (0 for elements built in code).
    var line: Int
    /// 1-based column where the parser reported the start tag.
    var column: Int

    init(name: String, attributes: [Attribute] = [], children: [XMLTreeElement] = [], line: Int = 0, column: Int = 0) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.line = line
        self.column = column
    }

    // MARK: - Lookup

    /// The value of the attribute `name`, or nil.
    subscript(attribute name: String) -> String? {
        attributes.first(where: { $0.name == name })?.value
    }

    /// Direct children named `name`, in document order.
    func children(named name: String) -> [XMLTreeElement] {
        children.filter { $0.name == name }
    }

    // MARK: - Building

    /// Appends `name="value"` when `value` is non-nil.
    mutating func set(_ name: String, _ value: String?) {
        guard let value else { return }
        if let i = attributes.firstIndex(where: { $0.name == name }) {
            attributes[i].value = value
        } else {
            attributes.append(Attribute(name: name, value: value))
        }
    }

    // MARK: - Writing

    /// The element as XML text, indented by `level` × 4 spaces, with a trailing newline.
    /// Empty elements are written as `<name …/>`, as Xcode does.
    func xmlText(level: Int = 0) -> String {
        var out = ""
        write(to: &out, level: level)
        return out
    }

    /// The element on one line, children included (used to keep fragments in user info).
    var compactXMLText: String {
        var out = ""
        write(to: &out, level: nil)
        return out
    }

    private func write(to out: inout String, level: Int?) {
        let indent = level.map { String(repeating: "    ", count: $0) } ?? ""
        out += indent + "<" + name
        for attribute in attributes {
            out += " \(attribute.name)=\"\(XMLTreeElement.escape(attribute.value))\""
        }
        if children.isEmpty {
            out += level == nil ? "/>" : "/>\n"
            return
        }
        out += level == nil ? ">" : ">\n"
        for child in children {
            child.write(to: &out, level: level.map { $0 + 1 })
        }
        out += indent + "</\(name)>" + (level == nil ? "" : "\n")
    }

    /// Escapes `&`, `<`, `>`, `"` and control characters (as numeric character references,
    /// so newlines and tabs in attribute values survive attribute-value normalisation).
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n", "\r", "\t": out += "&#\(scalar.value);"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// Parses XML text into an ``XMLTreeElement`` (the document element).
enum XMLTreeParser {
    /// A syntax error: where `XMLParser` stopped, and why.
    struct SyntaxError: Error, Sendable {
        var line: Int
        var column: Int
        var message: String
    }

    /// The deepest element nesting accepted. Core Data models nest five levels
    /// (`model/entity/attribute/userInfo/entry`); the limit keeps the recursive tree
    /// operations (writing, copying, destruction) far from the stack's end.
    static let maximumDepth = 64

    /// - Throws: ``SyntaxError`` with XMLParser's line and column when the text is not
    ///   well-formed XML (or has no document element, or content after it). The message
    ///   quotes the line concerned (XMLParser on Linux reports no reason worth showing).
    static func parse(_ data: Data) throws -> XMLTreeElement {
        // FoundationXML traps on element and attribute names that are not UTF-8 (found by
        // Fuzz/coredata-model), so bytes that are not UTF-8 never reach XMLParser. Xcode
        // writes model files in UTF-8, the XML default (XML 1.0 §4.3.3).
        if let offset = firstInvalidUTF8Offset(data) {
            let (line, column) = lineAndColumn(of: offset, in: data)
            throw SyntaxError(line: line, column: column,
                              message: "invalid UTF-8 at byte \(offset) (a model file is UTF-8 text, as Xcode writes it)")
        }
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        let builder = Builder()
        parser.delegate = builder
        let ok = parser.parse()
        if let message = builder.abortReason {
            throw SyntaxError(line: builder.errorLine ?? 1, column: builder.errorColumn ?? 1, message: message)
        }
        guard ok, let root = builder.root else {
            let line = max(builder.errorLine ?? parser.lineNumber, 1)
            let column = max(builder.errorColumn ?? parser.columnNumber, 1)
            if builder.root == nil, builder.stack.isEmpty, builder.error == nil, parser.parserError == nil || data.isEmpty {
                throw SyntaxError(line: line, column: column, message: "the document has no root element")
            }
            throw SyntaxError(line: line, column: column, message: "the XML is not well-formed" + excerpt(of: data, line: line))
        }
        return root
    }

    /// The offset of the first byte that does not belong to well-formed UTF-8 (RFC 3629:
    /// no overlong forms, surrogates or scalars above U+10FFFF), or nil.
    static func firstInvalidUTF8Offset(_ data: Data) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = data.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The 1-based line and column (in bytes) of `offset`.
    private static func lineAndColumn(of offset: Int, in data: Data) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for (index, byte) in data.prefix(offset).enumerated() where byte == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return (line, offset - lineStart + 1)
    }

    /// ` near '<line text>'` (trimmed, at most 60 characters), or "" when the line is blank.
    private static func excerpt(of data: Data, line: Int) -> String {
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count else { return "" }
        let trimmed = lines[line - 1].trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return "" }
        return " near '\(trimmed.count > 60 ? trimmed.prefix(60) + "…" : trimmed)'"
    }

    /// Collects elements; text is ignored.
    // Not Sendable: used by one parse on one thread, then dropped.
    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [XMLTreeElement] = []
        var root: XMLTreeElement?
        var error: (any Error)?
        var errorLine: Int?
        var errorColumn: Int?
        /// Why the builder stopped the parse (too deep, or a second top-level element).
        var abortReason: String?

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            if stack.count >= XMLTreeParser.maximumDepth {
                abortReason = "elements are nested deeper than \(XMLTreeParser.maximumDepth) levels"
                errorLine = parser.lineNumber
                errorColumn = parser.columnNumber
                parser.abortParsing()
                return
            }
            if stack.isEmpty, root != nil {
                abortReason = "content after the root element: <\(elementName)>"
                errorLine = parser.lineNumber
                errorColumn = parser.columnNumber
                parser.abortParsing()
                return
            }
            // XMLParser hands attributes over as a dictionary; sort them for a stable order.
            let attributes = attributeDict.keys.sorted().map { XMLTreeElement.Attribute(name: $0, value: attributeDict[$0] ?? "") }
            stack.append(XMLTreeElement(name: elementName, attributes: attributes, line: parser.lineNumber,
                                        column: parser.columnNumber))
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            if error == nil {
                error = parseError
                errorLine = parser.lineNumber
                errorColumn = parser.columnNumber
            }
        }
    }
}
