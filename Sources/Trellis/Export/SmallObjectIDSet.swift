/// A set of object IDs for the few objects of one exported object's tree: a linear scan
/// of an array while it is small (most trees hold a handful of objects, and hashing each
/// ID costs more than comparing it), a hash set once it holds more than 16.
struct SmallObjectIDSet {
    private var items: [ObjectID] = []
    private var set: Set<ObjectID>?

    static let threshold = 16

    /// Whether `id` is in the set.
    /// - Complexity: O(n) up to 16 members, O(1) on average above.
    @inline(__always)
    func contains(_ id: ObjectID) -> Bool {
        if let set { return set.contains(id) }
        for item in items where item.primaryKey == id.primaryKey && item.entityName == id.entityName { return true }
        return false
    }

    /// Adds `id` (no effect when it is there).
    mutating func insert(_ id: ObjectID) {
        if contains(id) { return }
        items.append(id)
        if set != nil {
            set!.insert(id)
        } else if items.count > SmallObjectIDSet.threshold {
            set = Set(items)
        }
    }

    /// Removes `id` (no effect when it is not there).
    mutating func remove(_ id: ObjectID) {
        guard let i = items.lastIndex(where: { $0.primaryKey == id.primaryKey && $0.entityName == id.entityName }) else { return }
        items.remove(at: i)
        set?.remove(id)
    }
}
