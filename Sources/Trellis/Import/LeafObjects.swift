/// The last JSON object met in a batch for each identity of a *leaf*: a nested object
/// whose entity maps no relationships (a character's powers, its publisher).
///
/// Payloads repeat such objects over and over (a few hundred powers among 100,000
/// characters). Applying an object sets only its attributes, so applying a leaf again with
/// identical JSON (``JSONObject/isIdentical(to:)``), as the same requested and walked
/// entity, cannot change anything: the importer reuses the object the earlier occurrence
/// resolved to instead of converting and comparing every value again. Differing JSON (a
/// later value must win) replaces the entry and is applied in full.
///
///     leaves.occurrence(of: object, key, requested: power, walk: power, at: 7)    // Prepared.firstLeaf
///     leaves.occurrence(of: object, key, requested: power, walk: power, at: 12)   // 7
///
/// Per batch: the objects a batch registers are dropped after it, so the table is emptied
/// with them (``removeAll()``).
struct LeafObjects {
    private struct Entry {
        var object: JSONObject
        var requested: Int
        var walk: Int
        /// Position in the batch of the occurrence applied in full.
        var position: Int
    }

    private var entries: [NamespacedIdentity: Entry] = [:]

    /// The batch position of the last occurrence with `key` when `object` is identical to
    /// it (for the same requested and walked entity); otherwise records `object`, at
    /// `position`, as the occurrence later ones may repeat and returns ``Prepared/firstLeaf``.
    /// - Complexity: one hash lookup, plus O(size of `object`) to compare.
    mutating func occurrence(
        of object: JSONObject, _ key: NamespacedIdentity, requested: EntityInfo, walk: EntityInfo,
        at position: Int
    ) -> Int {
        if let entry = entries[key], entry.requested == requested.number, entry.walk == walk.number,
            entry.object.isIdentical(to: object)
        {
            return entry.position
        }
        entries[key] = Entry(object: object, requested: requested.number, walk: walk.number, position: position)
        return Prepared.firstLeaf
    }

    /// Forgets every entry (at the start of each batch).
    mutating func removeAll() {
        if !entries.isEmpty { entries.removeAll(keepingCapacity: true) }
    }
}
