import Foundation

/// A per-property conversion between JSON and a Swift value, in both directions:
/// `forward` when reading (``JSONMap/from(_:using:)-(String,MappingTransformer<T>)``),
/// `reverse` when writing (``JSONWriteMap/write(_:to:using:)-(T,String,MappingTransformer<T>)``).
///
///     pubDate = try map.from("pub_date", using: .iso8601)
///     born = try map.from("born", using: .epochMilliseconds)
///
///     // A custom one: dates as "yyyyMMdd" strings.
///     extension MappingTransformer<Date> {
///         static let compactDay = MappingTransformer(name: "compact-day",
///             forward: { json in … }, reverse: { date in .string(…) })
///     }
///
/// Errors thrown by `forward` or `reverse` are reported as ``MappingError`` at the
/// property's path: a `CoercionError` or `TransformError` keeps its code; any other
/// error becomes `.invalidValue` with the error as ``MappingError/underlyingError``.
public struct MappingTransformer<Value>: Sendable {
    /// A name for messages (`"iso8601"`).
    public let name: String
    /// JSON → value. Receives the JSON value at the key path (never `null`: missing and
    /// `null` are handled before, as for every property).
    public let forward: @Sendable (JSONValue) throws -> Value
    /// Value → JSON; nil for a read-only transformer (writing with it throws
    /// `.notReversible`).
    public let reverse: (@Sendable (Value) throws -> JSONValue)?

    /// A transformer from two closures.
    public init(
        name: String, forward: @escaping @Sendable (JSONValue) throws -> Value,
        reverse: (@Sendable (Value) throws -> JSONValue)? = nil
    ) {
        self.name = name
        self.forward = forward
        self.reverse = reverse
    }
}

extension MappingTransformer where Value == Date {
    /// A typed view of a value transformer between JSON and `.date` attribute values
    /// (one of the built-ins, or a ``JSONValueTransformer/dateFormat(name:format:)``).
    ///
    ///     let twitter = MappingTransformer(dates: .dateFormat(format: "EEE MMM dd HH:mm:ss Z yyyy"))
    public init(dates transformer: JSONValueTransformer) {
        let forward: @Sendable (JSONValue) throws -> Date = { json in
            let value = try transformer.transformedValue(json)
            guard case .date(let date)? = value else {
                throw TransformError(
                    code: .typeMismatch, transformerName: transformer.name, value: json,
                    message: "gave \(value.map(String.init(describing:)) ?? "no value"), not a date")
            }
            return date
        }
        var reverse: (@Sendable (Date) throws -> JSONValue)?
        if transformer.isReversible {
            reverse = { date in try transformer.reverseTransformedValue(.date(date)) }
        }
        self.init(name: transformer.name, forward: forward, reverse: reverse)
    }

    /// RFC 3339 / ISO 8601 strings (the `iso8601` transformer): date-times with 0–9
    /// fraction digits and `Z`, `±hh:mm`, `±hhmm` or no offset (UTC), or a full-date
    /// `yyyy-MM-dd` (midnight UTC); written in UTC with milliseconds
    /// (`2011-08-21T18:02:52.249Z`). Numbers are a type mismatch.
    public static var iso8601: MappingTransformer<Date> { MappingTransformer(dates: .iso8601) }

    /// RFC 3339 full-dates `yyyy-MM-dd` at midnight UTC (the `iso8601-date` transformer);
    /// writes the UTC day.
    public static var iso8601Date: MappingTransformer<Date> { MappingTransformer(dates: .iso8601Date) }

    /// Numbers (or numeric strings) of seconds since 1970-01-01T00:00:00Z, fraction
    /// allowed (the `epoch-seconds` transformer); written as the shortest number that
    /// reads back as the same date.
    public static var epochSeconds: MappingTransformer<Date> { MappingTransformer(dates: .epochSeconds) }

    /// Numbers (or numeric strings) of milliseconds since 1970-01-01T00:00:00Z (the
    /// `epoch-milliseconds` transformer); written as whole milliseconds, with a fraction
    /// only when the date has one.
    public static var epochMilliseconds: MappingTransformer<Date> { MappingTransformer(dates: .epochMilliseconds) }

    /// Dates in a fixed `DateFormatter` pattern (Unicode TR 35), read and written in
    /// UTC with the `en_US_POSIX` locale (``JSONValueTransformer/dateFormat(name:format:)``).
    ///
    ///     day = try map.from("day", using: .dateFormat("yyyyMMdd"))
    public static func dateFormat(_ format: String) -> MappingTransformer<Date> {
        MappingTransformer(dates: .dateFormat(format: format))
    }
}
