/// Value transformers by name: what a `JSONTransformerName` annotation or a bindings
/// file's `"transformers"` entry refers to.
///
/// A value type: copies are independent (copy-on-write storage), so a caller can
/// start from ``standard`` and add its own transformers without affecting anyone else.
///
///     var registry = JSONValueTransformerRegistry.standard
///     registry.register(.dateFormat(name: "twitter-date", format: "EEE MMM dd HH:mm:ss Z yyyy"))
///     let transformer = try registry.transformer(named: "integer-from-string")
///
/// ``standard`` holds the built-ins, all of which return nil for JSON `null`:
///
/// | name                  | JSON → value                                                                 | value → JSON                         |
/// |-----------------------|------------------------------------------------------------------------------|--------------------------------------|
/// | `iso8601`             | string, RFC 3339 date-time (0–9 fraction digits; `Z`, `±hh:mm`, `±hhmm`, or none = UTC) or full-date `yyyy-MM-dd` (midnight UTC) → `.date` | RFC 3339 UTC with milliseconds (`2015-02-16T19:30:00.000Z`) |
/// | `iso8601-date`        | string `yyyy-MM-dd` only → `.date` at midnight UTC                           | `yyyy-MM-dd` of the UTC day          |
/// | `epoch-seconds`       | number or numeric string of seconds since 1970, fraction allowed → `.date` (correctly rounded) | number: integer for whole seconds, else the shortest text (`1314131052.249`), to the precision the date carries |
/// | `epoch-milliseconds`  | number or numeric string of milliseconds since 1970 → `.date`               | number of milliseconds (`1314131052249`; a fraction only when the date has one beyond its precision: `143646844205`, not `…205.00004`) |
/// | `integer-from-string` | numeric string (or number) → `.integer`, exact, Int64 range (`"9223372036854775807"`) | string of decimal digits (`"42"`) |
/// | `decimal-from-string` | numeric string (or number) → `.decimal`, exact, ≤ 38 significant digits     | string (`"12.50"` reads as 12.5 and writes `"12.5"`) |
/// | `string-from-number`  | number (or string) → `.string`, the number's JSON text verbatim             | number with the string's text; a non-numeric string is an error |
/// | `url`                 | string, RFC 3986 URI reference → `.uri`                                      | string                               |
/// | `uuid`                | string, 8-4-4-4-12 hexadecimal, any case → `.uuid`                           | lowercase string                     |
/// | `base64`              | string, RFC 4648 §4 base64 with padding → `.binary`                          | padded base64 string                 |
/// | `parse`               | Parse typed object: `{"__type":"Date","iso":…}` → `.date`; `{"__type":"Bytes","base64":…}` → `.binary`; `{"__type":"Pointer","className":…,"objectId":…}` → `.string(objectId)` (the pointer's identity, for relationships by identifier); other `__type`s → error | `.date` → the Date object, `.binary` → the Bytes object; others (a pointer lost its class name) → error |
///
/// Fixed-format dates have no fixed name; ``JSONValueTransformer/dateFormat(name:format:)``
/// makes one per format (a bindings file says `{"dateFormat": "EEE MMM dd HH:mm:ss Z yyyy"}`,
/// see ``transformer(for:)``).
public struct JSONValueTransformerRegistry: Sendable {
    private var transformers: [String: JSONValueTransformer]

    /// An empty registry.
    public init() {
        transformers = [:]
    }

    /// A registry holding `transformers`; a later one replaces an earlier one of the same name.
    public init(_ transformers: [JSONValueTransformer]) {
        self.init()
        for transformer in transformers { register(transformer) }
    }

    /// The built-in transformers (the table above).
    public static let standard = JSONValueTransformerRegistry(JSONValueTransformer.builtIns)

    /// Adds `transformer`, replacing any transformer registered under the same name.
    public mutating func register(_ transformer: JSONValueTransformer) {
        transformers[transformer.name] = transformer
    }

    /// Removes the transformer named `name`, returning it (nil when there was none).
    @discardableResult
    public mutating func removeTransformer(named name: String) -> JSONValueTransformer? {
        transformers.removeValue(forKey: name)
    }

    /// The transformer registered as `name` (case-sensitive).
    ///
    /// - Throws: ``TransformError`` with code ``TransformError/Code/unknownTransformer``,
    ///   whose message lists the registered names in sorted order.
    public func transformer(named name: String) throws -> JSONValueTransformer {
        if let transformer = transformers[name] { return transformer }
        let known = names.isEmpty ? "none" : names.joined(separator: ", ")
        throw TransformError(
            code: .unknownTransformer, transformerName: name,
            message: "no value transformer of this name is registered; registered: \(known)")
    }

    /// The transformer a bindings file describes: a string is a registered name
    /// (``transformer(named:)``); an object `{"dateFormat": "<format>"}` makes a
    /// ``JSONValueTransformer/dateFormat(name:format:)`` transformer (named by the format,
    /// unless the registry has a transformer under the name `dateFormat(<format>)`).
    ///
    /// - Throws: ``TransformError``: `unknownTransformer` for an unregistered name,
    ///   `invalidValue` for any other JSON shape.
    public func transformer(for specification: JSONValue) throws -> JSONValueTransformer {
        switch specification {
        case .string(let name):
            return try transformer(named: name)
        case .object(let object) where object.count == 1:
            if case .string(let format)? = object["dateFormat"], !format.isEmpty {
                let name = JSONValueTransformer.dateFormatName(format)
                return transformers[name] ?? .dateFormat(name: name, format: format)
            }
        default:
            break
        }
        throw TransformError(
            code: .invalidValue, transformerName: "", value: specification,
            message: "expected a transformer name or {\"dateFormat\": \"<format>\"}")
    }

    /// The registered names, sorted.
    public var names: [String] {
        transformers.keys.sorted()
    }
}
