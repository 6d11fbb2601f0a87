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
    func advanced(over bytes: UnsafeRawBufferPointer) -> JSONTextPosition {
        var result = self
        result.byteOffset += bytes.count
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return result }
        var lastLF = -1
        var lines = 0
        for i in 0..<bytes.count where base[i] == 0x0A {
            lines += 1
            lastLF = i
        }
        var scalars = 0
        var i = lastLF + 1
        while i < bytes.count {
            if base[i] & 0xC0 != 0x80 { scalars += 1 }
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
