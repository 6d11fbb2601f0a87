import Foundation
import Trellis

// Interim: the `transform` branch adds `ValueTransformer.dateFormat(name:format:)`; this
// file is replaced by a call to it once that lands.

/// Value transformers for dates written in a fixed pattern (Unicode TR35), parsed with the
/// `en_US_POSIX` locale and UTC (unless the text carries a zone, as `Z` patterns do).
enum DateFormatTransformer {
    static func make(name: String, format: String) -> Trellis.ValueTransformer {
        let box = FormatterBox(format: format)
        return Trellis.ValueTransformer(
            name: name,
            forward: { json in
                guard case .string(let text) = json else {
                    throw DateFormatError(message: "\(name): expected a date string in the format '\(format)', found \(json.kind)")
                }
                guard let date = box.date(from: text) else {
                    throw DateFormatError(message: "\(name): '\(text)' does not match the date format '\(format)'")
                }
                return .date(date)
            },
            reverse: { value in
                guard case .date(let date) = value else {
                    throw DateFormatError(message: "\(name): expected a date value")
                }
                return .string(box.string(from: date))
            })
    }

    /// A date text that does not match the pattern.
    struct DateFormatError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// One `DateFormatter` shared by the transformer's closures.
    // SAFETY: the formatter is only touched while `lock` is held.
    private final class FormatterBox: @unchecked Sendable {
        private let lock = NSLock()
        private let formatter: DateFormatter

        init(format: String) {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(secondsFromGMT: 0)
            formatter.dateFormat = format
            self.formatter = formatter
        }

        func date(from text: String) -> Date? { lock.withLock { formatter.date(from: text) } }
        func string(from date: Date) -> String { lock.withLock { formatter.string(from: date) } }
    }
}
