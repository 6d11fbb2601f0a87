/// A stream of top-level elements to import, read one at a time so that huge inputs need
/// not be held in memory (a streaming array reader implements it over a file).
public protocol ImportSource {
    /// The next element, or nil at the end.
    /// - Throws: whatever reading the input throws (a parse error with line and column).
    mutating func nextElement() throws -> ImportElement?

    /// Starts again at the first element, for a store that runs an import's transaction
    /// again after a conflict with a concurrent one (see ``PersistentStore/write(_:)``).
    /// - Returns: `false` when the source cannot be read again (a stream already consumed);
    ///   the import then fails with the conflict instead of being retried. The default
    ///   implementation returns `false`.
    mutating func rewind() throws -> Bool
}

extension ImportSource {
    /// Cannot start again (see ``ImportSource/rewind()``).
    public mutating func rewind() throws -> Bool { false }
}

/// One top-level element of an import: a JSON object (or bare identifier), where it is,
/// and its key when the collection is an object keyed by identifier.
public struct ImportElement: Sendable {
    /// The element.
    public var value: JSONValue
    /// Its key, for a collection that is an object (`{"1699": {...}}`); stored in
    /// ``ImportOptions/keyAttribute`` when that is set.
    public var key: String?
    private var container: JSONPath
    private var index: Int

    /// An element at `path`.
    public init(value: JSONValue, path: JSONPath, key: String? = nil) {
        self.value = value
        self.key = key
        self.container = path
        self.index = -1
    }

    /// The element at `index` of the array at `container`, or under `key` of the object at
    /// `container` (the path is built only when asked for).
    public init(value: JSONValue, index: Int, key: String? = nil, in container: JSONPath = .root) {
        self.value = value
        self.key = key
        self.container = container
        self.index = index
    }

    /// The element's location (`$[3]`, `$.characters["1699"]`).
    public var path: JSONPath {
        if index < 0 { return container }
        if let key { return container.appending(key: key) }
        return container.appending(index: index)
    }
}

/// The elements of an in-memory JSON array (`$[0]`, `$[1]`, …), or the members of an
/// object keyed by identifier (`$["1699"]`, with the key).
public struct JSONImportSource: ImportSource {
    private let elements: [JSONValue]
    private let keys: [String]?
    private let container: JSONPath
    private var position = 0

    /// The elements of `array`, located under `container`.
    public init(array: [JSONValue], in container: JSONPath = .root) {
        self.elements = array
        self.keys = nil
        self.container = container
    }

    /// The members of `object`, each with its key.
    public init(keyedObject object: JSONObject, in container: JSONPath = .root) {
        self.elements = object.values
        self.keys = object.keys
        self.container = container
    }

    /// The next element (`$[i]` or `$["key"]` under the container), or nil at the end.
    public mutating func nextElement() throws -> ImportElement? {
        guard position < elements.count else { return nil }
        defer { position += 1 }
        return ImportElement(value: elements[position], index: position, key: keys?[position], in: container)
    }

    /// Starts again at the first element (always possible).
    public mutating func rewind() throws -> Bool {
        position = 0
        return true
    }
}
