import Trellis

/// JSON text for `json` attributes (stored as TEXT, so SQLite's JSON functions such as
/// `json_extract` work on them: https://sqlite.org/json1.html).
///
/// A minimal writer and reader kept private to the store until the core's `JSONWriter`
/// and `JSONReader` land on main; the store then calls those instead. Writes compact
/// RFC 8259 text (numbers as ``JSONNumber/text``, so exact digits are kept); reads back
/// exactly what it wrote (and any valid JSON text).
enum JSONText {
    struct Failure: Error {
        let message: String
    }

    // MARK: - Writing

    /// Compact JSON text of `value`.
    /// - Throws: ``Failure`` for a non-finite number (not representable in JSON).
    static func write(_ value: JSONValue) throws(Failure) -> String {
        var out = ""
        try write(value, to: &out)
        return out
    }

    private static func write(_ value: JSONValue, to out: inout String) throws(Failure) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n):
            if case .double(let d) = n.storage, !d.isFinite {
                throw Failure(message: "the JSON number \(d) is not finite")
            }
            out += n.text
        case .string(let s): writeString(s, to: &out)
        case .array(let elements):
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                try write(element, to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            var first = true
            for (key, element) in object {
                if !first { out += "," }
                first = false
                writeString(key, to: &out)
                out += ":"
                try write(element, to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    // MARK: - Reading

    /// Parses JSON text (RFC 8259).
    /// - Throws: ``Failure`` naming the byte offset of the first error.
    static func parse(_ text: String) throws(Failure) -> JSONValue {
        var parser = Parser(bytes: Array(text.utf8))
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("trailing characters") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func failure(_ what: String) -> Failure { Failure(message: "\(what) at byte \(index)") }

        mutating func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                index += 1
            }
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard depth < 512 else { throw failure("nesting too deep") }
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                index += 1
                var elements: [JSONValue] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                while true {
                    elements.append(try value(depth: depth + 1))
                    skipWhitespace()
                    guard index < bytes.count else { throw failure("unexpected end") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                    throw failure("expected , or ]")
                }
            case UInt8(ascii: "{"):
                index += 1
                var object = JSONObject()
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
                while true {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
                    let key = try string()
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected :") }
                    index += 1
                    object[key] = try value(depth: depth + 1)
                    skipWhitespace()
                    guard index < bytes.count else { throw failure("unexpected end") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
                    throw failure("expected , or }")
                }
            default:
                let start = index
                while index < bytes.count, Self.isNumberByte(bytes[index]) { index += 1 }
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                guard let number = JSONNumber(text: text) else { index = start; throw failure("invalid value") }
                return .number(number)
            }
        }

        static func isNumberByte(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
                || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw failure("invalid literal") }
            for i in 0..<count where bytes[index + i] != word.utf8Start[i] { throw failure("invalid literal") }
            index += count
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard index + 4 <= bytes.count else { throw failure("short \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                let d: UInt32
                switch b {
                case 0x30...0x39: d = UInt32(b - 0x30)
                case 0x41...0x46: d = UInt32(b - 0x41 + 10)
                case 0x61...0x66: d = UInt32(b - 0x61 + 10)
                default: throw failure("bad \\u escape")
                }
                v = v << 4 | d
                index += 1
            }
            return v
        }

        mutating func string() throws(Failure) -> String {
            index += 1  // opening quote
            var out = String.UnicodeScalarView()
            var runStart = index
            func flush(_ out: inout String.UnicodeScalarView, _ from: Int, _ to: Int, _ bytes: [UInt8]) {
                if to > from { out.append(contentsOf: String(decoding: bytes[from..<to], as: UTF8.self).unicodeScalars) }
            }
            while index < bytes.count {
                let b = bytes[index]
                if b == UInt8(ascii: "\"") {
                    flush(&out, runStart, index, bytes)
                    index += 1
                    return String(out)
                }
                if b < 0x20 { throw failure("control character in string") }
                if b != UInt8(ascii: "\\") { index += 1; continue }
                flush(&out, runStart, index, bytes)
                index += 1
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append("\"")
                case UInt8(ascii: "\\"): out.append("\\")
                case UInt8(ascii: "/"): out.append("/")
                case UInt8(ascii: "b"): out.append("\u{08}")
                case UInt8(ascii: "f"): out.append("\u{0C}")
                case UInt8(ascii: "n"): out.append("\n")
                case UInt8(ascii: "r"): out.append("\r")
                case UInt8(ascii: "t"): out.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count,
                       bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            out.append("\u{FFFD}")
                            code = low
                        }
                    }
                    out.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: throw failure("bad escape")
                }
                runStart = index
            }
            throw failure("unterminated string")
        }
    }
}
