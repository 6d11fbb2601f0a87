import Foundation

// MARK: - Numbers

extension JSONCoercion {
    /// An integer of type `T` from a number without fraction or a numeric string
    /// (see ``JSONCoercion``'s table), exactly; nil for JSON `null`.
    ///
    ///     try JSONCoercion.integer(from: "9223372036854775807", as: Int64.self)  // Int64.max
    ///     try JSONCoercion.integer(from: 1e2, as: UInt8.self)                    // 100
    ///
    /// - Throws: ``CoercionError`` naming `T` (`"UInt8"`): `overflow` outside `T`'s
    ///   range, `inexact` for a fraction, `invalidValue` for a non-numeric string,
    ///   `typeMismatch` for booleans, arrays and objects.
    public static func integer<T: FixedWidthInteger>(from json: JSONValue, as type: T.Type = T.self) throws -> T? {
        let expected = String(describing: T.self)
        if case .number(let number) = json, case .int(let i) = number.storage {
            if let value = T(exactly: i) { return value }
            throw CoercionError(code: .overflow, expected: expected, found: json, message: "out of range \(T.min)...\(T.max)")
        }
        if case .string(let s) = json, let value = T(s) {
            // `T(_:)` reads exactly `[+-]?[0-9]+` within T's range, a subset of numeric strings.
            return value
        }
        guard let (negative, parsedMagnitude) = try integerParts(from: json, expected: expected) else { return nil }
        let value: T?
        if let magnitude = parsedMagnitude, !negative {
            value = T(exactly: magnitude)
        } else if let magnitude = parsedMagnitude, magnitude <= UInt64(Int64.max) {
            value = T(exactly: -Int64(magnitude))
        } else {
            value = parsedMagnitude == Int64.min.magnitude ? T(exactly: Int64.min) : nil
        }
        guard let value else {
            throw CoercionError(code: .overflow, expected: expected, found: json, message: "out of range \(T.min)...\(T.max)")
        }
        return value
    }

    /// An `Int64` (attribute type `integer64`) from a number without fraction or a
    /// numeric string, exactly; nil for JSON `null`. Errors as ``integer(from:as:)``,
    /// naming `integer64`.
    public static func int64(from json: JSONValue) throws -> Int64? {
        try integer(from: json, in: Int64.min...Int64.max, expected: AttributeType.integer64.rawValue)
    }

    /// An integer in `range` (an attribute type's ``AttributeType/integerRange``).
    static func integer(from json: JSONValue, in range: ClosedRange<Int64>, expected: String) throws -> Int64? {
        var result: Int64?
        if case .number(let number) = json, case .int(let i) = number.storage {
            result = i
        } else if case .string(let s) = json, let i = Int64(s) {
            // `Int64(_:)` reads exactly `[+-]?[0-9]+`, a subset of numeric strings.
            result = i
        } else if let (negative, parsedMagnitude) = try integerParts(from: json, expected: expected) {
            if let magnitude = parsedMagnitude, !negative {
                result = Int64(exactly: magnitude)
            } else if let magnitude = parsedMagnitude, magnitude <= Int64.min.magnitude {
                result = magnitude == Int64.min.magnitude ? Int64.min : -Int64(magnitude)
            }
        } else {
            return nil
        }
        guard let value = result, range.contains(value) else {
            throw CoercionError(
                code: .overflow, expected: expected, found: json,
                message: "out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// Sign and magnitude of a whole number given as a JSON number or numeric string;
    /// nil for `null`. `magnitude` is nil when it exceeds `UInt64` (callers report overflow).
    private static func integerParts(from json: JSONValue, expected: String) throws -> (negative: Bool, magnitude: UInt64?)? {
        let parts: DecimalParts
        switch json {
        case .null:
            return nil
        case .number(let number):
            guard let p = NumericText.parts(of: number) else {
                throw CoercionError(code: .invalidValue, expected: expected, found: json, message: "not a finite number")
            }
            parts = p
        case .string(let s):
            guard let p = NumericText.parts(ofNumericString: s) else {
                throw CoercionError(code: .invalidValue, expected: expected, found: json, message: "not a decimal number")
            }
            parts = p
        default:
            throw CoercionError(
                code: .typeMismatch, expected: expected, found: json,
                message: "expected a number or a numeric string")
        }
        if parts.digits.isEmpty { return (false, 0) }
        guard parts.exponent >= 0 else {
            throw CoercionError(code: .inexact, expected: expected, found: json, message: "not a whole number")
        }
        guard parts.digits.count + parts.exponent <= 20 else { return (parts.negative, nil) }
        var magnitude: UInt64 = 0
        for d in parts.digits {
            let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(d - 0x30))
            if o1 || o2 { return (parts.negative, nil) }
            magnitude = s
        }
        for _ in 0..<parts.exponent {
            let (m, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            if overflow { return (parts.negative, nil) }
            magnitude = m
        }
        return (parts.negative, magnitude)
    }

    /// The `Double` nearest to a number or numeric string (correctly rounded from the
    /// decimal text); nil for JSON `null`. Magnitudes below the smallest subnormal
    /// become ±0.
    ///
    /// - Throws: ``CoercionError`` naming `double`: `overflow` beyond
    ///   ±1.7976931348623157e308, `invalidValue` for a non-numeric string (`"NaN"`),
    ///   `typeMismatch` for booleans, arrays and objects.
    public static func double(from json: JSONValue) throws -> Double? {
        let expected = AttributeType.double.rawValue
        let result: Double?
        switch json {
        case .null:
            return nil
        case .number(let number):
            switch number.storage {
            case .int(let i): return Double(i)
            case .double(let d): result = d
            case .text(let t): result = Double(t)
            }
        case .string(let s):
            guard let literal = NumericText.literal(s) else {
                throw CoercionError(code: .invalidValue, expected: expected, found: json, message: "not a decimal number")
            }
            result = Double(literal)
        default:
            throw CoercionError(
                code: .typeMismatch, expected: expected, found: json,
                message: "expected a number or a numeric string")
        }
        guard let value = result, value.isFinite else {
            throw CoercionError(
                code: .overflow, expected: expected, found: json,
                message: "out of range for Double (magnitude above 1.7976931348623157e308)")
        }
        return value
    }

    /// The `Float` nearest to a number or numeric string, rounded once from the decimal
    /// text (a number made from a Swift `Double` is rounded from that `Double`); nil for
    /// JSON `null`.
    ///
    /// - Throws: ``CoercionError`` naming `float`: `overflow` beyond ±3.4028235e38,
    ///   otherwise as ``double(from:)``.
    public static func float(from json: JSONValue) throws -> Float? {
        let expected = AttributeType.float.rawValue
        let result: Float?
        switch json {
        case .null:
            return nil
        case .number(let number):
            switch number.storage {
            case .int(let i): result = Float(i)
            case .double(let d): result = d.isFinite ? Float(d) : nil
            case .text(let t): result = Float(t)
            }
        case .string(let s):
            guard let literal = NumericText.literal(s) else {
                throw CoercionError(code: .invalidValue, expected: expected, found: json, message: "not a decimal number")
            }
            result = Float(literal)
        default:
            throw CoercionError(
                code: .typeMismatch, expected: expected, found: json,
                message: "expected a number or a numeric string")
        }
        guard let value = result, value.isFinite else {
            throw CoercionError(
                code: .overflow, expected: expected, found: json,
                message: "out of range for Float (magnitude above 3.4028235e38)")
        }
        return value
    }

    /// The exact `Decimal` of a number or numeric string; nil for JSON `null`. Never
    /// rounds: `Decimal` holds 38 significant digits with a power-of-ten exponent in
    /// -128...127.
    ///
    /// - Throws: ``CoercionError`` naming `decimal`: `inexact` for more than 38
    ///   significant digits, `overflow` for an exponent out of range (`1e200`, `1e-200`),
    ///   `invalidValue` for a non-numeric string, `typeMismatch` for booleans, arrays
    ///   and objects.
    public static func decimal(from json: JSONValue) throws -> Decimal? {
        let expected = AttributeType.decimal.rawValue
        let parts: DecimalParts
        switch json {
        case .null:
            return nil
        case .number(let number):
            guard let p = NumericText.parts(of: number) else {
                throw CoercionError(code: .invalidValue, expected: expected, found: json, message: "not a finite number")
            }
            parts = p
        case .string(let s):
            guard let p = NumericText.parts(ofNumericString: s) else {
                throw CoercionError(code: .invalidValue, expected: expected, found: json, message: "not a decimal number")
            }
            parts = p
        default:
            throw CoercionError(
                code: .typeMismatch, expected: expected, found: json,
                message: "expected a number or a numeric string")
        }
        guard parts.digits.count <= 38 else {
            throw CoercionError(
                code: .inexact, expected: expected, found: json,
                message: "more than 38 significant digits (\(parts.digits.count))")
        }
        guard let value = parts.exactDecimal() else {
            throw CoercionError(
                code: .overflow, expected: expected, found: json,
                message: "out of Decimal's range (exponent -128...127)")
        }
        return value
    }
}

// MARK: - Booleans and strings

extension JSONCoercion {
    /// A boolean from `true`/`false`, the numbers 1 and 0, or the strings `true`/`false`,
    /// `yes`/`no`, `1`/`0` in any case; nil for JSON `null`.
    ///
    /// - Throws: ``CoercionError`` naming `boolean`: `invalidValue` for other numbers and
    ///   strings (`2`, `"y"`, `"on"`), `typeMismatch` for arrays and objects.
    public static func bool(from json: JSONValue) throws -> Bool? {
        let expected = AttributeType.boolean.rawValue
        switch json {
        case .null:
            return nil
        case .bool(let b):
            return b
        case .number(let number):
            if case .int(let i) = number.storage, i == 0 || i == 1 { return i == 1 }
            if let parts = NumericText.parts(of: number) {
                if parts.digits.isEmpty { return false }
                if parts.digits == [UInt8(ascii: "1")], parts.exponent == 0, !parts.negative { return true }
            }
            throw CoercionError(code: .invalidValue, expected: expected, found: json, message: "only the numbers 0 and 1 are booleans")
        case .string(let s):
            if s.utf8.count <= 5 {
                switch s.lowercased() {
                case "true", "yes", "1": return true
                case "false", "no", "0": return false
                default: break
                }
            }
            throw CoercionError(
                code: .invalidValue, expected: expected, found: json,
                message: "expected true/false, yes/no or 1/0 (any case)")
        case .array, .object:
            throw CoercionError(
                code: .typeMismatch, expected: expected, found: json,
                message: "expected a boolean, a number or a string")
        }
    }

    /// A string from a string (as is), a number (its JSON text verbatim: `1.50` →
    /// `"1.50"`, `505874924095815681` → `"505874924095815681"`) or a boolean (`"true"`,
    /// `"false"`); nil for JSON `null`.
    ///
    /// - Throws: ``CoercionError`` naming `string`, `typeMismatch` for arrays and objects.
    public static func string(from json: JSONValue) throws -> String? {
        switch json {
        case .null: return nil
        case .string(let s): return s
        case .number(let number): return number.text
        case .bool(let b): return b ? "true" : "false"
        case .array, .object:
            throw CoercionError(
                code: .typeMismatch, expected: AttributeType.string.rawValue, found: json,
                message: "expected a string, a number or a boolean")
        }
    }
}

// MARK: - Dates, data, identifiers

extension JSONCoercion {
    /// A date from an RFC 3339 string (see ``RFC3339``: date-time or full-date) or a
    /// number of seconds since 1970-01-01T00:00:00Z (fraction allowed, correctly
    /// rounded: `1314131052.249` → `timeIntervalSince1970 == 1314131052.249`); nil for
    /// JSON `null`.
    ///
    /// - Throws: ``CoercionError`` naming `date`: `invalidValue` for other strings
    ///   (numeric strings included), `overflow` for numbers beyond `Double`,
    ///   `typeMismatch` for booleans, arrays and objects.
    public static func date(from json: JSONValue) throws -> Date? {
        let expected = AttributeType.date.rawValue
        switch json {
        case .null:
            return nil
        case .string(let s):
            guard let date = RFC3339.date(from: s) else {
                throw CoercionError(
                    code: .invalidValue, expected: expected, found: json,
                    message: "not an RFC 3339 date-time or full-date")
            }
            return date
        case .number(let number):
            guard let date = epochDate(from: number, scale: 0) else {
                throw CoercionError(
                    code: .overflow, expected: expected, found: json,
                    message: "out of range for seconds since 1970")
            }
            return date
        default:
            throw CoercionError(
                code: .typeMismatch, expected: expected, found: json,
                message: "expected an RFC 3339 string or a number of seconds since 1970")
        }
    }

    /// The date `number × 10^-scale` seconds after 1970-01-01T00:00:00Z, correctly
    /// rounded (see ``EpochInstant``); nil when the value is beyond `Double`'s range.
    static func epochDate(from number: JSONNumber, scale: Int) -> Date? {
        if scale == 0, case .int(let i) = number.storage, let instant = EpochInstant(seconds: i) {
            return instant.date
        }
        guard var parts = NumericText.parts(of: number) else { return nil }
        if let instant = EpochInstant(parts, scale: scale) { return instant.date }
        parts.exponent -= scale
        guard let seconds = Double(NumericText.text(of: parts)), seconds.isFinite else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Bytes from a base64 string (RFC 4648 §4: `+/` alphabet, `=` padding required,
    /// pad bits zero, no whitespace or line breaks); nil for JSON `null`.
    ///
    /// - Throws: ``CoercionError`` naming `binary`: `invalidValue` for other strings,
    ///   `typeMismatch` for other kinds.
    public static func data(from json: JSONValue) throws -> Data? {
        let expected = AttributeType.binary.rawValue
        switch json {
        case .null:
            return nil
        case .string(let s):
            guard let data = Base64.decode(s) else {
                throw CoercionError(
                    code: .invalidValue, expected: expected, found: json,
                    message: "not base64 (RFC 4648 §4, padded)")
            }
            return data
        default:
            throw CoercionError(code: .typeMismatch, expected: expected, found: json, message: "expected a base64 string")
        }
    }

    /// A UUID from a string of 32 hexadecimal digits grouped 8-4-4-4-12, any case
    /// (RFC 9562 §4); nil for JSON `null`.
    ///
    /// - Throws: ``CoercionError`` naming `uuid`: `invalidValue` for other strings,
    ///   `typeMismatch` for other kinds.
    public static func uuid(from json: JSONValue) throws -> UUID? {
        let expected = AttributeType.uuid.rawValue
        switch json {
        case .null:
            return nil
        case .string(let s):
            guard let uuid = UUID(uuidString: s) else {
                throw CoercionError(
                    code: .invalidValue, expected: expected, found: json,
                    message: "not a UUID (8-4-4-4-12 hexadecimal digits)")
            }
            return uuid
        default:
            throw CoercionError(code: .typeMismatch, expected: expected, found: json, message: "expected a UUID string")
        }
    }

    /// A URL from a non-empty string that is a URI reference (RFC 3986), absolute or
    /// relative, with no character that needs percent-encoding (spaces, non-ASCII,
    /// `"`, `<`…); nil for JSON `null`. The check is Foundation's
    /// `URL(string:encodingInvalidCharacters: false)`; the string is not altered (no
    /// percent-encoding is added).
    ///
    /// - Throws: ``CoercionError`` naming `uri`: `invalidValue` for other strings,
    ///   `typeMismatch` for other kinds.
    public static func url(from json: JSONValue) throws -> URL? {
        let expected = AttributeType.uri.rawValue
        switch json {
        case .null:
            return nil
        case .string(let s):
            guard !s.isEmpty, let url = URL(string: s, encodingInvalidCharacters: false) else {
                throw CoercionError(
                    code: .invalidValue, expected: expected, found: json,
                    message: "not a URI reference (RFC 3986)")
            }
            return url
        default:
            throw CoercionError(code: .typeMismatch, expected: expected, found: json, message: "expected a URI string")
        }
    }
}
