import Foundation

/// The writer a ``JSONRepresentable`` model's `write(to:)` gets: writes values at key
/// paths of a JSON object, creating nested objects (via ``JSONKeyPath/set(_:in:)-(_,inout JSONValue)``).
///
///     try map.write(name, to: "name")
///     try map.write(city, to: "location.city")        // {"location": {"city": …}}
///     try map.write(summary, to: "summary")            // nil → null, or omitted by option
///     try map.write(day, to: "day", using: .compactDay)
///     try map.write(raw, toKey: "a.b")                 // the key "a.b"
///
/// Values are converted by their ``JSONWritableValue`` conformance: integers exactly,
/// doubles as their shortest round-trip text, dates per ``Options/dateStrategy``
/// (RFC 3339 in UTC with milliseconds by default), URLs as strings, UUIDs lowercase,
/// `Data` as base64, dictionaries with their keys sorted.
public struct JSONWriteMap {
    /// The JSON written so far (an object for a model's map).
    public private(set) var root: JSONValue
    let location: MappingLocation
    let context: WriteContext

    init(root: JSONValue, location: MappingLocation, context: WriteContext) {
        self.root = root
        self.location = location
        self.context = context
    }

    /// An empty object at the root of a new document.
    public init(options: Options = Options()) {
        self.init(root: .object(JSONObject()), location: .root, context: WriteContext(options: options))
    }

    // MARK: - Public API

    /// The options of this write (shared by every nested map).
    public var options: Options { context.options }

    /// Where this map's value goes in the document (`$.users[3]`).
    public var path: JSONPath { location.path }

    /// An error located at this map's value (for custom ``JSONWritableValue`` conformances).
    public func error(_ code: MappingError.Code, expected: String, message: String) -> MappingError {
        MappingError(code: code, path: path, expected: expected, message: message)
    }

    /// Writes `value` at `keyPath`, replacing what is there.
    ///
    /// - Throws: ``MappingError`` `.cannotWrite` when a scalar or array stands in the way
    ///   of the key path; the value's own errors (`.invalidValue` for a non-finite
    ///   `Double`) at its path.
    public mutating func write<T: JSONWritableValue>(_ value: T, to keyPath: String) throws {
        try put(keyPath, verbatim: false, T.self) { try value.jsonValue(in: $0) }
    }

    /// Writes `value`, or for nil a JSON `null` (``Options/NilPolicy/null``, the default)
    /// or nothing (``Options/NilPolicy/omit``).
    public mutating func write<T: JSONWritableValue>(_ value: T?, to keyPath: String) throws {
        guard let value else { return try putNil(keyPath, verbatim: false) }
        try write(value, to: keyPath)
    }

    /// Writes `value` at the verbatim key `key` (`"a.b"` is one key).
    public mutating func write<T: JSONWritableValue>(_ value: T, toKey key: String) throws {
        try put(key, verbatim: true, T.self) { try value.jsonValue(in: $0) }
    }

    /// Writes `value` or nil at the verbatim key `key`.
    public mutating func write<T: JSONWritableValue>(_ value: T?, toKey key: String) throws {
        guard let value else { return try putNil(key, verbatim: true) }
        try write(value, toKey: key)
    }

    /// Writes `value` through `transformer`'s reverse.
    ///
    /// - Throws: ``MappingError`` `.notReversible` when the transformer has no reverse;
    ///   the reverse's errors at the value's path.
    public mutating func write<T>(_ value: T, to keyPath: String, using transformer: MappingTransformer<T>) throws {
        guard let reverse = transformer.reverse else {
            throw MappingError(
                code: .notReversible, path: requestedPath(keyPath), expected: JSONMapTypeName.of(T.self),
                message: "transformer \"\(transformer.name)\" cannot write")
        }
        try put(keyPath, verbatim: false, T.self) { _ in try reverse(value) }
    }

    /// Writes `value` (or nil, per ``Options/nilPolicy``) through `transformer`'s reverse.
    public mutating func write<T>(_ value: T?, to keyPath: String, using transformer: MappingTransformer<T>) throws {
        guard let value else { return try putNil(keyPath, verbatim: false) }
        try write(value, to: keyPath, using: transformer)
    }

    /// Writes the JSON your closure makes of `value`.
    public mutating func write<T>(_ value: T, to keyPath: String, using transform: (T) throws -> JSONValue) throws {
        try put(keyPath, verbatim: false, T.self) { _ in try transform(value) }
    }

    /// Writes the JSON your closure makes of `value`, or nil per ``Options/nilPolicy``.
    public mutating func write<T>(_ value: T?, to keyPath: String, using transform: (T) throws -> JSONValue) throws {
        guard let value else { return try putNil(keyPath, verbatim: false) }
        try write(value, to: keyPath, using: transform)
    }

    /// Writes `value` through the reverse of the value transformer registered as
    /// `transformerName` in ``Options/transformers``. The value is handed to the
    /// transformer as an ``AttributeValue`` (`Date` as `.date`, integers as `.integer`, …).
    ///
    /// - Throws: ``MappingError`` `.unknownTransformer`, `.notReversible`, or the
    ///   transformer's error at the value's path.
    public mutating func write<T: JSONWritableValue>(_ value: T, to keyPath: String, using transformerName: String) throws {
        let transformer: JSONValueTransformer
        do {
            transformer = try options.transformers.transformer(named: transformerName)
        } catch {
            throw MappingError(
                code: .unknownTransformer, path: requestedPath(keyPath), expected: JSONMapTypeName.of(T.self),
                message: String(describing: error), underlyingError: error)
        }
        guard let reverse = transformer.reverse else {
            throw MappingError(
                code: .notReversible, path: requestedPath(keyPath), expected: JSONMapTypeName.of(T.self),
                message: "value transformer \"\(transformerName)\" cannot write")
        }
        try put(keyPath, verbatim: false, T.self) { map in
            guard let attribute = AttributeValue(mappingValue: value) else {
                throw map.error(
                    .typeMismatch, expected: JSONMapTypeName.of(T.self),
                    message: "value transformer \"\(transformerName)\" takes attribute values; \(T.self) is not one")
            }
            return try reverse(attribute)
        }
    }

    /// Writes `value` (or nil per ``Options/nilPolicy``) through a registered transformer.
    public mutating func write<T: JSONWritableValue>(_ value: T?, to keyPath: String, using transformerName: String) throws {
        guard let value else { return try putNil(keyPath, verbatim: false) }
        try write(value, to: keyPath, using: transformerName)
    }

    // MARK: - Internals

    /// A map for a nested model at this map's location, starting as an empty object.
    func nested(expected: Any.Type) throws -> JSONWriteMap {
        let location = location.materialized
        guard location.depth <= options.maximumDepth else {
            throw MappingError(
                code: .depthLimitExceeded, path: location.path, expected: JSONMapTypeName.of(expected),
                message: "models nest deeper than \(options.maximumDepth) levels (a cycle?)")
        }
        return JSONWriteMap(root: .object(JSONObject()), location: location, context: context)
    }

    /// A map positioned at `step` below this one (for element and member values).
    func child(at step: MappingLocation.Step) -> JSONWriteMap {
        JSONWriteMap(root: .null, location: location.appending(step), context: context)
    }

    /// Converts with `make` (given the value's map) and stores the result at `keyPath`.
    private mutating func put<T>(
        _ keyPath: String, verbatim: Bool, _ type: T.Type,
        _ make: (JSONWriteMap) throws -> JSONValue
    ) throws {
        let plain = verbatim || JSONMap.isPlainKey(keyPath)
        let parsed: JSONKeyPath? = plain ? nil : ((try? JSONKeyPath(parsing: keyPath)) ?? JSONKeyPath(key: keyPath))
        let step: MappingLocation.Step
        if let parsed, parsed.components.count > 1 {
            step = .components(parsed.components.map { .key($0.key) })
        } else {
            step = .key(parsed?.components[0].key ?? keyPath)
        }
        let valueMap = child(at: step)
        let json: JSONValue
        do {
            json = try make(valueMap)
        } catch let error as MappingError {
            throw error
        } catch {
            throw MappingError(
                code: .invalidValue, path: valueMap.path, expected: JSONMapTypeName.of(T.self),
                message: String(describing: error), underlyingError: error)
        }
        try store(json, keyPath: parsed ?? JSONKeyPath(key: keyPath), plainKey: parsed == nil ? keyPath : nil)
    }

    /// Writes nil per ``Options/nilPolicy``.
    private mutating func putNil(_ keyPath: String, verbatim: Bool) throws {
        guard options.nilPolicy == .null else { return }
        let plain = verbatim || JSONMap.isPlainKey(keyPath)
        let parsed = plain ? JSONKeyPath(key: keyPath) : ((try? JSONKeyPath(parsing: keyPath)) ?? JSONKeyPath(key: keyPath))
        try store(.null, keyPath: parsed, plainKey: plain ? keyPath : nil)
    }

    /// Stores `json` at the key path; a plain key on an object is set in place.
    private mutating func store(_ json: JSONValue, keyPath: JSONKeyPath, plainKey: String?) throws {
        if let plainKey, case .object(var object) = root {
            root = .null  // keep `object` uniquely referenced
            object[plainKey] = json
            root = .object(object)
            return
        }
        do {
            try keyPath.set(json, in: &root)
        } catch {
            throw MappingError(
                code: .cannotWrite, path: path.appending(keyPath), expected: "object",
                message: String(describing: error), underlyingError: error)
        }
    }

    /// The path a key path names below this map.
    func requestedPath(_ keyPath: String) -> JSONPath {
        path.appending(JSONKeyPath(stringLiteral: keyPath))
    }
}

/// The options of one write, shared by reference by all maps it creates.
final class WriteContext: Sendable {
    let options: JSONWriteMap.Options

    init(options: JSONWriteMap.Options) {
        self.options = options
    }
}

extension AttributeValue {
    /// The attribute value of a Swift value, for registered value transformers.
    init?(mappingValue value: Any) {
        switch value {
        case let v as String: self = .string(v)
        case let v as Bool: self = .bool(v)
        case let v as Int: self = .integer(Int64(v))
        case let v as Int8: self = .integer(Int64(v))
        case let v as Int16: self = .integer(Int64(v))
        case let v as Int32: self = .integer(Int64(v))
        case let v as Int64: self = .integer(v)
        case let v as UInt8: self = .integer(Int64(v))
        case let v as UInt16: self = .integer(Int64(v))
        case let v as UInt32: self = .integer(Int64(v))
        case let v as UInt:
            guard let i = Int64(exactly: v) else { return nil }
            self = .integer(i)
        case let v as UInt64:
            guard let i = Int64(exactly: v) else { return nil }
            self = .integer(i)
        case let v as Double: self = .double(v)
        case let v as Float: self = .double(Double(v))
        case let v as Decimal: self = .decimal(v)
        case let v as Date: self = .date(v)
        case let v as Data: self = .binary(v)
        case let v as UUID: self = .uuid(v)
        case let v as URL: self = .uri(v)
        case let v as JSONValue: self = .json(v)
        default: return nil
        }
    }
}
