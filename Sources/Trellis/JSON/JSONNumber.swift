import Foundation

/// An exact JSON number.
///
/// The reader stores an integer literal that fits `Int64` as an `Int64`, and every
/// other number (fractions, exponents, integers beyond `Int64`) as its decimal text
/// exactly as written, so that `Int64`, `Decimal`, big integers and `Double` can each be
/// read from it without loss. A number made from a Swift `Double` keeps that `Double`
/// and is written as the shortest text that reads back as the same `Double`.
///
///     JSONNumber(text: "505874924095815681")?.int64Value   // 505874924095815681
///     JSONNumber(text: "0.1")?.decimalValue                // 0.1 exactly (Decimal)
///     JSONNumber(text: "1e400")?.doubleValue               // nil: out of Double's range
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// How the number is held.
    public enum Storage: Sendable {
        /// An integer in `Int64`'s range.
        case int(Int64)
        /// A `Double` given by Swift code (never by the reader).
        case double(Double)
        /// Decimal text that matches RFC 8259's `number` grammar, kept verbatim.
        case text(String)
    }

    /// The stored representation.
    public let storage: Storage

    // MARK: - Initialisers

    /// An integer number.
    public init(_ value: Int64) { storage = .int(value) }

    /// A floating-point number. Non-finite values are accepted here but rejected by
    /// the writer (`JSONWriter` throws `JSONWriteError.nonFiniteNumber`).
    public init(_ value: Double) { storage = .double(value) }

    /// A number from its decimal text, or nil when `text` is not a JSON number
    /// (RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`).
    /// An integer literal within `Int64`'s range is stored as `Int64`.
    public init?(text: String) {
        guard JSONNumber.isValidLiteral(text.utf8) else { return nil }
        self.init(validatedLiteral: text)
    }

    /// A number from text already known to match the JSON grammar (used by the reader).
    init(validatedLiteral text: String) {
        if let int = Int64(text) {
            storage = .int(int)
        } else {
            storage = .text(text)
        }
    }

    /// Storage from a literal whose integer value the reader has already computed.
    init(storage: Storage) { self.storage = storage }

    // MARK: - Views

    /// `true` when the number is written without fraction or exponent (`12`, `-3`,
    /// `18446744073709551616`), whatever its size.
    public var isIntegerLiteral: Bool {
        switch storage {
        case .int: return true
        case .double(let d): return d.isFinite && d.rounded(.towardZero) == d && !d.description.contains("e")
        case .text(let t): return !t.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
        }
    }

    /// The value as `Int64` when it is a whole number in range (`100`, `1.0e2`, `-0`);
    /// nil for fractions and out-of-range numbers. Never rounds, never traps.
    public var int64Value: Int64? {
        switch storage {
        case .int(let i):
            return i
        case .double(let d):
            return d.isFinite && d.rounded(.towardZero) == d ? Int64(exactly: d) : nil
        case .text(let t):
            return JSONNumber.exactInt64(fromLiteral: t)
        }
    }

    /// The nearest `Double` (correctly rounded); nil when the magnitude is beyond
    /// `Double`'s finite range (`1e400`). Tiny values round to zero (`1e-400` → 0).
    public var doubleValue: Double? {
        switch storage {
        case .int(let i): return Double(i)
        case .double(let d): return d.isFinite ? d : nil
        case .text(let t):
            guard let d = Double(t), d.isFinite else { return nil }
            return d
        }
    }

    /// The value as a Foundation `Decimal` (38 significant decimal digits); nil when the
    /// number is out of `Decimal`'s range or has more significant digits than `Decimal`
    /// holds (it would be rounded). A `Double` is converted through its shortest text.
    public var decimalValue: Decimal? {
        let text = self.text
        return JSONNumber.exactDecimal(fromLiteral: text)
    }

    /// The number's JSON text: integers in decimal, a `Double` as the shortest text
    /// that reads back as the same `Double` (`0.1`, `1e-07`), reader text verbatim.
    /// Non-finite doubles give `"nan"`, `"inf"` or `"-inf"`, which are not JSON; the
    /// writer rejects them.
    public var text: String {
        switch storage {
        case .int(let i): return String(i)
        case .double(let d): return JSONNumber.shortestText(d)
        case .text(let t): return t
        }
    }

    public var description: String { text }

    // MARK: - Equality

    /// Two numbers are equal when both are whole numbers in `Int64`'s range with the
    /// same value; otherwise, when either was made from a `Double`, when their nearest
    /// `Double`s are equal; otherwise when their texts are identical.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        if let l = lhs.int64Value, let r = rhs.int64Value { return l == r }
        if case .double = lhs.storage { return lhs.rawDouble == rhs.rawDouble }
        if case .double = rhs.storage { return lhs.rawDouble == rhs.rawDouble }
        if lhs.int64Value != nil || rhs.int64Value != nil { return false }
        return lhs.text == rhs.text
    }

    public func hash(into hasher: inout Hasher) {
        if let i = int64Value {
            hasher.combine(0 as UInt8)
            hasher.combine(i)
        } else {
            hasher.combine(1 as UInt8)
            hasher.combine(rawDouble)
        }
    }

    // MARK: - Internals

    /// `Double(text)` without the finiteness check (may be ±infinity).
    private var rawDouble: Double {
        switch storage {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .text(let t): return Double(t) ?? .nan
        }
    }

    /// Shortest round-trip text of a finite double, in JSON syntax (Swift's `description`
    /// already yields the shortest digits; an exponent like `e-07` is valid JSON).
    static func shortestText(_ d: Double) -> String {
        if !d.isFinite { return d.isNaN ? "nan" : (d < 0 ? "-inf" : "inf") }
        return d.description
    }

    /// `true` when `utf8` matches the RFC 8259 number grammar.
    static func isValidLiteral<C: Collection>(_ utf8: C) -> Bool where C.Element == UInt8 {
        var i = utf8.startIndex
        let end = utf8.endIndex
        func digit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        if i < end, utf8[i] == UInt8(ascii: "-") { i = utf8.index(after: i) }
        guard i < end else { return false }
        if utf8[i] == UInt8(ascii: "0") {
            i = utf8.index(after: i)
        } else if digit(utf8[i]) {
            while i < end, digit(utf8[i]) { i = utf8.index(after: i) }
        } else {
            return false
        }
        if i < end, utf8[i] == UInt8(ascii: ".") {
            i = utf8.index(after: i)
            guard i < end, digit(utf8[i]) else { return false }
            while i < end, digit(utf8[i]) { i = utf8.index(after: i) }
        }
        if i < end, utf8[i] == UInt8(ascii: "e") || utf8[i] == UInt8(ascii: "E") {
            i = utf8.index(after: i)
            if i < end, utf8[i] == UInt8(ascii: "+") || utf8[i] == UInt8(ascii: "-") { i = utf8.index(after: i) }
            guard i < end, digit(utf8[i]) else { return false }
            while i < end, digit(utf8[i]) { i = utf8.index(after: i) }
        }
        return i == end
    }

    /// Exact `Int64` from a valid literal with fraction/exponent (`1.0e2` → 100,
    /// `1.5` → nil, `1e30` → nil). Works on the digits, never through `Double`.
    static func exactInt64(fromLiteral text: String) -> Int64? {
        if let i = Int64(text) { return i }
        guard let parts = DecimalParts(literal: text) else { return nil }
        return parts.exactInt64()
    }

    /// `Decimal` from a valid literal, or nil when it cannot be held exactly.
    static func exactDecimal(fromLiteral text: String) -> Decimal? {
        guard let parts = DecimalParts(literal: text) else { return nil }
        return parts.exactDecimal()
    }
}

/// A JSON number literal split into sign, significant digits and a power-of-ten
/// exponent: value = (negative ? -1 : 1) × digits × 10^exponent. Leading and trailing
/// zeros of the digits are removed (trailing ones moved into the exponent).
struct DecimalParts {
    var negative: Bool
    var digits: [UInt8]  // ASCII digits, no leading zeros; empty means zero
    var exponent: Int

    init?(literal text: String) {
        var negative = false
        var digits: [UInt8] = []
        var exponent = 0
        var seenPoint = false
        var iterator = text.utf8.makeIterator()
        var pending = iterator.next()
        if pending == UInt8(ascii: "-") {
            negative = true
            pending = iterator.next()
        }
        while let b = pending, (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: ".") {
            if b == UInt8(ascii: ".") {
                seenPoint = true
            } else {
                if !(digits.isEmpty && b == 0x30) { digits.append(b) }
                if seenPoint { exponent -= 1 }
            }
            pending = iterator.next()
        }
        if let b = pending {
            guard b == UInt8(ascii: "e") || b == UInt8(ascii: "E") else { return nil }
            var expNegative = false
            var expValue = 0
            var next = iterator.next()
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") {
                expNegative = next == UInt8(ascii: "-")
                next = iterator.next()
            }
            guard next != nil else { return nil }
            while let d = next {
                guard d >= 0x30 && d <= 0x39 else { return nil }
                // Saturate: an exponent beyond ±10^9 is out of every supported range anyway.
                if expValue < 1_000_000_000 { expValue = expValue * 10 + Int(d - 0x30) }
                next = iterator.next()
            }
            exponent += expNegative ? -expValue : expValue
        }
        while let last = digits.last, last == 0x30 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { exponent = 0 }
        self.negative = negative
        self.digits = digits
        self.exponent = exponent
    }

    func exactInt64() -> Int64? {
        if digits.isEmpty { return 0 }
        guard exponent >= 0, digits.count + exponent <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for d in digits {
            magnitude = magnitude * 10 + UInt64(d - 0x30)
        }
        for _ in 0..<exponent {
            let (m, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            magnitude = m
        }
        if negative {
            if magnitude == UInt64(Int64.max) + 1 { return .min }
            return magnitude <= UInt64(Int64.max) ? -Int64(magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    func exactDecimal() -> Decimal? {
        if digits.isEmpty { return Decimal(0) }
        // Decimal holds 38 significant digits and exponents in -128...127.
        guard digits.count <= 38, exponent >= -128, exponent <= 127 else { return nil }
        var mantissa = Decimal(0)
        for d in digits {
            mantissa = mantissa * 10 + Decimal(Int(d - 0x30))
        }
        let value = Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: mantissa)
        return value
    }
}
