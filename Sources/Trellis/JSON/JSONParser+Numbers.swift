extension JSONParser {
    // MARK: - Numbers (RFC 8259 §6)

    /// Parses a number at `pos` (a `-` or a digit). An integer literal in `Int64`'s range
    /// is computed while scanning and stored as `.int`; any other number keeps its text.
    mutating func parseNumber() throws(Failure) -> JSONNumber {
        let start = pos
        var negative = false
        if base[pos] == UInt8(ascii: "-") {
            negative = true
            pos &+= 1
            guard pos < end else { throw endFailure("expected a digit after '-'") }
        }
        let digitsStart = pos
        var magnitude: UInt64 = 0
        var b = base[pos]
        if b == UInt8(ascii: "0") {
            pos &+= 1
            if pos < end, JSONParser.isDigit(base[pos]) {
                throw Failure(code: .invalidNumber, offset: digitsStart, message: "invalid number: leading zeros are not allowed")
            }
        } else if JSONParser.isDigit(b) {
            let base = self.base
            let end = self.end
            var i = pos
            repeat {
                magnitude = magnitude &* 10 &+ UInt64(b &- 0x30)
                i &+= 1
                guard i < end else { break }
                b = base[i]
            } while JSONParser.isDigit(b)
            pos = i
        } else {
            throw Failure(code: .invalidNumber, offset: pos, message: "invalid number: expected a digit after '-', found \(JSONParser.describe(b))")
        }
        let integerDigits = pos &- digitsStart
        var isInteger = true
        if pos < end, base[pos] == UInt8(ascii: ".") {
            isInteger = false
            pos &+= 1
            try skipDigits(after: "'.'")
        }
        if pos < end, base[pos] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            pos &+= 1
            if pos < end, base[pos] == UInt8(ascii: "+") || base[pos] == UInt8(ascii: "-") { pos &+= 1 }
            try skipDigits(after: "the exponent marker")
        }
        if pos == end, !isFinal {
            throw Failure(code: .needMoreInput, offset: end, message: "number cut short")
        }
        if isInteger, !(negative && magnitude == 0 && codableSemantics) {
            if integerDigits <= 18 {
                let value = Int64(bitPattern: magnitude)
                return JSONNumber(storage: .int(negative ? 0 &- value : value))
            }
            if integerDigits == 19 {
                // 19 digits never overflow UInt64 (< 10^19 < 2^64).
                if !negative, magnitude <= UInt64(Int64.max) {
                    return JSONNumber(storage: .int(Int64(magnitude)))
                }
                if negative, magnitude <= UInt64(Int64.max) &+ 1 {
                    return JSONNumber(storage: .int(Int64(bitPattern: 0 &- magnitude)))
                }
            }
        }
        let count = pos &- start
        if count <= JSONStringCache.maximumLength {
            // Texts like "4.5" repeat; share them through the value cache (same bytes, same string).
            let words = JSONStringCache.words(base + start, count: count, available: end &- start)
            let hash = JSONStringCache.hash(words, count: count)
            if let cached = valueCache.lookup(words, count: count, hash: hash) { return JSONNumber(storage: .text(cached)) }
            let text = String(decoding: UnsafeBufferPointer(start: base + start, count: count), as: UTF8.self)
            valueCache.store(text, words, count: count, hash: hash)
            return JSONNumber(storage: .text(text))
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: count), as: UTF8.self)
        return JSONNumber(storage: .text(text))
    }

    private mutating func skipDigits(after what: String) throws(Failure) {
        guard pos < end else { throw endFailure("invalid number: expected a digit after \(what)") }
        guard JSONParser.isDigit(base[pos]) else {
            throw Failure(code: .invalidNumber, offset: pos, message: "invalid number: expected a digit after \(what), found \(JSONParser.describe(base[pos]))")
        }
        repeat { pos &+= 1 } while pos < end && JSONParser.isDigit(base[pos])
    }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
}
