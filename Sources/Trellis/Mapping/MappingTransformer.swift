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
    public init(name: String, forward: @escaping @Sendable (JSONValue) throws -> Value,
                reverse: (@Sendable (Value) throws -> JSONValue)? = nil) {
        self.name = name
        self.forward = forward
        self.reverse = reverse
    }
}

extension MappingTransformer where Value == Date {
    /// RFC 3339 / ISO 8601 date-time strings with any number of fraction digits
    /// (`2011-08-21T18:02:52Z`, `2011-08-21T18:02:52.249+02:00`); written in UTC with
    /// milliseconds (`2011-08-21T18:02:52.249Z`). Numbers are a type mismatch.
    public static var iso8601: MappingTransformer<Date> {
        MappingTransformer(name: "iso8601", forward: { try MappingCoercion.rfc3339($0) },
                           reverse: { .string(MappingDates.rfc3339String(from: $0)) })
    }

    /// Numbers of seconds since 1970-01-01T00:00:00Z (fractions allowed); written as a
    /// number (an integer when the date has no fraction of a second).
    public static var epochSeconds: MappingTransformer<Date> {
        MappingTransformer(name: "epoch-seconds", forward: { try MappingCoercion.epochSeconds($0) },
                           reverse: { MappingDates.epochJSON($0.timeIntervalSince1970, tolerance: 1e-6) })
    }

    /// Numbers of milliseconds since 1970-01-01T00:00:00Z; written as a number
    /// (an integer when the date has no fraction of a millisecond).
    public static var epochMilliseconds: MappingTransformer<Date> {
        MappingTransformer(name: "epoch-milliseconds", forward: { try MappingCoercion.epochMilliseconds($0) },
                           reverse: { MappingDates.epochJSON($0.timeIntervalSince1970 * 1000, tolerance: 1e-3) })
    }
}

extension MappingDates {
    /// A number of seconds (or milliseconds) as JSON: an integer when within `tolerance`
    /// of a whole number (a `Date` holds a `Double`, so `…172.249` seconds times 1000 is
    /// not exactly `…172249`).
    static func epochJSON(_ value: Double, tolerance: Double) -> JSONValue {
        let whole = value.rounded()
        if abs(value - whole) <= tolerance, let integer = Int64(exactly: whole) {
            return .number(JSONNumber(integer))
        }
        return .number(JSONNumber(value))
    }
}
