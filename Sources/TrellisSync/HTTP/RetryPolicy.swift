import Foundation

/// When a request is tried again, and how long it waits first.
///
/// - Retried: connection errors, `429 Too Many Requests`, every `5xx`, a `403` whose body
///   names a secondary rate limit (GitHub), and a `403`/`429` sent with
///   `x-ratelimit-remaining: 0`; up to `maxAttempts` attempts in all.
/// - Every number is read with bounds (``ServerNumber``): a hint that is not decimal digits,
///   or asks for more than ten years, is no hint.
/// - The wait before attempt `n + 1` is, in order of preference: the `Retry-After` header
///   (RFC 9110 §10.2.3: seconds, or an HTTP date), when it is a positive delay (`0`, a
///   negative number or a date in the past is no hint); the rate-limit reset
///   (`x-ratelimit-reset`, epoch seconds, milliseconds when above 10¹¹, seconds from now below 10⁹) when
///   `x-ratelimit-remaining` is `0`; otherwise capped exponential backoff with full jitter,
///   `random(0, min(maxDelay, baseDelay × 2ⁿ⁻¹))` (AWS Architecture Blog, "Exponential
///   Backoff and Jitter", 2015), at least 60 s after a secondary rate limit (GitHub's advice).
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// Seconds of the first backoff ceiling. Default 0.5.
    public var baseDelay: Double
    /// Seconds the backoff ceiling grows to at most. Default 30.
    public var maxDelay: Double

    public init(maxAttempts: Int, baseDelay: Double = 0.5, maxDelay: Double = 30) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The backoff before attempt `attempt + 1` (attempt ≥ 1), for `random` in 0..<1.
    public func backoff(after attempt: Int, random: Double) -> Double {
        let ceiling = min(maxDelay, baseDelay * pow(2, Double(max(0, attempt - 1))))
        return random * ceiling
    }

    /// Whether a response of `status` with this body is retried.
    static func isRetryable(status: Int, headers: HTTPHeaders, body: Data) -> Bool {
        if status == 429 || (500...599).contains(status) { return true }
        if status == 403 {
            if headers["x-ratelimit-remaining"] == "0" { return true }
            return isSecondaryRateLimit(body)
        }
        return false
    }

    static func isSecondaryRateLimit(_ body: Data) -> Bool {
        String(decoding: body.prefix(4096), as: UTF8.self).lowercased().contains("secondary rate limit")
    }

    /// The delay `Retry-After` asks for, in seconds; nil when absent, unreadable, `0`,
    /// negative, in the past or beyond ``ServerNumber/maximumDelay`` (no hint). Seconds are
    /// RFC 9110's `delay-seconds`, decimal digits only (`1e3`, `inf`, `+5` are no hint).
    static func retryAfter(_ headers: HTTPHeaders, now: Date) -> Double? {
        guard let text = headers["retry-after"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let first = text.utf8.first, (48...57).contains(first) || first == 45 || first == 43 {
            guard let seconds = ServerNumber.delaySeconds(text) else { return nil }
            return seconds > 0 ? seconds : nil
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        let delay = date.timeIntervalSince(now)
        return delay > 0 && delay <= ServerNumber.maximumDelay ? delay : nil
    }

    /// When the rate limit resets, if the response says none is left (`x-ratelimit-remaining: 0`):
    /// `x-ratelimit-reset` in epoch seconds, epoch milliseconds (above 10¹¹), or seconds from
    /// now (below 10⁹, a time before 2001 as an epoch: Reddit's form); nil when it is not
    /// decimal digits or lies beyond ``ServerNumber/maximumDelay`` from now.
    static func rateLimitReset(_ headers: HTTPHeaders, now: Date) -> Date? {
        guard headers["x-ratelimit-remaining"]?.trimmingCharacters(in: .whitespaces) == "0",
            let text = headers["x-ratelimit-reset"], let value = ServerNumber.digits(text)
        else { return nil }
        let date: Date
        if value > 100_000_000_000 {
            date = Date(timeIntervalSince1970: Double(value) / 1000)
        } else if value < 1_000_000_000 {
            date = now.addingTimeInterval(Double(value))
        } else {
            date = Date(timeIntervalSince1970: Double(value))
        }
        return date.timeIntervalSince(now) <= ServerNumber.maximumDelay ? date : nil
    }
}

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, and the
/// obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`) forms.
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            let normalized = format.hasPrefix("EEE MMM") ? text.replacingOccurrences(of: "  ", with: " ") : text
            if let date = formatter.date(from: normalized) { return date }
        }
        return nil
    }
}

/// What the client needs from the outside world, replaceable in tests: the clock, sleeping
/// and the jitter's random numbers.
public struct ClientClock: Sendable {
    public var now: @Sendable () -> Date
    public var sleep: @Sendable (Double) -> Void
    /// A number in 0..<1.
    public var random: @Sendable () -> Double

    public init(
        now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Double) -> Void,
        random: @escaping @Sendable () -> Double
    ) {
        self.now = now
        self.sleep = sleep
        self.random = random
    }

    /// The system clock, `Thread.sleep`, the system random generator.
    public static let system = ClientClock(
        now: { Date() },
        sleep: { seconds in if seconds > 0 { Thread.sleep(forTimeInterval: seconds) } },
        random: { Double.random(in: 0..<1) })
}
