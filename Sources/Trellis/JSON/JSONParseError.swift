/// An error thrown by ``JSONReader``, ``JSONLinesReader`` and ``JSONArrayStream`` when
/// the input is not a JSON text (RFC 8259), with the place where it went wrong.
///
///     do {
///         _ = try JSONReader.parse(#"{"a": 1 "b": 2}"#)
///     } catch let error as JSONParseError {
///         error.code          // .unexpectedCharacter
///         error.line          // 1
///         error.column        // 9
///         error.description   // "line 1, column 9: expected ',' or '}' after object member"
///     }
///
/// Lines are separated by LF (U+000A); a CR before the LF counts as the last character
/// of its line. Columns count Unicode scalars (not bytes, not grapheme clusters) from 1,
/// so `é` written as two UTF-8 bytes is one column. In invalid UTF-8, every byte that is
/// not a continuation byte (`10xxxxxx`) counts as one column.
public struct JSONParseError: Error, CustomStringConvertible, Sendable {
    /// What kind of error. An extensible set of constants: compare with `==` or match
    /// `catch JSONParseError.Code.invalidNumber`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, e.g. `"invalidNumber"`.
        public let rawValue: String
        /// A code; define new ones as static constants in an extension.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// A byte that cannot start or continue the JSON text at that place
        /// (`{"a" 1}`, a trailing comma, a single quote, a comment).
        public static let unexpectedCharacter = Code(rawValue: "unexpectedCharacter")
        /// The text ends inside a value (`[1, 2`, `"abc`, `tru`), or is empty.
        public static let unexpectedEndOfInput = Code(rawValue: "unexpectedEndOfInput")
        /// Bytes that are not UTF-8 (RFC 3629): stray continuation bytes, overlong forms,
        /// encoded surrogates, scalars above U+10FFFF, truncated sequences.
        public static let invalidUTF8 = Code(rawValue: "invalidUTF8")
        /// A backslash escape other than `\" \\ \/ \b \f \n \r \t \uXXXX` (RFC 8259 §7).
        public static let invalidEscape = Code(rawValue: "invalidEscape")
        /// A character below U+0020 written unescaped inside a string (RFC 8259 §7).
        public static let controlCharacterInString = Code(rawValue: "controlCharacterInString")
        /// A `\uD800`–`\uDFFF` escape that is not part of a high/low surrogate pair
        /// (thrown unless ``JSONReader/Options/loneSurrogatePolicy`` is `.replace`).
        public static let loneSurrogate = Code(rawValue: "loneSurrogate")
        /// A number that does not match RFC 8259 §6 (`01`, `1.`, `.5`, `1e`, `-`).
        public static let invalidNumber = Code(rawValue: "invalidNumber")
        /// Arrays and objects nested deeper than ``JSONReader/Options/maximumDepth``.
        public static let depthLimitExceeded = Code(rawValue: "depthLimitExceeded")
        /// Something other than whitespace after the (complete) JSON value.
        public static let trailingData = Code(rawValue: "trailingData")
        /// Reading the input failed (a file that cannot be opened or read).
        public static let readFailed = Code(rawValue: "readFailed")
        /// The value at a stream's key path is missing or is not an array/object.
        public static let keyPathNotFound = Code(rawValue: "keyPathNotFound")

        /// Internal signal of the streaming readers: the buffer ends inside a token.
        static let needMoreInput = Code(rawValue: "needMoreInput")

        /// Matches a thrown `JSONParseError` with this code: `catch JSONParseError.Code.invalidNumber`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? JSONParseError)?.code == code
        }
    }

    /// What kind of error.
    public var code: Code
    /// What was expected or found, e.g. `expected ',' or '}' after object member`.
    public var message: String
    /// Offset of the offending byte from the start of the input (0-based, in bytes).
    public var byteOffset: Int
    /// Line of the offending byte, from 1.
    public var line: Int
    /// Column of the offending byte, from 1, in Unicode scalars (see the type's notes).
    public var column: Int
    /// The text around the error (at most about 60 columns of the offending line) and,
    /// on a second line, a caret under the offending character. Tabs and other control
    /// characters are shown as spaces, invalid UTF-8 as U+FFFD.
    public var excerpt: String
    /// For JSON Lines input (``JSONLinesReader``): the line holding the failing record.
    public var recordLine: Int?

    /// A parse error; the readers fill every field.
    public init(code: Code, message: String, byteOffset: Int, line: Int, column: Int, excerpt: String = "", recordLine: Int? = nil) {
        self.code = code
        self.message = message
        self.byteOffset = byteOffset
        self.line = line
        self.column = column
        self.excerpt = excerpt
        self.recordLine = recordLine
    }

    /// `line L, column C: MESSAGE`.
    public var description: String { "line \(line), column \(column): \(message)" }
}
