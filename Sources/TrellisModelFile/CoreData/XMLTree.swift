import CLibXML2
import Foundation

/// A small, immutable XML element tree: just what Core Data model files use (elements and
/// attributes; text content is ignored). Read with libxml2 so syntax errors carry a line,
/// a column and libxml2's reason, and serialised deterministically (attributes in a given
/// order).
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

    init(name: String, attributes: [Attribute] = [], children: [XMLTreeElement] = [], line: Int = 0) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.line = line
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

/// Parses XML text into an ``XMLTreeElement`` (the document element), with libxml2.
enum XMLTreeParser {
    /// A syntax error: where libxml2 stopped, and why.
    struct SyntaxError: Error, Sendable {
        var line: Int
        var column: Int
        var message: String
    }

    /// The deepest element nesting accepted. Core Data models nest five levels
    /// (`model/entity/attribute/userInfo/entry`); the limit keeps the recursive tree
    /// operations (building, writing, copying, destruction) far from the stack's end.
    static let maximumDepth = 64

    /// `xmlInitParser()`, once per process before any parse: libxml2 asks for it to be called
    /// from one thread before parsing on several (Swift runs a static initialiser once).
    private static let libxml2Initialized: Void = xmlInitParser()

    /// libxml2's options: no network access and no messages on stderr. External entities
    /// are not loaded (no `XML_PARSE_NOENT`/`XML_PARSE_DTDLOAD`) and libxml2's own limits
    /// on depth and entity expansion stay on (no `XML_PARSE_HUGE`).
    private static let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)

    /// - Throws: ``SyntaxError`` with line, column and libxml2's reason when the text is
    ///   not UTF-8 or not well-formed XML (no document element, content after it, tags
    ///   that do not match, …), or nests elements deeper than ``maximumDepth``.
    static func parse(_ data: Data) throws -> XMLTreeElement {
        // Xcode writes model files in UTF-8, the XML default (XML 1.0 §4.3.3); other bytes
        // are refused here, with their position, whatever the declaration says.
        if let offset = firstInvalidUTF8Offset(data) {
            let (line, column) = lineAndColumn(of: offset, in: data)
            throw SyntaxError(
                line: line, column: column,
                message: "invalid UTF-8 at byte \(offset) (a model file is UTF-8 text, as Xcode writes it)")
        }
        guard !data.isEmpty else { throw SyntaxError(line: 1, column: 1, message: "the document has no root element") }
        guard data.count <= Int(Int32.max) else {
            throw SyntaxError(line: 1, column: 1, message: "the document is larger than 2 GB")
        }
        _ = libxml2Initialized
        guard let context = xmlNewParserCtxt() else {
            throw SyntaxError(line: 1, column: 1, message: "libxml2 could not allocate a parser")
        }
        defer { xmlFreeParserCtxt(context) }
        // libxml2 goes on after the first well-formedness error and keeps only the last;
        // the first is the one that explains the others, so collect it.
        let firstError = FirstError(data: data)
        context.pointee._private = Unmanaged.passUnretained(firstError).toOpaque()
        context.pointee.sax.pointee.serror = { userData, error in
            guard let context = userData?.assumingMemoryBound(to: xmlParserCtxt.self),
                let box = context.pointee._private, let error
            else { return }
            Unmanaged<FirstError>.fromOpaque(box).takeUnretainedValue().record(error)
        }
        let document = withExtendedLifetime(firstError) {
            data.withUnsafeBytes { bytes in
                xmlCtxtReadMemory(
                    context, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                    nil, "UTF-8", options)
            }
        }
        defer { if let document { xmlFreeDoc(document) } }
        guard let document, context.pointee.wellFormed != 0 else {
            throw firstError.syntaxError ?? syntaxError(xmlCtxtGetLastError(context), in: data)
        }
        guard let root = xmlDocGetRootElement(document) else {
            throw SyntaxError(line: 1, column: 1, message: "the document has no root element")
        }
        return try element(root, depth: 1)
    }

    /// The tree below `node` (an element), attributes sorted by name for a stable order.
    private static func element(_ node: xmlNodePtr, depth: Int) throws -> XMLTreeElement {
        let line = Int(xmlGetLineNo(node))
        if depth > maximumDepth {
            throw SyntaxError(
                line: max(line, 1), column: 1,
                message: "elements are nested deeper than \(maximumDepth) levels")
        }
        var attributes: [XMLTreeElement.Attribute] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            let value = xmlNodeListGetString(node.pointee.doc, current.pointee.children, 1)
            attributes.append(XMLTreeElement.Attribute(name: text(current.pointee.name), value: text(value)))
            trellis_xml_free(value)
            attribute = current.pointee.next
        }
        attributes.sort { $0.name < $1.name }
        var children: [XMLTreeElement] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE {
                children.append(try element(current, depth: depth + 1))
            }
            child = current.pointee.next
        }
        return XMLTreeElement(name: text(node.pointee.name), attributes: attributes, children: children, line: line)
    }

    /// libxml2's text (UTF-8, NUL-terminated) as a String; "" for NULL.
    private static func text(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(
            decoding: UnsafeBufferPointer(start: pointer, count: strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))), as: UTF8.self)
    }

    private static func text(_ pointer: UnsafeMutablePointer<xmlChar>?) -> String {
        text(UnsafePointer(pointer))
    }

    /// The first error libxml2 reports during one parse (on one thread).
    private final class FirstError {
        var syntaxError: SyntaxError?
        let data: Data

        init(data: Data) { self.data = data }

        func record(_ error: UnsafePointer<xmlError>) {
            guard syntaxError == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            syntaxError = XMLTreeParser.syntaxError(error, in: data)
        }
    }

    /// libxml2's error as a ``SyntaxError``: its line and column (libxml2 counts
    /// columns from 1, in bytes) and its message, with the line's text.
    private static func syntaxError(_ error: UnsafePointer<xmlError>?, in data: Data) -> SyntaxError {
        guard let error, error.pointee.code != 0 else {
            return SyntaxError(line: 1, column: 1, message: "the XML is not well-formed")
        }
        let line = max(Int(error.pointee.line), 1)
        let column = max(Int(error.pointee.int2), 1)
        var reason = error.pointee.message.map { String(cString: $0) } ?? "the XML is not well-formed"
        reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        if error.pointee.code == Int32(XML_ERR_DOCUMENT_EMPTY.rawValue) {
            return SyntaxError(line: line, column: column, message: "the document has no root element")
        }
        if reason.hasPrefix("Excessive depth in document") {  // libxml2's own limit, 256 levels
            return SyntaxError(line: line, column: column, message: "elements are nested deeper than \(maximumDepth) levels")
        }
        return SyntaxError(line: line, column: column, message: reason + excerpt(of: data, line: line))
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
}
