import Foundation
import Trellis

/// How far a resource has been read: the greatest update stamp committed, kept as the
/// source's exact text, its parsed value (an instant or a number) and the tie-breaker id of
/// the record that carried it. Watermarks compare by value, then tie-breaker: never as
/// strings (`"2024-01-01T01:00:00+01:00"` and `"2024-01-01T00:00:00Z"` are equal), never
/// truncated (nanoseconds are kept). A date-only stamp (`"2024-05-01"`, RFC 3339's
/// full-date) is the instant of its midnight UTC: it equals `2024-05-01T00:00:00Z` and is
/// before every instant later that day.
public struct Watermark: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A stamp's value.
    public enum Value: Sendable, Hashable, Comparable {
        /// An RFC 3339 date-time (or a Parse `Date`).
        case instant(SyncInstant)
        /// A number (a version counter, epoch milliseconds), exact.
        case number(Decimal)

        /// Reads a number (`1704067200123`) or an RFC 3339 date-time; nil otherwise.
        public init?(text: String) {
            if let number = JSONNumber(text: text), let decimal = number.decimalValue {
                self = .number(decimal)
            } else if let instant = SyncInstant(rfc3339: text) {
                self = .instant(instant)
            } else {
                return nil
            }
        }

        public static func < (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.instant(let a), .instant(let b)): return a < b
            case (.number(let a), .number(let b)): return a < b
            case (.number, .instant): return true
            case (.instant, .number): return false
            }
        }
    }

    /// The stamp exactly as the source wrote it.
    public var text: String
    /// Its value.
    public var value: Value
    /// The id of the record that carried it (Parse's `objectId`), to order records that
    /// share one stamp.
    public var tieBreaker: String?

    /// A watermark of `value` written as `text`.
    public init(text: String, value: Value, tieBreaker: String? = nil) {
        self.text = text
        self.value = value
        self.tieBreaker = tieBreaker
    }

    /// The watermark a record's stamp gives: a string (RFC 3339 or numeric), a number, or a
    /// Parse `{"__type": "Date", "iso": …}`; nil for anything else.
    public init?(json: JSONValue, tieBreaker: String? = nil) {
        switch json {
        case .string(let s):
            guard let value = Value(text: s) else { return nil }
            self.init(text: s, value: value, tieBreaker: tieBreaker)
        case .number(let n):
            guard let d = n.decimalValue else { return nil }
            self.init(text: n.text, value: .number(d), tieBreaker: tieBreaker)
        case .object(let o):
            guard o["__type"]?.stringValue == "Date", let iso = o["iso"]?.stringValue, let instant = SyncInstant(rfc3339: iso) else { return nil }
            self.init(text: iso, value: .instant(instant), tieBreaker: tieBreaker)
        default:
            return nil
        }
    }

    /// This watermark's value moved back by `seconds` (a date's lag; numbers are kept), as
    /// text in the source's form where it can be: a date-only stamp (`2024-05-01`) gives the
    /// date-only text of the day the earlier instant falls on (its midnight UTC, at or before
    /// it), anything else RFC 3339 UTC.
    func lagged(by seconds: Double) -> Watermark {
        guard seconds > 0, case .instant(let instant) = value else { return self }
        let earlier = instant.subtracting(seconds: seconds)
        if Watermark.isDateOnly(text) {
            let day = SyncInstant(seconds: earlier.seconds >= 0 ? earlier.seconds / 86_400 * 86_400 : (earlier.seconds - 86_399) / 86_400 * 86_400)
            return Watermark(text: String(day.rfc3339.prefix(10)), value: .instant(day), tieBreaker: nil)
        }
        return Watermark(text: earlier.rfc3339, value: .instant(earlier), tieBreaker: nil)
    }

    /// Whether `text` is an RFC 3339 full-date alone (`2024-05-01`).
    static func isDateOnly(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == 45, bytes[7] == 45 else { return false }
        return bytes.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || (48...57).contains($0.element) }
    }

    public static func < (lhs: Watermark, rhs: Watermark) -> Bool {
        if lhs.value != rhs.value { return lhs.value < rhs.value }
        return (lhs.tieBreaker ?? "") < (rhs.tieBreaker ?? "")
    }

    public static func == (lhs: Watermark, rhs: Watermark) -> Bool {
        lhs.value == rhs.value && lhs.tieBreaker == rhs.tieBreaker
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(value)
        hasher.combine(tieBreaker)
    }

    /// `2024-01-01T00:00:00.123Z (objectId o0000999)`.
    public var description: String {
        tieBreaker.map { "\(text) (id \($0))" } ?? text
    }

    // MARK: - JSON (checkpoints)

    /// `{"text": …, "instant": "seconds.nanoseconds" | "number": "…", "id": …}`.
    var json: JSONValue {
        var object = JSONObject()
        object.append(key: "text", value: .string(text))
        switch value {
        case .instant(let instant): object.append(key: "instant", value: .string(instant.exactText))
        case .number(let number): object.append(key: "number", value: .string("\(number)"))
        }
        if let tieBreaker { object.append(key: "id", value: .string(tieBreaker)) }
        return .object(object)
    }

    init?(checkpoint json: JSONValue) {
        guard case .object(let o) = json, let text = o["text"]?.stringValue else { return nil }
        let value: Value
        if let exact = o["instant"]?.stringValue {
            guard let instant = SyncInstant(exactText: exact) else { return nil }
            value = .instant(instant)
        } else if let number = o["number"]?.stringValue, let decimal = Decimal(string: number, locale: Locale(identifier: "en_US_POSIX")) {
            value = .number(decimal)
        } else {
            return nil
        }
        self.init(text: text, value: value, tieBreaker: o["id"]?.stringValue)
    }
}
