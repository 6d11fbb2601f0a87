/// Top-level references: an element of the imported array (or the object at `--at`) that
/// is a JSON object holding the imported entity's identity attributes at their key paths and
/// no other key is read as a bare identifier is read: the stored object with that identity
/// (a placeholder or a full object) is found and left unchanged, counted unchanged; none
/// found, a placeholder is made (without the model's defaults), as for a nested bare
/// identifier. It is what the exporter writes for a top-level placeholder
/// (`{"objectId": "teamMISSNG"}`), so an export imports back as the same graph.
///
/// Any other key, mapped or not, `null` included, makes the object a full object (a new one
/// gets the model's defaults; the entity mapper chooses its entity, and may read a key no
/// property maps, such as `type`). Objects nested in relationships and elements keyed by
/// ``ImportOptions/keyAttribute`` are always full objects.
extension Importer {
    /// The identity of top-level `object` when it holds only the identity attributes of
    /// `requested` (the imported entity); nil otherwise, or when an identity value is missing
    /// or `null`.
    /// - Throws: `.invalidValue` for an identity value that does not fit its attribute.
    /// - Complexity: O(keys of `object`), stopping at the first key that is not an identity's.
    func topLevelReference(_ object: JSONObject, _ requested: EntityInfo, _ plan: EntityPlan, key: String?) throws -> IdentityKey? {
        guard requested === root, steps.isEmpty, key == nil || options.keyAttribute == nil,
            requested.namespace >= 0, !plan.identity.isEmpty
        else { return nil }
        guard try topLevelIdentityKeys().holdsOnlyIdentity(object) else { return nil }
        return try extractIdentity(plan, object, requested)
    }

    /// Counts a top-level reference's object as unchanged (unless the batch changes it
    /// elsewhere, or it is new: the flush keeps each object's lowest code).
    func countTopLevelReference(_ resolution: Resolution) {
        switch resolution {
        case .registered(let object): touch(object)
        case .new: break  // a placeholder, touched (inserted) when created
        case .stored(let s): unchangedStored.append(s)
        }
    }

    /// The imported entity's identity key paths as a tree (made once per import).
    private func topLevelIdentityKeys() throws -> IdentityKeyTree {
        if let keys = topLevelKeys { return keys }
        var tree = IdentityKeyTree()
        for a in try plan(root).identity { tree.insert(a.keyPath.components.map(\.key)[...]) }
        topLevelKeys = tree
        return tree
    }
}

/// Key paths as a tree of keys: `id` is a leaf; `account.login` an inner node `account`
/// holding the leaf `login`.
struct IdentityKeyTree {
    private var leaves: Set<String> = []
    private var inner: [String: IdentityKeyTree] = [:]

    mutating func insert(_ keys: ArraySlice<String>) {
        guard let first = keys.first else { return }
        if keys.count == 1 {
            leaves.insert(first)
        } else {
            inner[first, default: IdentityKeyTree()].insert(keys.dropFirst())
        }
    }

    /// Whether every key of `object` is on an identity key path (a leaf's value is whatever
    /// it is; an inner node's must be an object holding only that node's keys).
    func holdsOnlyIdentity(_ object: JSONObject) -> Bool {
        for (key, value) in object {
            if leaves.contains(key) { continue }
            guard let node = inner[key], case .object(let nested) = value, node.holdsOnlyIdentity(nested) else { return false }
        }
        return true
    }
}
