import Foundation

/// The reader a ``JSONMappable`` model's `init(map:)` gets: typed values at key paths of
/// one JSON object (or stored object), with the path from the document root kept for
/// errors.
///
///     struct User: JSONMappable {
///         let id: String
///         let continent: String?
///         let tags: [String]
///         init(map: JSONMap) throws {
///             id = try map.from("id")                          // throws if missing, null or unconvertible
///             continent = try map.from("location.continent")  // nil if missing, null or unconvertible
///             tags = try map.from("tags") ?? []                // a default
///         }
///     }
///
/// ## Key paths
///
/// Key paths follow ``JSONKeyPath``: `location.continent` reads nested objects,
/// `items.0` the first element of an array, `a\.b` the key `"a.b"`; ``from(key:)-(String)``
/// takes a key verbatim. Text that is not a valid key path (`"a..b"`) is read as one
/// verbatim key, as ``JSONKeyPath/init(stringLiteral:)`` does.
///
/// ## The rules
///
/// | value at the key path      | `let x: T`                  | `let x: T?`                                      |
/// |----------------------------|-----------------------------|--------------------------------------------------|
/// | missing                    | throws `.missing`           | nil                                              |
/// | `null`                     | throws `.null`              | nil                                              |
/// | converts to `T`            | the value                   | the value                                        |
/// | does not convert to `T`    | throws (`.typeMismatch`, `.invalidValue`, `.overflow`, `.inexact`) | nil; throws with ``Options/strict`` |
///
/// Conversions between compatible types follow `JSONCoercion` (strings ↔ numbers,
/// booleans from `"yes"`/`1`, dates from RFC 3339 strings and epoch numbers, …); see
/// `docs/TypedLayer.md` for the table.
///
/// ## Sources
///
/// A map reads a ``JSONMapNode``: a JSON value or a record such as a stored object,
/// whose property names are the keys and whose relationships are nested maps. The same
/// `init(map:)` reads both.
///
/// - Complexity: a one-key read is one object lookup (a linear scan up to 16 members,
///   hashed above). Maps for nested objects cost one small allocation each (the parent
///   link of their path); the ``JSONPath`` is built only when an error is thrown.
public struct JSONMap {
    /// The JSON value read when ``source`` is nil (`.null` for JSON `null`).
    @usableFromInline let json: JSONValue
    /// A value that is not JSON (a stored attribute, a record, records), boxed so that
    /// the common JSON case copies cheaply.
    let source: SourceBox?
    let location: MappingLocation
    let context: MappingContext

    private init(json: JSONValue, source: SourceBox?, location: MappingLocation, context: MappingContext) {
        self.json = json
        self.source = source
        self.location = location
        self.context = context
    }

    init(json: JSONValue, location: MappingLocation, context: MappingContext) {
        self.init(json: json, source: nil, location: location, context: context)
    }

    init(node: JSONMapNode, location: MappingLocation, context: MappingContext) {
        switch node {
        case .null: self.init(json: .null, location: location, context: context)
        case .json(let value), .attribute(.json(let value)): self.init(json: value, location: location, context: context)
        default: self.init(json: .null, source: SourceBox(node), location: location, context: context)
        }
    }

    /// A map at the root of `json` (`$`).
    public init(json: JSONValue, options: Options = Options()) {
        self.init(json: json, location: .root, context: MappingContext(options: options))
    }

    /// A map at the root of a record (a stored object): property names are its keys.
    public init(record: any JSONMapRecord, options: Options = Options()) {
        self.init(node: .record(record), location: .root, context: MappingContext(options: options))
    }

    // MARK: - Public API

    /// The value this map reads: usually an object (or a record); a scalar for a leaf
    /// type's ``JSONMapValue/mapValue(from:)``.
    public var node: JSONMapNode {
        if let source { return source.node }
        return json.isNull ? .null : .json(json)
    }

    /// The options of this mapping (shared by every nested map).
    public var options: Options { context.options }

    /// Where this map sits in the document: `$` for the root, `$.users[3]` for the
    /// fourth user of a `users` array. Built on each call; meant for error messages.
    public var path: JSONPath { location.path }

    /// The value this map reads, as JSON (for a record, its properties rendered the way
    /// the exporter writes them; see ``JSONMapNode/jsonValue``). Use it for custom
    /// conversions of the whole value.
    ///
    /// - Throws: only for records, what reading a relationship throws.
    public var root: JSONValue {
        get throws {
            guard let source else { return json }
            return try source.node.jsonValue
        }
    }

    /// The JSON value at `keyPath`, or nil when it is missing or `null`. No conversion.
    ///
    ///     let extra = try map.rawValue("meta.extra")   // any JSON, as is
    ///
    /// - Throws: only for records, what reading a relationship throws.
    public func rawValue(_ keyPath: String) throws -> JSONValue? {
        guard case .present(let child) = try find(keyPath, verbatim: false) else { return nil }
        return try child.root
    }

    /// The JSON value at the verbatim key `key` (dots and digits are plain characters),
    /// or nil when it is missing or `null`.
    public func rawValue(key: String) throws -> JSONValue? {
        guard case .present(let child) = try find(key, verbatim: true) else { return nil }
        return try child.root
    }

    /// `true` when `keyPath` leads to a value that is not `null`.
    ///
    /// - Throws: only for records, what reading a relationship throws.
    public func contains(_ keyPath: String) throws -> Bool {
        if case .present = try find(keyPath, verbatim: false) { return true }
        return false
    }

    /// An error located at this map (or at `keyPath` below it), for hand-written
    /// `init(map:)` code such as an enum with associated values rejecting an unknown tag.
    ///
    ///     default:
    ///         throw map.error(.invalidValue, at: "type", expected: "Shape",
    ///                         message: "unknown shape type \"\(type)\"")
    ///
    /// - Parameters:
    ///   - code: the error code.
    ///   - keyPath: a key path below this map (nil: this map's own value).
    ///   - expected: the expected type or shape, for the message.
    ///   - message: why the value is rejected.
    /// - Returns: a ``MappingError`` whose path and found value point at the value.
    public func error(_ code: MappingError.Code, at keyPath: String? = nil, expected: String, message: String) -> MappingError {
        guard let keyPath else {
            return MappingError(code: code, path: path, expected: expected, found: foundValue, message: message)
        }
        switch (try? find(keyPath, verbatim: false)) ?? .missing {
        case .present(let child):
            return MappingError(code: code, path: child.path, expected: expected, found: child.foundValue, message: message)
        case .null(let step):
            return MappingError(
                code: code, path: location.appending(step).path, expected: expected,
                found: .null, message: message)
        case .missing:
            return MappingError(code: code, path: requestedPath(keyPath), expected: expected, message: message)
        }
    }

    // MARK: - Lookup (the hot path)

    /// The map of the value at `keyPath` for a non-optional property.
    ///
    /// - Throws: ``MappingError`` `.missing` or `.null` (no `.null` when `expected` is
    ///   `JSONValue`, which holds `null` itself); `.typeMismatch` when this map is a
    ///   scalar; what a record throws.
    @usableFromInline
    func requiredChild(_ keyPath: String, verbatim: Bool, expected: Any.Type) throws -> JSONMap {
        // Fast path: a plain key of a JSON object.
        if source == nil, case .object(let object) = json, verbatim || JSONMap.isPlainKey(keyPath) {
            guard let value = object[keyPath] else {
                throw missingError(keyPath: keyPath, verbatim: verbatim, expected: expected)
            }
            if case .null = value, !JSONMap.acceptsNull(expected) {
                throw nullError(at: .key(keyPath), expected: expected)
            }
            return child(json: value, at: .key(keyPath))
        }
        switch try find(keyPath, verbatim: verbatim) {
        case .present(let child):
            return child
        case .null(let step):
            guard JSONMap.acceptsNull(expected) else { throw nullError(at: step, expected: expected) }
            return child(json: .null, at: step)
        case .missing:
            throw missingError(keyPath: keyPath, verbatim: verbatim, expected: expected)
        }
    }

    /// The map of the value at `keyPath` for an optional property: nil when missing or
    /// `null`.
    ///
    /// - Throws: with ``Options/strict``, `.typeMismatch` when this map is a scalar; what
    ///   a record throws.
    @usableFromInline
    func optionalChild(_ keyPath: String, verbatim: Bool, expected: Any.Type) throws -> JSONMap? {
        if source == nil, case .object(let object) = json, verbatim || JSONMap.isPlainKey(keyPath) {
            guard let value = object[keyPath] else { return nil }
            if case .null = value { return nil }
            return child(json: value, at: .key(keyPath))
        }
        switch try find(keyPath, verbatim: verbatim) {
        case .present(let child):
            return child
        case .null:
            return nil
        case .missing:
            if isContainer || !options.strict { return nil }
            throw missingError(keyPath: keyPath, verbatim: verbatim, expected: expected)
        }
    }

    /// `true` for the types whose non-optional properties accept `null` (`JSONValue`).
    static func acceptsNull(_ type: Any.Type) -> Bool {
        ObjectIdentifier(type) == ObjectIdentifier(JSONValue.self)
    }

    /// The outcome of looking a key path up below this map.
    enum Found {
        case missing
        case null(MappingLocation.Step)
        case present(JSONMap)
    }

    /// Looks `keyPath` up (taken verbatim when `verbatim`, else parsed as a
    /// ``JSONKeyPath`` unless it is a plain key).
    func find(_ keyPath: String, verbatim: Bool) throws -> Found {
        if verbatim || JSONMap.isPlainKey(keyPath) {
            return try find(components: [.key(keyPath, index: JSONKeyPath.arrayIndex(keyPath))], single: true)
        }
        let parsed = (try? JSONKeyPath(parsing: keyPath)) ?? JSONKeyPath(key: keyPath)
        return try find(components: parsed.components, single: parsed.components.count == 1)
    }

    /// Walks `components`, recording how each was used (key or index).
    private func find(components: [JSONKeyPath.Component], single: Bool) throws -> Found {
        var current = node
        var steps: [JSONPath.Component] = []
        for component in components {
            guard let (child, step) = try JSONMap.child(of: current, key: component.key, index: component.index) else {
                return .missing
            }
            if !single {
                switch step {
                case .index(let i): steps.append(.index(i))
                default: steps.append(.key(component.key))
                }
            }
            if single {
                if case .null = child { return .null(step) }
                return .present(self.child(child, at: step))
            }
            current = child
        }
        if case .null = current { return .null(.components(steps)) }
        return .present(child(current, at: .components(steps)))
    }

    /// One step down from `node`: nil when there is nothing there.
    static func child(of node: JSONMapNode, key: String, index: Int?) throws -> (JSONMapNode, MappingLocation.Step)? {
        switch node {
        case .json(let value), .attribute(.json(let value)):
            switch value {
            case .object(let object):
                guard let child = object[key] else { return nil }
                return (child.isNull ? .null : .json(child), .key(key))
            case .array(let elements):
                guard let i = index, i < elements.count else { return nil }
                let child = elements[i]
                return (child.isNull ? .null : .json(child), .index(i))
            default:
                return nil
            }
        case .record(let record):
            guard let child = try record.jsonMapNode(forKey: key) else { return nil }
            if case .json(.null) = child { return (.null, .key(key)) }
            return (child, .key(key))
        case .records(let records):
            guard let i = index, i < records.count else { return nil }
            return (.record(records[i]), .index(i))
        case .null, .attribute:
            return nil
        }
    }

    /// `true` when `text` has no `.` and no `\`, so it is one key (or one index).
    static func isPlainKey(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            for byte in bytes where byte == UInt8(ascii: ".") || byte == UInt8(ascii: "\\") { return false }
            return true
        }
    }

    /// The path a missing key path was asked at (components shown as keys).
    func requestedPath(_ keyPath: String, verbatim: Bool = false) -> JSONPath {
        let parsed = verbatim ? JSONKeyPath(key: keyPath) : JSONKeyPath(stringLiteral: keyPath)
        return path.appending(parsed)
    }

    /// `true` when this map's value can have keys (an object or a record) or elements.
    var isContainer: Bool {
        if let source {
            switch source.node {
            case .record, .records, .attribute(.json(.object)), .attribute(.json(.array)): return true
            default: return false
            }
        }
        switch json {
        case .object, .array: return true
        default: return false
        }
    }

    /// The value for error messages (nil for records, which are not rendered).
    var foundValue: JSONValue? {
        guard let source else { return json }
        return source.node.foundValue
    }

    // MARK: - Child maps

    /// The map of a JSON value at `step` below this one. Containers get a shared parent
    /// link right away (their children need it); scalars keep their step inline.
    func child(json value: JSONValue, at step: MappingLocation.Step) -> JSONMap {
        var location = location.appending(step)
        switch value {
        case .object, .array: location = location.materialized
        default: break
        }
        return JSONMap(json: value, location: location, context: context)
    }

    /// The map of any node at `step` below this one.
    func child(_ node: JSONMapNode, at step: MappingLocation.Step) -> JSONMap {
        switch node {
        case .json(let value): return child(json: value, at: step)
        case .null: return child(json: .null, at: step)
        default: return JSONMap(node: node, location: location.appending(step).materialized, context: context)
        }
    }
}

/// A non-JSON node held by reference, so that ``JSONMap`` stays small for JSON.
final class SourceBox {
    let node: JSONMapNode

    init(_ node: JSONMapNode) {
        self.node = node
    }
}
