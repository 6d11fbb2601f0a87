import Trellis

/// The order in which one ``ChangeSet``'s inserted objects are written: every object after
/// the new objects its to-ones point at, so that no insert leaves a foreign key violation
/// outstanding.
///
/// Why it matters: the foreign keys are `DEFERRABLE INITIALLY DEFERRED`. While any deferred
/// violation is outstanding (a row points at a key no row has yet: a character inserted
/// before its new publisher), SQLite, on each insert into a *parent* table, scans the child
/// table for rows the new row satisfies (https://sqlite.org/foreignkeys.html, section 4.2
/// "Deferred Foreign Key Constraints", and `fkScanChildren` in SQLite's `fkey.c`). During a
/// bulk load the child column has no index (``SQLiteSession/dropSecondaryIndexesOfEmptyTables()``),
/// so each such insert reads the whole child table: N records each bringing a new
/// destination cost O(N²) (40,000 records: 46.7 s). Written destinations first, the counter
/// stays at zero and each insert checks its parents by primary key.
///
/// A cycle among new objects (a one-to-one between two new objects, an object naming
/// itself, a chain of placeholders pointing back) cannot be ordered: the to-one closing
/// it is inserted as NULL and set by one `UPDATE` once every object is inserted
/// (``deferred``), so the counter stays at zero there too.
///
///     // inserted: [character(publisher: p), p]
///     InsertOrder(inserted, toOnes: …).order     // [1, 0]: the publisher first
///
/// - Complexity: O(n + to-one links) time and memory, one hash lookup per to-one that points
///   at a temporary ID; no work beyond one pass when the objects are already in order.
struct InsertOrder {
    /// Positions in the inserted array, in writing order; nil when that order is the
    /// array's own.
    private(set) var order: [Int]?
    /// (position, to-one slot) of the to-ones written as NULL and set after every insert.
    private(set) var deferred: [(position: Int, slot: Int)] = []
    /// By position: whether slot `slot` of that object is in ``deferred`` (empty when none is).
    private var deferredSlots: Set<Int64> = []

    /// - Parameters:
    ///   - inserted: the change set's inserted objects.
    ///   - toOnes: by position, the object's to-one slots (its ``EntityLayout/toOneIndexes``).
    init(_ inserted: [ObjectSnapshot], toOnes: [[Int]]) {
        // No to-one points at a new object (the common case once the destinations are stored).
        guard
            inserted.indices.contains(where: { i in
                toOnes[i].contains { inserted[i].relationships[$0].first?.isTemporary == true }
            })
        else { return }
        var position: [ObjectID: Int] = [:]
        for (i, snapshot) in inserted.enumerated() where snapshot.id.isTemporary { position[snapshot.id] = i }
        if position.isEmpty { return }
        // Already in order (each destination before its sources)? Then nothing to do.
        var ordered = true
        check: for (i, snapshot) in inserted.enumerated() {
            for slot in toOnes[i] {
                guard let d = snapshot.relationships[slot].first, d.isTemporary, let p = position[d] else { continue }
                if p >= i {
                    ordered = false
                    break check
                }
            }
        }
        if ordered { return }

        // Depth-first, destinations before sources; iterative (a chain of replies may be
        // as long as the batch).
        var state = [UInt8](repeating: 0, count: inserted.count)  // 0 unvisited, 1 on the stack, 2 placed
        var order: [Int] = []
        order.reserveCapacity(inserted.count)
        var stack: [(position: Int, next: Int)] = []
        for start in inserted.indices where state[start] == 0 {
            state[start] = 1
            stack.append((start, 0))
            while let top = stack.last {
                let slots = toOnes[top.position]
                guard top.next < slots.count else {
                    stack.removeLast()
                    state[top.position] = 2
                    order.append(top.position)
                    continue
                }
                stack[stack.count - 1].next += 1
                let slot = slots[top.next]
                guard let d = inserted[top.position].relationships[slot].first, d.isTemporary, let p = position[d] else { continue }
                switch state[p] {
                case 0:
                    state[p] = 1
                    stack.append((p, 0))
                case 1:
                    // A cycle: this to-one waits for its destination's row.
                    deferred.append((top.position, slot))
                    deferredSlots.insert(InsertOrder.key(top.position, slot))
                default:
                    break
                }
            }
        }
        self.order = order
    }

    /// Whether slot `slot` of the object at `position` is inserted as NULL (and set afterwards).
    @inline(__always)
    func defers(_ position: Int, _ slot: Int) -> Bool {
        !deferredSlots.isEmpty && deferredSlots.contains(InsertOrder.key(position, slot))
    }

    private static func key(_ position: Int, _ slot: Int) -> Int64 { Int64(position) << 16 | Int64(slot) }
}
