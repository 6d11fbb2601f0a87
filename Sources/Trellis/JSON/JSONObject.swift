/// A JSON object: string keys mapped to ``JSONValue``s, in document order.
///
/// Keys are unique. Setting a key that exists replaces its value in place (the key
/// keeps its first position), which is how the reader implements RFC 8259's open
/// question on duplicate names: **the last value wins**, at the first key's position.
///
/// Keys are compared by their UTF-8 code units, as RFC 8259 §8.3 recommends, not by
/// Swift's canonical equivalence: `"é"` (U+00E9) and `"e\u0301"` are two different keys.
///
///     var user: JSONObject = ["id": 1, "name": "Ada"]
///     user["name"] = "Ada Lovelace"   // replaces, keeps position
///     user["email"] = nil             // removes (no-op when absent)
///     user.keys                       // ["id", "name"]
///
/// - Complexity: lookup is O(n) for objects of up to 16 members (a linear scan is
///   faster than hashing at that size) and O(1) on average above, where a hash index
///   is kept beside the keys.
///
/// Storage: the values in an array, and the keys in a ``JSONObjectShape`` that objects
/// with the same keys in the same order share (the reader gives every record of an array
/// of records one shape), so a parsed record costs one array of values, not of members.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One key/value pair.
    public typealias Member = (key: String, value: JSONValue)

    /// The keys (and the index of a large object's keys), shared copy-on-write.
    private var shape: JSONObjectShape
    /// The values, in key order.
    public private(set) var values: [JSONValue]

    static let indexThreshold = 16

    // MARK: - Initialisers

    /// An empty object.
    public init() {
        shape = JSONObjectShape.empty
        values = []
    }

    /// An object with `capacity` members reserved.
    public init(minimumCapacity capacity: Int) {
        shape = JSONObjectShape(reservingCapacity: capacity)
        values = []
        values.reserveCapacity(capacity)
    }

    /// An object from pairs; a repeated key keeps its first position and its last value.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, JSONValue) {
        self.init()
        for (k, v) in pairs { self[k] = v }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// An object of `values` under `shape`'s keys (as many of each; keys unique).
    init(shape: JSONObjectShape, values: [JSONValue]) {
        self.shape = shape
        self.values = values
    }

    // MARK: - Access

    /// Number of members.
    public var count: Int { values.count }

    /// `true` when the object has no members.
    public var isEmpty: Bool { values.isEmpty }

    /// The keys, in order.
    public var keys: [String] { shape.keys }

    /// The members, in order.
    public var members: [Member] {
        var out: [Member] = []
        out.reserveCapacity(values.count)
        for i in values.indices { out.append((shape.keys[i], values[i])) }
        return out
    }

    /// The key of member `i` (`0 ..< count`).
    public func key(at i: Int) -> String { shape.keys[i] }

    /// The value of member `i` (`0 ..< count`).
    public func value(at i: Int) -> JSONValue { values[i] }

    /// The position of `key` in ``keys``, or nil.
    public func position(of key: String) -> Int? { shape.position(of: key) }

    /// Where one key is in objects of one shape: an inline cache for a reader asking every
    /// object of a batch for the same key (the objects read from an array of records share
    /// a shape, so the search runs once). It holds the shape, which is therefore never
    /// changed in place while the cache names it.
    struct KeyPositionCache {
        /// The key this cache finds.
        let key: String
        fileprivate var shape: JSONObjectShape?
        fileprivate var position = -1

        init(key: String) { self.key = key }
    }

    /// The value for the cache's key (nil when absent), through `cache` (see ``KeyPositionCache``).
    @inline(__always)
    func value(cachedIn cache: inout KeyPositionCache) -> JSONValue? {
        if cache.shape !== shape {
            cache.position = shape.position(of: cache.key) ?? -1
            cache.shape = shape
        }
        guard cache.position >= 0 else { return Optional<JSONValue>.none }  // (a bare `nil` would be JSONValue.null)
        return values[cache.position]
    }

    /// The value for `key`, or nil when the key is absent (a JSON `null` is `.null`,
    /// not nil). Setting nil removes the key; setting a value replaces in place or appends.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let i = shape.position(of: key) else { return nil }
            return values[i]
        }
        set {
            if let i = shape.position(of: key) {
                if let newValue {
                    values[i] = newValue
                } else {
                    values.remove(at: i)
                    uniqueShape().remove(at: i)
                }
            } else if let newValue {
                uniqueShape().append(key)
                values.append(newValue)
            }
        }
    }

    /// `true` when the object has `key` (even with a `null` value).
    public func contains(key: String) -> Bool { shape.position(of: key) != nil }

    /// Appends a member known not to be present, or replaces the value of an existing key.
    public mutating func append(key: String, value: JSONValue) {
        if let i = shape.position(of: key) {
            values[i] = value
            return
        }
        uniqueShape().append(key)
        values.append(value)
    }

    /// Removes all members.
    public mutating func removeAll() {
        shape = JSONObjectShape.empty
        values.removeAll()
    }

    /// A copy whose members are sorted by key (Unicode scalar order of the UTF-8 bytes).
    public func sortedByKey() -> JSONObject {
        let order = values.indices.sorted { shape.keys[$0].utf8.lexicographicallyPrecedes(shape.keys[$1].utf8) }
        return JSONObject(shape: JSONObjectShape(keys: order.map { shape.keys[$0] }), values: order.map { values[$0] })
    }

    /// The shape, copied first unless this object is its only user (copy on write).
    private mutating func uniqueShape() -> JSONObjectShape {
        if !isKnownUniquelyReferenced(&shape) || shape === JSONObjectShape.empty {
            shape = JSONObjectShape(copying: shape)
        }
        return shape
    }

    // MARK: - Sequence

    /// The members in order, as `(key, value)` pairs.
    public struct Iterator: IteratorProtocol {
        let keys: [String]
        let values: [JSONValue]
        var position = 0

        public mutating func next() -> Member? {
            guard position < values.count else { return nil }
            defer { position += 1 }
            return (keys[position], values[position])
        }
    }

    public func makeIterator() -> Iterator { Iterator(keys: shape.keys, values: values) }

    public var underestimatedCount: Int { values.count }

    // MARK: - Equality (order-insensitive)

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.shape === rhs.shape { return lhs.values == rhs.values }
        for (key, value) in lhs {
            guard let other = rhs[key], other == value else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-insensitive: combine per-member hashes commutatively.
        var combined = 0
        for (key, value) in self {
            var h = Hasher()
            h.combine(key)
            h.combine(value)
            combined ^= h.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }

    /// `true` when both objects use one shape (the same keys in the same order), which
    /// objects read by one reader from records of the same keys do.
    func hasSameShape(as other: JSONObject) -> Bool { shape === other.shape }

    /// A key hashed and compared by its UTF-8 code units (`hasSameCodeUnits(as:)`), for the index.
    struct ExactKey: Hashable, Sendable {
        let string: String

        init(_ string: String) { self.string = string }

        static func == (lhs: ExactKey, rhs: ExactKey) -> Bool { lhs.string.hasSameCodeUnits(as: rhs.string) }

        func hash(into hasher: inout Hasher) {
            var copy = string  // withUTF8 makes the bytes contiguous (free for native strings)
            copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }
}

/// The keys of objects, in order and unique, with a hash index when there are more than
/// ``JSONObject/indexThreshold``. Objects with the same keys share one shape; a shape is
/// changed only by the one object using it (``JSONObject`` copies it first otherwise),
/// which is why it may be `@unchecked Sendable`, as an array's storage is.
final class JSONObjectShape: @unchecked Sendable {
    // No dynamic exclusivity checks (they cost more than the lookups): only the one object
    // using a shape mutates it, never during another access.
    @exclusivity(unchecked) private(set) var keys: [String]
    /// key → position, kept only when `keys.count > JSONObject.indexThreshold`.
    @exclusivity(unchecked) private var index: [JSONObject.ExactKey: Int]?

    /// The shape of objects without members (never changed: objects copy it first).
    static let empty = JSONObjectShape(keys: [])

    /// A shape of `keys`, which must be unique.
    init(keys: [String]) {
        self.keys = keys
        index = nil
        if keys.count > JSONObject.indexThreshold { rebuildIndex() }
    }

    init(reservingCapacity capacity: Int) {
        keys = []
        keys.reserveCapacity(capacity)
        index = nil
    }

    init(copying other: JSONObjectShape) {
        keys = other.keys
        index = other.index
    }

    /// The position of `key`, compared by UTF-8 code units.
    @inline(__always)
    func position(of key: String) -> Int? {
        if let index { return index[JSONObject.ExactKey(key)] }
        for i in keys.indices where keys[i].hasSameCodeUnits(as: key) { return i }
        return nil
    }

    func append(_ key: String) {
        keys.append(key)
        if index != nil {
            index![JSONObject.ExactKey(key)] = keys.count - 1
        } else if keys.count > JSONObject.indexThreshold {
            rebuildIndex()
        }
    }

    func remove(at i: Int) {
        keys.remove(at: i)
        rebuildIndex()
    }

    private func rebuildIndex() {
        guard keys.count > JSONObject.indexThreshold else {
            index = nil
            return
        }
        var map = [JSONObject.ExactKey: Int](minimumCapacity: keys.count)
        for (i, key) in keys.enumerated() { map[JSONObject.ExactKey(key)] = i }
        index = map
    }
}
