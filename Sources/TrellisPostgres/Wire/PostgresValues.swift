import Foundation
import Trellis

/// Attribute values in PostgreSQL columns, sent and read in binary format. Every value
/// round-trips exactly, within what PostgreSQL holds:
///
/// | attribute type | column | on the wire |
/// |---|---|---|
/// | string | text | UTF-8 (PostgreSQL text cannot hold U+0000: `.unsupportedValue`) |
/// | integer16/32/64 | smallint / integer / bigint | `int8` (outside the type's range: `.unsupportedValue`) |
/// | decimal | numeric | `Decimal.description` as text, cast to numeric (exact digits) |
/// | double, float | double precision | IEEE 754 bits (NaN, ±∞ and −0.0 kept) |
/// | boolean | boolean | one byte |
/// | date | timestamptz | microseconds since 2000-01-01 UTC (Unix seconds × 10⁶, rounded) |
/// | binary | bytea | the bytes |
/// | UUID | uuid | the 16 bytes |
/// | URI | text | `absoluteString` |
/// | JSON | jsonb | version byte 1, then compact JSON from `JSONWriter` (jsonb keeps no key order and no duplicate keys, and cannot hold `\u0000`) |
///
/// Dates: a date with microsecond (or coarser) precision comes back as the identical
/// `Date`: the stored integer is the nearest microsecond of `timeIntervalSince1970`, and
/// reading divides it back, which gives the nearest Double, as the importer made it.
enum PostgresValues {
    /// The array element type an attribute type is sent as, and the SQL cast that turns the
    /// array parameter into the column's array type (`$4::text[]::numeric[]`).
    static func elementType(for type: AttributeType) -> (oid: UInt32, cast: String) {
        switch type {
        case .string, .uri: return (PostgresType.text, "::text[]")
        case .integer16, .integer32, .integer64: return (PostgresType.int8, "::bigint[]")
        case .decimal: return (PostgresType.text, "::text[]::numeric[]")
        case .double, .float: return (PostgresType.float8, "::float8[]")
        case .boolean: return (PostgresType.bool, "::boolean[]")
        case .date: return (PostgresType.timestamptz, "::timestamptz[]")
        case .binary: return (PostgresType.bytea, "::bytea[]")
        case .uuid: return (PostgresType.uuid, "::uuid[]")
        case .json: return (PostgresType.jsonb, "::jsonb[]")
        }
    }

    /// Microseconds between 1970-01-01 and 2000-01-01 (PostgreSQL's epoch).
    static let epochOffset: Int64 = 946_684_800_000_000
    /// timestamptz's range in microseconds since 2000 (4713 BC … 294276 AD, `datatype/timestamp.h`).
    static let timestampRange: ClosedRange<Int64> = -211_813_488_000_000_000...9_223_371_331_199_999_999

    /// Appends `value` (nil: NULL) to an array of `type`'s element type.
    /// - Throws: `.unsupportedValue` for a value PostgreSQL cannot hold or of another type
    ///   than the attribute's (the caller adds the entity and attribute).
    static func append(_ value: AttributeValue?, as type: AttributeType, to array: inout PostgresArray) throws(StoreError) {
        guard let value else {
            array.appendNull()
            return
        }
        switch (type, value) {
        case (.string, .string(let s)), (.uri, .string(let s)):
            try appendText(s, to: &array)
        case (.uri, .uri(let url)), (.string, .uri(let url)):
            try appendText(url.absoluteString, to: &array)
        case (.integer16, .integer(let i)) where Int16(exactly: i) == nil,
            (.integer32, .integer(let i)) where Int32(exactly: i) == nil:
            let range = type == .integer16 ? "\(Int16.min)…\(Int16.max)" : "\(Int32.min)…\(Int32.max)"
            throw StoreError(.unsupportedValue, message: "\(i) is out of the range of an \(type) attribute (\(range))")
        case (.integer16, .integer(let i)), (.integer32, .integer(let i)), (.integer64, .integer(let i)):
            array.append(i)
        case (.decimal, .decimal(let d)):
            array.append(bytes: d.description.utf8)
        case (.double, .double(let d)), (.float, .double(let d)):
            array.append(d)
        case (.boolean, .bool(let b)):
            array.append(b)
        case (.date, .date(let d)):
            array.append(try microseconds(d))
        case (.binary, .binary(let data)):
            array.append(bytes: data)
        case (.uuid, .uuid(let u)):
            array.append(bytes: withUnsafeBytes(of: u.uuid) { Array($0) })
        case (.json, .json(let json)):
            let text: String
            do {
                text = try JSONWriter.string(for: json)
            } catch {
                throw StoreError(.unsupportedValue, message: "a JSON value cannot be written: \(error)")
            }
            if text.contains("\\u0000") {
                throw StoreError(.unsupportedValue, message: "a JSON value holds the character U+0000, which jsonb cannot store")
            }
            array.append(prefix: 1, bytes: text.utf8)
        default:
            throw StoreError(.unsupportedValue, message: "a \(kind(of: value)) value cannot be stored in a \(type) attribute")
        }
    }

    private static func appendText(_ text: String, to array: inout PostgresArray) throws(StoreError) {
        var copy = text
        let hasNUL = copy.withUTF8 { $0.contains(0) }
        if hasNUL {
            throw StoreError(.unsupportedValue, message: "the text holds the character U+0000, which PostgreSQL text cannot store")
        }
        array.append(bytes: text.utf8)
    }

    /// `date` as microseconds since 2000-01-01 UTC.
    /// - Throws: `.unsupportedValue` outside timestamptz's range.
    static func microseconds(_ date: Date) throws(StoreError) -> Int64 {
        let scaled = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard scaled.isFinite, scaled > -9.2e18, scaled < 9.2e18,
            case let value = Int64(scaled) - epochOffset, timestampRange.contains(value)
        else {
            throw StoreError(
                .unsupportedValue,
                message: "the date \(date.timeIntervalSince1970) s after 1970 is outside "
                    + "the range of PostgreSQL's timestamptz (4713 BC to 294276 AD)")
        }
        return value
    }

    /// The date of `microseconds` since 2000-01-01 UTC.
    static func date(microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds + epochOffset) / 1_000_000)
    }

    /// The value of `column` of `row` read as `type`; nil for NULL.
    /// - Throws: `.engine` when the column holds something Trellis cannot read as the type
    ///   (a value written by another program).
    @inline(__always)
    static func value(_ result: PostgresResult, _ row: Int, _ column: Int, as type: AttributeType) throws(StoreError) -> AttributeValue? {
        if result.isNull(row, column) { return nil }
        switch type {
        case .string: return .string(result.string(row, column))
        case .integer16, .integer32, .integer64: return .integer(result.int64(row, column))
        case .double, .float: return .double(result.double(row, column))
        case .boolean: return .bool(result.bool(row, column))
        case .date: return .date(date(microseconds: result.int64(row, column)))
        case .binary: return .binary(result.data(row, column))
        case .uuid: return .uuid(result.uuid(row, column))
        case .decimal:
            let text = result.string(row, column)
            if text == "NaN" { return .decimal(.nan) }
            guard let decimal = Decimal(string: text, locale: nil), !decimal.isNaN else {
                throw unreadable(result, column, type)
            }
            return .decimal(decimal)
        case .uri:
            guard let url = URL(string: result.string(row, column)) else { throw unreadable(result, column, type) }
            return .uri(url)
        case .json:
            do {
                return .json(try JSONReader.parse(result.string(row, column, skip: 1)))
            } catch {
                throw StoreError(.engine, message: "column \(result.columnName(column)) holds JSON Trellis cannot read (\(error))")
            }
        }
    }

    private static func unreadable(_ result: PostgresResult, _ column: Int, _ type: AttributeType) -> StoreError {
        StoreError(.engine, message: "column \(result.columnName(column)) holds text that is not a \(type) value")
    }

    /// `string`, `integer`, … for messages.
    static func kind(of value: AttributeValue) -> String {
        switch value {
        case .string: return "string"
        case .integer: return "integer"
        case .decimal: return "decimal"
        case .double: return "double"
        case .bool: return "boolean"
        case .date: return "date"
        case .binary: return "binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .json: return "JSON"
        }
    }

    /// `value` (of `type`) as one binary parameter of `type`'s element type, for a predicate
    /// (`t."id" = $1`). A value of another type than the attribute's is sent as untyped text,
    /// which the server reads as the column's type (or refuses).
    static func appendParameter(_ value: AttributeValue, as type: AttributeType, to parameters: inout PostgresParameters) throws(StoreError) {
        guard fits(value, type) else {
            parameters.append(untyped: try untypedText(value))
            return
        }
        var array = PostgresArray(of: elementType(for: type).oid)
        try append(value, as: type, to: &array)
        parameters.append(element: array)
    }

    /// Whether ``append(_:as:to:)`` takes `value` for an attribute of `type`.
    static func fits(_ value: AttributeValue, _ type: AttributeType) -> Bool {
        switch (type, value) {
        case (.string, .string), (.uri, .string), (.uri, .uri), (.string, .uri),
            (.integer16, .integer), (.integer32, .integer), (.integer64, .integer), (.decimal, .decimal),
            (.double, .double), (.float, .double), (.boolean, .bool), (.date, .date), (.binary, .binary),
            (.uuid, .uuid), (.json, .json):
            return true
        default:
            return false
        }
    }

    /// Text for a value sent untyped (the server parses it as the column's type).
    private static func untypedText(_ value: AttributeValue) throws(StoreError) -> String {
        switch value {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .decimal(let d): return d.description
        case .double(let d): return d.isNaN ? "NaN" : d.isInfinite ? (d < 0 ? "-Infinity" : "Infinity") : "\(d)"
        case .bool(let b): return b ? "true" : "false"
        case .uuid(let u): return u.uuidString.lowercased()
        case .uri(let url): return url.absoluteString
        case .date, .binary, .json:
            throw StoreError(.unsupportedValue, message: "a \(kind(of: value)) value cannot be compared here")
        }
    }

    /// `value` as the text PostgreSQL's input functions read (a parameter sent untyped, whose
    /// type the server takes from the column it meets): `42`, `2011-08-21 18:02:52.249000+00`,
    /// `\x00ff`, `{"a":1}`.
    static func literalText(_ value: AttributeValue) throws(StoreError) -> String {
        switch value {
        case .string(let s):
            if s.utf8.contains(0) {
                throw StoreError(.unsupportedValue, message: "the text holds the character U+0000, which PostgreSQL text cannot store")
            }
            return s
        case .integer(let i): return String(i)
        case .decimal(let d): return d.description
        case .double(let d): return d.isNaN ? "NaN" : d.isInfinite ? (d < 0 ? "-Infinity" : "Infinity") : "\(d)"
        case .bool(let b): return b ? "true" : "false"
        case .uuid(let u): return u.uuidString.lowercased()
        case .uri(let url): return url.absoluteString
        case .binary(let data):
            let digits: [UInt8] = Array("0123456789abcdef".utf8)
            var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
            for byte in data {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: text, as: UTF8.self)
        case .json(let json):
            do {
                return try JSONWriter.string(for: json)
            } catch {
                throw StoreError(.unsupportedValue, message: "a JSON value cannot be written: \(error)")
            }
        case .date(let date):
            return timestampText(microseconds: try microseconds(date) + epochOffset)
        }
    }

    /// `YYYY-MM-DD HH:MM:SS.ffffff+00` (with ` BC` before year 1) for microseconds since
    /// 1970, in the proleptic Gregorian calendar PostgreSQL uses.
    static func timestampText(microseconds: Int64) -> String {
        let perDay: Int64 = 86_400_000_000
        var days = microseconds / perDay
        var rest = microseconds % perDay
        if rest < 0 {
            rest += perDay
            days -= 1
        }
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ n: Int64, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let seconds = rest / 1_000_000
        let clock = "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(rest % 1_000_000, 6))"
        let shownYear = year > 0 ? year : 1 - year
        return "\(pad(shownYear, 4))-\(pad(month, 2))-\(pad(day, 2)) \(clock)+00" + (year > 0 ? "" : " BC")
    }
}
