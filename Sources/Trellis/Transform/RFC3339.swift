import Foundation

/// Reads and writes RFC 3339 date-times (the ISO 8601 profile used on the web) without
/// `DateFormatter`, `Calendar`, locales or time zones: fields are parsed from UTF-8 bytes,
/// validated, and turned into seconds with Howard Hinnant's `days_from_civil`.
///
/// Accepted (RFC 3339 §5.6 `date-time`, plus the extensions marked ⁺):
///
/// | part          | form                                                                    |
/// |---------------|-------------------------------------------------------------------------|
/// | date          | `yyyy-MM-dd`, year 0000–9999, day checked against the month and leap years (proleptic Gregorian, as RFC 3339 §5.6 and ISO 8601 say; Foundation's `Calendar` switches to Julian before 1582-10-15, so `Date.distantPast` is written `0000-12-30`) |
/// | separator     | `T` or `t`, or a space ⁺ (RFC 3339 §5.6 note)                           |
/// | time          | `HH:mm:ss`, hour 00–23, minute 00–59, second 00–60 (see leap seconds)   |
/// | fraction      | `.` and 1–9 digits (nanoseconds at most; 10 or more digits are rejected) |
/// | offset        | `Z` or `z`; `±HH:mm`; `±HHmm` ⁺ (ISO 8601 basic); none ⁺, meaning UTC    |
/// | date only ⁺   | `yyyy-MM-dd` alone is midnight UTC                                      |
///
/// Rejected: anything else, including surrounding whitespace, `24:00:00`, hour-only
/// offsets (`+02`), a comma as decimal sign, week and ordinal dates, years beyond 9999.
/// `-00:00` (RFC 3339 §4.3, "offset unknown") is read as UTC.
///
/// **Leap seconds.** Second `60` is accepted in any minute (the offset may move a UTC
/// leap second to any local minute) and, since POSIX time has no leap seconds, counts
/// as the first second of the next minute: `2016-12-31T23:59:60Z` is the same instant as
/// `2017-01-01T00:00:00Z`. No leap-second table is consulted.
///
/// **Rounding.** The result's `timeIntervalSince1970` is the `Double` nearest to the
/// exact decimal instant (ties to even), as `Double("1314131052.249")` would give,
/// for every instant from 1985 on and every whole second. (`Date` stores seconds since
/// 2001; between 1970 and 1985 it cannot always hold that `Double`, and the `Date`
/// nearest to the instant is returned.)
///
///     RFC3339.date(from: "2011-08-23T20:24:12.249Z")?.timeIntervalSince1970   // 1314131052.249
///     RFC3339.date(from: "2011-08-23T22:24:12.249+02:00")                    // the same instant
///     RFC3339.string(from: date)                                              // "2011-08-23T20:24:12.249Z"
///     RFC3339.exactString(from: date)                   // as many fraction digits as `date` needs: 3, 6 or 9
///
/// - Complexity: O(n) in the length of the text, no allocation when the string is
///   contiguous UTF-8.
public enum RFC3339 {
    // MARK: - Reading

    /// The instant written as an RFC 3339 date-time or full-date (see the table above);
    /// nil when `text` is not one.
    public static func date(from text: String) -> Date? {
        if let instant = text.utf8.withContiguousStorageIfAvailable({ parse($0, allowingTime: true) }) {
            return instant?.date
        }
        var text = text
        return text.withUTF8 { parse($0, allowingTime: true) }?.date
    }

    /// The instant written as an RFC 3339 date-time or full-date (see the table above);
    /// nil when `text` is not one.
    public static func date(from text: Substring) -> Date? {
        if let instant = text.utf8.withContiguousStorageIfAvailable({ parse($0, allowingTime: true) }) {
            return instant?.date
        }
        var text = text
        return text.withUTF8 { parse($0, allowingTime: true) }?.date
    }

    /// The instant written as an RFC 3339 date-time or full-date (see the table above);
    /// nil when `text` is not one.
    public static func date(from text: some StringProtocol) -> Date? {
        instant(utf8: text.utf8, allowingTime: true)?.date
    }

    /// The instant written in `utf8` as an RFC 3339 date-time or full-date (see the table
    /// above); nil when the bytes are not one.
    public static func date<Bytes: Collection<UInt8>>(utf8 bytes: Bytes) -> Date? {
        instant(utf8: bytes, allowingTime: true)?.date
    }

    /// Midnight UTC of an RFC 3339 `full-date` (`yyyy-MM-dd`, nothing else); nil
    /// otherwise.
    public static func date(fromFullDate text: some StringProtocol) -> Date? {
        instant(utf8: text.utf8, allowingTime: false)?.date
    }

    // MARK: - Writing

    /// The RFC 3339 text of `date` in UTC with a `Z` suffix, e.g.
    /// `2011-08-23T20:24:12.249Z`.
    ///
    /// - Parameters:
    ///   - date: the instant. `timeIntervalSince1970` is rounded to `fractionDigits`
    ///     decimals (nearest, ties to even); values beyond ±8.64e12 s (the ECMAScript
    ///     `Date` range) are clamped to it, NaN is written as 1970-01-01T00:00:00Z.
    ///   - fractionDigits: 0–9 digits after the seconds (0 omits the `.`); clamped to 0...9.
    ///     Default 3 (milliseconds).
    /// - Returns: 20–30 ASCII characters. Years outside 0000–9999 use the ISO 8601
    ///   expanded form (`+10000-01-01T…`, `-0001-…`), which ``date(from:)`` does not read.
    public static func string(from date: Date, fractionDigits: Int = 3) -> String {
        let digits = min(max(fractionDigits, 0), 9)
        let (seconds, fraction) = split(date, fractionDigits: digits)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        return String(unsafeUninitializedCapacity: 40) { buffer in
            var i = appendFullDate(days: days, to: buffer)
            buffer[i] = UInt8(ascii: "T")
            i = append(secondOfDay / 3600, width: 2, to: buffer, at: i + 1)
            buffer[i] = UInt8(ascii: ":")
            i = append(secondOfDay / 60 % 60, width: 2, to: buffer, at: i + 1)
            buffer[i] = UInt8(ascii: ":")
            i = append(secondOfDay % 60, width: 2, to: buffer, at: i + 1)
            if digits > 0 {
                buffer[i] = UInt8(ascii: ".")
                i = append(fraction, width: digits, to: buffer, at: i + 1)
            }
            buffer[i] = UInt8(ascii: "Z")
            return i + 1
        }
    }

    /// The RFC 3339 text of `date` in UTC with as many fraction digits as it takes to read
    /// back as this very `Date`: the fewest of 3 (milliseconds), 6 (microseconds) and 9
    /// (nanoseconds) for which ``date(from:)`` gives `date` again.
    ///
    ///     RFC3339.exactString(from: RFC3339.date(from: "2011-08-23T20:24:12.249Z")!)         // "2011-08-23T20:24:12.249Z"
    ///     RFC3339.exactString(from: RFC3339.date(from: "2015-11-13T09:36:13.184968Z")!)      // "2015-11-13T09:36:13.184968Z"
    ///     RFC3339.exactString(from: Date(timeIntervalSince1970: 1_447_407_373))              // "2015-11-13T09:36:13.000Z"
    ///
    /// This is how the exporter writes dates (``JSONCoercion/json(from:as:)``), so an export
    /// keeps whatever precision the store holds: a `Date` (a `Double` of seconds since 2001)
    /// resolves about 0.1 µs today, and every RFC 3339 text with up to 6 fraction digits
    /// from 1985 to 2106 (where the spacing of `timeIntervalSince1970` passes 0.5 µs) is
    /// read as a `Date` this writes back as the same text (trailing zeros aside: `.5Z` is
    /// written `.500Z`); milliseconds are kept from 1985 to 9999.
    ///
    /// A `Date` that no text reads back as exactly (one made from seconds since 2001 that the
    /// reader, which rounds seconds since 1970, cannot give: `Date()`) is written with 9
    /// digits, the nearest nanosecond; one beyond years 0000–9999 (or NaN) with 3.
    ///
    /// - Returns: as ``string(from:fractionDigits:)``.
    /// - Complexity: at most three writes and reads of about 30 bytes.
    public static func exactString(from date: Date) -> String {
        var text = ""
        for digits in [3, 6, 9] {
            text = string(from: date, fractionDigits: digits)
            if RFC3339.date(from: text) == date { return text }
        }
        let readable = date.timeIntervalSince1970.isFinite && RFC3339.date(from: text) != nil
        return readable ? text : string(from: date, fractionDigits: 3)
    }

    /// The RFC 3339 `full-date` (`yyyy-MM-dd`) of the UTC day containing `date`
    /// (the time of day is dropped, not rounded). Clamping and expanded years as in
    /// ``string(from:fractionDigits:)``.
    public static func fullDateString(from date: Date) -> String {
        let (seconds, _) = split(date, fractionDigits: 0, rounding: .down)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return String(unsafeUninitializedCapacity: 16) { appendFullDate(days: days, to: $0) }
    }

    // MARK: - Parsing internals

    /// Parses `bytes`, contiguously when possible.
    static func instant<Bytes: Collection<UInt8>>(utf8 bytes: Bytes, allowingTime: Bool) -> EpochInstant? {
        if let result = bytes.withContiguousStorageIfAvailable({ parse($0, allowingTime: allowingTime) }) {
            return result
        }
        return Array(bytes).withUnsafeBufferPointer { parse($0, allowingTime: allowingTime) }
    }

    /// The grammar in the type's table, on bytes. Indices are checked against `count`
    /// before every read; field arithmetic wraps (every value is bounded by the checks
    /// before it: |seconds| < 2^39).
    static func parse(_ b: UnsafeBufferPointer<UInt8>, allowingTime: Bool) -> EpochInstant? {
        let count = b.count
        guard count >= 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        // Digit values; a non-digit byte wraps to 10 or more.
        @inline(__always) func digit(_ i: Int) -> UInt8 { b[i] &- 0x30 }
        let y0 = digit(0)
        let y1 = digit(1)
        let y2 = digit(2)
        let y3 = digit(3)
        let m0 = digit(5)
        let m1 = digit(6)
        let d0 = digit(8)
        let d1 = digit(9)
        guard max(max(max(y0, y1), max(y2, y3)), max(max(m0, m1), max(d0, d1))) < 10 else { return nil }
        let year = Int64(y0) &* 1000 &+ Int64(y1) &* 100 &+ Int64(y2) &* 10 &+ Int64(y3)
        let month = Int64(m0 &* 10 &+ m1)
        let day = Int64(d0 &* 10 &+ d1)
        guard month >= 1, month <= 12, day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        if count == 10 { return EpochInstant(validSeconds: days &* 86_400, fraction: 0, fractionDigits: 0) }

        guard allowingTime, count >= 19 else { return nil }
        let separator = b[10]
        guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " "),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":")
        else { return nil }
        let h0 = digit(11)
        let h1 = digit(12)
        let n0 = digit(14)
        let n1 = digit(15)
        let s0 = digit(17)
        let s1 = digit(18)
        guard max(max(h0, h1), max(max(n0, n1), max(s0, s1))) < 10 else { return nil }
        let hour = Int64(h0 &* 10 &+ h1)
        let minute = Int64(n0 &* 10 &+ n1)
        let second = Int64(s0 &* 10 &+ s1)
        guard hour <= 23, minute <= 59, second <= 60 else { return nil }

        var i = 19
        var fraction: Int64 = 0
        var fractionDigits = 0
        if i < count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < count, case let d = digit(i), d < 10 {
                guard fractionDigits < 9 else { return nil }
                fraction = fraction &* 10 &+ Int64(d)
                fractionDigits &+= 1
                i &+= 1
            }
            guard fractionDigits > 0 else { return nil }
        }

        var offset: Int64 = 0
        if i < count {
            let sign = b[i]
            if sign == UInt8(ascii: "Z") || sign == UInt8(ascii: "z") {
                i += 1
            } else if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                // ±hh:mm or ±hhmm, and nothing after.
                let length = count - i
                guard length == 6 && b[i + 3] == UInt8(ascii: ":") || length == 5 else { return nil }
                let oh0 = digit(i + 1)
                let oh1 = digit(i + 2)
                let om0 = digit(count - 2)
                let om1 = digit(count - 1)
                guard max(max(oh0, oh1), max(om0, om1)) < 10 else { return nil }
                let offsetHour = Int64(oh0 &* 10 &+ oh1)
                let offsetMinute = Int64(om0 &* 10 &+ om1)
                guard offsetHour <= 23, offsetMinute <= 59 else { return nil }
                offset = offsetHour &* 3600 &+ offsetMinute &* 60
                if sign == UInt8(ascii: "-") { offset = 0 &- offset }
                i = count
            } else {
                return nil
            }
        }
        guard i == count else { return nil }
        let seconds = days &* 86_400 &+ hour &* 3600 &+ minute &* 60 &+ second &- offset
        return EpochInstant(validSeconds: seconds, fraction: fraction, fractionDigits: fractionDigits)
    }

    // MARK: - Formatting internals

    /// Whole seconds (floor) and the fraction in units of 10^-fractionDigits, after
    /// rounding the instant to that many digits (or truncating, for `.down`).
    static func split(_ date: Date, fractionDigits: Int, rounding: FloatingPointRoundingRule = .toNearestOrEven)
        -> (seconds: Int64, fraction: Int64)
    {
        var t = date.timeIntervalSince1970
        if t.isNaN { t = 0 }
        t = min(max(t, -8.64e12), 8.64e12)
        let whole = t.rounded(.down)
        var seconds = Int64(whole)  // |whole| ≤ 8.64e12: exact, no trap
        let scale = EpochInstant.powerOfTen(fractionDigits)
        // t - whole is exact (both within one unit of each other below 2^53).
        var fraction = Int64(((t - whole) * Double(scale)).rounded(rounding))
        if fraction >= scale {
            fraction -= scale
            seconds += 1
        }
        return (seconds, fraction)
    }

    /// Writes `yyyy-MM-dd` (or an expanded year) at the start of `buffer` (≥ 16 bytes);
    /// returns the count written.
    private static func appendFullDate(days: Int64, to buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let (year, month, day) = CivilDate.civil(days: days)
        var i = 0
        if year < 0 {
            buffer[0] = UInt8(ascii: "-")
            i = 1
        } else if year > 9999 {
            buffer[0] = UInt8(ascii: "+")
            i = 1
        }
        i = append(Int64(year.magnitude), width: 4, to: buffer, at: i)
        buffer[i] = UInt8(ascii: "-")
        i = append(month, width: 2, to: buffer, at: i + 1)
        buffer[i] = UInt8(ascii: "-")
        return append(day, width: 2, to: buffer, at: i + 1)
    }

    /// Writes the decimal digits of `value` (≥ 0, at most 7 digits here: clamped years
    /// and 9-digit fractions), left-padded with zeros to `width`, at `start`; returns the
    /// index after the last digit.
    private static func append(_ value: Int64, width: Int, to buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        let length = max(count, width)
        var v = value
        var i = start + length
        while i > start {
            i -= 1
            buffer[i] = UInt8(truncatingIfNeeded: v % 10) + 0x30
            v /= 10
        }
        return start + length
    }
}
