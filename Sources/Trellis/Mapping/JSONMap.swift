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
    /// The value this map reads: usually an object (or a record); a scalar for a
    /// leaf type's ``JSONMapValue/mapValue(from:)``.
    public let node: JSONMapNode
    let location: MappingLocation
    let context: MappingContext

    init(node: JSONMapNode, location: MappingLocation, context: MappingContext) {
        self.node = node
        self.location = location
        self.context = context
    }

    /// A map at the root of `json` (`$`).
    public init(json: JSONValue, options: Options = Options()) {
        self.init(node: json.isNull ? .null : .json(json), location: .root, context: MappingContext(options: options))
    }

    /// A map at the root of a record (a stored object): property names are its keys.
    public init(record: any JSONMapRecord, options: Options = Options()) {
        self.init(node: .record(record), location: .root, context: MappingContext(options: options))
    }

    // MARK: - Public API

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
        get throws { try node.jsonValue }
    }

    /// The JSON value at `keyPath`, or nil when it is missing or `null`. No conversion.
    ///
    ///     let extra = try map.rawValue("meta.extra")   // any JSON, as is
    ///
    /// - Throws: only for records, what reading a relationship throws.
    public func rawValue(_ keyPath: String) throws -> JSONValue? {
        guard case .present(let node, _) = try find(keyPath) else { return nil }
        return try node.jsonValue
    }

    /// The JSON value at the verbatim key `key` (dots and digits are plain characters),
    /// or nil when it is missing or `null`.
    public func rawValue(key: String) throws -> JSONValue? {
        guard case .present(let node, _) = try find(simpleKey: key) else { return nil }
        return try node.jsonValue
    }

    /// `true` when `keyPath` leads to a value that is not `null`.
    ///
    /// - Throws: only for records, what reading a relationship throws.
    public func contains(_ keyPath: String) throws -> Bool {
        if case .present = try find(keyPath) { return true }
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
            return MappingError(code: code, path: path, expected: expected, found: node.foundValue, message: message)
        }
        switch (try? find(keyPath)) ?? .missing {
        case .present(let node, let step):
            return MappingError(code: code, path: location.appending(step).path, expected: expected,
                                found: node.foundValue, message: message)
        case .null(let step):
            return MappingError(code: code, path: location.appending(step).path, expected: expected,
                                found: .null, message: message)
        case .missing:
            return MappingError(code: code, path: requestedPath(keyPath), expected: expected, message: message)
        }
    }

    // MARK: - Lookup

    /// The outcome of looking a key path up below this map.
    enum Found {
        case missing
        case null(MappingLocation.Step)
        case present(JSONMapNode, MappingLocation.Step)
    }

    /// Looks `keyPath` up, parsing it as a ``JSONKeyPath`` unless it is a plain key.
    func find(_ keyPath: String) throws -> Found {
        if JSONMap.isPlainKey(keyPath) { return try find(simpleKey: keyPath) }
        let parsed = (try? JSONKeyPath(parsing: keyPath)) ?? JSONKeyPath(key: keyPath)
        if parsed.components.count == 1 { return try find(simpleKey: parsed.components[0].key) }
        return try find(components: parsed.components)
    }

    /// Looks up one component (a key, or an index when this map reads an array).
    func find(simpleKey key: String) throws -> Found {
        guard let (child, step) = try JSONMap.child(of: node, key: key, index: { JSONKeyPath.arrayIndex(key) }) else {
            return .missing
        }
        if case .null = child { return .null(step) }
        return .present(child, step)
    }

    /// Looks up several components, recording how each was used (key or index).
    func find(components: [JSONKeyPath.Component]) throws -> Found {
        var current = node
        var steps: [JSONPath.Component] = []
        steps.reserveCapacity(components.count)
        for component in components {
            guard let (child, step) = try JSONMap.child(of: current, key: component.key, index: { component.index }) else {
                return .missing
            }
            switch step {
            case .index(let i): steps.append(.index(i))
            default: steps.append(.key(component.key))
            }
            current = child
        }
        if case .null = current { return .null(.components(steps)) }
        return .present(current, .components(steps))
    }

    /// One step down from `node`: nil when there is nothing there.
    static func child(of node: JSONMapNode, key: String, index: () -> Int?) throws -> (JSONMapNode, MappingLocation.Step)? {
        switch node {
        case .json(let value), .attribute(.json(let value)):
            switch value {
            case .object(let object):
                guard let child = object[key] else { return nil }
                return (child.isNull ? .null : .json(child), .key(key))
            case .array(let elements):
                guard let i = index(), i < elements.count else { return nil }
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
            guard let i = index(), i < records.count else { return nil }
            return (.record(records[i]), .index(i))
        case .null, .attribute:
            return nil
        }
    }

    /// `true` when `text` has no `.` and no `\`, so it is one key (or one index).
    static func isPlainKey(_ text: String) -> Bool {
        !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "\\") }
    }

    /// The path a missing key path was asked at (components shown as keys).
    func requestedPath(_ keyPath: String, verbatim: Bool = false) -> JSONPath {
        let parsed = verbatim ? JSONKeyPath(key: keyPath) : JSONKeyPath(stringLiteral: keyPath)
        return path.appending(parsed)
    }

    /// `true` when this map's value can have keys (an object or a record).
    var isContainer: Bool {
        switch node {
        case .json(.object), .json(.array), .attribute(.json(.object)), .attribute(.json(.array)), .record, .records: return true
        default: return false
        }
    }

    // MARK: - Child maps

    /// The map for a value found at `step` below this one. Containers get a shared parent
    /// link right away (their children need it); scalars keep their step inline.
    func child(_ node: JSONMapNode, at step: MappingLocation.Step) -> JSONMap {
        var location = location.appending(step)
        switch node {
        case .json(.object), .json(.array), .record, .records: location = location.materialized
        default: break
        }
        return JSONMap(node: node, location: location, context: context)
    }
}
