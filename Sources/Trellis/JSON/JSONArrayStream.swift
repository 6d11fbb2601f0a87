import Foundation

/// Reads the elements of a large JSON array one at a time, in bounded memory: a
/// top-level array, or the array at a key path (`statuses`, `response.docs`).
///
///     let stream = try JSONArrayStream(contentsOf: url, at: "statuses")
///     while let status = try stream.next() {
///         print(stream.elementCount, stream.bytesConsumed, stream.totalBytes ?? 0)
///     }
///
/// The input is read in chunks (``chunkSize``, default 1 MiB) from a file, a file
/// descriptor, a `FileHandle` (standard input and pipes included; nothing is seeked)
/// or bytes in memory. Only the element being parsed is held, so a 1 GB file is read
/// with a few MB; the buffer grows only while one element does not fit.
///
/// Memory, precisely: the buffer holds `chunkSize` bytes (plus 80 bytes of context for
/// error excerpts) and doubles while one element's text does not fit, so it ends at
/// between 1× and 2× the largest element's text, and keeps that size until the stream is
/// released (a 100 MB string element leaves a 128 MiB buffer); an element is parsed again
/// from its start after each growth, at most twice its bytes in all. Besides the buffer,
/// only the element handed out is held (its value, see ``JSONReader``): 10,000,000 small
/// elements are read with the buffer at 1 MiB and no growth of resident memory (measured:
/// under 2 MB). There is no limit on an element's size besides the nesting depth.
///
/// The whole document is checked, not just the part at the key path: members before
/// and after the path are validated (without building values), and so is the end of
/// the document. Errors are ``JSONParseError``s located in the whole input (line,
/// column, byte offset), thrown by the ``next()`` call that reaches them; elements
/// handed out before an error stay valid. After an error, `next()` throws it again.
///
/// What the key path may lead to:
/// - an array: each element, in order (``Element/index`` 0, 1, …);
/// - an object: by default (``ObjectHandling/single``) the object itself, once;
///   with ``ObjectHandling/members`` each member's value with its key
///   (``Element/key``), for catalogs keyed by identifier (`{"events": {"138586341": {…}}}`);
/// - a scalar or `null`: that value, once.
///
/// Key path components name object keys; an all-digit component also indexes an array
/// (see ``JSONKeyPath``). When a key is repeated on the way, the first occurrence is
/// followed (the stream cannot look ahead; ``JSONReader`` keeps the last one). A
/// missing key throws `.keyPathNotFound` when the object holding it closes.
public final class JSONArrayStream {
    /// One value handed out by the stream.
    public struct Element: Sendable {
        /// The element (or member value, or the single value at the key path).
        public var value: JSONValue
        /// Its position: 0 for the first value handed out, then 1, 2, …
        public var index: Int
        /// The member's key, when the key path leads to an object read with ``ObjectHandling/members``.
        public var key: String?
        /// `true` for the value at the key path itself (an object read with
        /// ``ObjectHandling/single``, a scalar or `null`), `false` for an array element or
        /// an object member.
        public var isWholeValue: Bool = false
    }

    /// What an object at the key path yields.
    public enum ObjectHandling: Sendable, Equatable {
        /// The object itself, as one element (the default).
        case single
        /// Each member's value, with its key.
        case members
    }

    private enum Mode {
        case navigating
        case array(first: Bool)
        case members(first: Bool)
        case single
        case finished
        case failed(JSONParseError)
    }

    // MARK: - State

    private let buffer: JSONStreamBuffer
    private var parser: JSONParser
    private let options: JSONReader.Options
    private let keyPath: [JSONKeyPath.Component]
    private let objectHandling: ObjectHandling
    private var mode = Mode.navigating
    /// The containers around the target value, outermost first (`true` for an object).
    private var enclosing: [Bool] = []

    /// Number of elements handed out so far.
    public private(set) var elementCount = 0
    /// The path of the collection the key path leads to, with the array indexes it went
    /// through shown as indexes (`$.pages[1].items` for `pages.1.items`); known once the
    /// first ``nextElement()`` has found the collection (`$` before, and without a key path).
    public private(set) var collectionPath = JSONPath.root
    /// The size of the input in bytes when known (a regular file or bytes in memory), for progress.
    public var totalBytes: Int? { buffer.source.totalBytes }
    /// Bytes of the input consumed so far (through the last element handed out).
    public var bytesConsumed: Int { buffer.bytesConsumed }
    /// The size of the chunks read from the input, in bytes.
    public let chunkSize: Int
    /// Whether values are read as Foundation's `JSONDecoder` reads them (a repeated key
    /// keeps its first value, `-0` keeps its text), for ``TrellisJSONDecoder``.
    var codableSemantics: Bool {
        get { parser.codableSemantics }
        set { parser.codableSemantics = newValue }
    }
    /// The length of the text of the array element last handed out, -1 when the last value
    /// handed out was not an array element.
    private var lastElementLength = -1
    /// The text of the array element last handed out (leading whitespace included) and
    /// where it is in the whole input (computed only when asked: it counts the lines of
    /// the buffer before it); valid until the next call.
    var lastElementText: JSONElementText? {
        guard lastElementLength >= 0, buffer.start >= lastElementLength else { return nil }
        let first = buffer.start - lastElementLength
        return JSONElementText(
            bytes: UnsafeRawBufferPointer(start: buffer.storage + first, count: lastElementLength),
            bufferOrigin: buffer.origin, before: UnsafeRawBufferPointer(start: buffer.storage, count: first))
    }
    /// Bytes of memory the input buffer holds now (for tests of bounded memory).
    var bufferCapacity: Int { buffer.capacity - JSONStreamBuffer.contextBytes }

    // MARK: - Initialisers

    /// A stream over `bytes` in memory, read `chunkSize` bytes at a time.
    /// - Parameters:
    ///   - keyPath: where the array is; nil for a top-level array.
    ///   - objects: what an object at the key path yields.
    ///   - options: the reader's options (depth counts from the document's root).
    public init(
        bytes: [UInt8], at keyPath: JSONKeyPath? = nil, objects: ObjectHandling = .single,
        options: JSONReader.Options = JSONReader.Options(), chunkSize: Int = 1 << 20
    ) {
        self.chunkSize = max(1, chunkSize)
        buffer = JSONStreamBuffer(source: JSONByteSource(bytes: bytes, chunkSize: self.chunkSize), chunkSize: self.chunkSize)
        parser = JSONParser(options: options)
        self.options = options
        self.keyPath = keyPath?.components ?? []
        objectHandling = objects
    }

    /// A stream over `data` in memory. See ``init(bytes:at:objects:options:chunkSize:)``.
    public convenience init(
        data: Data, at keyPath: JSONKeyPath? = nil, objects: ObjectHandling = .single,
        options: JSONReader.Options = JSONReader.Options(), chunkSize: Int = 1 << 20
    ) {
        self.init(bytes: [UInt8](data), at: keyPath, objects: objects, options: options, chunkSize: chunkSize)
    }

    /// A stream over the file at `url`, opened now and closed when the stream is released.
    /// - Throws: ``JSONParseError`` `.readFailed` when the file cannot be opened.
    public convenience init(
        contentsOf url: URL, at keyPath: JSONKeyPath? = nil, objects: ObjectHandling = .single,
        options: JSONReader.Options = JSONReader.Options(), chunkSize: Int = 1 << 20
    ) throws(JSONParseError) {
        let source = try JSONByteSource(path: url.path)
        self.init(source: source, at: keyPath, objects: objects, options: options, chunkSize: chunkSize)
    }

    /// A stream reading `fileHandle` from its current offset (standard input and pipes
    /// work; the handle is neither seeked nor closed).
    public convenience init(
        fileHandle: FileHandle, at keyPath: JSONKeyPath? = nil, objects: ObjectHandling = .single,
        options: JSONReader.Options = JSONReader.Options(), chunkSize: Int = 1 << 20
    ) {
        let source = JSONByteSource(fileDescriptor: fileHandle.fileDescriptor, closes: false)
        self.init(source: source, at: keyPath, objects: objects, options: options, chunkSize: chunkSize)
    }

    /// A stream reading the open file descriptor `fileDescriptor` (not closed).
    public convenience init(
        fileDescriptor: Int32, at keyPath: JSONKeyPath? = nil, objects: ObjectHandling = .single,
        options: JSONReader.Options = JSONReader.Options(), chunkSize: Int = 1 << 20
    ) {
        let source = JSONByteSource(fileDescriptor: fileDescriptor, closes: false)
        self.init(source: source, at: keyPath, objects: objects, options: options, chunkSize: chunkSize)
    }

    init(source: JSONByteSource, at keyPath: JSONKeyPath?, objects: ObjectHandling, options: JSONReader.Options, chunkSize: Int) {
        self.chunkSize = max(1, chunkSize)
        buffer = JSONStreamBuffer(source: source, chunkSize: self.chunkSize)
        parser = JSONParser(options: options)
        self.options = options
        self.keyPath = keyPath?.components ?? []
        objectHandling = objects
    }

    // MARK: - Reading

    /// The next element's value, or nil after the last one (and after the rest of the
    /// document has been checked).
    /// - Throws: ``JSONParseError`` located in the whole input; `.keyPathNotFound` when
    ///   the key path does not exist; `.readFailed` when reading fails.
    public func next() throws(JSONParseError) -> JSONValue? {
        try nextElement()?.value
    }

    /// The next element with its index (and key, for members), or nil after the last.
    /// See ``next()``.
    public func nextElement() throws(JSONParseError) -> Element? {
        do {
            return try advance()
        } catch {
            mode = .failed(error)
            throw error
        }
    }

    /// Reads every remaining element (convenient for tests and small inputs).
    public func readAll() throws(JSONParseError) -> [Element] {
        var elements: [Element] = []
        while let element = try nextElement() { elements.append(element) }
        return elements
    }

    // MARK: - Internals

    private func advance() throws(JSONParseError) -> Element? {
        lastElementLength = -1
        switch mode {
        case .failed(let error):
            throw error
        case .finished:
            return nil
        case .navigating:
            try navigate()
            return try advance()
        case .single:
            let depth = maximumDepthBelow(enclosing.count)
            let value = try step { (p: inout JSONParser) throws(JSONParser.Failure) in try p.parseValue(depthAvailable: depth) }
            try finishDocument()
            return handOut(value, key: nil, isWholeValue: true)
        case .array(let first):
            guard let byte = try peek("expected ',' or ']' after array element") else { return nil }
            if byte == UInt8(ascii: "]") {
                buffer.start += 1
                try finishDocument()
                return nil
            }
            if !first {
                guard byte == UInt8(ascii: ",") else { throw unexpected("expected ',' or ']' after array element") }
                buffer.start += 1
            }
            let depth = maximumDepthBelow(enclosing.count + 1)
            let before = buffer.bytesConsumed
            let value = try step { (p: inout JSONParser) throws(JSONParser.Failure) in try p.parseValue(depthAvailable: depth) }
            lastElementLength = buffer.bytesConsumed - before
            mode = .array(first: false)
            return handOut(value, key: nil)
        case .members(let first):
            guard let byte = try peek("expected ',' or '}' after object member") else { return nil }
            if byte == UInt8(ascii: "}") {
                buffer.start += 1
                try finishDocument()
                return nil
            }
            if !first {
                guard byte == UInt8(ascii: ",") else { throw unexpected("expected ',' or '}' after object member") }
                buffer.start += 1
            }
            let key = try parseKey(afterComma: !first)
            let depth = maximumDepthBelow(enclosing.count + 1)
            let value = try step { (p: inout JSONParser) throws(JSONParser.Failure) in try p.parseValue(depthAvailable: depth) }
            mode = .members(first: false)
            return handOut(value, key: key)
        }
    }

    private func handOut(_ value: JSONValue, key: String?, isWholeValue: Bool = false) -> Element {
        let element = Element(value: value, index: elementCount, key: key, isWholeValue: isWholeValue)
        elementCount += 1
        return element
    }

    private func maximumDepthBelow(_ depth: Int) -> Int { max(0, options.maximumDepth - depth) }

    /// Walks from the document's start to the value at the key path and sets the mode.
    private func navigate() throws(JSONParseError) {
        try skipByteOrderMark()
        for component in keyPath {
            guard let byte = try peek("expected a JSON value") else { return }
            if enclosing.count >= options.maximumDepth {
                throw unexpected("arrays and objects nested deeper than \(options.maximumDepth) levels", code: .depthLimitExceeded)
            }
            if byte == UInt8(ascii: "{") {
                buffer.start += 1
                enclosing.append(true)
                try findKey(component.key)
                collectionPath = collectionPath.appending(key: component.key)
            } else if byte == UInt8(ascii: "["), let index = component.index {
                buffer.start += 1
                enclosing.append(false)
                try findIndex(index, component: component.key)
                collectionPath = collectionPath.appending(index: index)
            } else {
                throw unexpected(
                    "key path '\(JSONKeyPath(components: keyPath))': expected an object holding '\(component.key)', found \(JSONParser.describe(byte))",
                    code: .keyPathNotFound)
            }
        }
        guard let byte = try peek("expected a JSON value") else { return }
        if byte == UInt8(ascii: "[") {
            if enclosing.count >= options.maximumDepth {
                throw unexpected("arrays and objects nested deeper than \(options.maximumDepth) levels", code: .depthLimitExceeded)
            }
            buffer.start += 1
            mode = .array(first: true)
        } else if byte == UInt8(ascii: "{"), objectHandling == .members {
            if enclosing.count >= options.maximumDepth {
                throw unexpected("arrays and objects nested deeper than \(options.maximumDepth) levels", code: .depthLimitExceeded)
            }
            buffer.start += 1
            mode = .members(first: true)
        } else {
            mode = .single
        }
    }

    /// Inside an object (after `{`): skips members until `key`, leaving the stream at its value.
    private func findKey(_ key: String) throws(JSONParseError) {
        var first = true
        while true {
            guard let byte = try peek("expected ',' or '}' after object member") else { return }
            if byte == UInt8(ascii: "}") {
                throw unexpected("key path '\(JSONKeyPath(components: keyPath))': no key '\(key)' in the object", code: .keyPathNotFound)
            }
            if !first {
                guard byte == UInt8(ascii: ",") else { throw unexpected("expected ',' or '}' after object member") }
                buffer.start += 1
            }
            first = false
            if try parseKey(afterComma: byte == UInt8(ascii: ",")).hasSameCodeUnits(as: key) { return }
            try skipValue(depth: enclosing.count)
        }
    }

    /// Inside an array (after `[`): skips `index` elements, leaving the stream at the next.
    private func findIndex(_ index: Int, component: String) throws(JSONParseError) {
        for i in 0...index {
            guard let byte = try peek("expected ',' or ']' after array element") else { return }
            if byte == UInt8(ascii: "]") {
                throw unexpected("key path '\(JSONKeyPath(components: keyPath))': no element \(component) in the array", code: .keyPathNotFound)
            }
            if i > 0 {
                guard byte == UInt8(ascii: ",") else { throw unexpected("expected ',' or ']' after array element") }
                buffer.start += 1
            }
            if i == index { return }
            try skipValue(depth: enclosing.count)
        }
    }

    /// After the target value: checks and skips the rest of the enclosing containers
    /// and the end of the document.
    private func finishDocument() throws(JSONParseError) {
        while let isObject = enclosing.last {
            let expectation = isObject ? "expected ',' or '}' after object member" : "expected ',' or ']' after array element"
            guard let byte = try peek(expectation) else { return }
            if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                buffer.start += 1
                enclosing.removeLast()
                continue
            }
            guard byte == UInt8(ascii: ",") else { throw unexpected(expectation) }
            buffer.start += 1
            if isObject { _ = try parseKey(afterComma: true) }
            try skipValue(depth: enclosing.count)
        }
        if let byte = try peek(nil) {
            throw unexpected("expected end of input after the JSON value, found \(JSONParser.describe(byte))", code: .trailingData)
        }
        mode = .finished
    }

    private func skipValue(depth: Int) throws(JSONParseError) {
        let available = maximumDepthBelow(depth)
        try step { (p: inout JSONParser) throws(JSONParser.Failure) in try p.skipValue(depthAvailable: available) }
    }

    private func parseKey(afterComma: Bool) throws(JSONParseError) -> String {
        try step { (p: inout JSONParser) throws(JSONParser.Failure) -> String in
            p.skipWhitespace()
            guard p.pos < p.end else { throw p.endFailure("expected a string key") }
            let byte = p.base[p.pos]
            guard byte == UInt8(ascii: "\"") else {
                let message =
                    afterComma && byte == UInt8(ascii: "}")
                    ? "expected a string key after ',' (trailing commas are not allowed)"
                    : "expected a string key, found \(JSONParser.describe(byte))"
                throw JSONParser.Failure(code: .unexpectedCharacter, offset: p.pos, message: message)
            }
            p.pos += 1
            let key = try p.parseString()
            p.skipWhitespace()
            guard p.pos < p.end else { throw p.endFailure("expected ':' after object key") }
            guard p.base[p.pos] == UInt8(ascii: ":") else {
                throw JSONParser.Failure(
                    code: .unexpectedCharacter, offset: p.pos, message: "expected ':' after object key, found \(JSONParser.describe(p.base[p.pos]))")
            }
            p.pos += 1
            return key
        }
    }

    /// Skips whitespace and returns the next byte (not consumed), or nil at the end of
    /// the input — which is an error (`expectation`, found end of input) unless
    /// `expectation` is nil.
    private func peek(_ expectation: String?) throws(JSONParseError) -> UInt8? {
        let byte = try step { (p: inout JSONParser) throws(JSONParser.Failure) -> UInt8? in
            p.skipWhitespace()
            if p.pos < p.end { return p.base[p.pos] }
            if !p.isFinal { throw JSONParser.Failure(code: .needMoreInput, offset: p.end, message: "") }
            return nil
        }
        if byte == nil, let expectation {
            throw unexpected(expectation + ", found end of input", code: .unexpectedEndOfInput)
        }
        return byte
    }

    private func skipByteOrderMark() throws(JSONParseError) {
        let allows = options.allowsByteOrderMark
        try step { (p: inout JSONParser) throws(JSONParser.Failure) in
            if p.end < 3, !p.isFinal, p.end == 0 || p.base[0] == 0xEF {
                throw JSONParser.Failure(code: .needMoreInput, offset: p.end, message: "")
            }
            try JSONReader.skipByteOrderMark(&p, options: JSONReader.Options(allowsByteOrderMark: allows))
        }
    }

    /// An error at the next unconsumed byte.
    private func unexpected(_ message: String, code: JSONParseError.Code = .unexpectedCharacter) -> JSONParseError {
        buffer.error(JSONParser.Failure(code: code, offset: 0, message: message))
    }

    /// Runs `body` on the unconsumed bytes; when it needs more input than is buffered,
    /// refills and runs it again from the same place. Consumes what `body` read.
    private func step<R>(_ body: (inout JSONParser) throws(JSONParser.Failure) -> R) throws(JSONParseError) -> R {
        while true {
            parser.reset(buffer.window, isFinal: buffer.isAtEndOfInput)
            do {
                let result = try body(&parser)
                buffer.start += parser.pos
                return result
            } catch {
                if error.code == .needMoreInput, !buffer.isAtEndOfInput {
                    try buffer.refill()
                    continue
                }
                throw buffer.error(error)
            }
        }
    }
}

/// The text of one value a streaming reader handed out, for locating errors in it.
struct JSONElementText {
    /// The value's bytes (valid until the reader's next call).
    var bytes: UnsafeRawBufferPointer
    /// The position of the buffer's first byte in the whole input.
    var bufferOrigin: JSONTextPosition
    /// The buffer's bytes before the value.
    var before: UnsafeRawBufferPointer

    /// The position of the value's first byte in the whole input (O(n) in `before`).
    var origin: JSONTextPosition { bufferOrigin.advanced(over: before) }
}
