/// Writes encoded values in Foundation `JSONEncoder`'s exact layout (see
/// ``TrellisJSONEncoder`` for the rules).
struct CodableJSONWriter {
    private(set) var bytes: [UInt8] = []
    private let pretty: Bool
    private let sorted: Bool
    private let escapesSlashes: Bool

    init(formatting: TrellisJSONEncoder.OutputFormatting) {
        pretty = formatting.contains(.prettyPrinted)
        sorted = formatting.contains(.sortedKeys)
        escapesSlashes = !formatting.contains(.withoutEscapingSlashes)
        bytes.reserveCapacity(4096)
    }

    mutating func write(_ value: CodableEncodedValue) {
        write(value, indent: 0)
    }

    private mutating func write(_ value: CodableEncodedValue, indent: Int) {
        switch value {
        case .null: append("null")
        case .bool(let bool): append(bool ? "true" : "false")
        case .int(let int): appendInteger(int)
        case .uint(let uint): appendUnsigned(uint)
        case .double(let double): appendFloat(double.description)
        case .float(let float): appendFloat(float.description)
        case .numberText(let text): bytes.append(contentsOf: text.utf8)
        case .string(let string): appendString(string)
        case .deferred(let encoder): write(encoder.value ?? .object(CodableEncodedObject()), indent: indent)
        case .array(let array):
            let values = array.values
            bytes.append(UInt8(ascii: "["))
            if values.isEmpty {
                if pretty {
                    newline()
                    newline()
                    spaces(indent)
                }
            } else {
                for i in values.indices {
                    if i > 0 { bytes.append(UInt8(ascii: ",")) }
                    if pretty {
                        newline()
                        spaces(indent + 2)
                    }
                    write(values[i], indent: indent + 2)
                }
                if pretty {
                    newline()
                    spaces(indent)
                }
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            let keys = object.keys
            let values = object.values
            bytes.append(UInt8(ascii: "{"))
            if keys.isEmpty {
                if pretty {
                    newline()
                    newline()
                    spaces(indent)
                }
            } else {
                let order = sorted ? keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) } : Array(keys.indices)
                var first = true
                for i in order {
                    if !first { bytes.append(UInt8(ascii: ",")) }
                    first = false
                    if pretty {
                        newline()
                        spaces(indent + 2)
                    }
                    appendString(keys[i])
                    append(pretty ? " : " : ":")
                    write(values[i], indent: indent + 2)
                }
                if pretty {
                    newline()
                    spaces(indent)
                }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    // MARK: - Pieces

    @inline(__always)
    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    private mutating func newline() { bytes.append(0x0A) }

    private mutating func spaces(_ count: Int) {
        for _ in 0..<count { bytes.append(0x20) }
    }

    private mutating func appendInteger(_ value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendUnsigned(value.magnitude)
        } else {
            appendUnsigned(UInt64(value))
        }
    }

    private mutating func appendUnsigned(_ value: UInt64) {
        if value < 10 {
            bytes.append(UInt8(truncatingIfNeeded: value) &+ 0x30)
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes ≥ 20 digits
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                buffer[23 - count] = UInt8(truncatingIfNeeded: rest % 10) &+ 0x30
                rest /= 10
                count += 1
            }
            bytes.append(contentsOf: buffer[(24 - count)...])
        }
    }

    /// A float's shortest round-trip text without a trailing `.0` (Foundation's rule).
    private mutating func appendFloat(_ description: String) {
        bytes.append(contentsOf: Self.floatText(description).utf8)
    }

    /// The text Foundation's `JSONEncoder` writes for a finite float whose Swift
    /// `description` is `description`: the same, without a trailing `.0` (`1.0` → `1`).
    static func floatText(_ description: String) -> String {
        var text = description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var start = 0
            for i in utf8.indices {
                let b = utf8[i]
                let escape: UInt8
                switch b {
                case UInt8(ascii: "\""): escape = UInt8(ascii: "\"")
                case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
                case UInt8(ascii: "/"):
                    guard escapesSlashes else { continue }
                    escape = UInt8(ascii: "/")
                case 0x08: escape = UInt8(ascii: "b")
                case 0x09: escape = UInt8(ascii: "t")
                case 0x0A: escape = UInt8(ascii: "n")
                case 0x0C: escape = UInt8(ascii: "f")
                case 0x0D: escape = UInt8(ascii: "r")
                case 0x00..<0x20: escape = UInt8(ascii: "u")
                default: continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(escape)
                if escape == UInt8(ascii: "u") {
                    bytes.append(contentsOf: [0x30, 0x30, Self.hex[Int(b >> 4)], Self.hex[Int(b & 0x0F)]])
                }
                start = i + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
