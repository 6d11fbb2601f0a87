// The importer's and exporter's single entry points to coercions (``JSONCoercion``).

/// Why a JSON value does not fit an attribute type (the message has no value in it).
struct CoercionFailure: Error {
    let message: String
}

/// The attribute value for `json` (nil for JSON `null`), by ``JSONCoercion/value(from:as:)``.
/// - Throws: ``CoercionFailure`` with the coercion's reason (`not a decimal number`,
///   `not a whole number`, `out of range …`), worded as everywhere else in Trellis.
func coerce(_ json: JSONValue, to type: AttributeType) throws -> AttributeValue? {
    // Fast paths for the common cases; everything else (and every error) goes through JSONCoercion.
    switch (type, json) {
    case (.string, .string(let s)):
        return .string(s)
    case (.integer64, .string(let s)):
        if let i = Int64(s) { return .integer(i) }
    case (.integer64, .number(let n)):
        if case .int(let i) = n.storage { return .integer(i) }
    case (.boolean, .bool(let b)):
        return .bool(b)
    default:
        break
    }
    do {
        return try JSONCoercion.value(from: json, as: type)
    } catch let error as CoercionError {
        throw CoercionFailure(message: error.message)
    }
}

/// The JSON form of an attribute value (``JSONCoercion/json(from:as:)``).
func exportJSON(_ value: AttributeValue, as type: AttributeType) -> JSONValue {
    JSONCoercion.json(from: value, as: type)
}

/// A short JSON rendering of a value for error messages (at most 40 characters, then `…`).
func jsonSnippet(_ value: JSONValue) -> String {
    ValueSnippet.text(of: value)
}
