import Foundation

// Writing a `Date` back as epoch seconds or milliseconds (the `epoch-seconds` and
// `epoch-milliseconds` reverse transforms).

extension EpochInstant {
    /// The shortest decimal number of 10^-scale-ths of seconds since 1970 (scale 0:
    /// seconds, 3: milliseconds) that stands for `date`, as JSON number text; nil when
    /// `date` is not finite or beyond ±2^52 s (callers then write the `Double`).
    ///
    /// `Date` holds a `Double` of seconds since 2001, so an instant such as
    /// 143646844205 ms (1974) is held only to within half its spacing (about 15 ns in
    /// 1974, 0.1 ms at ±10^12 s), and `timeIntervalSince1970` shows that error
    /// (`143646844.20500004`). The number written is the decimal with the fewest
    /// fraction digits of seconds (0 to 9) that the importer reads back as this very
    /// `Date`, or that lies within one spacing of `timeIntervalSinceReferenceDate` plus
    /// one of `timeIntervalSince1970` (the most that reading it, and a trip through a
    /// store that keeps Unix seconds such as the SQLite store, can have moved the date).
    ///
    /// So every integral number of seconds or milliseconds within ±10^15 ms is written
    /// back as the same integer, after any number of import → store → export trips.
    static func epochText(for date: Date, scale: Int) -> String? {
        let since1970 = date.timeIntervalSince1970
        guard since1970.isFinite, since1970.magnitude <= Double(maxSeconds) else { return nil }
        let whole = since1970.rounded(.down)
        let fractionPart = since1970 - whole  // exact: the low bits of since1970
        guard let seconds = Int64(exactly: whole) else { return nil }
        let tolerance = date.timeIntervalSinceReferenceDate.ulp + since1970.ulp
        for digits in 0...9 {
            let p = powerOfTen(digits)
            var s = seconds
            var fraction = Int64((fractionPart * Double(p)).rounded())
            if fraction == p {
                s += 1
                fraction = 0
            }
            guard let instant = EpochInstant(seconds: s, fraction: fraction, fractionDigits: digits) else { return nil }
            let distance = (Double(s - seconds) + Double(fraction) / Double(p) - fractionPart).magnitude
            if distance <= tolerance || instant.date == date {
                return text(seconds: s, fraction: fraction, digits: digits, scale: scale)
            }
        }
        return nil
    }

    /// The text of `(seconds + fraction / 10^digits) × 10^scale`, with `seconds` the floor.
    private static func text(seconds: Int64, fraction: Int64, digits: Int, scale: Int) -> String {
        let negative = seconds < 0 && !(fraction == 0 && seconds == 0)
        var integer = seconds.magnitude
        var fraction = fraction
        if seconds < 0, fraction > 0 {
            integer -= 1
            fraction = powerOfTen(digits) - fraction
        }
        var fractionText = digits == 0 ? "" : String(fraction)
        fractionText = String(repeating: "0", count: digits - fractionText.count) + fractionText
        guard
            var parts = DecimalParts(
                literal: (negative ? "-" : "") + String(integer)
                    + (fractionText.isEmpty ? "" : "." + fractionText))
        else { return "0" }
        if !parts.digits.isEmpty { parts.exponent += scale }
        return NumericText.text(of: parts)
    }
}
