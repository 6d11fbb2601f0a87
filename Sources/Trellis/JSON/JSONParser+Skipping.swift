extension JSONParser {
    // MARK: - Validating without building (for the parts of a stream outside its key path)

    /// Checks one value at `pos` against the grammar (UTF-8, escapes, numbers, depth
    /// included) and moves past it without building strings, arrays or objects.
    mutating func skipValue(depthAvailable: Int) throws(Failure) {
        let baseFrame = frames.count
        outer: while true {
            skipWhitespace()
            guard pos < end else { throw endFailure("expected a JSON value") }
            let byte = base[pos]
            switch byte {
            case UInt8(ascii: "\""):
                pos &+= 1
                try skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = byte == UInt8(ascii: "{")
                if frames.count - baseFrame >= depthAvailable {
                    throw Failure(code: .depthLimitExceeded, offset: pos, message: "arrays and objects nested deeper than \(maximumDepth) levels")
                }
                frames.push(Frame(isObject: isObject, valueStart: 0, keyStart: 0))
                pos &+= 1
                skipWhitespace()
                guard pos < end else { throw endFailure(isObject ? "expected a string key or '}'" : "expected a JSON value or ']'") }
                if base[pos] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    pos &+= 1
                    _ = frames.popLast()
                } else {
                    if isObject { try skipKeyAndColon(afterComma: false) }
                    continue outer
                }
            case UInt8(ascii: "t"):
                try parseLiteralForSkip(0x6575_7274, "true", skipFirst: false)
            case UInt8(ascii: "f"):
                try parseLiteralForSkip(0x6573_6C61, "false", skipFirst: true)
            case UInt8(ascii: "n"):
                try parseLiteralForSkip(0x6C6C_756E, "null", skipFirst: false)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                _ = try parseNumber()
            default:
                throw Failure(code: .unexpectedCharacter, offset: pos, message: "expected a JSON value, found \(JSONParser.describe(byte))")
            }
            while frames.count > baseFrame {
                let isObject = frames.last.isObject
                skipWhitespace()
                guard pos < end else {
                    throw endFailure(isObject ? "expected ',' or '}' after object member" : "expected ',' or ']' after array element")
                }
                let next = base[pos]
                if next == UInt8(ascii: ",") {
                    pos &+= 1
                    if isObject { try skipKeyAndColon(afterComma: true) }
                    continue outer
                }
                guard next == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw Failure(
                        code: .unexpectedCharacter, offset: pos,
                        message: isObject ? "expected ',' or '}' after object member" : "expected ',' or ']' after array element")
                }
                pos &+= 1
                _ = frames.popLast()
            }
            return
        }
    }

    private mutating func parseLiteralForSkip(_ word: UInt32, _ name: StaticString, skipFirst: Bool) throws(Failure) {
        let at = skipFirst ? pos &+ 1 : pos
        if at &+ 4 <= end, UnsafeRawPointer(base + at).loadUnaligned(as: UInt32.self) == UInt32(littleEndian: word) {
            pos = at &+ 4
            return
        }
        // Not the literal, or cut short: the building path diagnoses it (or asks for more input).
        _ = try parseValue(depthAvailable: 0)
    }

    /// Skips `"key"` and `:` (validating the key).
    mutating func skipKeyAndColon(afterComma: Bool) throws(Failure) {
        skipWhitespace()
        guard pos < end else { throw endFailure("expected a string key") }
        let byte = base[pos]
        guard byte == UInt8(ascii: "\"") else {
            let message =
                afterComma && byte == UInt8(ascii: "}")
                ? "expected a string key after ',' (trailing commas are not allowed)"
                : "expected a string key, found \(JSONParser.describe(byte))"
            throw Failure(code: .unexpectedCharacter, offset: pos, message: message)
        }
        pos &+= 1
        try skipString()
        skipWhitespace()
        guard pos < end else { throw endFailure("expected ':' after object key") }
        guard base[pos] == UInt8(ascii: ":") else {
            throw Failure(code: .unexpectedCharacter, offset: pos, message: "expected ':' after object key, found \(JSONParser.describe(base[pos]))")
        }
        pos &+= 1
    }

    /// Validates a string whose opening quote is just before `pos` and moves past it.
    mutating func skipString() throws(Failure) {
        let start = pos
        var high: UInt64 = 0
        while pos &+ 8 <= end {
            let word = UnsafeRawPointer(base + pos).loadUnaligned(as: UInt64.self)
            let quote = word ^ 0x2222_2222_2222_2222
            let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let special =
                ((quote &- 0x0101_0101_0101_0101) & ~quote)
                | ((backslash &- 0x0101_0101_0101_0101) & ~backslash)
                | ((word &- 0x2020_2020_2020_2020) & ~word)
            if special & 0x8080_8080_8080_8080 != 0 { break }
            high |= word
            pos &+= 8
        }
        while pos < end {
            let b = base[pos]
            if b == UInt8(ascii: "\"") {
                if high & 0x8080_8080_8080_8080 != 0 {
                    let bytes = UnsafeBufferPointer(start: base + start, count: pos &- start)
                    let bad = JSONParser.firstInvalidUTF8(bytes)
                    if bad < bytes.count {
                        throw Failure(
                            code: .invalidUTF8, offset: start &+ bad,
                            message: "invalid UTF-8 byte 0x\(JSONParser.hex(UInt32(base[start &+ bad]), width: 2)) in string")
                    }
                }
                pos &+= 1
                return
            }
            if b == UInt8(ascii: "\\") || b < 0x20 {
                // Rare: let the building path decode and diagnose.
                pos = start
                _ = try parseString()
                return
            }
            high |= UInt64(b)
            pos &+= 1
        }
        pos = start
        _ = try parseString()
    }
}
