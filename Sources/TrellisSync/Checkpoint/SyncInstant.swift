import Foundation

/// An exact instant: whole seconds since 1970-01-01T00:00:00Z and nanoseconds, read from
/// RFC 3339 text without rounding (a `Date` is a `Double` and cannot hold every
/// nanosecond of today), so that watermarks compare exactly and are never truncated.
///
///     let a = SyncInstant(rfc3339: "2024-01-01T00:00:00.123456789Z")!
///     let b = SyncInstant(rfc3339: "2024-01-01T01:00:00.123456789+01:00")!
///     a == b                      // true: the same instant
///     a.rfc3339                   // "2024-01-01T00:00:00.123456789Z"
public struct SyncInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970, rounded toward negative infinity.
    public var seconds: Int64
    /// Nanoseconds after ``seconds``, 0 ..< 1,000,000,000.
    public var nanoseconds: Int32

    /// An instant from its parts (nanoseconds normalised into 0 ..< 10⁹).
    public init(seconds: Int64, nanoseconds: Int64 = 0) {
        let carry = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds - 999_999_999) / 1_000_000_000
        self.seconds = seconds + carry
        self.nanoseconds = Int32(nanoseconds - carry * 1_000_000_000)
    }

    /// The instant `date` stands for, to the nearest microsecond (a `Date` is a `Double`
    /// of seconds since 2001, which holds today's instants to about 0.2 µs: `2024-01-01T00:00:00.123Z`
    /// read into a `Date` comes back as `.123000Z`, not `.122999906Z`).
    public init(_ date: Date) {
        let t = date.timeIntervalSince1970
        let whole = t.rounded(.down)
        self.init(seconds: Int64(whole), nanoseconds: Int64(((t - whole) * 1e6).rounded()) * 1000)
    }

    /// Reads an RFC 3339 §5.6 date-time (`T`, `t` or a space; 0–9 fraction digits; `Z`,
    /// `z`, `±hh:mm`, `±hhmm` or no offset = UTC) or a full-date (midnight UTC); nil otherwise.
    /// Second 60 counts as the first second of the next minute (POSIX time has no leap seconds).
    public init?(rfc3339 text: String) {
        if let parsed = text.utf8.withContiguousStorageIfAvailable({ SyncInstant(utf8: $0) }) {
            guard let parsed else { return nil }
            self = parsed
            return
        }
        guard let parsed = Array(text.utf8).withUnsafeBufferPointer({ SyncInstant(utf8: $0) }) else { return nil }
        self = parsed
    }

    /// ``init(rfc3339:)`` on the text's UTF-8 bytes (no copy of them).
    private init?(utf8 b: UnsafeBufferPointer<UInt8>) {
        func digits(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            var value: Int64 = 0
            for i in from..<from + count {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int64(b[i] - 48)
            }
            return value
        }
        guard let year = digits(0, 4), b.count >= 10, b[4] == 45, let month = digits(5, 2), b[7] == 45, let day = digits(8, 2),
            (1...12).contains(month), day >= 1, day <= SyncInstant.daysIn(month: month, year: year)
        else { return nil }
        let days = SyncInstant.daysFromCivil(year: year, month: month, day: day)
        if b.count == 10 {
            self.init(seconds: days * 86_400)
            return
        }
        guard b.count >= 19, b[10] == 84 || b[10] == 116 || b[10] == 32, let hour = digits(11, 2), b[13] == 58,
            let minute = digits(14, 2), b[16] == 58, let second = digits(17, 2),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var i = 19
        var nanos: Int64 = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var count = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                guard count < 9 else { return nil }
                nanos = nanos * 10 + Int64(b[i] - 48)
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<9 { nanos *= 10 }
        }
        var offset: Int64 = 0
        if i < b.count {
            switch b[i] {
            case 90, 122:
                i += 1
            case 43, 45:
                // `±hh:mm`, or `±hhmm` (ISO 8601 basic, as the NYT API writes `+0000`).
                let colon = i + 3 < b.count && b[i + 3] == 58
                guard let h = digits(i + 1, 2), let m = digits(colon ? i + 4 : i + 3, 2), h < 24, m < 60 else { return nil }
                offset = (h * 3600 + m * 60) * (b[i] == 45 ? -1 : 1)
                i += colon ? 6 : 5
            default:
                return nil
            }
        }
        guard i == b.count else { return nil }
        self.init(seconds: days * 86_400 + hour * 3600 + minute * 60 + second - offset, nanoseconds: nanos)
    }

    /// The instant as a `Date` (the nearest `Double`).
    public var date: Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }

    /// RFC 3339 in UTC: `2024-01-01T00:00:00Z`, with 3, 6 or 9 fraction digits when needed.
    public var rfc3339: String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = SyncInstant.civil(fromDays: days)
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        var text = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if nanoseconds != 0 {
            let n = Int64(nanoseconds)
            if n % 1_000_000 == 0 {
                text += "." + pad(n / 1_000_000, 3)
            } else if n % 1000 == 0 {
                text += "." + pad(n / 1000, 6)
            } else {
                text += "." + pad(n, 9)
            }
        }
        return text + "Z"
    }

    /// This instant moved back by `seconds` (rounded to the nanosecond).
    public func subtracting(seconds interval: Double) -> SyncInstant {
        let whole = interval.rounded(.down)
        return SyncInstant(seconds: seconds - Int64(whole), nanoseconds: Int64(nanoseconds) - Int64(((interval - whole) * 1e9).rounded()))
    }

    public static func < (lhs: SyncInstant, rhs: SyncInstant) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    /// ``rfc3339``.
    public var description: String { rfc3339 }

    /// `seconds.nanoseconds` (9 digits), the exact form checkpoints store.
    var exactText: String {
        let n = String(nanoseconds)
        return "\(seconds).\(String(repeating: "0", count: 9 - n.count))\(n)"
    }

    /// Reads ``exactText``.
    init?(exactText text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 9, let s = Int64(parts[0]), let n = Int64(parts[1]), n >= 0 else { return nil }
        self.init(seconds: s, nanoseconds: n)
    }

    // MARK: - Civil calendar (Howard Hinnant's algorithms, proleptic Gregorian)

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
