import Foundation

// Interim coercions used by the importer and exporter until `JSONCoercion` (branch
// `transform`) lands; every call goes through `coerce(_:to:)` and `exportJSON(_:as:)`.

/// Why a JSON value does not fit an attribute type (the message has no value in it).
struct CoercionFailure: Error {
    let message: String
}

/// The attribute value for `json` (nil for JSON `null`).
/// - Throws: ``CoercionFailure`` with a short reason (`not an integer`, `out of range …`).
func coerce(_ json: JSONValue, to type: AttributeType) throws -> AttributeValue? {
    switch (type, json) {
    case (_, .null):
        return nil
    case (.json, _):
        return .json(json)
    case (.string, .string(let s)):
        return .string(s)
    case (.string, .number(let n)):
        return .string(n.text)
    case (.integer16, _), (.integer32, _), (.integer64, _):
        let value: Int64
        switch json {
        case .number(let n):
            guard let i = n.int64Value else {
                throw CoercionFailure(message: n.isIntegerLiteral ? "out of range" : "not a whole number")
            }
            value = i
        case .string(let s):
            if let i = Int64(s) {
                value = i
            } else if let n = JSONNumber(text: s) {
                guard let i = n.int64Value else {
                    throw CoercionFailure(message: n.isIntegerLiteral ? "out of range" : "not a whole number")
                }
                value = i
            } else {
                throw CoercionFailure(message: "not an integer")
            }
        default:
            throw CoercionFailure(message: "expected a number or a string, found \(json.kind == .array || json.kind == .object ? "an" : "a") \(json.kind)")
        }
        if let range = type.integerRange, !range.contains(value) {
            throw CoercionFailure(message: "out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return .integer(value)
    case (.double, .number(let n)), (.float, .number(let n)):
        guard let d = n.doubleValue else { throw CoercionFailure(message: "out of range") }
        return .double(type == .float ? Double(Float(d)) : d)
    case (.double, .string(let s)), (.float, .string(let s)):
        guard let d = JSONNumber(text: s)?.doubleValue else { throw CoercionFailure(message: "not a number") }
        return .double(type == .float ? Double(Float(d)) : d)
    case (.decimal, .number(let n)):
        guard let d = n.decimalValue else { throw CoercionFailure(message: "more than 38 significant digits or out of range") }
        return .decimal(d)
    case (.decimal, .string(let s)):
        guard let n = JSONNumber(text: s) else { throw CoercionFailure(message: "not a decimal number") }
        guard let d = n.decimalValue else { throw CoercionFailure(message: "more than 38 significant digits or out of range") }
        return .decimal(d)
    case (.boolean, .bool(let b)):
        return .bool(b)
    case (.boolean, .number(let n)):
        switch n.int64Value {
        case 0: return .bool(false)
        case 1: return .bool(true)
        default: throw CoercionFailure(message: "not 0 or 1")
        }
    case (.boolean, .string(let s)):
        switch s.lowercased() {
        case "true", "yes", "1": return .bool(true)
        case "false", "no", "0": return .bool(false)
        default: throw CoercionFailure(message: "not a boolean")
        }
    case (.date, .string(let s)):
        guard let date = RFC3339.parse(s) else { throw CoercionFailure(message: "not an RFC 3339 date") }
        return .date(date)
    case (.date, .number(let n)):
        guard let seconds = n.doubleValue else { throw CoercionFailure(message: "out of range") }
        return .date(Date(timeIntervalSince1970: seconds))
    case (.binary, .string(let s)):
        guard let data = Data(base64Encoded: s) else { throw CoercionFailure(message: "not base64") }
        return .binary(data)
    case (.uuid, .string(let s)):
        guard let uuid = UUID(uuidString: s) else { throw CoercionFailure(message: "not a UUID") }
        return .uuid(uuid)
    case (.uri, .string(let s)):
        guard let url = URL(string: s) else { throw CoercionFailure(message: "not a URI") }
        return .uri(url)
    default:
        let article = json.kind == .array || json.kind == .object ? "an" : "a"
        throw CoercionFailure(message: "expected a \(type == .string ? "string" : "compatible value"), found \(article) \(json.kind)")
    }
}

/// The JSON form of an attribute value (see ``AttributeType``'s table).
func exportJSON(_ value: AttributeValue, as type: AttributeType) -> JSONValue {
    switch value {
    case .string(let s): return .string(s)
    case .integer(let i): return .number(JSONNumber(i))
    case .decimal(let d): return JSONNumber(text: d.description).map(JSONValue.number) ?? .string(d.description)
    case .double(let d):
        if type == .float, let n = JSONNumber(text: Float(d).description) { return .number(n) }
        return .number(JSONNumber(d))
    case .bool(let b): return .bool(b)
    case .date(let d): return .string(RFC3339.format(d))
    case .binary(let data): return .string(data.base64EncodedString())
    case .uuid(let u): return .string(u.uuidString.lowercased())
    case .uri(let u): return .string(u.absoluteString)
    case .json(let j): return j
    }
}

/// RFC 3339 timestamps (`2011-08-21T18:02:52.249Z`, `…+02:00`, any fraction), parsed and
/// formatted without Foundation formatters (proleptic Gregorian calendar, UTC).
enum RFC3339 {
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= bytes.count else { return nil }
            var v = 0
            for k in i..<(i + n) {
                let b = bytes[k]
                guard b >= 0x30 && b <= 0x39 else { return nil }
                v = v * 10 + Int(b - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < bytes.count, bytes[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2) else { return nil }
        guard i < bytes.count, bytes[i] == 0x54 || bytes[i] == 0x74 || bytes[i] == 0x20 else { return nil }
        i += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month), hour < 24, minute < 60, second <= 60 else {
            return nil
        }
        var fraction = 0.0
        if i < bytes.count, bytes[i] == 0x2E {
            i += 1
            var scale = 0.1
            let start = i
            while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 {
                fraction += Double(bytes[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case 0x5A, 0x7A:
            i += 1
        case 0x2B, 0x2D:
            let sign = bytes[i] == 0x2D ? -1 : 1
            i += 1
            guard let oh = digits(2), expect(0x3A), let om = digits(2), oh < 24, om < 60 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard i == bytes.count else { return nil }
        let days = daysFromCivil(year, month, day)
        let seconds = Double(days * 86400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// `2011-08-21T18:02:52.249Z` (UTC, milliseconds).
    static func format(_ date: Date) -> String {
        let totalMilliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard totalMilliseconds.isFinite, abs(totalMilliseconds) < 1e17 else { return "1970-01-01T00:00:00.000Z" }
        let ms = Int64(totalMilliseconds)
        var days = ms / 86_400_000
        var rest = ms % 86_400_000
        if rest < 0 { rest += 86_400_000; days -= 1 }
        let (y, m, d) = civilFromDays(Int(days))
        let h = rest / 3_600_000, mi = (rest / 60_000) % 60, s = (rest / 1000) % 60, f = rest % 1000
        func pad(_ v: Int64, _ n: Int) -> String {
            let t = String(v)
            return t.count >= n ? t : String(repeating: "0", count: n - t.count) + t
        }
        return "\(pad(Int64(y), 4))-\(pad(Int64(m), 2))-\(pad(Int64(d), 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(f, 3))Z"
    }

    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

/// A short JSON rendering of a value for error messages: at most `limit` characters, `…` when cut.
func jsonSnippet(_ value: JSONValue, limit: Int = 40) -> String {
    var out = ""
    func write(_ v: JSONValue) {
        if out.count > limit { return }
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n.text
        case .string(let s):
            out += "\""
            for scalar in s.unicodeScalars {
                if out.count > limit { break }
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                default:
                    if scalar.value < 0x20 { out += "\\u" + String(format: "%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
                }
            }
            out += "\""
        case .array(let a):
            out += "["
            for (i, e) in a.enumerated() {
                if out.count > limit { break }
                if i > 0 { out += "," }
                write(e)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, m) in o.members.enumerated() {
                if out.count > limit { break }
                if i > 0 { out += "," }
                write(.string(m.key))
                out += ":"
                write(m.value)
            }
            out += "}"
        }
    }
    write(value)
    if out.count > limit { return String(out.prefix(limit)) + "…" }
    return out
}
