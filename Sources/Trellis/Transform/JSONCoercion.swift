import Foundation

/// Converts JSON values to attribute values of a given type and back, forgiving the
/// usual mismatches of real APIs (ids sent as strings, booleans sent as `1`, dates as
/// text) without ever losing information silently: a value that would have to be
/// rounded, truncated or guessed is an error. Compatible with Mappable's coercions.
///
/// JSON `null` gives nil for every type. Numeric strings are
/// `[+-]? digits ("." digits)? ([eE] [+-]? digits)?`: a JSON number that may also carry a
/// leading `+` and leading zeros; no whitespace, no `.5`, `5.`, hexadecimal, `inf` or
/// `nan`. Numbers are exact (``JSONNumber``): integers never pass through `Double`.
///
/// | type               | accepted JSON → value                                                                                             | errors (``CoercionError/Code``) |
/// |--------------------|-------------------------------------------------------------------------------------------------------------------|---------------------------------|
/// | `integer16/32/64`  | a number with no fraction (`42`, `1.0`, `1e2`, `-0` → 0); a numeric string, same rule (`"42"`, `"+42"`, `"007"`, `"9223372036854775807"` → Int64.max) | outside Int16/Int32/Int64: `overflow`; a fraction (`1.5`, `"1e-3"`): `inexact`; other strings (`" 42"`, `"0x2A"`): `invalidValue`; booleans, arrays, objects: `typeMismatch` |
/// | `double`           | a number or numeric string, correctly rounded from its decimal text (magnitudes below 4.9e-324 become ±0)        | beyond ±1.7976931348623157e308: `overflow`; other strings (`"NaN"`): `invalidValue`; booleans, arrays, objects: `typeMismatch` |
/// | `float`            | as `double`, correctly rounded to `Float` from the decimal text (not through `Double`), held as `.double`        | beyond ±3.4028235e38: `overflow`; as `double` otherwise |
/// | `decimal`          | a number or numeric string, exactly (`0.1` is 1 × 10⁻¹; trailing zeros dropped: `1.50` → 1.5)                   | more than 38 significant digits: `inexact`; exponent outside `Decimal`'s -128...127: `overflow`; other strings: `invalidValue`; booleans, arrays, objects: `typeMismatch` |
/// | `string`           | a string as is; a number as its JSON text verbatim (`505874924095815681` → `"505874924095815681"`, `1.50` → `"1.50"`); `true`/`false` → `"true"`/`"false"` | arrays, objects: `typeMismatch` |
/// | `boolean`          | `true`, `false`; the numbers 1 and 0 (also `1.0`, `0e3`); the strings `true`/`false`, `yes`/`no`, `1`/`0` in any case (`"YES"`, `"False"`) | other numbers (`2`): `invalidValue`; other strings (`"y"`, `"on"`, `" true"`): `invalidValue`; arrays, objects: `typeMismatch` |
/// | `date`             | a string read by ``RFC3339`` (date-time with 0–9 fraction digits and `Z`, `±hh:mm`, `±hhmm` or no offset = UTC; or a full-date `yyyy-MM-dd` = midnight UTC); a number of seconds since 1970-01-01T00:00:00Z, fraction allowed, correctly rounded | other strings (numeric strings included: use the `epoch-seconds` transformer): `invalidValue`; numbers beyond `Double`: `overflow`; booleans, arrays, objects: `typeMismatch` |
/// | `binary`           | a base64 string (RFC 4648 §4 alphabet, `=` padding required, pad bits zero so the text is canonical, no whitespace or line breaks) | other strings (unpadded, base64url `-_`, `"aGl="`): `invalidValue`; other kinds: `typeMismatch` |
/// | `uuid`             | a string of 32 hexadecimal digits as 8-4-4-4-12, any case (RFC 9562)                                             | other strings (braces, no dashes): `invalidValue`; other kinds: `typeMismatch` |
/// | `uri`              | a non-empty string that is a URI reference (RFC 3986, as Foundation's `URL` parses it): absolute (`https://x.org/a`) or relative (`/a/b`, `a?b`); kept verbatim | strings with characters a URI cannot hold unescaped (spaces, non-ASCII, `"`, `<`), the empty string: `invalidValue`; other kinds: `typeMismatch` |
/// | `json`             | any value as is (`.json(value)`); `null` gives nil like every type                                              | none |
///
/// The reverse, ``json(from:as:)``, writes the export form of ``AttributeType``'s table
/// and reads back to the same value: `value(from: json(from: v, as: t), as: t) == v` for
/// every value of type `t` (dates with as many fraction digits as they need: ``RFC3339/exactString(from:)``).
public enum JSONCoercion {
    /// The attribute value of `type` for `json`, following the table above.
    ///
    ///     try JSONCoercion.value(from: "42", as: .integer64)          // .integer(42)
    ///     try JSONCoercion.value(from: 1, as: .boolean)               // .bool(true)
    ///     try JSONCoercion.value(from: nil, as: .string)              // nil
    ///     try JSONCoercion.value(from: "2015-02-16", as: .date)       // .date(2015-02-16T00:00:00Z)
    ///
    /// - Returns: the value in the case ``AttributeType`` assigns to `type`
    ///   (`.integer` for all integer widths, `.double` for `float`), or nil for JSON `null`.
    /// - Throws: ``CoercionError`` with `expected` set to `type`'s name.
    public static func value(from json: JSONValue, as type: AttributeType) throws -> AttributeValue? {
        if case .null = json { return nil }
        switch type {
        case .string: return try string(from: json).map(AttributeValue.string)
        case .integer16, .integer32, .integer64:
            let range = type.integerRange ?? Int64.min...Int64.max
            return try integer(from: json, in: range, expected: type.rawValue).map(AttributeValue.integer)
        case .decimal: return try decimal(from: json).map(AttributeValue.decimal)
        case .double: return try double(from: json).map(AttributeValue.double)
        case .float: return try float(from: json).map { AttributeValue.double(Double($0)) }
        case .boolean: return try bool(from: json).map(AttributeValue.bool)
        case .date: return try date(from: json).map(AttributeValue.date)
        case .binary: return try data(from: json).map(AttributeValue.binary)
        case .uuid: return try uuid(from: json).map(AttributeValue.uuid)
        case .uri: return try url(from: json).map(AttributeValue.uri)
        case .json: return .json(json)
        }
    }

    /// The JSON export form of `value` (``AttributeType``'s table): integers as exact
    /// numbers, decimals as numbers with the decimal's digits, doubles as the shortest
    /// text that reads back as the same `Double` (for `float`, the shortest text of the
    /// `Float`: `0.1`, not `0.10000000149011612`), dates as RFC 3339 UTC with
    /// milliseconds, or microseconds or nanoseconds when the date has them
    /// (``RFC3339/exactString(from:)``), binary as padded base64, UUIDs in lowercase, URIs as their absolute
    /// string, JSON as itself.
    ///
    /// `type` only chooses between `double` and `float` text; a value is always written
    /// by its own case. A non-finite double or a NaN decimal has no JSON form and is
    /// written as `null`. Two values write text that does not read back the same:
    /// `.json(.null)` (reads as nil) and a decimal with 39 significant digits, which
    /// `Decimal` can hold below 2^128 but ``decimal(from:)`` rejects as `inexact`.
    public static func json(from value: AttributeValue, as type: AttributeType) -> JSONValue {
        switch value {
        case .string(let s): return .string(s)
        case .integer(let i): return .number(JSONNumber(i))
        case .decimal(let d):
            guard !d.isNaN, let number = JSONNumber(text: d.description) else { return .null }
            return .number(number)
        case .double(let d):
            guard d.isFinite else { return .null }
            if type == .float {
                let f = Float(d)
                guard f.isFinite, let number = JSONNumber(text: f.description) else { return .null }
                return .number(number)
            }
            return .number(JSONNumber(d))
        case .bool(let b): return .bool(b)
        case .date(let date): return .string(RFC3339.exactString(from: date))
        case .binary(let data): return .string(data.base64EncodedString())
        case .uuid(let uuid): return .string(uuid.uuidString.lowercased())
        case .uri(let url): return .string(url.absoluteString)
        case .json(let json): return json
        }
    }
}
