import Foundation

// The leaf types the typed layer reads. Each conversion is `JSONCoercion`'s rule for the
// type (see docs/TypedLayer.md for the table); stored attribute values of the same type
// are taken as they are, others are converted from their JSON form.

extension JSONMap {
    /// The stored attribute value this map reads, if it reads one.
    var attribute: AttributeValue? {
        if case .attribute(let value)? = source?.node { return value }
        return nil
    }

    /// Converts this map's value (a JSON value, or a stored attribute in its JSON form)
    /// with a `JSONCoercion` function, locating failures here with `T`'s name.
    func scalar<T>(_ expected: T.Type, _ convert: (JSONValue) throws -> T?) throws -> T {
        let value: JSONValue
        if let source {
            guard case .attribute(let attribute) = source.node else { throw failure(.typeMismatch, expected: T.self) }
            value = attribute.mappingJSONValue
        } else {
            value = json
        }
        let result: T?
        do {
            result = try convert(value)
        } catch {
            throw conversionError(error, expected: T.self, found: value)
        }
        guard let result else { throw nullError(expected: T.self, message: "null value") }
        return result
    }

    /// Reads a fixed-width integer exactly with ``JSONCoercion/integer(from:as:)``: whole
    /// numbers in range (`12`, `"12"`, `1.2e1`); never through `Double`.
    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        // Fast paths: the reader's Int64 storage, a stored integer attribute.
        if source == nil, case .number(let number) = json, case .int(let i) = number.storage, let value = I(exactly: i) {
            return value
        }
        if case .integer(let i)? = attribute, let value = I(exactly: i) { return value }
        return try scalar(I.self) { try JSONCoercion.integer(from: $0, as: I.self) }
    }
}

extension Int: JSONMapValue {
    /// A whole number in `Int`'s range, from a number or a numeric string (`12`, `"12"`,
    /// `"+12"`, `1e2`); fractions are `.inexact`, out-of-range values `.overflow`,
    /// other strings (`" 12"`, `"0x2A"`) `.invalidValue`.
    public static func mapValue(from map: JSONMap) throws -> Int { try map.integer(Int.self) }
}

extension Int8: JSONMapValue {
    /// A whole number in -128...127 (rules of `Int`).
    public static func mapValue(from map: JSONMap) throws -> Int8 { try map.integer(Int8.self) }
}

extension Int16: JSONMapValue {
    /// A whole number in -32768...32767 (rules of `Int`).
    public static func mapValue(from map: JSONMap) throws -> Int16 { try map.integer(Int16.self) }
}

extension Int32: JSONMapValue {
    /// A whole number in `Int32`'s range (rules of `Int`).
    public static func mapValue(from map: JSONMap) throws -> Int32 { try map.integer(Int32.self) }
}

extension Int64: JSONMapValue {
    /// A whole number in `Int64`'s range, exactly (64-bit identifiers never pass through `Double`).
    public static func mapValue(from map: JSONMap) throws -> Int64 { try map.integer(Int64.self) }
}

extension UInt: JSONMapValue {
    /// A whole number in `UInt`'s range; negative numbers are `.overflow`.
    public static func mapValue(from map: JSONMap) throws -> UInt { try map.integer(UInt.self) }
}

extension UInt8: JSONMapValue {
    /// A whole number in 0...255 (rules of `Int`).
    public static func mapValue(from map: JSONMap) throws -> UInt8 { try map.integer(UInt8.self) }
}

extension UInt16: JSONMapValue {
    /// A whole number in 0...65535 (rules of `Int`).
    public static func mapValue(from map: JSONMap) throws -> UInt16 { try map.integer(UInt16.self) }
}

extension UInt32: JSONMapValue {
    /// A whole number in `UInt32`'s range (rules of `Int`).
    public static func mapValue(from map: JSONMap) throws -> UInt32 { try map.integer(UInt32.self) }
}

extension UInt64: JSONMapValue {
    /// A whole number in 0...18446744073709551615, exactly (above `Int64.max` too).
    public static func mapValue(from map: JSONMap) throws -> UInt64 { try map.integer(UInt64.self) }
}

extension Double: JSONMapValue {
    /// The nearest `Double` of a number or numeric string; `.overflow` beyond
    /// `Double`'s finite range (`1e400`).
    public static func mapValue(from map: JSONMap) throws -> Double {
        if map.source == nil, case .number(let number) = map.json, let value = number.doubleValue { return value }
        if case .double(let value)? = map.attribute { return value }
        return try map.scalar(Double.self) { try JSONCoercion.double(from: $0) }
    }
}

extension Float: JSONMapValue {
    /// The `Float` nearest to a number or numeric string, rounded once from the decimal
    /// text; `.overflow` beyond `Float`'s finite range (`1e39`).
    public static func mapValue(from map: JSONMap) throws -> Float {
        try map.scalar(Float.self) { try JSONCoercion.float(from: $0) }
    }
}

extension Decimal: JSONMapValue {
    /// The number's decimal digits exactly (`0.1` is 0.1), from a number or numeric
    /// string; more than 38 significant digits is `.inexact`.
    public static func mapValue(from map: JSONMap) throws -> Decimal {
        if case .decimal(let value)? = map.attribute { return value }
        return try map.scalar(Decimal.self) { try JSONCoercion.decimal(from: $0) }
    }
}

extension Bool: JSONMapValue {
    /// `true`/`false`, the numbers `1`/`0`, and the strings `"true"`/`"yes"`/`"1"` and
    /// `"false"`/`"no"`/`"0"` in any case; anything else is `.invalidValue`.
    public static func mapValue(from map: JSONMap) throws -> Bool {
        if map.source == nil, case .bool(let value) = map.json { return value }
        return try map.scalar(Bool.self) { try JSONCoercion.bool(from: $0) }
    }
}

extension String: JSONMapValue {
    /// A string as is; a number as its JSON text (`12`, `0.5`, exact for big integers);
    /// `true`/`false` as `"true"`/`"false"`. Arrays and objects are `.typeMismatch`.
    public static func mapValue(from map: JSONMap) throws -> String {
        if map.source == nil, case .string(let value) = map.json { return value }
        return try map.scalar(String.self) { try JSONCoercion.string(from: $0) }
    }
}

extension Date: JSONMapValue {
    /// A date per ``JSONMap/Options/dateStrategy``: by default (``JSONCoercion/date(from:)``)
    /// an RFC 3339 string with any number of fraction digits, or a number of seconds
    /// since 1970-01-01T00:00:00Z. A stored date attribute is taken as is.
    public static func mapValue(from map: JSONMap) throws -> Date {
        if case .date(let value)? = map.attribute { return value }
        switch map.options.dateStrategy {
        case .flexible:
            return try map.scalar(Date.self) { try JSONCoercion.date(from: $0) }
        case .rfc3339:
            return try map.scalar(Date.self) { try JSONValueTransformer.iso8601.transformedValue($0)?.dateValue }
        case .epochSeconds:
            return try map.scalar(Date.self) { try JSONValueTransformer.epochSeconds.transformedValue($0)?.dateValue }
        case .epochMilliseconds:
            return try map.scalar(Date.self) { try JSONValueTransformer.epochMilliseconds.transformedValue($0)?.dateValue }
        case .custom(let convert):
            return try map.scalar(Date.self) { try convert($0) }
        }
    }
}

extension URL: JSONMapValue {
    /// A URL from a non-empty string that is a URI reference (RFC 3986), absolute or
    /// relative, taken verbatim (nothing is percent-encoded for you).
    public static func mapValue(from map: JSONMap) throws -> URL {
        if case .uri(let value)? = map.attribute { return value }
        return try map.scalar(URL.self) { try JSONCoercion.url(from: $0) }
    }
}

extension UUID: JSONMapValue {
    /// A UUID from its 8-4-4-4-12 hexadecimal string, any case (RFC 9562).
    public static func mapValue(from map: JSONMap) throws -> UUID {
        if case .uuid(let value)? = map.attribute { return value }
        return try map.scalar(UUID.self) { try JSONCoercion.uuid(from: $0) }
    }
}

extension Data: JSONMapValue {
    /// Bytes from a padded base64 string (RFC 4648 §4).
    public static func mapValue(from map: JSONMap) throws -> Data {
        if case .binary(let value)? = map.attribute { return value }
        return try map.scalar(Data.self) { try JSONCoercion.data(from: $0) }
    }
}

extension JSONValue: JSONMapValue {
    /// Any JSON value as is (a stored object as its JSON rendering). Unlike other types,
    /// a non-optional `JSONValue` accepts `null` (it is a JSON value); a missing key
    /// still throws `.missing`. A `JSONValue?` property is nil for both.
    public static func mapValue(from map: JSONMap) throws -> JSONValue { try map.root }
}
