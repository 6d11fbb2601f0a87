import Foundation

/// Writes a ``JSONValue`` as JSON text (RFC 8259, UTF-8).
///
///     try JSONWriter.string(for: ["name": "Ada", "tags": ["x"]])
///     // {"name":"Ada","tags":["x"]}
///     try JSONWriter.string(for: ["name": "Ada", "tags": ["x"]], options: .pretty)
///     // {
///     //   "name": "Ada",
///     //   "tags": [
///     //     "x"
///     //   ]
///     // }
///
/// Strings escape `"` `\` and the controls below U+0020 (`\b \f \n \r \t`, others as
/// `\u00XX`, RFC 8259 §7); every other character, non-ASCII included, is written as
/// UTF-8. Numbers: `Int64` in decimal, reader text verbatim, `Double` as the shortest
/// text that reads back as the same `Double` (``JSONNumber/text``). Object keys keep
/// their order unless ``Options/sortedKeys`` is set. The writer is not recursive, so
/// any depth is written.
public enum JSONWriter {
    /// How to lay out the text. `Sendable`; pass at the call site.
    public struct Options: Sendable, Equatable {
        /// Layout of the text.
        public enum Format: Sendable, Equatable {
            /// No whitespace at all (the default): `{"a":[1,2]}`.
            case compact
            /// One member or element per line, indented by two spaces per level, a space
            /// after each colon; empty arrays and objects as `[]` and `{}`. No final newline.
            case pretty
        }

        /// Compact (default) or pretty.
        public var format: Format
        /// Members sorted by key (Unicode scalar order of the UTF-8 bytes) instead of
        /// object order. Default `false`.
        public var sortedKeys: Bool
        /// `/` written as `\/` (for embedding in HTML `<script>`). Default `false`.
        public var escapesForwardSlashes: Bool

        /// Options with the defaults: compact, object order, `/` not escaped.
        public init(format: Format = .compact, sortedKeys: Bool = false, escapesForwardSlashes: Bool = false) {
            self.format = format
            self.sortedKeys = sortedKeys
            self.escapesForwardSlashes = escapesForwardSlashes
        }

        /// Compact text, keys in object order.
        public static var compact: Options { Options() }
        /// Pretty text (two-space indent), keys in object order.
        public static var pretty: Options { Options(format: .pretty) }
    }

    /// The UTF-8 JSON text of `value`.
    /// - Throws: ``JSONWriteError`` `.nonFiniteNumber` with the path of a NaN or infinite `Double`.
    public static func bytes(for value: JSONValue, options: Options = Options()) throws(JSONWriteError) -> [UInt8] {
        var emitter = JSONEmitter(options: options)
        try emitter.write(value, depth: 0, pathPrefix: .root)
        return emitter.output
    }

    /// The UTF-8 JSON text of `value` as `Data`. See ``bytes(for:options:)``.
    public static func data(for value: JSONValue, options: Options = Options()) throws(JSONWriteError) -> Data {
        Data(try bytes(for: value, options: options))
    }

    /// `string` as a JSON string literal, quotes included (`"a\"b\n"`), escaped as the
    /// writer escapes strings (RFC 8259 §7: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other
    /// control characters as `\u00XX`). Model files and JSON paths quote with it too.
    public static func quoted(_ string: String) -> String {
        var emitter = JSONEmitter(options: Options())
        emitter.appendString(string)
        return String(decoding: emitter.output, as: UTF8.self)
    }

    /// The JSON text of `value` as a `String`. See ``bytes(for:options:)``.
    public static func string(for value: JSONValue, options: Options = Options()) throws(JSONWriteError) -> String {
        String(decoding: try bytes(for: value, options: options), as: UTF8.self)
    }
}
