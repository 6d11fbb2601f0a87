/// A JSON value that cannot be coerced to the requested type (see ``JSONCoercion``).
///
/// The error names the expected type (an attribute type such as `integer32`, or a Swift
/// type such as `UInt8` for the typed layer), the JSON value found, and why it does not
/// fit. Long values are shortened in ``description`` (40 characters and `…`), so a
/// megabyte string never ends up in a log line.
///
///     do {
///         _ = try JSONCoercion.value(from: "40000", as: .integer16)
///     } catch let error as CoercionError where error.code == .overflow {
///         print(error)  // string "40000" is not a valid integer16: out of range -32768...32767
///     }
///
/// Callers that know where the value sits (the importer, the typed layer) wrap this
/// error with the JSON path, the entity and the attribute.
public struct CoercionError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What went wrong. Extensible: compare with the static constants, or `catch` with
    /// `~=` (`catch CoercionError.Code.overflow`).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, stable across releases (`"overflow"`); new codes may be added.
        public let rawValue: String
        /// A code by name; use the static constants rather than spelling names.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The JSON kind cannot become the expected type at all (an array for an
        /// integer, `true` for a date).
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// The kind is acceptable but the value is not (the string `"abc"` for an
        /// integer, the number `2` for a boolean, a malformed date, base64, UUID or URI).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// The value is outside the type's range (`40000` for `integer16`, `1e400` for
        /// `double`, `1e200` for `decimal`).
        public static let overflow = Code(rawValue: "overflow")
        /// The value would have to be rounded: a fraction for an integer type (`1.5`),
        /// more than 38 significant digits for `decimal`.
        public static let inexact = Code(rawValue: "inexact")

        /// The code's name (``rawValue``).
        public var description: String { rawValue }

        /// Matches an error that is a ``CoercionError`` with this code, for `catch` patterns.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? CoercionError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// The name of the expected type: an ``AttributeType`` raw value (`"integer32"`,
    /// `"date"`) or a Swift type name from the typed layer (`"UInt8"`).
    public var expected: String
    /// The JSON value that did not fit, in full (``description`` shortens it).
    public var found: JSONValue
    /// Why it does not fit, without the value (`"out of range -32768...32767"`).
    public var message: String

    /// An error for a value that does not fit `expected`.
    public init(code: Code, expected: String, found: JSONValue, message: String) {
        self.code = code
        self.expected = expected
        self.found = found
        self.message = message
    }

    /// An error for a value that does not fit an attribute type.
    public init(code: Code, expected: AttributeType, found: JSONValue, message: String) {
        self.init(code: code, expected: expected.rawValue, found: found, message: message)
    }

    /// `<kind> <value, shortened> is not a valid <expected>: <message>`, e.g.
    /// `number 1.5 is not a valid integer64: not a whole number`.
    public var description: String {
        "\(found.kind) \(ValueSnippet.text(of: found)) is not a valid \(expected): \(message)"
    }
}
