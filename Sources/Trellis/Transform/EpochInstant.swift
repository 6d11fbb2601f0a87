import Foundation

/// An exact instant on the POSIX time line: `seconds + fraction / 10^fractionDigits`
/// seconds since 1970-01-01T00:00:00Z, with `seconds` the floor (so `fraction` is never
/// negative). Turns into the `Date` whose `timeIntervalSince1970` is the `Double` nearest
/// to that exact value (ties to even), computed with integer arithmetic (no decimal text,
/// no double rounding).
struct EpochInstant: Hashable {
    /// Whole seconds since 1970, rounded toward negative infinity. |seconds| ≤ 2^52.
    var seconds: Int64
    /// The fraction's digits as an integer, 0 ..< 10^fractionDigits.
    var fraction: Int64
    /// Number of fraction digits, 0...9.
    var fractionDigits: Int

    /// Largest magnitude of ``seconds`` (2^52 s, about 142 million years): every whole
    /// second up to it is an exact `Double`, which the rounding below relies on.
    static let maxSeconds: Int64 = 1 << 52
    /// Seconds from 1970-01-01 to 2001-01-01, the reference date `Date` counts from.
    static let referenceDateOffset: Int64 = 978_307_200
    /// 10^n for n in 0...18 (a constant table: no lazy global on the parsing path).
    @inline(__always)
    static func powerOfTen(_ n: Int) -> Int64 {
        switch n {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        case 17: 100_000_000_000_000_000
        default: 1_000_000_000_000_000_000
        }
    }

    /// An instant; nil when |seconds| > ``maxSeconds``, `fractionDigits` is not in 0...9
    /// or `fraction` is not in 0 ..< 10^fractionDigits. Trailing zeros of the fraction
    /// are dropped.
    init?(seconds: Int64, fraction: Int64 = 0, fractionDigits: Int = 0) {
        guard seconds.magnitude <= UInt64(EpochInstant.maxSeconds), (0...9).contains(fractionDigits),
            fraction >= 0, fraction < EpochInstant.powerOfTen(fractionDigits)
        else { return nil }
        var fraction = fraction
        var digits = fractionDigits
        while digits > 0, fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        self.seconds = seconds
        self.fraction = fraction
        self.fractionDigits = digits
    }

    /// An instant from fields the caller has already validated (the RFC 3339 parser:
    /// |seconds| < 2^39, fraction below 10^fractionDigits ≤ 10^9). Trailing zeros of the
    /// fraction are dropped.
    @inline(__always)
    init(validSeconds seconds: Int64, fraction: Int64, fractionDigits: Int) {
        var fraction = fraction
        var digits = fractionDigits
        while digits > 0, fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        self.seconds = seconds
        self.fraction = fraction
        self.fractionDigits = digits
    }

    /// The instant `parts × 10^-scale` seconds (scale 3 reads milliseconds); nil when it
    /// needs more than 9 fraction digits or exceeds ``maxSeconds`` (callers then go
    /// through the decimal text).
    init?(_ parts: DecimalParts, scale: Int = 0) {
        if parts.digits.isEmpty {
            self.init(seconds: 0)
            return
        }
        let exponent = parts.exponent - scale
        guard exponent >= -9, parts.digits.count + exponent <= 16 else { return nil }
        let fractionCount = max(0, -exponent)
        let integerCount = parts.digits.count - fractionCount
        var integer: Int64 = 0
        var fraction: Int64 = 0
        for (i, d) in parts.digits.enumerated() {
            if i < integerCount {
                integer = integer * 10 + Int64(d - 0x30)
            } else {
                fraction = fraction * 10 + Int64(d - 0x30)
            }
        }
        if exponent > 0 { integer *= EpochInstant.powerOfTen(exponent) }
        // Leading zeros of the fraction were dropped from `digits`; fractionCount keeps the scale.
        if parts.negative {
            if fraction > 0 {
                self.init(
                    seconds: -integer - 1, fraction: EpochInstant.powerOfTen(fractionCount) - fraction,
                    fractionDigits: fractionCount)
            } else {
                self.init(seconds: -integer)
            }
        } else {
            self.init(seconds: integer, fraction: fraction, fractionDigits: fractionCount)
        }
    }

    /// The `Date` for this instant: `timeIntervalSince1970` is the `Double` nearest to
    /// the exact value whenever `Date` can hold such a value. `Date` stores seconds
    /// since 2001 as a `Double` and adds 978307200 on the way out; from 1985 on (and for
    /// every whole second) that round trip is exact. Between 1970 and 1985, and for
    /// fractional instants before 1970, the nearest `Double` may have finer spacing than
    /// `Date` can hold; the result is then the `Date` nearest to the instant
    /// (`timeIntervalSinceReferenceDate` correctly rounded).
    var date: Date {
        let since1970 = EpochInstant.nearestDouble(seconds: seconds, fraction: fraction, digits: fractionDigits)
        // What `Date(timeIntervalSince1970:)` and `timeIntervalSince1970` compute (tests pin it).
        let offset = Double(EpochInstant.referenceDateOffset)
        let candidate = since1970 - offset
        if candidate + offset == since1970 { return Date(timeIntervalSinceReferenceDate: candidate) }
        let sinceReference = EpochInstant.nearestDouble(
            seconds: seconds - EpochInstant.referenceDateOffset, fraction: fraction, digits: fractionDigits)
        return Date(timeIntervalSinceReferenceDate: sinceReference)
    }

    /// The `Double` nearest to `seconds + fraction / 10^digits` (ties to even), for
    /// |seconds| ≤ 2^52 + 2^30 and 0 ≤ fraction < 10^digits ≤ 10^9.
    ///
    /// With N = |value| × 10^digits an integer: when N ≤ 2^53 both N and 10^digits are
    /// exact `Double`s and one IEEE division is correctly rounded (Clinger's fast path).
    /// Otherwise the 53-bit significand is the integer quotient of N × 2^shift by
    /// 10^digits (128-bit dividend), rounded half to even with the remainder.
    static func nearestDouble(seconds: Int64, fraction: Int64, digits: Int) -> Double {
        if fraction == 0 { return Double(seconds) }
        let p = UInt64(EpochInstant.powerOfTen(digits))
        let negative = seconds < 0
        // N = |seconds| × p ± fraction, as a 128-bit (high, low) pair.
        var (high, low) = seconds.magnitude.multipliedFullWidth(by: p)
        if negative {
            let (difference, borrow) = low.subtractingReportingOverflow(UInt64(fraction))
            low = difference
            if borrow { high -= 1 }
        } else {
            let (sum, carry) = low.addingReportingOverflow(UInt64(fraction))
            low = sum
            if carry { high += 1 }
        }
        let magnitude: Double
        if high == 0, low <= 1 << 53 {
            magnitude = Double(low) / Double(p)
        } else {
            // |value| ≥ 2^53 / 10^9, so its integer part has 24...53 bits.
            let integerPart = p.dividingFullWidth((high: high, low: low)).quotient
            let shift = 53 - (UInt64.bitWidth - integerPart.leadingZeroBitCount)
            let shiftedHigh = shift == 0 ? high : (high << UInt64(shift)) | (low >> UInt64(64 - shift))
            let shiftedLow = low << UInt64(shift)
            var (significand, remainder) = p.dividingFullWidth((high: shiftedHigh, low: shiftedLow))
            if remainder * 2 > p || (remainder * 2 == p && significand & 1 == 1) { significand += 1 }
            magnitude = Double(significand) / Double(UInt64(1) << UInt64(shift))
        }
        return negative ? -magnitude : magnitude
    }
}
