import Foundation
import Trellis

/// What inference notes about one JSON value (docs/ModelInference.md, "Attribute types").
/// Strings are classed by the first test they pass, in this order.
enum ValueClass: Int, CaseIterable, Sendable, Comparable {
    case boolean
    /// A number without fraction or exponent that fits `Int64`.
    case integer
    /// A number without fraction or exponent beyond `Int64`, 38 digits at most (a `Decimal` holds it).
    case bigInteger
    /// A number with a fraction or an exponent that a `Double` holds: its text reads back
    /// from the nearest `Double` (`2.5`, `0.8444218515250481`, `1e3`).
    case fraction
    /// A number a `Double` would round (`3.14159265358979323846`) that a `Decimal` holds (38
    /// significant digits, exponent within -128...127).
    case preciseNumber
    /// A number neither a `Double` nor a `Decimal` holds exactly.
    case hugeNumber
    /// An RFC 3339 full-date, `2015-02-16`.
    case fullDate
    /// An RFC 3339 date-time (`2017-10-10T16:00:00Z`, the offset optional).
    case dateTime
    /// Twitter's `EEE MMM dd HH:mm:ss Z yyyy` (`Sun Aug 31 00:29:15 +0000 2014`).
    case twitterDate
    /// Decimal digits that read back as the same text through `Int64` (`"1699"`, `"-5"`;
    /// not `"007"` or `"+5"`).
    case integerString
    /// Any other numeric string, as numeric attributes read them: `[+-]? digits ("." digits)?
    /// ([eE] [+-]? digits)?` (`"+5"`, `"007"`, `"2.5"`, `"1e3"`). A string attribute when
    /// inferred; fits a recorded number attribute.
    case numericString
    /// 8-4-4-4-12 hexadecimal digits in lowercase.
    case uuid
    /// A UUID with capitals (`"0B3C8F2E-…"`): a string attribute when inferred (a `uuid`
    /// attribute exports lowercase); fits a recorded `uuid` attribute.
    case capitalUUID
    /// An absolute URL (scheme and host) that `uri` attributes accept unchanged.
    case absoluteURL
    /// `true`, `false`, `yes`, `no` in any case: a string attribute when inferred; fits a
    /// recorded boolean attribute.
    case booleanString
    /// Any other string (the empty string included).
    case text
    /// An array of scalars (or of arrays), or an array mixing objects with other values.
    case scalarArray
    /// A non-empty array of objects.
    case objectArray
    /// `[]`.
    case emptyArray
    /// An object.
    case object
    case null

    static func < (lhs: ValueClass, rhs: ValueClass) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The classes of numbers.
    static let numbers: Set<ValueClass> = [.integer, .bigInteger, .fraction, .preciseNumber, .hugeNumber]
    /// The classes of strings.
    static let strings: Set<ValueClass> = [
        .fullDate, .dateTime, .twitterDate, .integerString, .numericString, .uuid, .capitalUUID,
        .absoluteURL, .booleanString, .text,
    ]

    /// How the class is named in messages: `a string`, `an integer`, `an array of objects`.
    var phrase: String {
        switch self {
        case .boolean: return "a boolean"
        case .integer: return "an integer"
        case .bigInteger: return "an integer beyond 64 bits"
        case .fraction, .preciseNumber, .hugeNumber: return "a number with a fraction"
        case .fullDate: return "a date string (yyyy-MM-dd)"
        case .dateTime: return "an RFC 3339 date-time string"
        case .twitterDate: return "a date string (EEE MMM dd HH:mm:ss Z yyyy)"
        case .integerString, .numericString: return "a numeric string"
        case .uuid, .capitalUUID: return "a UUID string"
        case .absoluteURL: return "a URL string"
        case .booleanString, .text: return "a string"
        case .scalarArray: return "an array of values"
        case .objectArray: return "an array of objects"
        case .emptyArray: return "an empty array"
        case .object: return "an object"
        case .null: return "null"
        }
    }
}

/// Sorts JSON values into ``ValueClass``es.
enum ValueClassifier {
    /// Twitter's `created_at` pattern, as a `dateFormat` binding.
    static let twitterDateFormat = "EEE MMM dd HH:mm:ss Z yyyy"

    /// The class of a scalar (or `null`); arrays and objects are classed by the caller.
    static func classify(_ value: JSONValue) -> ValueClass {
        switch value {
        case .null: return .null
        case .bool: return .boolean
        case .number(let number): return classify(number)
        case .string(let s): return classify(s)
        case .array(let elements):
            if elements.isEmpty { return .emptyArray }
            return elements.allSatisfy({ $0.objectValue != nil }) ? .objectArray : .scalarArray
        case .object: return .object
        }
    }

    static func classify(_ number: JSONNumber) -> ValueClass {
        if case .int = number.storage { return .integer }
        let text = number.text
        if number.isIntegerLiteral {
            if number.int64Value != nil { return .integer }
            return text.utf8.filter({ $0 >= 0x30 && $0 <= 0x39 }).count <= 38 ? .bigInteger : .hugeNumber
        }
        if let d = number.doubleValue, d.isFinite {
            let shortest = JSONNumber(d).text
            if shortest == text || DigitForm(text) == DigitForm(shortest) { return .fraction }
        }
        return number.decimalValue != nil ? .preciseNumber : .hugeNumber
    }

    static func classify(_ s: String) -> ValueClass {
        let utf8 = s.utf8
        guard let first = utf8.first else { return .text }
        if first >= 0x30 && first <= 0x39 || first == UInt8(ascii: "-") {
            if utf8.count == 10, RFC3339.date(fromFullDate: s) != nil { return .fullDate }
            if utf8.count >= 19, RFC3339.date(from: s) != nil { return .dateTime }
            if let i = Int64(s), String(i) == s { return .integerString }
        }
        if first >= 0x30 && first <= 0x39 || first == UInt8(ascii: "-") || first == UInt8(ascii: "+"), isNumeric(utf8) {
            return .numericString
        }
        if utf8.count == 30, isTwitterDate(utf8) { return .twitterDate }
        if utf8.count == 36, let lowercase = uuidCase(utf8) { return lowercase ? .uuid : .capitalUUID }
        if isAbsoluteURL(s) { return .absoluteURL }
        if utf8.count <= 5, [0x74, 0x66, 0x79, 0x6E].contains(first | 0x20), ["true", "false", "yes", "no"].contains(s.lowercased()) {
            return .booleanString  // t, f, y, n in either case first
        }
        return .text
    }

    // MARK: - Tests

    /// A decimal number's value as significant digits and the power of ten of the last one
    /// (`1.50` and `15e-1` are both 15 × 10⁻¹), to compare numbers written differently.
    struct DigitForm: Equatable {
        var negative = false
        var digits: [UInt8] = []
        var exponent = 0

        init(_ text: String) {
            var exponentText = ""
            var inExponent = false
            var fractionDigits = 0
            var inFraction = false
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "-") where !inExponent: negative = true
                case UInt8(ascii: "e"), UInt8(ascii: "E"): inExponent = true
                case UInt8(ascii: "."): inFraction = true
                case 0x30...0x39 where !inExponent:
                    if !(digits.isEmpty && byte == 0x30) { digits.append(byte) }
                    if inFraction { fractionDigits += 1 }
                default:
                    if inExponent { exponentText.unicodeScalars.append(Unicode.Scalar(byte)) }
                }
            }
            exponent = (Int(exponentText) ?? 0) - fractionDigits
            while digits.last == 0x30 {
                digits.removeLast()
                exponent += 1
            }
            if digits.isEmpty {
                negative = false
                exponent = 0
            }
        }
    }

    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].map { Array($0.utf8) }
    static let monthDays = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

    /// `Www Mmm dd hh:mm:ss ±hhmm yyyy` (English names, a day the month has that year, a time of day,
    /// a zone offset): what the `dateFormat` binding `EEE MMM dd HH:mm:ss Z yyyy` reads in
    /// the `en_US_POSIX` locale. Checked by hand: a `DateFormatter` costs ~0.5 M instructions a string.
    static func isTwitterDate(_ utf8: String.UTF8View) -> Bool {
        let b = Array(utf8)
        func digit(_ i: Int) -> Int? { b[i] >= 0x30 && b[i] <= 0x39 ? Int(b[i] - 0x30) : nil }
        func number(_ i: Int) -> Int? { digit(i).flatMap { tens in digit(i + 1).map { tens * 10 + $0 } } }
        guard [3, 7, 10, 19, 25].allSatisfy({ b[$0] == 0x20 }), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
            b[20] == UInt8(ascii: "+") || b[20] == UInt8(ascii: "-"),
            weekdays.contains(Array(b[0..<3])), let month = months.firstIndex(of: Array(b[4..<7])),
            let day = number(8), day >= 1, day <= monthDays[month], let hour = number(11), hour < 24,
            let minute = number(14), minute < 60, let second = number(17), second < 60,
            let zoneHours = number(21), zoneHours < 24, let zoneMinutes = number(23), zoneMinutes < 60,
            let century = number(26), let yearOfCentury = number(28)
        else { return false }
        // February 29 only in leap years (the Gregorian rule): the format rejects `Sun Feb 29 … 2015`.
        let year = century * 100 + yearOfCentury
        return month != 1 || day != 29 || (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
    }

    /// For 8-4-4-4-12 hexadecimal digits: true when no digit is a capital, false when one
    /// is; nil for anything else (RFC 9562 §4, as `uuid` attributes read it).
    private static func uuidCase(_ utf8: String.UTF8View) -> Bool? {
        var lowercase = true
        for (i, c) in utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
            } else if c >= 0x41 && c <= 0x46 {
                lowercase = false
            } else if !((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66)) {
                return nil
            }
        }
        return lowercase
    }

    /// `[+-]? digits ("." digits)? ([eE] [+-]? digits)?` in ASCII: the numeric strings that
    /// number attributes read (`JSONCoercion`'s numeric strings).
    static func isNumeric(_ utf8: String.UTF8View) -> Bool {
        var bytes = utf8.makeIterator()
        var c = bytes.next()
        func digits() -> Bool {
            var any = false
            while let d = c, d >= 0x30 && d <= 0x39 {
                any = true
                c = bytes.next()
            }
            return any
        }
        if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = bytes.next() }
        guard digits() else { return false }
        if c == UInt8(ascii: ".") {
            c = bytes.next()
            guard digits() else { return false }
        }
        if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            c = bytes.next()
            if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = bytes.next() }
            guard digits() else { return false }
        }
        return c == nil
    }

    /// A string `uri` attributes accept (``JSONCoercion/url(from:)``) with a scheme and a host:
    /// `https://x.org/a`, not `/a/b`, `mailto:a@b` or `https://x.org/{id}`.
    static func isAbsoluteURL(_ s: String) -> Bool {
        guard let colon = s.utf8.firstIndex(of: UInt8(ascii: ":")), s.utf8[colon...].starts(with: "://".utf8),
            s.utf8.count <= 2048
        else { return false }
        let scheme = s.utf8[..<colon]
        guard let first = scheme.first, (first >= 0x61 && first <= 0x7A) || (first >= 0x41 && first <= 0x5A) else { return false }
        guard let url = try? JSONCoercion.url(from: .string(s)), url.scheme != nil, let host = url.host, !host.isEmpty else {
            return false
        }
        return true
    }
}
