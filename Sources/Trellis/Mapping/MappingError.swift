/// A JSON value (or a stored object's value) that cannot become the property a typed
/// model asks for, or a model value that cannot be written as JSON.
///
/// The error says **where** (the full path from the document root, `$.cities[2].name`,
/// with array positions as `[i]`), **what was expected** (the Swift type, `Int8`,
/// `[String]`, `User`), **what was found** (the JSON value, shortened to 40 characters
/// in ``description``) and why:
///
///     do {
///         let user = try User(jsonString: #"{"id": "7", "age": 300}"#)
///     } catch let error as MappingError where error.code == .overflow {
///         print(error)   // $.age: expected UInt8, found number 300: out of range 0...255
///     }
///
/// Optional properties do not throw `.missing`, `.null` or conversion errors by default
/// (they become nil); set ``JSONMap/Options/strict`` to make conversion errors throw.
public struct MappingError: Error, CustomStringConvertible, Sendable {
    /// What went wrong. Extensible: compare with the static constants, or `catch` with
    /// `~=` (`catch MappingError.Code.missing`).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name (`"missing"`); new codes may be added in later versions.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A non-optional property's key path leads nowhere: a key is absent, an index is
        /// out of bounds, or the path crosses a scalar or `null`.
        public static let missing = Code(rawValue: "missing")
        /// A non-optional property's value is JSON `null` (or a stored object's nil).
        public static let null = Code(rawValue: "null")
        /// The value's kind cannot become the expected type at all (an array for `Int`,
        /// a number for `[String]`, `true` for `Date`).
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// The kind fits but the value does not (`"abc"` for `Int`, `2` for `Bool`, a
        /// malformed date, URL or UUID, a raw value no enum case has).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// The number is outside the type's range (`300` for `UInt8`, `1e400` for `Double`).
        public static let overflow = Code(rawValue: "overflow")
        /// The number would have to be rounded (`1.5` for `Int`, 39 digits for `Decimal`).
        public static let inexact = Code(rawValue: "inexact")
        /// A value transformer name that the registry does not know (never lenient:
        /// thrown for optional properties too).
        public static let unknownTransformer = Code(rawValue: "unknownTransformer")
        /// A transformer asked to write has no reverse (never lenient).
        public static let notReversible = Code(rawValue: "notReversible")
        /// Models nest deeper than ``JSONMap/Options/maximumDepth`` (reading a recursive
        /// model from a very deep document) or ``JSONWriteMap/Options/maximumDepth``
        /// (writing a cycle of class instances).
        public static let depthLimitExceeded = Code(rawValue: "depthLimitExceeded")
        /// Writing: a key path cannot be written because a scalar or an array stands in
        /// the way (`a.b` when `a` is already the string `"x"`).
        public static let cannotWrite = Code(rawValue: "cannotWrite")

        /// The code's name.
        public var description: String { rawValue }

        /// Matches an error that is a ``MappingError`` with this code, for `catch` patterns.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? MappingError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// Where: the path from the document root to the value (`$.cities[2].name`). For
    /// `.missing`, the path that was asked for.
    public var path: JSONPath
    /// The Swift type that was expected, as written in source (`Int8`, `[String]`, `User`).
    public var expected: String
    /// The value found, in full (``description`` shortens it); nil for `.missing` and
    /// when writing.
    public var found: JSONValue?
    /// Why, without the path or the value (`"out of range 0...255"`).
    public var message: String
    /// The error this one wraps (a `CoercionError`, a `TransformError`, a
    /// `DecodingError` from a `Decodable` leaf, or a custom transformer's error), if any.
    public var underlyingError: (any Error)?

    /// An error at `path`.
    public init(
        code: Code, path: JSONPath, expected: String, found: JSONValue? = nil, message: String,
        underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.path = path
        self.expected = expected
        self.found = found
        self.message = message
        self.underlyingError = underlyingError
    }

    /// `<path>: <what happened>`, e.g.
    /// - `$.user.id: missing value (expected String)`
    /// - `$.user.id: null value (expected String)`
    /// - `$.cities[2].name: expected String, found array [1,2]`
    /// - `$.age: expected UInt8, found number 300: out of range 0...255`
    public var description: String {
        var text = "\(path): "
        switch code {
        case .missing, .null:
            text += message.isEmpty ? "\(code) value" : message
            text += " (expected \(expected))"
        default:
            text += "expected \(expected)"
            if let found {
                text += ", found \(found.kind) \(ValueSnippet.text(of: found))"
            }
            if !message.isEmpty { text += ": \(message)" }
        }
        return text
    }
}
