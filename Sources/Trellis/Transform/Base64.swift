import Foundation

/// Strict base64 decoding (RFC 4648 §4): the `A–Z a–z 0–9 + /` alphabet, length a
/// multiple of 4, `=` padding only at the end (one or two), and zero pad bits
/// (§3.5), so every accepted text is the one canonical encoding of its bytes and
/// `Data.base64EncodedString()` gives it back. No whitespace or line breaks, no
/// base64url (`-` `_`, §5).
///
/// Foundation's `Data(base64Encoded:)` is not used for reading: it accepts non-zero
/// pad bits (`"aGl="` reads as `"hi"`) and reads `"===="` as one zero byte.
enum Base64 {
    /// The bytes of `text`, or nil when it is not canonical padded base64.
    static func decode(_ text: String) -> Data? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    /// The bytes of the base64 text in `utf8`, or nil (see the type's rules).
    static func decode(_ utf8: UnsafeBufferPointer<UInt8>) -> Data? {
        let count = utf8.count
        guard count % 4 == 0 else { return nil }
        if count == 0 { return Data() }
        let padding = utf8[count - 1] == UInt8(ascii: "=") ? (utf8[count - 2] == UInt8(ascii: "=") ? 2 : 1) : 0
        var bytes = [UInt8]()
        bytes.reserveCapacity(count / 4 * 3 - padding)
        var i = 0
        while i < count {
            let last = i + 4 == count
            let v0 = value(utf8[i])
            let v1 = value(utf8[i + 1])
            let v2 = last && padding == 2 ? 0 : value(utf8[i + 2])
            let v3 = last && padding >= 1 ? 0 : value(utf8[i + 3])
            guard v0 | v1 | v2 | v3 < 64 else { return nil }
            let quantum = v0 << 18 | v1 << 12 | v2 << 6 | v3
            bytes.append(UInt8(truncatingIfNeeded: quantum >> 16))
            if last && padding == 2 {
                guard quantum & 0xFFFF == 0 else { return nil }  // pad bits must be zero
            } else if last && padding == 1 {
                guard quantum & 0xFF == 0 else { return nil }
                bytes.append(UInt8(truncatingIfNeeded: quantum >> 8))
            } else {
                bytes.append(UInt8(truncatingIfNeeded: quantum >> 8))
                bytes.append(UInt8(truncatingIfNeeded: quantum))
            }
            i += 4
        }
        return Data(bytes)
    }

    /// The 6-bit value of a base64 alphabet byte, or 255.
    @inline(__always)
    private static func value(_ byte: UInt8) -> UInt32 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return 255
        }
    }
}
