import Trellis

/// The hint for the first mistake of an import: the collection is read as one object
/// (the whole payload, or the object at `--at`) that lacks the entity's identity, while
/// objects that have it sit one level further in:
///
///     the payload is an object; its array at 'statuses' has 100 objects with 'id': did you mean --at statuses?
///     the value at 'events' is an object; its 184 members are objects with 'id': did you mean --at events --key-attribute id?
///
/// The search looks at arrays and objects of objects up to ``maximumDepth`` keys below the
/// collection, and proposes the one whose objects have every identity key path and,
/// on average, the most of its other key paths (then the most objects, the shallowest, the
/// first in document order). A collection whose objects hold fewer than half of the
/// entity's other key paths is not proposed.
struct CollectionHint {
    /// How many keys below the collection the search goes.
    static let maximumDepth = 4

    /// The imported entity.
    let entity: ResolvedEntity
    /// `--at`, if given.
    let at: JSONKeyPath?

    /// The key paths an object of the entity is recognised by: its identity attributes'
    /// (or, without identity, the attribute the error names).
    func wantedKeyPaths(missing attribute: String?) -> [JSONKeyPath] {
        var names = entity.identityAttributes.map(\.name)
        if names.isEmpty, let attribute { names = [attribute] }
        return names.compactMap { name in
            entity.attributeIndex(of: name).flatMap { index in entity.attributeMappings.first { $0.index == index }?.keyPath }
        }
    }

    /// The hint for `collection` (the object that was imported as one element), or nil
    /// when no array or object of objects in it has the `wanted` key paths.
    func hint(collection: JSONValue, wanted: [JSONKeyPath]) -> String? {
        guard !wanted.isEmpty, case .object(let object) = collection else { return nil }
        let keys = wanted.map { "'\($0)'" }.joined(separator: " and ")
        let subject = at.map { "the value at '\($0)' is an object" } ?? "the payload is an object"
        let base = at?.components ?? []
        var best: (match: Match, depth: Int, text: String)?
        func consider(_ match: Match, depth: Int, _ text: String?) {
            guard match.count > 0, let text else { return }
            if let current = best, !(match.isBetter(than: current.match) || (match == current.match && depth < current.depth)) { return }
            best = (match, depth, text)
        }
        // The object's own members (`--at events` without `--key-attribute`).
        let own = self.match(wanted, in: object.values)
        consider(own, depth: 0, suggestion(at: base).map { "its \(own.count) members are objects with \(keys): did you mean \($0)" })
        var queue: [(components: [JSONKeyPath.Component], object: JSONObject)] = [([], object)]
        while !queue.isEmpty {
            let (components, current) = queue.removeFirst()
            for (key, value) in current {
                let path = components + JSONKeyPath(key: key).components
                let relative = JSONKeyPath(components: path)
                switch value {
                case .array(let elements):
                    let found = match(wanted, in: elements)
                    consider(
                        found, depth: path.count,
                        "its array at '\(relative)' has \(objects(found.count)) with \(keys): "
                            + "did you mean --at \(JSONKeyPath(components: base + path))?")
                case .object(let members):
                    let found = match(wanted, in: members.values)
                    consider(
                        found, depth: path.count,
                        suggestion(at: base + path).map {
                            "its object at '\(relative)' has \(objects(found.count)) with \(keys): did you mean \($0)"
                        })
                    if path.count < CollectionHint.maximumDepth { queue.append((path, members)) }
                default:
                    break
                }
            }
        }
        return best.map { "\(subject); \($0.text)" }
    }

    // MARK: - Internals

    /// How many objects of a candidate collection have every wanted key path, and how many
    /// of the entity's mapped key paths they hold on average (so `--entity Event` prefers
    /// the events, with `name` and `topicIds`, to the performances, which also have `id`).
    struct Match: Equatable {
        var count = 0
        var mappedKeys = 0

        func isBetter(than other: Match) -> Bool {
            // mappedKeys / count > other.mappedKeys / other.count, then more objects.
            let mine = mappedKeys * other.count
            let theirs = other.mappedKeys * count
            return mine != theirs ? mine > theirs : count > other.count
        }
    }

    /// The objects of `values` with a value at every `wanted` key path; none when, on
    /// average, they hold fewer than half of the entity's other key paths (`null` counts:
    /// the key is there). A status has a user's `id`, `created_at` and `lang`, but not its
    /// 9 other keys: the statuses are no users.
    private func match(_ wanted: [JSONKeyPath], in values: some Sequence<JSONValue>) -> Match {
        let mapped = entity.attributeMappings.map(\.keyPath) + entity.relationshipMappings.map(\.keyPath)
        let others = mapped.filter { !wanted.contains($0) }
        var match = Match()
        for value in values {
            guard case .object = value, wanted.allSatisfy({ Self.has($0, value) }) else { continue }
            match.count += 1
            match.mappedKeys += others.filter { !$0.lookup(in: value).isMissing }.count
        }
        return match.mappedKeys * 2 < others.count * match.count ? Match() : match
    }

    /// A value, not `null`, at `keyPath` in `value`.
    private static func has(_ keyPath: JSONKeyPath, _ value: JSONValue) -> Bool {
        keyPath.lookup(in: value).value != nil
    }

    /// `--at events --key-attribute id?` for an object of objects; nil for a composite
    /// identity, which no `--key-attribute` fills (and without which the object is one object).
    private func suggestion(at components: [JSONKeyPath.Component]) -> String? {
        guard entity.identityAttributes.count == 1 else { return nil }
        let keyAttribute = "--key-attribute \(entity.identityAttributes[0].name)?"
        return components.isEmpty ? keyAttribute : "--at \(JSONKeyPath(components: components)) " + keyAttribute
    }

    private func objects(_ n: Int) -> String { n == 1 ? "1 object" : "\(n) objects" }
}
