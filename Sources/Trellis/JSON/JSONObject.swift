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
///   is kept beside the members.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One key/value pair.
    public typealias Member = (key: String, value: JSONValue)

    /// The members, in order.
    public private(set) var members: [Member]
    /// key → position in `members`, kept only when `members.count > indexThreshold`.
    private var index: [ExactKey: Int]?

    static let indexThreshold = 16

    // MARK: - Initialisers

    /// An empty object.
    public init() {
        members = []
        index = nil
    }

    /// An object with `capacity` members reserved.
    public init(minimumCapacity capacity: Int) {
        members = []
        members.reserveCapacity(capacity)
        index = nil
    }

    /// An object from pairs; a repeated key keeps its first position and its last value.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, JSONValue) {
        self.init()
        for (k, v) in pairs { self[k] = v }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// An object from the reader's members, without re-checking keys when the reader
    /// has found them unique (`knownUnique`). Otherwise, and for large objects, a
    /// repeated key keeps its first position and its last value.
    init(parsedMembers: [Member], knownUnique: Bool) {
        if knownUnique && parsedMembers.count <= JSONObject.indexThreshold {
            self.init(members: parsedMembers, index: nil)
            return
        }
        if parsedMembers.count > JSONObject.indexThreshold {
            var map = [ExactKey: Int](minimumCapacity: parsedMembers.count)
            var duplicate = false
            for i in parsedMembers.indices where map.updateValue(i, forKey: ExactKey(parsedMembers[i].key)) != nil {
                duplicate = true
                break
            }
            if !duplicate {
                self.init(members: parsedMembers, index: map)
                return
            }
        }
        self.init(minimumCapacity: parsedMembers.count)
        for member in parsedMembers { append(key: member.key, value: member.value) }
    }

    private init(members: [Member], index: [ExactKey: Int]?) {
        self.members = members
        self.index = index
    }

    // MARK: - Access

    /// Number of members.
    public var count: Int { members.count }

    /// `true` when the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The keys, in order.
    public var keys: [String] { members.map(\.key) }

    /// The values, in key order.
    public var values: [JSONValue] { members.map(\.value) }

    /// The position of `key` in ``members``, or nil.
    public func position(of key: String) -> Int? {
        if let index { return index[ExactKey(key)] }
        for i in members.indices where members[i].key.hasSameCodeUnits(as: key) { return i }
        return nil
    }

    /// The value for `key`, or nil when the key is absent (a JSON `null` is `.null`,
    /// not nil). Setting nil removes the key; setting a value replaces in place or appends.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let i = position(of: key) else { return nil }
            return members[i].value
        }
        set {
            if let i = position(of: key) {
                if let newValue {
                    members[i].value = newValue
                } else {
                    members.remove(at: i)
                    rebuildIndex()
                }
            } else if let newValue {
                append(key: key, value: newValue)
            }
        }
    }

    /// `true` when the object has `key` (even with a `null` value).
    public func contains(key: String) -> Bool { position(of: key) != nil }

    /// Appends a member known not to be present, or replaces the value of an existing key.
    /// The reader calls this for each member it parses.
    public mutating func append(key: String, value: JSONValue) {
        if let i = position(of: key) {
            members[i].value = value
            return
        }
        members.append((key, value))
        if index != nil {
            index![ExactKey(key)] = members.count - 1
        } else if members.count > JSONObject.indexThreshold {
            rebuildIndex()
        }
    }

    /// Removes all members.
    public mutating func removeAll() {
        members.removeAll()
        index = nil
    }

    /// A copy whose members are sorted by key (Unicode scalar order of the UTF-8 bytes).
    public func sortedByKey() -> JSONObject {
        var copy = self
        copy.members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        copy.rebuildIndex()
        return copy
    }

    // MARK: - Sequence

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    // MARK: - Equality (order-insensitive)

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs.members {
            guard let other = rhs[key], other == value else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-insensitive: combine per-member hashes commutatively.
        var combined = 0
        for (key, value) in members {
            var h = Hasher()
            h.combine(key)
            h.combine(value)
            combined ^= h.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }

    // MARK: - Internals

    private mutating func rebuildIndex() {
        guard members.count > JSONObject.indexThreshold else {
            index = nil
            return
        }
        var map = [ExactKey: Int](minimumCapacity: members.count)
        for (i, m) in members.enumerated() { map[ExactKey(m.key)] = i }
        index = map
    }

    /// A key hashed and compared by its UTF-8 code units (`hasSameCodeUnits(as:)`), for the index.
    struct ExactKey: Hashable {
        let string: String

        init(_ string: String) { self.string = string }

        static func == (lhs: ExactKey, rhs: ExactKey) -> Bool { lhs.string.hasSameCodeUnits(as: rhs.string) }

        func hash(into hasher: inout Hasher) {
            var copy = string  // withUTF8 makes the bytes contiguous (free for native strings)
            copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }
}
