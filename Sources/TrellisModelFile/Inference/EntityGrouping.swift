/// One property of an entity's objects found by ``EntityGrouping/members(of:prefix:slot:)``:
/// an attribute at a key path (nested objects without identity are flattened into their
/// parent: `entities.hashtags`, `metadata.result_type`), or a relationship to the objects
/// met at `nodes`.
struct ShapeMember {
    enum Kind {
        case attribute(KeyEvidence, isJSON: Bool)
        case relationship(nodes: [ShapeNode], toMany: Bool, evidence: KeyEvidence)
    }

    /// The JSON key path, one key per component.
    var path: [String]
    var kind: Kind
}

/// Groups the places objects were met into entities (docs/ModelInference.md, "One shape,
/// one entity"): the objects at one key of one entity are one entity; objects met
/// elsewhere join an entity when they have the same identity key (of the same kind) and,
/// besides it, share at least two keys and at least half of the smaller key set, or when
/// the key they are met at gives them the same name.
final class EntityGrouping {
    final class Group {
        var nodes: [ShapeNode]
        let identity: InferredIdentity
        /// The words of the key the group was first met at (the root: of its entity name).
        let words: [String]
        /// The group whose objects hold the key the group was first met at.
        let parent: Int?

        init(nodes: [ShapeNode], identity: InferredIdentity, words: [String], parent: Int?) {
            self.nodes = nodes
            self.identity = identity
            self.words = words
            self.parent = parent
        }
    }

    private(set) var groups: [Group] = []
    /// Group index → the index it was merged into (itself while alive).
    private var alias: [Int] = []
    private var groupOfNode: [ObjectIdentifier: Int] = [:]

    /// Groups every node reachable from `root`, whose entity is named by `rootWords`.
    init(root: ShapeNode, rootWords: [String]) {
        let identity = InferredIdentity.decide(MergedKeys([root]), words: rootWords, allowsComposite: true)
        add(Group(nodes: [root], identity: identity, words: rootWords, parent: nil))
        var queue = [0]
        while !queue.isEmpty {
            let g = find(queue.removeFirst())
            let nodes = groups[g].nodes
            _ = EntityGrouping.members(of: nodes, prefix: []) { children, toMany, words in
                self.place(children, toMany: toMany, words: words, parent: g, queue: &queue)
            }
        }
    }

    /// The group holding `node`, if any.
    func group(of node: ShapeNode) -> Int? {
        groupOfNode[ObjectIdentifier(node)].map(find)
    }

    /// The surviving group `index` was merged into.
    func find(_ index: Int) -> Int {
        var i = index
        while alias[i] != i { i = alias[i] }
        return i
    }

    // MARK: - Members

    /// The properties of the objects at `nodes`, in the order their keys were first met.
    /// `slot(nodes, toMany, words)` says whether the objects at a key are an entity (true)
    /// or, for a to-one, flattened into these objects (false; for a to-many: JSON).
    static func members(
        of nodes: [ShapeNode], prefix: [String],
        slot: ([ShapeNode], Bool, [String]) -> Bool
    ) -> [ShapeMember] {
        var members: [ShapeMember] = []
        for key in MergedKeys(nodes).keys where !key.name.isEmpty {
            let path = prefix + [key.name]
            switch KeyKind(key) {
            case .skip:
                continue
            case .scalar:
                members.append(ShapeMember(path: path, kind: .attribute(key.evidence, isJSON: false)))
            case .json:
                members.append(ShapeMember(path: path, kind: .attribute(key.evidence, isJSON: true)))
            case .toOne(let children):
                if slot(children, false, InferenceNaming.words(of: key.name)) {
                    members.append(ShapeMember(path: path, kind: .relationship(nodes: children, toMany: false, evidence: key.evidence)))
                } else {
                    members += EntityGrouping.members(of: children, prefix: path, slot: slot)
                }
            case .toMany(let children):
                var words = InferenceNaming.words(of: key.name)
                if let last = words.popLast() { words.append(InferenceNaming.singular(last)) }
                if slot(children, true, words) {
                    members.append(ShapeMember(path: path, kind: .relationship(nodes: children, toMany: true, evidence: key.evidence)))
                } else {
                    members.append(ShapeMember(path: path, kind: .attribute(key.evidence, isJSON: true)))
                }
            }
        }
        return members
    }

    // MARK: - Placing

    /// Puts the objects met at one key into a group; false when they have no identity.
    private func place(_ nodes: [ShapeNode], toMany: Bool, words: [String], parent: Int, queue: inout [Int]) -> Bool {
        let assigned = nodes.compactMap(group(of:))
        if let target = assigned.min() {
            var changed = false
            for other in Array(Set(assigned)).sorted() where other != target {
                merge(other, into: target)
                changed = true
            }
            for node in nodes where group(of: node) == nil {
                assign(node, to: target)
                changed = true
            }
            if changed { queue.append(target) }
            return true
        }
        let keys = MergedKeys(nodes)
        let identity = InferredIdentity.decide(keys, words: words, allowsComposite: toMany)
        guard identity != .none else { return false }
        for g in groups.indices where alias[g] == g && matches(groups[g], keys, identity, words) {
            for node in nodes { assign(node, to: g) }
            queue.append(g)
            return true
        }
        add(Group(nodes: nodes, identity: identity, words: words, parent: parent))
        queue.append(groups.count - 1)
        return true
    }

    /// Whether objects with `keys` and `identity`, met at a key named `words`, are the
    /// objects of `group`.
    private func matches(_ group: Group, _ keys: MergedKeys, _ identity: InferredIdentity, _ words: [String]) -> Bool {
        guard group.identity == identity else { return false }
        let groupKeys = MergedKeys(group.nodes)
        for name in identity.keys {
            guard let a = groupKeys.key(name), let b = keys.key(name),
                EntityGrouping.isIntegerIdentity(a.evidence) == EntityGrouping.isIntegerIdentity(b.evidence)
            else { return false }
        }
        if InferenceNaming.upperCamel(words) == InferenceNaming.upperCamel(group.words) { return true }
        let identityKeys = Set(identity.keys)
        let a = Set(groupKeys.names).subtracting(identityKeys)
        let b = Set(keys.names).subtracting(identityKeys)
        let common = a.intersection(b).count
        return common >= 2 && common * 2 >= min(a.count, b.count)
    }

    /// Integers and numeric strings identify alike (`1699` and `"1699"`).
    static func isIntegerIdentity(_ evidence: KeyEvidence) -> Bool {
        Set(evidence.classes).isSubset(of: [.integer, .integerString])
    }

    private func add(_ group: Group) {
        let index = groups.count
        groups.append(group)
        alias.append(index)
        for node in group.nodes { groupOfNode[ObjectIdentifier(node)] = index }
    }

    private func assign(_ node: ShapeNode, to group: Int) {
        groups[group].nodes.append(node)
        groupOfNode[ObjectIdentifier(node)] = group
    }

    private func merge(_ source: Int, into target: Int) {
        for node in groups[source].nodes { assign(node, to: target) }
        groups[source].nodes = []
        alias[source] = target
    }
}
