import Foundation

/// Why a value does not convert, before the map adds the path and the expected type.
struct ConversionFailure: Error {
    var code: MappingError.Code
    var message: String
    var underlyingError: (any Error)? = nil
}

// INTERIM: these bodies become calls to `JSONCoercion` when the `transform` branch lands.

/// The typed layer's conversions from JSON scalars.
enum MappingCoercion {
    static func int64(_ value: JSONValue) throws(ConversionFailure) -> Int64 {
        switch value {
        case .number(let n):
            if let i = n.int64Value { return i }
            if let parts = DecimalParts(literal: n.text), parts.exponent >= 0 {
                throw ConversionFailure(code: .overflow, message: "out of range \(Int64.min)...\(Int64.max)")
            }
            throw ConversionFailure(code: .inexact, message: "not a whole number")
        case .string(let s):
            let t = s.trimmingCharacters(in: .whitespaces)
            guard let n = JSONNumber(text: t) else { throw ConversionFailure(code: .invalidValue, message: "not a number") }
            return try int64(.number(n))
        default:
            throw ConversionFailure(code: .typeMismatch, message: "")
        }
    }

    static func double(_ value: JSONValue) throws(ConversionFailure) -> Double {
        switch value {
        case .number(let n):
            guard let d = n.doubleValue else { throw ConversionFailure(code: .overflow, message: "out of Double's range") }
            return d
        case .string(let s):
            guard let n = JSONNumber(text: s.trimmingCharacters(in: .whitespaces)) else {
                throw ConversionFailure(code: .invalidValue, message: "not a number")
            }
            return try double(.number(n))
        default:
            throw ConversionFailure(code: .typeMismatch, message: "")
        }
    }

    static func decimal(_ value: JSONValue) throws(ConversionFailure) -> Decimal {
        switch value {
        case .number(let n):
            guard let d = n.decimalValue else { throw ConversionFailure(code: .inexact, message: "more than 38 significant digits or out of range") }
            return d
        case .string(let s):
            guard let n = JSONNumber(text: s.trimmingCharacters(in: .whitespaces)) else {
                throw ConversionFailure(code: .invalidValue, message: "not a number")
            }
            return try decimal(.number(n))
        default:
            throw ConversionFailure(code: .typeMismatch, message: "")
        }
    }

    static func bool(_ value: JSONValue) throws(ConversionFailure) -> Bool {
        switch value {
        case .bool(let b): return b
        case .number(let n):
            switch n.int64Value {
            case 1: return true
            case 0: return false
            default: throw ConversionFailure(code: .invalidValue, message: "only 1 and 0 are booleans")
            }
        case .string(let s):
            switch s.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: throw ConversionFailure(code: .invalidValue, message: "not a boolean")
            }
        default:
            throw ConversionFailure(code: .typeMismatch, message: "")
        }
    }

    static func string(_ value: JSONValue) throws(ConversionFailure) -> String {
        switch value {
        case .string(let s): return s
        case .number(let n): return n.text
        case .bool(let b): return b ? "true" : "false"
        default: throw ConversionFailure(code: .typeMismatch, message: "")
        }
    }

    static func date(_ value: JSONValue) throws(ConversionFailure) -> Date {
        switch value {
        case .string(let s):
            guard let d = MappingDates.date(fromRFC3339: s) else {
                throw ConversionFailure(code: .invalidValue, message: "not an RFC 3339 date")
            }
            return d
        case .number:
            return Date(timeIntervalSince1970: try double(value))
        default:
            throw ConversionFailure(code: .typeMismatch, message: "")
        }
    }

    static func epochSeconds(_ value: JSONValue) throws(ConversionFailure) -> Date {
        guard case .number = value else { throw ConversionFailure(code: .typeMismatch, message: "") }
        return Date(timeIntervalSince1970: try double(value))
    }

    static func epochMilliseconds(_ value: JSONValue) throws(ConversionFailure) -> Date {
        guard case .number = value else { throw ConversionFailure(code: .typeMismatch, message: "") }
        return Date(timeIntervalSince1970: try double(value) / 1000)
    }

    static func rfc3339(_ value: JSONValue) throws(ConversionFailure) -> Date {
        guard case .string = value else { throw ConversionFailure(code: .typeMismatch, message: "") }
        return try date(value)
    }

    static func url(_ value: JSONValue) throws(ConversionFailure) -> URL {
        guard case .string(let s) = value else { throw ConversionFailure(code: .typeMismatch, message: "") }
        guard !s.isEmpty, let url = URL(string: s) else { throw ConversionFailure(code: .invalidValue, message: "not a URL") }
        return url
    }

    static func uuid(_ value: JSONValue) throws(ConversionFailure) -> UUID {
        guard case .string(let s) = value else { throw ConversionFailure(code: .typeMismatch, message: "") }
        guard let uuid = UUID(uuidString: s) else { throw ConversionFailure(code: .invalidValue, message: "not a UUID") }
        return uuid
    }

    static func data(_ value: JSONValue) throws(ConversionFailure) -> Data {
        guard case .string(let s) = value else { throw ConversionFailure(code: .typeMismatch, message: "") }
        guard let data = Data(base64Encoded: s) else { throw ConversionFailure(code: .invalidValue, message: "not base64") }
        return data
    }

    /// An exact `UInt64` from a whole number or numeric string beyond `Int64`'s range
    /// (`18446744073709551615`); nil when negative, fractional or too large.
    static func uint64(_ value: JSONValue) -> UInt64? {
        let text: String
        switch value {
        case .number(let n): text = n.text
        case .string(let s): text = s.trimmingCharacters(in: .whitespaces)
        default: return nil
        }
        guard JSONNumber(text: text) != nil, let parts = DecimalParts(literal: text) else { return nil }
        if parts.digits.isEmpty { return 0 }
        guard !parts.negative, parts.exponent >= 0, parts.digits.count + parts.exponent <= 20 else { return nil }
        var magnitude: UInt64 = 0
        for digit in parts.digits {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit - 0x30))
            if o1 || o2 { return nil }
            magnitude = sum
        }
        for _ in 0..<parts.exponent {
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            magnitude = times10
        }
        return magnitude
    }
}
