/// An error thrown by ``JSONWriter`` and ``JSONArrayWriter``: a value that has no JSON
/// text, or an output sink that failed.
///
///     do {
///         _ = try JSONWriter.string(for: ["a": [1, 2, .number(JSONNumber(.nan))]])
///     } catch let error as JSONWriteError {
///         error.code          // .nonFiniteNumber
///         error.path          // $.a[2] (a JSONPath)
///         error.description   // "$.a[2]: cannot write the non-finite number nan as JSON"
///     }
public struct JSONWriteError: Error, CustomStringConvertible, Sendable {
    /// What kind of error; an extensible set of constants (`catch JSONWriteError.Code.nonFiniteNumber`).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, e.g. `"invalidNumber"`.
        public let rawValue: String
        /// A code; define new ones as static constants in an extension.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// A `Double` that is NaN or infinite: RFC 8259 §6 has no text for it.
        public static let nonFiniteNumber = Code(rawValue: "nonFiniteNumber")
        /// The output sink of a ``JSONArrayWriter`` threw; ``JSONWriteError/underlying`` holds its error.
        public static let writeFailed = Code(rawValue: "writeFailed")

        /// Matches a thrown `JSONWriteError` with this code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? JSONWriteError)?.code == code
        }
    }

    /// What kind of error.
    public var code: Code
    /// The JSON path of the offending value (`$`, `$.a[2]`, `$["odd key"]`); for
    /// ``JSONArrayWriter``, relative to the whole array (`$[41].rating`).
    public var path: JSONPath
    /// What went wrong.
    public var message: String
    /// The sink's error, for `.writeFailed`.
    public var underlying: (any Error)?

    /// A write error; the writers fill every field.
    public init(code: Code, path: JSONPath, message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.underlying = underlying
    }

    /// `PATH: MESSAGE`.
    public var description: String { "\(path): \(message)" }
}
