// The importer's and exporter's entry points to the attribute coercion rules, which live
// in `JSONCoercion` (see its table).

/// Why a JSON value does not fit an attribute type (the message has no value in it).
struct CoercionFailure: Error {
    let message: String
}

/// The attribute value for `json` (nil for JSON `null`), per ``JSONCoercion``.
/// - Throws: ``CoercionFailure`` with a short reason (`not a whole number`, `out of range …`).
func coerce(_ json: JSONValue, to type: AttributeType) throws -> AttributeValue? {
    do {
        return try JSONCoercion.value(from: json, as: type)
    } catch let error as CoercionError {
        throw CoercionFailure(message: error.message)
    }
}

/// The JSON form of an attribute value (see ``AttributeType``'s table).
func exportJSON(_ value: AttributeValue, as type: AttributeType) -> JSONValue {
    JSONCoercion.json(from: value, as: type)
}

/// A short JSON rendering of a value for error messages: at most `limit` characters, `…` when cut.
func jsonSnippet(_ value: JSONValue, limit: Int = ValueSnippet.limit) -> String {
    ValueSnippet.text(of: value, limit: limit)
}
