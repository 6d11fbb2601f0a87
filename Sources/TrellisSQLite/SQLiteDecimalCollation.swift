import CSQLite
import Foundation

/// The collation `trellis_decimal` (https://sqlite.org/c3ref/create_collation.html): decimal
/// attributes are stored as text (`Decimal.description`, exact digits), and compared and
/// sorted through this collation by their value, exactly, as ``InMemoryStore`` compares
/// `Decimal`s: `12345678901234567.88 < 12345678901234567.89` (which `CAST(… AS REAL)`
/// cannot tell apart), `1.5 == 1.50`, `-0 == 0`.
///
/// Text of the form `-?digits(.digits)?` (what Trellis writes) is compared digit by digit
/// without building a `Decimal`; other text goes through `Decimal(string:)`, and text that
/// is not a number at all sorts after every number, by its bytes.
enum SQLiteDecimalCollation {
    static let name = "trellis_decimal"

    /// Registers the collation on `handle`.
    static func register(on handle: OpaquePointer) {
        sqlite3_create_collation_v2(
            handle, name, SQLITE_UTF8, nil,
            { _, count1, bytes1, count2, bytes2 in
                let a = UnsafeRawBufferPointer(start: bytes1, count: Int(count1)).bindMemory(to: UInt8.self)
                let b = UnsafeRawBufferPointer(start: bytes2, count: Int(count2)).bindMemory(to: UInt8.self)
                return Int32(SQLiteDecimalCollation.compare(a, b))
            }, nil)
    }

    /// -1, 0 or 1: the order of the decimals written as `a` and `b`.
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        if let x = PlainDecimal(a), let y = PlainDecimal(b) { return PlainDecimal.compare(x, y) }
        let x = Decimal(string: String(decoding: a, as: UTF8.self), locale: nil).flatMap { $0.isNaN ? nil : $0 }
        let y = Decimal(string: String(decoding: b, as: UTF8.self), locale: nil).flatMap { $0.isNaN ? nil : $0 }
        switch (x, y) {
        case (let x?, let y?): return x < y ? -1 : (x == y ? 0 : 1)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil):
            for (p, q) in zip(a, b) where p != q { return p < q ? -1 : 1 }
            return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
        }
    }

    /// `-?digits(.digits)?` split into its sign, integer digits without leading zeros and
    /// fraction digits without trailing zeros.
    struct PlainDecimal {
        var negative: Bool
        var integer: Slice<UnsafeBufferPointer<UInt8>>
        var fraction: Slice<UnsafeBufferPointer<UInt8>>

        init?(_ text: UnsafeBufferPointer<UInt8>) {
            var i = 0
            let n = text.count
            negative = n > 0 && text[0] == UInt8(ascii: "-")
            if negative { i = 1 }
            let integerStart = i
            while i < n, text[i] >= 0x30, text[i] <= 0x39 { i += 1 }
            guard i > integerStart else { return nil }
            var start = integerStart
            while start < i, text[start] == 0x30 { start += 1 }
            integer = text[start..<i]
            if i < n {
                guard text[i] == UInt8(ascii: ".") else { return nil }
                i += 1
                let fractionStart = i
                while i < n, text[i] >= 0x30, text[i] <= 0x39 { i += 1 }
                guard i == n, i > fractionStart else { return nil }
                var end = i
                while end > fractionStart, text[end - 1] == 0x30 { end -= 1 }
                fraction = text[fractionStart..<end]
            } else {
                fraction = text[n..<n]
            }
            if integer.isEmpty && fraction.isEmpty { negative = false }  // -0 is 0
        }

        static func compare(_ x: PlainDecimal, _ y: PlainDecimal) -> Int {
            if x.negative != y.negative { return x.negative ? -1 : 1 }
            let magnitude = compareMagnitudes(x, y)
            return x.negative ? -magnitude : magnitude
        }

        private static func compareMagnitudes(_ x: PlainDecimal, _ y: PlainDecimal) -> Int {
            if x.integer.count != y.integer.count { return x.integer.count < y.integer.count ? -1 : 1 }
            for (p, q) in zip(x.integer, y.integer) where p != q { return p < q ? -1 : 1 }
            for (p, q) in zip(x.fraction, y.fraction) where p != q { return p < q ? -1 : 1 }
            return x.fraction.count < y.fraction.count ? -1 : (x.fraction.count == y.fraction.count ? 0 : 1)
        }
    }
}
