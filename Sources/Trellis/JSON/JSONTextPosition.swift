import Foundation

/// The line and column of a byte in a text that may be read in windows (chunks).
///
/// `line` counts LF bytes; `column` counts Unicode scalars since the last LF, i.e. the
/// bytes that are not UTF-8 continuation bytes (`10xxxxxx`). Both start at 1.
struct JSONTextPosition: Sendable, Equatable {
    /// Offset from the start of the whole input, in bytes.
    var byteOffset: Int = 0
    var line: Int = 1
    var column: Int = 1

    /// The position after `bytes`, which start at this position.
    /// - Complexity: O(n): line feeds with `memchr`, columns 32 ASCII bytes at a time (a
    ///   streamed file is counted once, as its buffer is compacted: a one-line 30 MB array
    ///   is 30 MB of column counting).
    func advanced(over bytes: UnsafeRawBufferPointer) -> JSONTextPosition {
        var result = self
        result.byteOffset += bytes.count
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return result }
        // Line feeds: how many, and where the last one is (memchr, vectorised by the C library;
        // JSON text has few of them).
        var lastLF = -1
        var lines = 0
        var from = 0
        while from < count, let hit = memchr(base + from, 0x0A, count - from) {
            lastLF = base.distance(to: UnsafeRawPointer(hit))
            lines += 1
            from = lastLF + 1
        }
        // Scalars after it: the bytes that are not continuation bytes (10xxxxxx); 32 bytes at
        // a time while they are all ASCII.
        var scalars = 0
        var i = lastLF + 1
        while i + 32 <= count {
            let a = Self.word(base, i)
            let b = Self.word(base, i + 8)
            let c = Self.word(base, i + 16)
            let d = Self.word(base, i + 24)
            if (a | b | c | d) & 0x8080_8080_8080_8080 == 0 {
                scalars += 32
            } else {
                scalars += 32 - Self.continuationBytes(a) - Self.continuationBytes(b) - Self.continuationBytes(c) - Self.continuationBytes(d)
            }
            i += 32
        }
        while i + 8 <= count {
            scalars += 8 - Self.continuationBytes(Self.word(base, i))
            i += 8
        }
        while i < count {
            if base.load(fromByteOffset: i, as: UInt8.self) & 0xC0 != 0x80 { scalars += 1 }
            i += 1
        }
        if lastLF >= 0 {
            result.line += lines
            result.column = 1 + scalars
        } else {
            result.column += scalars
        }
        return result
    }

    /// The eight bytes at `offset`, byte k in bits 8k…8k+7 whatever the machine's byte order.
    @inline(__always)
    private static func word(_ base: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// How many of the eight bytes of `w` are UTF-8 continuation bytes (`10xxxxxx`).
    @inline(__always)
    private static func continuationBytes(_ w: UInt64) -> Int {
        (w & ~(w << 1) & 0x8080_8080_8080_8080).nonzeroBitCount
    }

    /// A located ``JSONParseError`` for a failure at `offset` in `window`, which starts at
    /// position `origin` of the whole input.
    static func error(
        code: JSONParseError.Code, message: String, offset: Int,
        in window: UnsafeRawBufferPointer, origin: JSONTextPosition = JSONTextPosition()
    ) -> JSONParseError {
        let offset = max(0, min(offset, window.count))
        let prefix = UnsafeRawBufferPointer(rebasing: window[0..<offset])
        let position = origin.advanced(over: prefix)
        return JSONParseError(
            code: code, message: message, byteOffset: position.byteOffset,
            line: position.line, column: position.column,
            excerpt: excerpt(at: offset, in: window))
    }

    /// Up to about 40 columns either side of `offset` on its line, and a caret line.
    static func excerpt(at offset: Int, in window: UnsafeRawBufferPointer) -> String {
        guard let base = window.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return "^" }
        let count = window.count
        let reach = 40
        var start = offset
        while start > 0, base[start - 1] != 0x0A, offset - start < reach { start -= 1 }
        while start < offset, base[start] & 0xC0 == 0x80 { start += 1 }
        let truncatedStart = start > 0 && base[start - 1] != 0x0A
        var end = offset
        while end < count, base[end] != 0x0A, base[end] != 0x0D, end - offset < reach { end += 1 }
        while end < count, end > offset, base[end] & 0xC0 == 0x80 { end += 1 }
        let truncatedEnd = end < count && base[end] != 0x0A && base[end] != 0x0D
        func render(_ range: Range<Int>) -> String {
            let text = String(decoding: UnsafeBufferPointer(start: base + range.lowerBound, count: range.count), as: UTF8.self)
            var scalars = String.UnicodeScalarView()
            for scalar in text.unicodeScalars {
                scalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar)
            }
            return String(scalars)
        }
        let before = (truncatedStart ? "…" : "") + render(start..<offset)
        let after = render(offset..<end) + (truncatedEnd ? "…" : "")
        let caretColumn = before.unicodeScalars.count
        return before + after + "\n" + String(repeating: " ", count: caretColumn) + "^"
    }
}
