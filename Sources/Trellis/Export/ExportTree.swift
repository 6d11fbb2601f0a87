/// The objects of one exported top-level object's tree, for ``ObjectExporter``: those
/// written in full so far (written as identifiers from then on), and those being written
/// (the object and the ones it is nested in).
///
/// Most trees hold a handful of objects: up to 16 they are an array scanned linearly (one
/// allocation, no hashing), beyond that hash sets are built and used instead.
struct ExportTree {
    /// Written in full so far, in order, each with whether it is being written.
    private var entries: [(id: ObjectID, isOnPath: Bool)] = []
    private var written: Set<ObjectID>?
    private var path: Set<ObjectID>?

    static let threshold = 16

    /// Starts writing `id` in full: written, and on the path until ``leave(_:)``.
    mutating func enter(_ id: ObjectID) {
        if written != nil {
            written!.insert(id)
            path!.insert(id)
            return
        }
        if let i = index(of: id) {
            entries[i].isOnPath = true
            return
        }
        entries.append((id, true))
        if entries.count > ExportTree.threshold {
            written = Set(entries.map(\.id))
            path = Set(entries.filter(\.isOnPath).map(\.id))
            entries = []
        }
    }

    /// Ends writing `id` (it stays written).
    mutating func leave(_ id: ObjectID) {
        if path != nil {
            path!.remove(id)
        } else if let i = index(of: id) {
            entries[i].isOnPath = false
        }
    }

    /// Whether `id` was written in full in this tree.
    func hasWritten(_ id: ObjectID) -> Bool {
        if let written { return written.contains(id) }
        return index(of: id) != nil
    }

    /// Whether `id` is being written (it or an object nested in it is).
    func isOnPath(_ id: ObjectID) -> Bool {
        if let path { return path.contains(id) }
        guard let i = index(of: id) else { return false }
        return entries[i].isOnPath
    }

    @inline(__always)
    private func index(of id: ObjectID) -> Int? {
        for i in entries.indices where entries[i].id.primaryKey == id.primaryKey && entries[i].id.entityName == id.entityName { return i }
        return nil
    }
}
