/// A value transformer failed: the name is not registered, the input does not fit, or
/// the transformer has no reverse.
///
///     do {
///         let transformer = try JSONValueTransformerRegistry.standard.transformer(named: "integer-from-string")
///         _ = try transformer.transformedValue("12a")
///     } catch let error as TransformError {
///         print(error)  // value transformer "integer-from-string": string "12a" is not valid: not a decimal number
///     }
///
/// Callers that know where the value sits (the importer, the exporter) wrap this error
/// with the JSON path, the entity and the attribute.
public struct TransformError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What went wrong. Extensible: compare with the static constants, or `catch` with
    /// `~=` (`catch TransformError.Code.unknownTransformer`).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, stable across releases (`"overflow"`); new codes may be added.
        public let rawValue: String
        /// A code by name; use the static constants rather than spelling names.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No transformer is registered under the name (``JSONValueTransformerRegistry/transformer(named:)``).
        public static let unknownTransformer = Code(rawValue: "unknownTransformer")
        /// The input's JSON kind (or attribute value case, in reverse) is not one the
        /// transformer accepts (an array for `iso8601`).
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// The input has an accepted kind but an invalid value (a malformed date, base64
        /// text, UUID or URL; an unknown Parse `__type`).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// The value is outside the target's range (`"9223372036854775808"` for
        /// `integer-from-string`).
        public static let overflow = Code(rawValue: "overflow")
        /// The value would have to be rounded (`"1.5"` for `integer-from-string`,
        /// 39 significant digits for `decimal-from-string`).
        public static let inexact = Code(rawValue: "inexact")
        /// The reverse direction was asked of a transformer that has none.
        public static let notReversible = Code(rawValue: "notReversible")

        /// The code's name (``rawValue``).
        public var description: String { rawValue }

        /// Matches an error that is a ``TransformError`` with this code, for `catch` patterns.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? TransformError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// The transformer's name (for ``Code/unknownTransformer``, the name asked for).
    public var transformerName: String
    /// The JSON input (forward) or output candidate, in full; nil when there is none
    /// (an unknown name, a reverse input). ``description`` shortens it.
    public var value: JSONValue?
    /// Why it failed, without the value.
    public var message: String

    /// An error of `transformerName` for `value`.
    public init(code: Code, transformerName: String, value: JSONValue? = nil, message: String) {
        self.code = code
        self.transformerName = transformerName
        self.value = value
        self.message = message
    }

    /// `value transformer "<name>": <kind> <value, shortened> is not valid: <message>`,
    /// or `value transformer "<name>": <message>` when there is no value (without the
    /// quoted name when it is empty: a malformed transformer specification).
    public var description: String {
        let head = transformerName.isEmpty ? "value transformer: " : "value transformer \"\(transformerName)\": "
        guard let value else { return head + message }
        return head + "\(value.kind) \(ValueSnippet.text(of: value)) is not valid: \(message)"
    }
}

extension TransformError {
    /// The same failure as a coercion error, attributed to a transformer.
    init(_ error: CoercionError, transformerName: String) {
        let code: Code
        switch error.code {
        case .typeMismatch: code = .typeMismatch
        case .overflow: code = .overflow
        case .inexact: code = .inexact
        default: code = .invalidValue
        }
        self.init(code: code, transformerName: transformerName, value: error.found, message: error.message)
    }
}
