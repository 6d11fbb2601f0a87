extension JSONParser {
    // MARK: - Strings (RFC 8259 §7)

    /// Parses a string whose opening quote is just before `pos`; leaves `pos` after the
    /// closing quote. Runs of plain bytes are scanned 8 at a time; strings without
    /// escapes are made straight from the input bytes.
    /// `isKey`: the string is an object key (cached separately; sets ``lastFingerprint``).
    @inline(__always)
    mutating func parseString(isKey: Bool = false) throws(Failure) -> String {
        let start = pos
        var high: UInt64 = 0
        // 8 bytes at a time: the lowest flagged byte is the first quote, backslash or
        // control character (the has-zero-byte trick is exact up to the first match).
        // Scan with locals (the compiler cannot keep `self.pos` in a register across
        // stores through the parser's pointers).
        let base = self.base
        let end = self.end
        var i = start
        while i &+ 8 <= end {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let quote = word ^ 0x2222_2222_2222_2222
            let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let special =
                (((quote &- 0x0101_0101_0101_0101) & ~quote)
                    | ((backslash &- 0x0101_0101_0101_0101) & ~backslash)
                    | ((word &- 0x2020_2020_2020_2020) & ~word)) & 0x8080_8080_8080_8080
            if special != 0 {
                let plainBits = UInt64(truncatingIfNeeded: special.trailingZeroBitCount) & ~7
                high |= word & ((1 &<< plainBits) &- 1)
                i &+= Int(truncatingIfNeeded: plainBits &>> 3)
                break
            }
            high |= word
            i &+= 8
        }
        pos = i
        while pos < end {
            let b = base[pos]
            if b == UInt8(ascii: "\"") {
                lastStringHadEscapes = false
                let count = pos &- start
                pos &+= 1
                if count <= 8 {
                    let w0 = JSONStringCache.word(base + start, count: count, available: end &- start)
                    let hash = JSONStringCache.hash(w0, count: count)
                    if isKey {
                        lastFingerprint = hash
                        if let cached = keyCache.lookup(w0, count: count, hash: hash) { return cached }
                        let string = try makeString(start: start, count: count, isASCII: high & 0x8080_8080_8080_8080 == 0)
                        keyCache.store(string, (w0, 0, 0, 0), count: count, hash: hash)
                        return string
                    }
                    if let cached = valueCache.lookup(w0, count: count, hash: hash) { return cached }
                    let string = try makeString(start: start, count: count, isASCII: high & 0x8080_8080_8080_8080 == 0)
                    valueCache.store(string, (w0, 0, 0, 0), count: count, hash: hash)
                    return string
                }
                if count <= JSONStringCache.maximumLength {
                    let words = JSONStringCache.words(base + start, count: count, available: end &- start)
                    let hash = JSONStringCache.hash(words, count: count)
                    if isKey {
                        lastFingerprint = hash
                        if let cached = keyCache.lookup(words, count: count, hash: hash) { return cached }
                        let string = try makeString(start: start, count: count, isASCII: high & 0x8080_8080_8080_8080 == 0)
                        keyCache.store(string, words, count: count, hash: hash)
                        return string
                    }
                    if let cached = valueCache.lookup(words, count: count, hash: hash) { return cached }
                    let string = try makeString(start: start, count: count, isASCII: high & 0x8080_8080_8080_8080 == 0)
                    valueCache.store(string, words, count: count, hash: hash)
                    return string
                }
                if isKey { lastFingerprint = JSONParser.fingerprint(base + start, count: count) }
                return try makeString(start: start, count: count, isASCII: high & 0x8080_8080_8080_8080 == 0)
            }
            if b == UInt8(ascii: "\\") {
                return try parseEscapedString(start: start)
            }
            if b < 0x20 {
                throw controlCharacterFailure(b)
            }
            high |= UInt64(b)
            pos &+= 1
        }
        if !isFinal { throw Failure(code: .needMoreInput, offset: end, message: "unterminated string") }
        // Report invalid UTF-8 inside the unterminated string first: it is the earlier error.
        let bytes = UnsafeBufferPointer(start: base + start, count: end - start)
        if high & 0x8080_8080_8080_8080 != 0, String(validating: bytes, as: UTF8.self) == nil {
            let bad = JSONParser.firstInvalidUTF8(bytes)
            throw Failure(
                code: .invalidUTF8, offset: start &+ bad, message: "invalid UTF-8 byte 0x\(JSONParser.hex(UInt32(base[start &+ bad]), width: 2)) in string")
        }
        throw endFailure("unterminated string")
    }

    /// A string from plain (unescaped) bytes of the input, validating non-ASCII UTF-8.
    @inline(__always)
    private func makeString(start: Int, count: Int, isASCII: Bool) throws(Failure) -> String {
        let bytes = UnsafeBufferPointer(start: base + start, count: count)
        if isASCII { return String(decoding: bytes, as: UTF8.self) }
        if let string = String(validating: bytes, as: UTF8.self) { return string }
        let bad = JSONParser.firstInvalidUTF8(bytes)
        throw Failure(
            code: .invalidUTF8, offset: start &+ bad, message: "invalid UTF-8 byte 0x\(JSONParser.hex(UInt32(base[start &+ bad]), width: 2)) in string")
    }

    /// The escape path: copies runs of plain bytes into `scratch` in bulk (found 8 bytes
    /// at a time), decodes escapes, and validates the UTF-8 once at the end. On any
    /// error it re-reads the string byte by byte (``parseEscapedStringCarefully(start:)``)
    /// so that the first error in the text is the one reported, at its exact byte.
    mutating func parseEscapedString(start: Int) throws(Failure) -> String {
        lastStringHadEscapes = true
        lastFingerprint = 0
        scratch.removeAll(keepingCapacity: true)
        var high: UInt64 = 0
        var runStart = start
        do throws(Failure) {
            while true {
                guard pos < end else { throw endFailure("unterminated string") }
                let b = base[pos]
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                    if runStart < pos {
                        scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: pos &- runStart))
                    }
                    if b == UInt8(ascii: "\"") {
                        pos &+= 1
                        break
                    }
                    try parseEscape()
                    runStart = pos
                    continue
                }
                if b < 0x20 { throw controlCharacterFailure(b) }
                // A run of plain bytes.
                while pos &+ 8 <= end {
                    let word = UnsafeRawPointer(base + pos).loadUnaligned(as: UInt64.self)
                    let quote = word ^ 0x2222_2222_2222_2222
                    let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
                    let special =
                        (((quote &- 0x0101_0101_0101_0101) & ~quote)
                            | ((backslash &- 0x0101_0101_0101_0101) & ~backslash)
                            | ((word &- 0x2020_2020_2020_2020) & ~word)) & 0x8080_8080_8080_8080
                    if special != 0 {
                        let plainBits = UInt64(truncatingIfNeeded: special.trailingZeroBitCount) & ~7
                        high |= word & ((1 &<< plainBits) &- 1)
                        pos &+= Int(truncatingIfNeeded: plainBits &>> 3)
                        break
                    }
                    high |= word
                    pos &+= 8
                }
                while pos < end {
                    let c = base[pos]
                    if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { break }
                    high |= UInt64(c)
                    pos &+= 1
                }
            }
            if high & 0x8080_8080_8080_8080 != 0 {
                // Raw runs and decoded escapes are each complete sequences, so the whole
                // is valid exactly when every raw run is.
                if let string = String(validating: scratch, as: UTF8.self) { return string }
                throw Failure(code: .invalidUTF8, offset: start, message: "")
            }
            return String(decoding: scratch, as: UTF8.self)
        } catch {
            if error.code == .needMoreInput { throw error }
            pos = start
            return try parseEscapedStringCarefully(start: start)
        }
    }

    /// Decodes escapes into `scratch` byte by byte, validating raw UTF-8 sequence by
    /// sequence, so an error points at the first offending byte.
    private mutating func parseEscapedStringCarefully(start: Int) throws(Failure) -> String {
        scratch.removeAll(keepingCapacity: true)
        while pos < end {
            let b = base[pos]
            if b == UInt8(ascii: "\"") {
                pos &+= 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if b == UInt8(ascii: "\\") {
                try parseEscape()
            } else if b < 0x20 {
                throw controlCharacterFailure(b)
            } else if b < 0x80 {
                scratch.append(b)
                pos &+= 1
            } else {
                let length = try utf8SequenceLength(at: pos)
                scratch.append(contentsOf: UnsafeBufferPointer(start: base + pos, count: length))
                pos &+= length
            }
        }
        throw endFailure("unterminated string")
    }

    /// Decodes one escape at `pos` (the backslash) into `scratch`.
    private mutating func parseEscape() throws(Failure) {
        let escapeStart = pos
        guard pos &+ 1 < end else { throw endFailure("unterminated escape sequence in string", at: escapeStart) }
        let e = base[pos &+ 1]
        let decoded: UInt8
        switch e {
        case UInt8(ascii: "\""): decoded = 0x22
        case UInt8(ascii: "\\"): decoded = 0x5C
        case UInt8(ascii: "/"): decoded = 0x2F
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            try parseUnicodeEscape()
            return
        default:
            let shown = e >= 0x21 && e <= 0x7E ? "'\\\(Character(Unicode.Scalar(e)))'" : "'\\' followed by \(JSONParser.describe(e))"
            throw Failure(code: .invalidEscape, offset: escapeStart, message: "invalid escape sequence \(shown) in string")
        }
        scratch.append(decoded)
        pos &+= 2
    }

    /// Decodes `\uXXXX` (and a following `\uXXXX` low surrogate) at `pos`.
    private mutating func parseUnicodeEscape() throws(Failure) {
        let escapeStart = pos
        let unit = try hex4(at: pos &+ 2, escapeStart: escapeStart)
        pos &+= 6
        if unit < 0xD800 || unit > 0xDFFF {
            appendScalar(UInt32(unit))
            return
        }
        if unit <= 0xDBFF {
            // A high surrogate: a low one must follow as another \u escape.
            if pos &+ 6 > end, !isFinal {
                throw Failure(code: .needMoreInput, offset: end, message: "unterminated string")
            }
            if pos &+ 1 < end, base[pos] == UInt8(ascii: "\\"), base[pos &+ 1] == UInt8(ascii: "u") {
                let low = try hex4(at: pos &+ 2, escapeStart: pos)
                if low >= 0xDC00 && low <= 0xDFFF {
                    let scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    appendScalar(scalar)
                    pos &+= 6
                    return
                }
            }
        }
        guard replacesLoneSurrogates else {
            throw Failure(
                code: .loneSurrogate, offset: escapeStart,
                message: "lone surrogate \\u\(JSONParser.hex(UInt32(unit), width: 4)) in string (a UTF-16 surrogate must be part of a pair)")
        }
        appendScalar(0xFFFD)
    }

    private func hex4(at offset: Int, escapeStart: Int) throws(Failure) -> UInt16 {
        var value: UInt16 = 0
        for i in 0..<4 {
            guard offset &+ i < end else { throw endFailure("unterminated \\u escape in string", at: escapeStart) }
            let c = base[offset &+ i]
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c &- 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c &- 0x57
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c &- 0x37
            default:
                throw Failure(code: .invalidEscape, offset: escapeStart, message: "invalid \\u escape in string: expected 4 hexadecimal digits")
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private mutating func appendScalar(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | (scalar >> 6)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | (scalar >> 12)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            scratch.append(UInt8(0xF0 | (scalar >> 18)))
            scratch.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    private func controlCharacterFailure(_ b: UInt8) -> Failure {
        Failure(
            code: .controlCharacterInString, offset: pos,
            message: "unescaped control character U+\(JSONParser.hex(UInt32(b), width: 4)) in string")
    }

    // MARK: - UTF-8 (RFC 3629)

    /// The length of the well-formed UTF-8 sequence starting at `offset` (a byte ≥ 0x80).
    private func utf8SequenceLength(at offset: Int) throws(Failure) -> Int {
        let available = end &- offset
        let length = JSONParser.wellFormedLength(base + offset, available: available)
        if length > 0 { return length }
        if length == 0, !isFinal { throw Failure(code: .needMoreInput, offset: end, message: "unterminated string") }
        throw Failure(
            code: .invalidUTF8, offset: offset,
            message: "invalid UTF-8 byte 0x\(JSONParser.hex(UInt32(base[offset]), width: 2)) in string")
    }

    /// Length of the well-formed sequence at `p` (first byte ≥ 0x80); -1 when
    /// ill-formed; 0 when it is a valid prefix cut short by `available`.
    static func wellFormedLength(_ p: UnsafePointer<UInt8>, available: Int) -> Int {
        let b0 = p[0]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default: return -1
        }
        for i in 1..<length {
            guard i < available else { return 0 }
            let b = p[i]
            let (lo, hi) = i == 1 ? (lower, upper) : (UInt8(0x80), UInt8(0xBF))
            if b < lo || b > hi { return -1 }
        }
        return length
    }

    /// Offset of the first byte of `bytes` that starts an ill-formed (or truncated)
    /// UTF-8 sequence; `bytes.count` when all are well formed.
    static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let p = bytes.baseAddress else { return 0 }
        var i = 0
        while i < bytes.count {
            if p[i] < 0x80 {
                i += 1
                continue
            }
            let length = wellFormedLength(p + i, available: bytes.count - i)
            if length <= 0 { return i }
            i += length
        }
        return bytes.count
    }
}
