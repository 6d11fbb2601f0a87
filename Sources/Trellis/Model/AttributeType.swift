/// The type of an attribute, as Core Data names them, plus `json` for a value that
/// holds any JSON (stored as JSON text; usable with SQLite's JSON functions).
///
/// | type        | Swift value (``AttributeValue``) | JSON form on export                    |
/// |-------------|----------------------------------|----------------------------------------|
/// | `string`    | `.string(String)`                | string                                 |
/// | `integer16` | `.integer(Int64)` in Int16 range | number                                 |
/// | `integer32` | `.integer(Int64)` in Int32 range | number                                 |
/// | `integer64` | `.integer(Int64)`                | number (exact, never through Double)   |
/// | `decimal`   | `.decimal(Decimal)`              | number with the decimal's digits       |
/// | `double`    | `.double(Double)`                | number, shortest round-trip text       |
/// | `float`     | `.double(Double)` rounded to Float | number, shortest text of the Float   |
/// | `boolean`   | `.bool(Bool)`                    | true / false                           |
/// | `date`      | `.date(Date)`                    | RFC 3339 string, UTC, milliseconds (6 or 9 digits when the date has them) |
/// | `binary`    | `.binary(Data)`                  | base64 string (RFC 4648 §4)            |
/// | `uuid`      | `.uuid(UUID)`                    | string, lowercase 8-4-4-4-12           |
/// | `uri`       | `.uri(URL)`                      | string                                 |
/// | `json`      | `.json(JSONValue)`               | the value itself                       |
public enum AttributeType: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case string
    case integer16
    case integer32
    case integer64
    case decimal
    case double
    case float
    case boolean
    case date
    case binary
    case uuid
    case uri
    case json

    public var description: String { rawValue }

    /// `true` for the three integer widths.
    public var isInteger: Bool {
        self == .integer16 || self == .integer32 || self == .integer64
    }

    /// The inclusive range of an integer type (Int64's full range for `integer64`); nil otherwise.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        case .integer64: return Int64.min...Int64.max
        default: return nil
        }
    }
}
