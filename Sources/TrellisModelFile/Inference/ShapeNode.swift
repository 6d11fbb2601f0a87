import Trellis

/// What inference learned about the objects met at one place of the samples (the root
/// collection, `user` inside those objects, the elements of `entities.hashtags`, …):
/// how many there were and, per key, the classes of its values. Values are summarised as
/// they are read and then dropped, so memory grows with the number of distinct places and
/// keys, not with the input (see ``ShapeNode/maximumKeys`` and
/// ``ShapeNode/uniquenessLimit``).
final class ShapeNode {
    /// Objects with more distinct keys than this are dictionaries (id → value tables), not
    /// records: their keys stop being recorded.
    static let maximumKeys = 1000
    /// Identity candidates are checked for conflicting repeats on this many distinct values
    /// per array (the root collection counts as one array across every input); later new
    /// values are not recorded.
    static let uniquenessLimit = 1 << 16

    // Exclusivity is not checked at run time on the hot properties: a node is used by one
    // thread, and no access overlaps another (the importer's bookkeeping does the same).

    /// Objects observed here.
    @exclusivity(unchecked) private(set) var objectCount = 0
    /// Per key, in the order keys were first met.
    @exclusivity(unchecked) private(set) var keys: [String: KeyStats] = [:]
    private(set) var keyOrder: [String] = []
    /// More than ``maximumKeys`` distinct keys were met (a dictionary, recorded as JSON).
    private(set) var isDictionary = false
    /// Whether this node's objects are elements of arrays (uniqueness is checked per array).
    let isArrayElement: Bool
    /// Where the first object observed here was.
    private(set) var firstPlace: SamplePlace?
    /// Where the object that made this node a dictionary was (its key past ``maximumKeys``).
    private(set) var dictionaryPlace: SamplePlace?
    /// Per identity candidate, each value's hash in the root collection and a signature of
    /// its object (root only; see ``checkRootUniqueness(of:)``).
    private var rootSignatures: [String: [Int: Signature]] = [:]
    /// The root collection's objects by the hash of their composite identity candidate
    /// (``compositeHash(of:)``): the hash of the whole object (``checkRootUniqueness(of:)``).
    private var rootComposites: [Int: Int] = [:]
    /// Conflicting repeats of the composite identity candidate within one array: two objects
    /// with the same values of the keys every object had a scalar for, that differ otherwise.
    private(set) var compositeRepeats = 0

    init(isArrayElement: Bool) {
        self.isArrayElement = isArrayElement
    }

    // MARK: - Observing

    /// Folds one object into the summary. `path` is the object's place (materialised only
    /// for the first value of each class of a key).
    func observe(_ object: JSONObject, path: @autoclosure () -> JSONPath, source: Int, depth: Int = 0) {
        if objectCount == 0 { firstPlace = SamplePlace(source: source, path: path()) }
        objectCount += 1
        guard !isDictionary else { return }
        for (key, value) in object {
            let stats: KeyStats
            if let known = keys[key] {
                stats = known
            } else {
                guard keys.count < ShapeNode.maximumKeys else {
                    dictionaryPlace = SamplePlace(source: source, path: path())
                    becomeDictionary()
                    return
                }
                stats = KeyStats(
                    isIdentityCandidate: ShapeNode.isIdentityCandidateName(key),
                    isIdentifierList: ShapeNode.isIdentifierListName(key))
                keys[key] = stats
                keyOrder.append(key)
            }
            stats.observe(value, path: path().appending(key: key), source: source, depth: depth)
        }
    }

    /// Counts conflicting repeats of identity-candidate values within one array of objects.
    func checkUniqueness(of objects: [JSONObject]) {
        guard objects.count > 1 else { return }
        var seen: [String: [Int: Signature]] = [:]
        var composites: [Int: Int] = [:]
        for object in objects {
            check(object, against: &seen)
            checkComposite(object, against: &composites)
        }
    }

    /// As ``checkUniqueness(of:)`` for one element of the root collection (which counts as
    /// one array across every input).
    func checkRootUniqueness(of object: JSONObject) {
        check(object, against: &rootSignatures)
        checkComposite(object, against: &rootComposites)
    }

    /// Counts a conflicting repeat of the composite identity candidate: an earlier object of
    /// the array with the same values of the keys every object so far had a scalar for, that
    /// is not equal to this one (an equal object met again is the same object). The keys are
    /// those of the objects observed so far, a superset of the composite identity decided at
    /// the end (keys only drop out of it), so a repeat counted is a repeat of that identity.
    private func checkComposite(_ object: JSONObject, against seen: inout [Int: Int]) {
        guard !isDictionary, let key = compositeHash(of: object) else { return }
        let whole = ShapeNode.unorderedHash(of: object) { _, _ in true }
        if let earlier = seen[key] {
            if earlier != whole { compositeRepeats += 1 }
        } else if seen.count < ShapeNode.uniquenessLimit {
            seen[key] = whole
        }
    }

    /// The hash of `object`'s values of the keys that held a scalar in every object observed
    /// here (nil when there is none), independent of member order.
    private func compositeHash(of object: JSONObject) -> Int? {
        var any = false
        let hash = ShapeNode.unorderedHash(of: object) { key, value in
            switch value {
            case .null, .array, .object: return false
            default:
                guard let stats = keys[key], stats.nonNull == objectCount, stats.scalarCount == stats.nonNull else { return false }
                any = true
                return true
            }
        }
        return any ? hash : nil
    }

    /// The sum of the hashes of the members `included` selects (key and value together):
    /// the same for the same members in any order.
    private static func unorderedHash(of object: JSONObject, _ included: (String, JSONValue) -> Bool) -> Int {
        var sum = 0
        for (key, value) in object where included(key, value) {
            var hasher = Hasher()
            hasher.combine(key)
            hasher.combine(value)
            sum = sum &+ hasher.finalize()
        }
        return sum
    }

    /// A value of a candidate key met again is a conflicting repeat when the two objects
    /// differ in more than half of their other scalar members (a user mentioned twice in
    /// one tweet is the same object; `{"id": 1, "name": "a"}` and `{"id": 1, "name": "b"}` are not).
    private func check(_ object: JSONObject, against seen: inout [String: [Int: Signature]]) {
        for (key, value) in object {
            guard let stats = keys[key], stats.isIdentityCandidate, let hash = ShapeNode.identityHash(value) else { continue }
            let signature = Signature(of: object, excluding: key)
            if let earlier = seen[key]?[hash] {
                if earlier.conflicts(with: signature) { stats.repeats += 1 }
            } else if seen[key, default: [:]].count < ShapeNode.uniquenessLimit {
                seen[key, default: [:]][hash] = signature
            }
        }
    }

    /// Hashes of an object's first four scalar members other than an identity candidate
    /// (key and value together), to tell a repeat of the same object from another object.
    struct Signature {
        var hashes: (Int, Int, Int, Int) = (0, 0, 0, 0)
        var count = 0

        init(of object: JSONObject, excluding excluded: String) {
            for (index, (key, value)) in object.enumerated() where key != excluded {
                let hash: Int
                switch value {
                case .array, .object: continue
                // Integers and booleans need no hashing: the member's position tells keys apart
                // (objects of one place mostly share their key order).
                case .number(let n):
                    if case .int(let i) = n.storage { hash = Int(truncatingIfNeeded: i) &* 31 &+ index } else { hash = n.text.hashValue }
                case .bool(let b): hash = (b ? 1 : 2) &* 31 &+ index
                default:
                    var hasher = Hasher()
                    hasher.combine(key)
                    hasher.combine(value)
                    hash = hasher.finalize()
                }
                switch count {
                case 0: hashes.0 = hash
                case 1: hashes.1 = hash
                case 2: hashes.2 = hash
                default: hashes.3 = hash
                }
                count += 1
                if count == 4 { break }
            }
        }

        var list: [Int] { Array([hashes.0, hashes.1, hashes.2, hashes.3].prefix(count)) }

        /// More than half of the members differ.
        func conflicts(with other: Signature) -> Bool {
            let size = max(count, other.count)
            let common = Set(list).intersection(other.list).count
            return (size - common) * 2 > size
        }
    }

    /// Whether the objects here are tables rather than records (see ``KeyKind/isDictionary(_:)``).
    var isTable: Bool { KeyKind.isDictionary(self) }

    private func becomeDictionary() {
        isDictionary = true
        keys.removeAll()
        keyOrder.removeAll()
        rootSignatures.removeAll()
        rootComposites.removeAll()
    }

    // MARK: - Identity candidates

    /// `id`, `objectId`, `uuid`, and keys ending in `_id` / `Id` (the `<entity>_id` /
    /// `<entity>Id` candidates, whose entity name is known only later).
    static func isIdentityCandidateName(_ key: String) -> Bool {
        key == "id" || key == "objectId" || key == "uuid" || key.hasSuffix("_id") || key.hasSuffix("Id")
    }

    /// Keys whose last word is `ids` (`topicIds`, `sub_topic_ids`): arrays of identifiers of
    /// another entity (docs/ModelInference.md, "References by identifier"), whose elements'
    /// classes are recorded.
    static func isIdentifierListName(_ key: String) -> Bool {
        guard key.utf8.count > 3, key.lowercased().hasSuffix("ids") else { return false }
        let words = InferenceNaming.words(of: key)
        return words.count >= 2 && words.last == "ids"
    }

    /// A hash of an integer or string value (nil for other kinds, which cannot be identities).
    static func identityHash(_ value: JSONValue) -> Int? {
        var hasher = Hasher()
        switch value {
        case .number(let n):
            if let i = n.int64Value {
                hasher.combine(0)
                hasher.combine(i)
            } else if n.isIntegerLiteral {  // beyond 64 bits: its digits (JSON writes an integer one way)
                hasher.combine(2)
                hasher.combine(n.text)
            } else {
                return nil
            }
        case .string(let s):
            hasher.combine(1)
            hasher.combine(s)
        default:
            return nil
        }
        return hasher.finalize()
    }
}

/// Where a sampled value was: the input (its position in the order inputs were added) and
/// the JSON path in it.
struct SamplePlace: Sendable, Hashable {
    var source: Int
    var path: JSONPath
}

/// What one key's values were, at one ``ShapeNode``.
final class KeyStats {
    /// Whether the key may be an identity (``ShapeNode/isIdentityCandidateName(_:)``).
    let isIdentityCandidate: Bool
    /// Whether the key may hold a list of identifiers (``ShapeNode/isIdentifierListName(_:)``):
    /// the classes of its arrays' elements are recorded in ``elementClasses``.
    let isIdentifierList: Bool
    /// The classes of the elements of the key's arrays of scalars, one bit per
    /// ``ValueClass/rawValue`` (identifier lists only).
    private(set) var elementClasses: UInt32 = 0
    /// Objects that had the key (null included).
    @exclusivity(unchecked) private(set) var present = 0
    @exclusivity(unchecked) private(set) var counts = [Int](repeating: 0, count: ValueClass.allCases.count)
    /// Where the first value of each class was, by ``ValueClass/rawValue``.
    @exclusivity(unchecked) private(set) var firstPlaces = [SamplePlace?](repeating: nil, count: ValueClass.allCases.count)
    /// The smallest and largest integers met.
    private(set) var integerRange: ClosedRange<Int64>?
    /// Conflicting repeats within one array (identity candidates only; see ``ShapeNode``).
    var repeats = 0
    /// The objects met as values (to-one), and as elements of arrays of objects.
    private(set) var objectChild: ShapeNode?
    private(set) var elementChild: ShapeNode?

    init(isIdentityCandidate: Bool, isIdentifierList: Bool = false) {
        self.isIdentityCandidate = isIdentityCandidate
        self.isIdentifierList = isIdentifierList
    }

    /// Nesting deeper than this is summarised as JSON without looking inside (the reader's
    /// own limit is deeper; this keeps the summary small for pathological input).
    static let maximumDepth = 64

    func count(_ valueClass: ValueClass) -> Int { counts[valueClass.rawValue] }

    /// The classes met (null excluded), in ``ValueClass`` order.
    var classes: [ValueClass] { ValueClass.allCases.filter { $0 != .null && counts[$0.rawValue] > 0 } }

    /// Objects where the key had a value other than `null`.
    var nonNull: Int { present - counts[ValueClass.null.rawValue] }
    /// Objects where the key had a string, a number or a boolean.
    @exclusivity(unchecked) private(set) var scalarCount = 0

    func observe(_ value: JSONValue, path: @autoclosure () -> JSONPath, source: Int, depth: Int) {
        present += 1
        let valueClass = ValueClassifier.classify(value)
        counts[valueClass.rawValue] += 1
        switch value {
        case .string, .number, .bool: scalarCount += 1
        default: break
        }
        if firstPlaces[valueClass.rawValue] == nil { firstPlaces[valueClass.rawValue] = SamplePlace(source: source, path: path()) }
        switch value {
        case .number(let n):
            if valueClass == .integer, let i = n.int64Value {
                integerRange = integerRange.map { min($0.lowerBound, i)...max($0.upperBound, i) } ?? i...i
            }
        case .object(let object):
            guard depth < KeyStats.maximumDepth else { return }
            let child = objectChild ?? ShapeNode(isArrayElement: false)
            objectChild = child
            child.observe(object, path: path(), source: source, depth: depth + 1)
        case .array(let elements) where valueClass == .objectArray:
            guard depth < KeyStats.maximumDepth else { return }
            let child = elementChild ?? ShapeNode(isArrayElement: true)
            elementChild = child
            var objects: [JSONObject] = []
            objects.reserveCapacity(elements.count)
            for (i, element) in elements.enumerated() {
                guard let object = element.objectValue else { continue }
                objects.append(object)
                child.observe(object, path: path().appending(index: i), source: source, depth: depth + 1)
            }
            child.checkUniqueness(of: objects)
        case .array(let elements) where valueClass == .scalarArray && isIdentifierList:
            for element in elements { elementClasses |= 1 << UInt32(ValueClassifier.classify(element).rawValue) }
        default:
            break
        }
    }
}
