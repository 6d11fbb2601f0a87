import Foundation

/// Reads JSON text (RFC 8259, UTF-8) into a ``JSONValue``.
///
/// The reader is strict: it accepts exactly the grammar of RFC 8259 — no comments, no
/// trailing commas, no single quotes, no `NaN` — and rejects invalid UTF-8 (RFC 3629),
/// unescaped control characters and bad escapes with a located ``JSONParseError``.
/// It never traps on bad input, and it is not recursive: nesting deeper than
/// ``Options/maximumDepth`` is an error, not a stack overflow, at any depth.
///
///     let value = try JSONReader.parse(#"{"id": 505874924095815681, "tags": ["a"]}"#)
///     value["id"]?.int64Value   // 505874924095815681, exactly
///
/// Decisions where RFC 8259 leaves a choice (each has a JSONTestSuite `i_` case):
/// - **Numbers**: any size and precision is accepted. An integer literal in `Int64`'s
///   range becomes `JSONNumber.Storage.int`; every other number (fraction, exponent,
///   `1e400`, `-123123123123123123123123`) keeps its text exactly (`.text`).
/// - **Duplicate keys** (§4): the last value wins, at the first key's position.
/// - **Byte order mark** (§8.1): a leading UTF-8 BOM (`EF BB BF`) is skipped by
///   default, as §8.1 allows; set ``Options/allowsByteOrderMark`` to `false` to reject
///   it. UTF-16 and UTF-32 texts are rejected (they are not UTF-8).
/// - **Lone surrogates** (`"\uD800"`, §8.2): rejected with `.loneSurrogate` by default;
///   ``Options/loneSurrogatePolicy`` `.replace` turns each into U+FFFD instead.
/// - **Invalid UTF-8** (§8.1): always rejected with `.invalidUTF8`.
///
/// Memory: the text stays the caller's; the reader adds the values it builds (a 24-byte
/// ``JSONValue`` per array element or object member, plus each key, each string longer
/// than 15 bytes and each non-`Int64` number on the heap: 10,000,000 one-digit numbers,
/// 20 MB of text, take 240 MB; a 100 MB string takes its 100 MB), a stack proportional to
/// the nesting depth, and a scratch buffer as long as the longest string with escapes.
/// There is no size limit besides ``Options/maximumDepth``; to bound memory on large
/// inputs, stream them with ``JSONArrayStream`` or ``JSONLinesReader``, or check them with
/// ``validate(_:options:)-(UnsafeRawBufferPointer,_)``, which builds nothing.
public enum JSONReader {
    /// How the reader treats choices RFC 8259 leaves open. `Sendable`; pass at the call site.
    public struct Options: Sendable, Equatable {
        /// What to do with a `\u` escape of a UTF-16 surrogate that is not part of a pair.
        public enum LoneSurrogatePolicy: Sendable, Equatable {
            /// Throw ``JSONParseError`` with code `.loneSurrogate` (the default).
            case reject
            /// Decode it as U+FFFD REPLACEMENT CHARACTER.
            case replace
        }

        /// The deepest nesting of arrays and objects accepted (default 512): `[[1]]` has
        /// depth 2; a scalar has depth 0. Deeper input throws `.depthLimitExceeded`.
        ///
        /// Reading never recurses, at any depth. But Swift releases (and compares, and
        /// hashes) a nested ``JSONValue`` recursively, about 100–170 bytes of stack per
        /// level: measured, a value 5,000 deep overflows a 512 KiB thread stack (secondary
        /// threads and dispatch queues on Darwin) and 50,000–100,000 deep the 8 MiB main
        /// thread. Raise the limit only to a few thousand when values are built;
        /// ``JSONReader/validate(_:options:)-(UnsafeRawBufferPointer,_)`` builds none and is safe at any depth.
        public var maximumDepth: Int
        /// Lone surrogate escapes: `.reject` (default) or `.replace` with U+FFFD.
        public var loneSurrogatePolicy: LoneSurrogatePolicy
        /// Whether a leading UTF-8 byte order mark is skipped (default `true`, as RFC
        /// 8259 §8.1 permits) or rejected with `.unexpectedCharacter`.
        public var allowsByteOrderMark: Bool

        /// Options with the defaults: depth 512, lone surrogates rejected, BOM skipped.
        public init(maximumDepth: Int = 512, loneSurrogatePolicy: LoneSurrogatePolicy = .reject, allowsByteOrderMark: Bool = true) {
            self.maximumDepth = maximumDepth
            self.loneSurrogatePolicy = loneSurrogatePolicy
            self.allowsByteOrderMark = allowsByteOrderMark
        }
    }

    // MARK: - Parsing

    /// Parses one JSON value from UTF-8 bytes (optionally surrounded by whitespace).
    ///
    /// - Parameters:
    ///   - bytes: the whole JSON text, UTF-8 encoded.
    ///   - options: depth limit, lone surrogate policy, BOM handling.
    /// - Returns: the value (object, array or scalar).
    /// - Throws: ``JSONParseError`` with the code, byte offset, line, column and an
    ///   excerpt of the first error.
    /// - Complexity: O(n) in the input bytes; memory for the values built plus a stack
    ///   proportional to the nesting depth.
    public static func parse(_ bytes: UnsafeRawBufferPointer, options: Options = Options()) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(options: options, expectedSize: bytes.count)
        parser.reset(bytes, isFinal: true)
        do {
            try skipByteOrderMark(&parser, options: options)
            return try parser.parseDocument()
        } catch {
            throw JSONTextPosition.error(code: error.code, message: error.message, offset: error.offset, in: bytes)
        }
    }

    /// Parses one JSON value from UTF-8 bytes. See ``parse(_:options:)-(UnsafeRawBufferPointer,_)``.
    public static func parse(_ bytes: [UInt8], options: Options = Options()) throws(JSONParseError) -> JSONValue {
        try withBytes(bytes) { buffer throws(JSONParseError) in try parse(buffer, options: options) }
    }

    /// Parses one JSON value from UTF-8 `Data`. See ``parse(_:options:)-(UnsafeRawBufferPointer,_)``.
    public static func parse(_ data: Data, options: Options = Options()) throws(JSONParseError) -> JSONValue {
        try withBytes(data) { buffer throws(JSONParseError) in try parse(buffer, options: options) }
    }

    /// Parses one JSON value from any collection of UTF-8 bytes (contiguous storage is
    /// read in place; other collections are copied once).
    public static func parse(_ bytes: some Collection<UInt8>, options: Options = Options()) throws(JSONParseError) -> JSONValue {
        try withBytes(bytes) { buffer throws(JSONParseError) in try parse(buffer, options: options) }
    }

    /// Parses one JSON value from a string (read as its UTF-8 bytes).
    ///
    ///     try JSONReader.parse("[1, 2.5, \"x\"]")   // .array([1, 2.5, "x"])
    public static func parse(_ text: String, options: Options = Options()) throws(JSONParseError) -> JSONValue {
        var text = text
        return try withBytes(&text) { buffer throws(JSONParseError) in try parse(buffer, options: options) }
    }

    // MARK: - Validating

    /// Checks that `bytes` is one JSON text, with the same rules and errors as
    /// ``parse(_:options:)-(UnsafeRawBufferPointer,_)``, without building any value
    /// (faster, and memory stays constant).
    /// - Throws: ``JSONParseError`` for the first error.
    public static func validate(_ bytes: UnsafeRawBufferPointer, options: Options = Options()) throws(JSONParseError) {
        var parser = JSONParser(options: options, expectedSize: bytes.count)
        parser.reset(bytes, isFinal: true)
        do throws(JSONParser.Failure) {
            try skipByteOrderMark(&parser, options: options)
            try parser.skipValue(depthAvailable: options.maximumDepth)
            parser.skipWhitespace()
            if parser.pos < parser.end {
                throw JSONParser.Failure(
                    code: .trailingData, offset: parser.pos,
                    message: "expected end of input after the JSON value, found \(JSONParser.describe(parser.base[parser.pos]))")
            }
        } catch {
            throw JSONTextPosition.error(code: error.code, message: error.message, offset: error.offset, in: bytes)
        }
    }

    /// Checks that `data` is one JSON text without building values. See ``validate(_:options:)-(UnsafeRawBufferPointer,_)``.
    public static func validate(_ data: Data, options: Options = Options()) throws(JSONParseError) {
        try withBytes(data) { buffer throws(JSONParseError) in try validate(buffer, options: options) }
    }

    // MARK: - Internals

    static func skipByteOrderMark(_ parser: inout JSONParser, options: Options) throws(JSONParser.Failure) {
        let p = parser.base
        guard parser.end >= 3, p[0] == 0xEF, p[1] == 0xBB, p[2] == 0xBF else { return }
        guard options.allowsByteOrderMark else {
            throw JSONParser.Failure(code: .unexpectedCharacter, offset: 0, message: "byte order mark (U+FEFF) is not allowed")
        }
        parser.pos = 3
    }

    /// Calls `body` with the contiguous bytes of `bytes`, copying only when needed.
    static func withBytes<R>(
        _ bytes: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) throws(JSONParseError) -> R
    ) throws(JSONParseError) -> R {
        let direct: Result<R, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) -> R in try body(UnsafeRawBufferPointer(buffer)) }
        }
        if let direct { return try direct.get() }
        let copy = Array(bytes)
        let outcome = copy.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> R in try body(buffer) }
        }
        return try outcome.get()
    }

    static func withBytes<R>(_ data: Data, _ body: (UnsafeRawBufferPointer) throws(JSONParseError) -> R) throws(JSONParseError) -> R {
        let outcome = data.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> R in try body(buffer) }
        }
        return try outcome.get()
    }

    static func withBytes<R>(_ text: inout String, _ body: (UnsafeRawBufferPointer) throws(JSONParseError) -> R) throws(JSONParseError) -> R {
        let outcome = text.withUTF8 { buffer in
            Result { () throws(JSONParseError) -> R in try body(UnsafeRawBufferPointer(buffer)) }
        }
        return try outcome.get()
    }
}
