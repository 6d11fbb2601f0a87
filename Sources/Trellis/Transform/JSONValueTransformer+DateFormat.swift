import Foundation

extension JSONValueTransformer {
    /// A transformer for dates in a fixed `DateFormatter` pattern (Unicode TR 35 date
    /// field symbols), such as Twitter's `created_at`:
    ///
    ///     let twitter = JSONValueTransformer.dateFormat(format: "EEE MMM dd HH:mm:ss Z yyyy")
    ///     try twitter.transformedValue("Sun Aug 31 00:29:15 +0000 2014")  // .date(2014-08-31T00:29:15Z)
    ///
    /// The formatter uses the `en_US_POSIX` locale, the Gregorian calendar and GMT, so
    /// month and day names are English and a pattern without a zone reads UTC, whatever
    /// the machine's settings. Both directions are supported; the reverse writes the
    /// date in GMT (`+0000` for `Z`). This is a factory, not a registered name: a
    /// bindings file says `{"dateFormat": "<format>"}` (see
    /// ``JSONValueTransformerRegistry/transformer(for:)``).
    ///
    /// Built on Foundation's `DateFormatter` for correctness over speed (tens of
    /// microseconds a date); RFC 3339 text should use ``iso8601`` instead. Calls are
    /// serialised on one formatter per transformer.
    ///
    /// - Parameters:
    ///   - name: the transformer's name; default `dateFormat(<format>)`.
    ///   - format: the `DateFormatter.dateFormat` pattern.
    /// - Returns: a transformer returning nil for JSON `null`, `.date` for a string in
    ///   the format, and throwing ``TransformError`` (`invalidValue` for a string not in
    ///   the format, `typeMismatch` for other kinds).
    public static func dateFormat(name: String? = nil, format: String) -> JSONValueTransformer {
        let name = name ?? dateFormatName(format)
        let formatter = LockedDateFormatter(format: format)
        return JSONValueTransformer(
            name: name,
            forward: { json in
                try BuiltIn.string(json, name, expecting: "a date string in the format \(format)").map { s in
                    guard let date = formatter.date(from: s) else {
                        throw TransformError(
                            code: .invalidValue, transformerName: name, value: json,
                            message: "not a date in the format \(format)")
                    }
                    return .date(date)
                }
            },
            reverse: { value in .string(formatter.string(from: try BuiltIn.date(value, name))) }
        )
    }

    /// The default name of a fixed-format date transformer: `dateFormat(<format>)`.
    static func dateFormatName(_ format: String) -> String {
        "dateFormat(\(format))"
    }
}

/// A `DateFormatter` (en_US_POSIX, Gregorian, GMT) used under a lock.
// SAFETY: `formatter` is configured in `init` and afterwards only used while `lock`
// is held, so concurrent calls never touch it at the same time.
final class LockedDateFormatter: @unchecked Sendable {
    private let lock = NSLock()
    private let formatter: DateFormatter
    /// Whether the pattern is ASCII, as every pattern of the `en_US_POSIX` locale's
    /// fields and of ASCII literals is: then no text with other characters can match it.
    private let formatIsASCII: Bool

    init(format: String) {
        formatIsASCII = format.utf8.allSatisfy { $0 < 0x80 }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = format
        formatter.isLenient = false
        self.formatter = formatter
    }

    /// The date `string` spells in the pattern, or nil.
    ///
    /// Text that cannot match never reaches `DateFormatter`, which traps ("Incorrect range
    /// CFRange…", swift-corelibs-foundation) when the text it matched ends inside a
    /// character, such as before a combining mark (`"Sun Aug 31 00:\u{0613}…"`, found by
    /// Fuzz/import): with an ASCII pattern, any text that is not ASCII; with another
    /// pattern, text holding a character of several scalars or a scalar outside the BMP.
    func date(from string: String) -> Date? {
        if formatIsASCII {
            guard string.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        } else {
            guard string.unicodeScalars.count == string.count, string.unicodeScalars.allSatisfy({ $0.value < 0x10000 }) else {
                return nil
            }
        }
        return lock.withLock { formatter.date(from: string) }
    }

    func string(from date: Date) -> String {
        lock.withLock { formatter.string(from: date) }
    }
}
