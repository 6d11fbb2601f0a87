import Foundation

// The leaf types the typed layer reads. Each conversion is `JSONCoercion`'s rule for the
// type (see docs/TypedLayer.md for the table); stored attribute values of the same type
// are taken as they are, others are converted from their JSON form.

extension JSONMap {
    /// Converts this map's scalar with `convert`, locating failures here.
    func scalar<T>(_ expected: T.Type, _ convert: (JSONValue) throws(ConversionFailure) -> T) throws -> T {
        let value: JSONValue
        switch node {
        case .json(let json): value = json
        case .attribute(let attribute): value = attribute.mappingJSONValue
        case .null, .record, .records:
            throw failure(.typeMismatch, expected: T.self)
        }
        do throws(ConversionFailure) {
            return try convert(value)
        } catch {
            throw MappingError(code: error.code, path: path, expected: JSONMapTypeName.of(T.self), found: value,
                               message: error.message, underlyingError: error.underlyingError)
        }
    }

    /// Reads a fixed-width integer exactly: whole numbers in range (`12`, `"12"`,
    /// `1.2e1`); never through `Double`.
    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        // Fast path: the reader's Int64 storage.
        switch node {
        case .json(.number(let number)):
            if case .int(let i) = number.storage, let value = I(exactly: i) { return value }
        case .attribute(.integer(let i)):
            if let value = I(exactly: i) { return value }
        default:
            break
        }
        return try scalar(I.self) { json throws(ConversionFailure) in
            let range = "out of range \(I.min)...\(I.max)"
            do throws(ConversionFailure) {
                let wide = try MappingCoercion.int64(json)
                guard let value = I(exactly: wide) else { throw ConversionFailure(code: .overflow, message: range) }
                return value
            } catch where error.code == .overflow && !I.isSigned && I.bitWidth >= 64 {
                guard let wide = MappingCoercion.uint64(json), let value = I(exactly: wide) else {
                    throw ConversionFailure(code: .overflow, message: range)
                }
                return value
            } catch where error.code == .overflow {
                throw ConversionFailure(code: .overflow, message: range)
            }
        }
    }
}

extension Int: JSONMapValue {
    /// A whole number in `Int`'s range, from a number or a numeric string (`12`, `"12"`,
    /// `1e2`); fractions are `.inexact`, out-of-range values `.overflow`.
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
        if case .json(.number(let number)) = map.node, let value = number.doubleValue { return value }
        if case .attribute(.double(let value)) = map.node { return value }
        return try map.scalar(Double.self) { json throws(ConversionFailure) in try MappingCoercion.double(json) }
    }
}

extension Float: JSONMapValue {
    /// The nearest `Float` (through the nearest `Double`); `.overflow` beyond `Float`'s
    /// finite range (`1e39`).
    public static func mapValue(from map: JSONMap) throws -> Float {
        try map.scalar(Float.self) { json throws(ConversionFailure) in
            let double = try MappingCoercion.double(json)
            let value = Float(double)
            guard value.isFinite else {
                throw ConversionFailure(code: .overflow, message: "out of Float's range")
            }
            return value
        }
    }
}

extension Decimal: JSONMapValue {
    /// The number's decimal digits exactly (`0.1` is 0.1), from a number or numeric
    /// string; more than 38 significant digits is `.inexact`.
    public static func mapValue(from map: JSONMap) throws -> Decimal {
        if case .attribute(.decimal(let value)) = map.node { return value }
        return try map.scalar(Decimal.self) { json throws(ConversionFailure) in try MappingCoercion.decimal(json) }
    }
}

extension Bool: JSONMapValue {
    /// `true`/`false`, the numbers `1`/`0`, and the strings `"true"`/`"yes"`/`"1"` and
    /// `"false"`/`"no"`/`"0"` in any case; anything else is `.invalidValue`.
    public static func mapValue(from map: JSONMap) throws -> Bool {
        if case .json(.bool(let value)) = map.node { return value }
        return try map.scalar(Bool.self) { json throws(ConversionFailure) in try MappingCoercion.bool(json) }
    }
}

extension String: JSONMapValue {
    /// A string as is; a number as its JSON text (`12`, `0.5`, exact for big integers);
    /// `true`/`false` as `"true"`/`"false"`. Arrays and objects are `.typeMismatch`.
    public static func mapValue(from map: JSONMap) throws -> String {
        if case .json(.string(let value)) = map.node { return value }
        return try map.scalar(String.self) { json throws(ConversionFailure) in try MappingCoercion.string(json) }
    }
}

extension Date: JSONMapValue {
    /// A date per ``JSONMap/Options/dateStrategy``: by default an RFC 3339 / ISO 8601
    /// string with any fraction digits, or a number of seconds since 1970 (UTC).
    /// A stored date attribute is taken as is.
    public static func mapValue(from map: JSONMap) throws -> Date {
        if case .attribute(.date(let value)) = map.node { return value }
        switch map.options.dateStrategy {
        case .flexible:
            return try map.scalar(Date.self) { json throws(ConversionFailure) in try MappingCoercion.date(json) }
        case .rfc3339:
            return try map.scalar(Date.self) { json throws(ConversionFailure) in try MappingCoercion.rfc3339(json) }
        case .epochSeconds:
            return try map.scalar(Date.self) { json throws(ConversionFailure) in try MappingCoercion.epochSeconds(json) }
        case .epochMilliseconds:
            return try map.scalar(Date.self) { json throws(ConversionFailure) in try MappingCoercion.epochMilliseconds(json) }
        case .custom(let convert):
            do {
                return try convert(map.root)
            } catch {
                throw map.located(error, expected: Date.self)
            }
        }
    }
}

extension URL: JSONMapValue {
    /// A URL from a non-empty string that `URL(string:)` accepts (absolute or relative).
    public static func mapValue(from map: JSONMap) throws -> URL {
        if case .attribute(.uri(let value)) = map.node { return value }
        return try map.scalar(URL.self) { json throws(ConversionFailure) in try MappingCoercion.url(json) }
    }
}

extension UUID: JSONMapValue {
    /// A UUID from its 8-4-4-4-12 hexadecimal string, any case.
    public static func mapValue(from map: JSONMap) throws -> UUID {
        if case .attribute(.uuid(let value)) = map.node { return value }
        return try map.scalar(UUID.self) { json throws(ConversionFailure) in try MappingCoercion.uuid(json) }
    }
}

extension Data: JSONMapValue {
    /// Bytes from a base64 string (RFC 4648 §4).
    public static func mapValue(from map: JSONMap) throws -> Data {
        if case .attribute(.binary(let value)) = map.node { return value }
        return try map.scalar(Data.self) { json throws(ConversionFailure) in try MappingCoercion.data(json) }
    }
}

extension JSONValue: JSONMapValue {
    /// Any JSON value as is (a stored object as its JSON rendering). Unlike other types,
    /// a non-optional `JSONValue` accepts `null` (it is a JSON value); a missing key
    /// still throws `.missing`. A `JSONValue?` property is nil for both.
    public static func mapValue(from map: JSONMap) throws -> JSONValue { map.root }
}
