/// Numbers written inside JSON strings (`"42"`, `"-1.5e3"`), and decimal text rendering.
enum NumericText {
    /// The JSON number text of a numeric string, or nil. A numeric string is
    /// `[+-]? digits ("." digits)? ([eE] [+-]? digits)?` with ASCII digits: a JSON number
    /// that may also have a leading `+` and leading zeros (`"+42"`, `"007"`). No
    /// whitespace, no `.5` or `5.`, no hexadecimal, `inf` or `nan`. The returned text
    /// drops the `+`, so `Double(_:)`, `Float(_:)` and ``DecimalParts`` read it.
    static func literal(_ s: String) -> Substring? {
        var utf8 = Substring(s).utf8[...]
        let plus = utf8.first == UInt8(ascii: "+")
        if plus { utf8 = utf8.dropFirst() }
        let text = Substring(utf8)
        var i = utf8.startIndex
        let end = utf8.endIndex
        func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
        func digits() -> Bool {
            let start = i
            while i < end, isDigit(utf8[i]) { i = utf8.index(after: i) }
            return i != start
        }
        if !plus, i < end, utf8[i] == UInt8(ascii: "-") { i = utf8.index(after: i) }
        guard digits() else { return nil }
        if i < end, utf8[i] == UInt8(ascii: ".") {
            i = utf8.index(after: i)
            guard digits() else { return nil }
        }
        if i < end, utf8[i] == UInt8(ascii: "e") || utf8[i] == UInt8(ascii: "E") {
            i = utf8.index(after: i)
            if i < end, utf8[i] == UInt8(ascii: "+") || utf8[i] == UInt8(ascii: "-") { i = utf8.index(after: i) }
            guard digits() else { return nil }
        }
        return i == end ? text : nil
    }

    /// Sign, digits and exponent of a numeric string (see ``literal(_:)``), or nil.
    static func parts(ofNumericString s: String) -> DecimalParts? {
        guard let literal = literal(s) else { return nil }
        return DecimalParts(literal: String(literal))
    }

    /// Sign, digits and exponent of a JSON number, or nil for a non-finite `Double`.
    static func parts(of number: JSONNumber) -> DecimalParts? {
        switch number.storage {
        case .int(let i):
            return DecimalParts(literal: String(i))
        case .double(let d):
            guard d.isFinite else { return nil }
            return DecimalParts(literal: JSONNumber.shortestText(d))
        case .text(let t):
            return DecimalParts(literal: t)
        }
    }

    /// JSON number text for `parts`: plain digits when the decimal point falls within
    /// 21 places of the digits (`1314131052249`, `0.001`, `-12.5`), otherwise scientific
    /// notation (`1.5e+30`, `1e-9`). Zero is `0`.
    static func text(of parts: DecimalParts) -> String {
        guard !parts.digits.isEmpty else { return "0" }
        var out: [UInt8] = parts.negative ? [UInt8(ascii: "-")] : []
        let count = parts.digits.count
        let exponent = parts.exponent
        let pointPosition = count + exponent  // digits before the decimal point
        if exponent >= 0, pointPosition <= 21 {
            out += parts.digits
            out += repeatElement(UInt8(ascii: "0"), count: exponent)
        } else if exponent < 0, pointPosition > 0 {
            out += parts.digits[..<pointPosition]
            out.append(UInt8(ascii: "."))
            out += parts.digits[pointPosition...]
        } else if exponent < 0, pointPosition > -6 {
            out += [UInt8(ascii: "0"), UInt8(ascii: ".")]
            out += repeatElement(UInt8(ascii: "0"), count: -pointPosition)
            out += parts.digits
        } else {
            out.append(parts.digits[0])
            if count > 1 {
                out.append(UInt8(ascii: "."))
                out += parts.digits[1...]
            }
            out.append(UInt8(ascii: "e"))
            let scientificExponent = pointPosition - 1
            out += Array((scientificExponent < 0 ? String(scientificExponent) : "+" + String(scientificExponent)).utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
