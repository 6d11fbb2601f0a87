import Foundation

// INTERIM: replaced by the `RFC3339` parser/formatter when the `transform` branch lands.

enum MappingDates {
    static func rfc3339String(from date: Date) -> String {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        return style.format(Date(timeIntervalSince1970: ms / 1000))
    }

    static func date(fromRFC3339 text: String) -> Date? {
        if let d = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return d }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
