import Trellis

/// One key's statistics gathered over several ``ShapeNode``s (all the places an entity's
/// objects were met): the evidence its attribute type, optionality or relationship is
/// decided from, kept in the inferred model for the extension checks.
struct KeyEvidence: Sendable {
    /// Values per class.
    var counts: [ValueClass: Int] = [:]
    /// Where the first value of each class was.
    var firstPlaces: [ValueClass: SamplePlace] = [:]
    var integerRange: ClosedRange<Int64>?
    /// Objects with a value other than `null`.
    var nonNull = 0
    var repeats = 0
    /// The classes of the elements of arrays of scalars (keys that may list identifiers only).
    var elementClasses: Set<ValueClass> = []

    init(_ stats: [KeyStats]) {
        for s in stats {
            for c in ValueClass.allCases where s.count(c) > 0 {
                counts[c, default: 0] += s.count(c)
                if firstPlaces[c] == nil, let place = s.firstPlaces[c.rawValue] { firstPlaces[c] = place }
            }
            if let r = s.integerRange {
                integerRange = integerRange.map { min($0.lowerBound, r.lowerBound)...max($0.upperBound, r.upperBound) } ?? r
            }
            nonNull += s.nonNull
            repeats += s.repeats
            for c in ValueClass.allCases where s.elementClasses & (1 << UInt32(c.rawValue)) != 0 { elementClasses.insert(c) }
        }
    }

    /// The classes met, `null` excluded, in ``ValueClass`` order.
    var classes: [ValueClass] { ValueClass.allCases.filter { $0 != .null && (counts[$0] ?? 0) > 0 } }

    /// The place of the first value of the first of `classes` met (for messages).
    func firstPlace(among classes: [ValueClass]) -> SamplePlace? {
        classes.compactMap { firstPlaces[$0] }.min { ($0.source, $0.path.description) < ($1.source, $1.path.description) }
    }
}

/// The keys of several nodes merged, in first-met order.
struct MergedKeys {
    struct Key {
        var name: String
        var stats: [KeyStats]

        var objectChildren: [ShapeNode] { stats.compactMap(\.objectChild) }
        var elementChildren: [ShapeNode] { stats.compactMap(\.elementChild) }
        var evidence: KeyEvidence { KeyEvidence(stats) }
    }

    var keys: [Key] = []
    /// Objects over all the nodes.
    var objectCount = 0
    /// Conflicting repeats of the composite identity candidate over all the nodes
    /// (``ShapeNode/compositeRepeats``).
    var compositeRepeats = 0

    init(_ nodes: [ShapeNode]) {
        var position: [String: Int] = [:]
        for node in nodes {
            objectCount += node.objectCount
            compositeRepeats += node.compositeRepeats
            for name in node.keyOrder {
                guard let stats = node.keys[name] else { continue }
                if let i = position[name] {
                    keys[i].stats.append(stats)
                } else {
                    position[name] = keys.count
                    keys.append(Key(name: name, stats: [stats]))
                }
            }
        }
    }

    func key(_ name: String) -> Key? { keys.first { $0.name == name } }
    var names: [String] { keys.map(\.name) }
}

/// How a key of an entity's objects is modelled.
enum KeyKind {
    /// Nothing to learn from: only `null` or `[]`.
    case skip
    /// Scalars: an attribute whose type the widening table gives.
    case scalar
    /// Arrays of scalars, dictionaries, or values mixing objects with other kinds.
    case json
    /// Objects (and `null`): an entity of their own, or flattened into the parent.
    case toOne([ShapeNode])
    /// Arrays of objects (and `[]`, `null`).
    case toMany([ShapeNode])

    init(_ key: MergedKeys.Key) {
        let classes = Set(key.evidence.classes)
        let structural: Set<ValueClass> = [.object, .objectArray, .emptyArray, .scalarArray]
        if classes.isEmpty || classes == [.emptyArray] {
            self = .skip
        } else if classes == [.object] {
            let nodes = key.objectChildren
            self = nodes.isEmpty || nodes.contains(where: KeyKind.isDictionary) ? .json : .toOne(nodes)
        } else if classes.isSubset(of: [.objectArray, .emptyArray]) {
            let nodes = key.elementChildren
            self = nodes.isEmpty || nodes.contains(where: KeyKind.isDictionary) ? .json : .toMany(nodes)
        } else if !classes.isDisjoint(with: structural) {
            self = .json
        } else {
            self = .scalar
        }
    }

    /// Objects that are tables rather than records: too many keys, or keys that are all
    /// decimal digits (`{"138586341": …}`).
    static func isDictionary(_ node: ShapeNode) -> Bool {
        if node.isDictionary { return true }
        return !node.keyOrder.isEmpty
            && node.keyOrder.allSatisfy { key in
                !key.isEmpty && key.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            }
    }
}

/// How an entity's objects are identified.
enum InferredIdentity: Equatable {
    /// By one key's value.
    case single(String)
    /// By the values of several keys together (objects without an identity key).
    case composite([String])
    case none

    var keys: [String] {
        switch self {
        case .single(let key): return [key]
        case .composite(let keys): return keys
        case .none: return []
        }
    }

    /// The identity of objects met at `nodes`, for an entity named by `words`: the first
    /// of `id`, `objectId`, `uuid`, `<entity>_id`, `<entity>Id` that every object has, with
    /// an integer (beyond 64 bits too) or string value that never repeats within one array; else, for array
    /// elements and the root (`allowsComposite`), every key holding a scalar in every object
    /// (of a type other than `json`), unless those values repeat within one array for
    /// objects that differ (``ShapeNode/compositeRepeats``): then none.
    static func decide(_ keys: MergedKeys, words: [String], allowsComposite: Bool) -> InferredIdentity {
        let snake = words.joined(separator: "_")
        let candidates = ["id", "objectId", "uuid", snake + "_id", InferenceNaming.lowerCamel(words) + "Id"]
        let identityClasses = ValueClass.strings.union([.integer, .bigInteger])
        for name in candidates {
            guard let key = keys.key(name) else { continue }
            let evidence = key.evidence
            let present = key.stats.reduce(0) { $0 + $1.present }
            guard present == keys.objectCount, evidence.nonNull == keys.objectCount, evidence.repeats == 0,
                !evidence.classes.isEmpty, Set(evidence.classes).isSubset(of: identityClasses)
            else { continue }
            let isInteger = Set(evidence.classes).isSubset(of: [.integer, .integerString]) || Set(evidence.classes).isSubset(of: [.integer, .bigInteger])
            let isString = Set(evidence.classes).isSubset(of: ValueClass.strings)
            guard isInteger || isString else { continue }
            return .single(name)
        }
        guard allowsComposite else { return .none }
        let scalarClasses = ValueClass.strings.union(ValueClass.numbers).union([.boolean])
        let composite = keys.keys.filter { key in
            let evidence = key.evidence
            return evidence.nonNull == keys.objectCount && key.stats.reduce(0, { $0 + $1.present }) == keys.objectCount
                && Set(evidence.classes).isSubset(of: scalarClasses) && !evidence.classes.isEmpty
                && AttributeTyping(classes: evidence.classes).type != .json
        }.map(\.name)
        return composite.isEmpty || keys.compositeRepeats > 0 ? .none : .composite(composite)
    }
}
