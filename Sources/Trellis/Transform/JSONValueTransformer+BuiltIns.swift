import Foundation

// The built-in transformers of `JSONValueTransformerRegistry.standard` (its doc comment has
// the table). Each returns nil for JSON null and throws `TransformError` only.

extension JSONValueTransformer {
    /// Every built-in, in the order of ``JSONValueTransformerRegistry``'s table.
    static let builtIns: [JSONValueTransformer] = [
        .iso8601, .iso8601Date, .epochSeconds, .epochMilliseconds, .integerFromString, .decimalFromString,
        .stringFromNumber, .url, .uuid, .base64, .parse,
    ]

    /// `iso8601`: an RFC 3339 date-time (0–9 fraction digits; `Z`, `±hh:mm`, `±hhmm`, or
    /// no offset meaning UTC) or full-date `yyyy-MM-dd` (midnight UTC) ↔ `.date`; writes
    /// RFC 3339 UTC with milliseconds (`2015-02-16T19:30:00.000Z`), or microseconds or
    /// nanoseconds when the date has them (``RFC3339/exactString(from:)``). See ``RFC3339``.
    public static let iso8601 = JSONValueTransformer(
        name: "iso8601",
        forward: { json in
            try BuiltIn.string(json, "iso8601", expecting: "an RFC 3339 date string").map { s in
                guard let date = RFC3339.date(from: s) else {
                    throw TransformError(
                        code: .invalidValue, transformerName: "iso8601", value: json,
                        message: "not an RFC 3339 date-time or full-date")
                }
                return .date(date)
            }
        },
        reverse: { value in .string(RFC3339.exactString(from: try BuiltIn.date(value, "iso8601"))) }
    )

    /// `iso8601-date`: an RFC 3339 full-date `yyyy-MM-dd` ↔ `.date` at midnight UTC;
    /// writes the UTC day of the date.
    public static let iso8601Date = JSONValueTransformer(
        name: "iso8601-date",
        forward: { json in
            try BuiltIn.string(json, "iso8601-date", expecting: "a yyyy-MM-dd string").map { s in
                guard let date = RFC3339.date(fromFullDate: s) else {
                    throw TransformError(
                        code: .invalidValue, transformerName: "iso8601-date", value: json,
                        message: "not an RFC 3339 full-date (yyyy-MM-dd)")
                }
                return .date(date)
            }
        },
        reverse: { value in .string(RFC3339.fullDateString(from: try BuiltIn.date(value, "iso8601-date"))) }
    )

    /// `epoch-seconds`: a number or numeric string of seconds since 1970-01-01T00:00:00Z,
    /// fraction allowed, ↔ `.date` (correctly rounded, see ``RFC3339``); writes an
    /// integer for whole seconds (`1314131052`), otherwise the shortest number that
    /// reads back as the same date (`1314131052.249`), to the precision `Date` carries
    /// (see `EpochInstant.epochText(for:scale:)`: integral seconds within ±10^12 s come
    /// back as the same integer, even where `Date` cannot hold them exactly).
    public static let epochSeconds = JSONValueTransformer(
        name: "epoch-seconds",
        forward: { json in try BuiltIn.epochDate(json, scale: 0, "epoch-seconds").map(AttributeValue.date) },
        reverse: { value in
            let seconds = try BuiltIn.finiteSeconds(value, "epoch-seconds")
            if let text = EpochInstant.epochText(for: try BuiltIn.date(value, "epoch-seconds"), scale: 0),
                let number = JSONNumber(text: text)
            {
                return .number(number)
            }
            if seconds.rounded(.towardZero) == seconds, let whole = Int64(exactly: seconds) {
                return .number(JSONNumber(whole))
            }
            return .number(JSONNumber(seconds))
        }
    )

    /// `epoch-milliseconds`: a number or numeric string of milliseconds since
    /// 1970-01-01T00:00:00Z ↔ `.date` (`1314131052249` → 1314131052.249 s, correctly
    /// rounded); writes whole milliseconds, with a fraction only when the date has one
    /// beyond the precision `Date` carries (any integral value within ±10^15 ms comes
    /// back as the same integer, e.g. `143646844205` in 1974, which `Date` holds as
    /// 143646844.20500004 s).
    public static let epochMilliseconds = JSONValueTransformer(
        name: "epoch-milliseconds",
        forward: { json in try BuiltIn.epochDate(json, scale: 3, "epoch-milliseconds").map(AttributeValue.date) },
        reverse: { value in
            let seconds = try BuiltIn.finiteSeconds(value, "epoch-milliseconds")
            if let text = EpochInstant.epochText(for: try BuiltIn.date(value, "epoch-milliseconds"), scale: 3),
                let number = JSONNumber(text: text)
            {
                return .number(number)
            }
            // Beyond ±2^52 s: shift the shortest round-trip text by three places: exact, and reads back to the same Double.
            guard var parts = DecimalParts(literal: JSONNumber.shortestText(seconds)) else {
                throw TransformError(
                    code: .invalidValue, transformerName: "epoch-milliseconds",
                    message: "cannot write \(seconds) s as milliseconds")
            }
            if !parts.digits.isEmpty { parts.exponent += 3 }
            let text = NumericText.text(of: parts)
            return .number(JSONNumber(text: text) ?? JSONNumber(seconds * 1000))
        }
    )

    /// `integer-from-string`: a numeric string (or a number) ↔ `.integer`, exact and never
    /// through `Double` (`"9223372036854775807"` → Int64.max); writes decimal digits as a
    /// string. Beyond Int64: `overflow`; a fraction: `inexact`.
    public static let integerFromString = JSONValueTransformer(
        name: "integer-from-string",
        forward: { json in
            try BuiltIn.coerce("integer-from-string") { try JSONCoercion.int64(from: json) }.map(AttributeValue.integer)
        },
        reverse: { value in
            guard case .integer(let i) = value else { throw BuiltIn.mismatch(value, "integer-from-string", expected: "an integer") }
            return .string(String(i))
        }
    )

    /// `decimal-from-string`: a numeric string (or a number) ↔ `.decimal`, exact, at most
    /// 38 significant digits (more: `inexact`); writes the decimal's digits as a string.
    public static let decimalFromString = JSONValueTransformer(
        name: "decimal-from-string",
        forward: { json in
            try BuiltIn.coerce("decimal-from-string") { try JSONCoercion.decimal(from: json) }.map(AttributeValue.decimal)
        },
        reverse: { value in
            guard case .decimal(let d) = value else { throw BuiltIn.mismatch(value, "decimal-from-string", expected: "a decimal") }
            guard !d.isNaN else {
                throw TransformError(code: .invalidValue, transformerName: "decimal-from-string", message: "NaN has no decimal text")
            }
            return .string(d.description)
        }
    )

    /// `string-from-number`: a number ↔ `.string` holding its JSON text verbatim
    /// (`505874924095815681` → `"505874924095815681"`, `1.50` → `"1.50"`); a string is
    /// kept as is. Writes the string as a number; a string that is not a JSON number is
    /// an `invalidValue` error.
    public static let stringFromNumber = JSONValueTransformer(
        name: "string-from-number",
        forward: { json in
            switch json {
            case .null: return nil
            case .number(let number): return .string(number.text)
            case .string(let s): return .string(s)
            default:
                throw TransformError(
                    code: .typeMismatch, transformerName: "string-from-number", value: json,
                    message: "expected a number")
            }
        },
        reverse: { value in
            guard case .string(let s) = value else { throw BuiltIn.mismatch(value, "string-from-number", expected: "a string") }
            guard let number = JSONNumber(text: s) else {
                throw TransformError(
                    code: .invalidValue, transformerName: "string-from-number", value: .string(s),
                    message: "not a JSON number (RFC 8259 §6)")
            }
            return .number(number)
        }
    )

    /// `url`: a string that is an RFC 3986 URI reference (absolute or relative) ↔ `.uri`.
    public static let url = JSONValueTransformer(
        name: "url",
        forward: { json in try BuiltIn.coerce("url") { try JSONCoercion.url(from: json) }.map(AttributeValue.uri) },
        reverse: { value in
            guard case .uri(let url) = value else { throw BuiltIn.mismatch(value, "url", expected: "a URL") }
            return .string(url.absoluteString)
        }
    )

    /// `uuid`: a string of 8-4-4-4-12 hexadecimal digits, any case ↔ `.uuid`; writes lowercase.
    public static let uuid = JSONValueTransformer(
        name: "uuid",
        forward: { json in try BuiltIn.coerce("uuid") { try JSONCoercion.uuid(from: json) }.map(AttributeValue.uuid) },
        reverse: { value in
            guard case .uuid(let uuid) = value else { throw BuiltIn.mismatch(value, "uuid", expected: "a UUID") }
            return .string(uuid.uuidString.lowercased())
        }
    )

    /// `base64`: an RFC 4648 §4 base64 string with padding ↔ `.binary`.
    public static let base64 = JSONValueTransformer(
        name: "base64",
        forward: { json in try BuiltIn.coerce("base64") { try JSONCoercion.data(from: json) }.map(AttributeValue.binary) },
        reverse: { value in
            guard case .binary(let data) = value else { throw BuiltIn.mismatch(value, "base64", expected: "binary data") }
            return .string(data.base64EncodedString())
        }
    )

    /// `parse`: Parse's typed JSON objects (Parse REST API, "Data Types").
    ///
    /// - `{"__type": "Date", "iso": "2015-02-16T19:30:00.000Z"}` → `.date` (``RFC3339``)
    /// - `{"__type": "Bytes", "base64": "aGk="}` → `.binary`
    /// - `{"__type": "Pointer", "className": "User", "objectId": "Ed1nuqPvcm"}` →
    ///   `.string("Ed1nuqPvcm")`: the pointed-to object's identity, which a relationship
    ///   resolves by identifier; the class name is dropped.
    /// - any other `__type` (`GeoPoint`, `File`, `Relation`…), a missing `__type` or a
    ///   missing field → `invalidValue`; a non-object → `typeMismatch`.
    ///
    /// Reverse: `.date` → the Date object (RFC 3339 UTC with milliseconds), `.binary` →
    /// the Bytes object; other values → `typeMismatch` (a pointer's class is unknown).
    public static let parse = JSONValueTransformer(
        name: "parse",
        forward: { json in try BuiltIn.parseObject(json) },
        reverse: { value in
            switch value {
            case .date(let date):
                return ["__type": "Date", "iso": .string(RFC3339.string(from: date))]
            case .binary(let data):
                return ["__type": "Bytes", "base64": .string(data.base64EncodedString())]
            default:
                throw BuiltIn.mismatch(value, "parse", expected: "a date or binary data")
            }
        }
    )
}

/// Shared pieces of the built-in transformers.
enum BuiltIn {
    /// Runs a coercion, turning its `CoercionError` into a `TransformError` of `name`.
    static func coerce<T>(_ name: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CoercionError {
            throw TransformError(error, transformerName: name)
        }
    }

    /// The string in `json`; nil for null; `typeMismatch` for other kinds.
    static func string(_ json: JSONValue, _ name: String, expecting: String) throws -> String? {
        switch json {
        case .null: return nil
        case .string(let s): return s
        default: throw TransformError(code: .typeMismatch, transformerName: name, value: json, message: "expected \(expecting)")
        }
    }

    /// The reverse-direction error for a value of the wrong case.
    static func mismatch(_ value: AttributeValue, _ name: String, expected: String) -> TransformError {
        TransformError(code: .typeMismatch, transformerName: name, message: "expected \(expected), got \(value)")
    }

    /// The date in `value`, or a `typeMismatch` error.
    static func date(_ value: AttributeValue, _ name: String) throws -> Date {
        guard case .date(let date) = value else { throw mismatch(value, name, expected: "a date") }
        return date
    }

    /// `timeIntervalSince1970` of the date in `value`, when finite.
    static func finiteSeconds(_ value: AttributeValue, _ name: String) throws -> Double {
        let seconds = try date(value, name).timeIntervalSince1970
        guard seconds.isFinite else {
            throw TransformError(code: .invalidValue, transformerName: name, message: "the date is not finite")
        }
        return seconds
    }

    /// A date from a number or numeric string of 10^scale-ths of seconds since 1970.
    static func epochDate(_ json: JSONValue, scale: Int, _ name: String) throws -> Date? {
        let number: JSONNumber
        switch json {
        case .null:
            return nil
        case .number(let n):
            number = n
        case .string(let s):
            guard let parts = NumericText.parts(ofNumericString: s), let n = JSONNumber(text: NumericText.text(of: parts)) else {
                throw TransformError(code: .invalidValue, transformerName: name, value: json, message: "not a decimal number")
            }
            number = n
        default:
            throw TransformError(
                code: .typeMismatch, transformerName: name, value: json,
                message: "expected a number or a numeric string")
        }
        guard let date = JSONCoercion.epochDate(from: number, scale: scale) else {
            throw TransformError(code: .overflow, transformerName: name, value: json, message: "out of range for a date")
        }
        return date
    }

    /// The `parse` transformer's forward direction.
    static func parseObject(_ json: JSONValue) throws -> AttributeValue? {
        let name = "parse"
        guard case .object(let object) = json else {
            if case .null = json { return nil }
            throw TransformError(
                code: .typeMismatch, transformerName: name, value: json,
                message: "expected a Parse object with a \"__type\" key")
        }
        func field(_ key: String) throws -> String {
            guard case .string(let s)? = object[key] else {
                throw TransformError(
                    code: .invalidValue, transformerName: name, value: json,
                    message: "expected a string \"\(key)\" member")
            }
            return s
        }
        let type = try field("__type")
        switch type {
        case "Date":
            guard let date = RFC3339.date(from: try field("iso")) else {
                throw TransformError(
                    code: .invalidValue, transformerName: name, value: json,
                    message: "\"iso\" is not an RFC 3339 date-time")
            }
            return .date(date)
        case "Bytes":
            let text = try field("base64")
            guard let data = Base64.decode(text) else {
                throw TransformError(
                    code: .invalidValue, transformerName: name, value: json,
                    message: "\"base64\" is not base64 (RFC 4648 §4, padded)")
            }
            return .binary(data)
        case "Pointer":
            _ = try field("className")
            return .string(try field("objectId"))
        default:
            throw TransformError(
                code: .invalidValue, transformerName: name, value: json,
                message: "unsupported __type \"\(type)\" (supported: Bytes, Date, Pointer)")
        }
    }
}
