import Foundation
import Trellis

/// Numbers a server sends (headers, bodies, the page numbers and offsets of its URLs), read
/// with bounds: a value that does not fit is `nil` ("no hint", or an error the caller words),
/// never a trap. Arithmetic on them saturates (``adding(_:_:)``).
///
/// A server is untrusted input: `Retry-After: 9223372036854775807` is a valid RFC 9110
/// `delay-seconds`, and `Int(Double(…).rounded())` of it traps.
enum ServerNumber {
    /// The largest delay, in seconds, read as a hint (ten years); longer ones are no hint.
    static let maximumDelay: Double = 10 * 365 * 86_400

    /// The largest count, offset, total or page number read (2⁵³: every such integer is
    /// exact in a `Double` and in JSON numbers as most servers write them).
    static let maximumCount = 1 << 53

    /// RFC 9110 §10.2.3 `delay-seconds` (`1*DIGIT`, optional surrounding whitespace), in
    /// seconds; nil when the text is not digits or exceeds ``maximumDelay``.
    static func delaySeconds(_ text: String) -> Double? {
        guard let value = digits(text, maximum: Int(maximumDelay)) else { return nil }
        return Double(value)
    }

    /// A non-negative integer written in decimal digits (surrounding whitespace allowed),
    /// at most `maximum`; nil otherwise (signs, fractions, exponents, `inf`, `nan`, overflow).
    static func digits(_ text: String, maximum: Int = maximumCount) -> Int? {
        let trimmed = text.utf8.drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }.reversed()
        guard !trimmed.isEmpty, trimmed.count <= 19 else { return nil }
        var value = 0
        for byte in trimmed {
            guard byte >= 48, byte <= 57 else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int(byte - 48))
            guard !o1, !o2, sum <= maximum else { return nil }
            value = sum
        }
        return value
    }

    /// A JSON count (a total, an offset): a non-negative integral number up to
    /// ``maximumCount``, or a string of digits (some APIs quote their totals); nil otherwise.
    static func count(_ json: JSONValue) -> Int? {
        switch json {
        case .number(let number):
            guard let value = number.int64Value, value >= 0, value <= Int64(maximumCount) else { return nil }
            return Int(value)
        case .string(let text):
            return digits(text)
        default:
            return nil
        }
    }

    /// `a + b`, saturating at `Int.max`/`Int.min`.
    static func adding(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// Whole seconds for a message, rounded up and saturating (`1e300` → "more than 10 years").
    static func secondsText(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds <= maximumDelay else { return "more than \(Int(maximumDelay)) s" }
        return "\(Int(max(0, seconds).rounded(.up))) s"
    }
}
