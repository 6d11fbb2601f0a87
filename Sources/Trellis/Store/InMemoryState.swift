/// The state of an ``InMemoryStore``: the committed one, or a write session's private copy.
struct InMemoryState {
    /// One table per inheritance root (indexed by entity number; non-roots stay empty).
    var tables: [InMemoryTable]
    /// The order given to an ordered to-many whose inverse is a to-one (membership follows
    /// the inverse's foreign keys), member → position, as the SQLite store's order table keeps it.
    var orders: [OrderSlot: [ObjectID: Int]] = [:]
    /// The sequence of the last commit (``StoreCommit/sequence``).
    var sequence: Int64 = 0
    /// ``StoreSession/metadataValue(forKey:)``'s map, committed with the objects.
    var metadata: [String: String] = [:]
    /// The outbox (``OutboxEntry``), by sequence, committed with the objects.
    var outbox: [OutboxEntry] = []
    /// The last outbox sequence drawn (never reused).
    var outboxSequence: Int64 = 0
    /// The tombstones of acknowledged deletes, by entity and server identity text.
    var tombstones: [String: Tombstone] = [:]
    init(tableCount: Int) { tables = Array(repeating: InMemoryTable(), count: tableCount) }
}

/// An object's relationship slot.
struct OrderSlot: Hashable {
    let object: ObjectID
    let slot: Int
}

struct InMemoryTable {
    var rows: [Int64: InMemoryRow] = [:]
    var nextKey: Int64 = 1
    /// identity namespace (entity number) → identity → primary key.
    var identities: [Int: [IdentityKey: Int64]] = [:]
}

struct InMemoryRow {
    var entity: Int
    var isPlaceholder: Bool
    var attributes: [AttributeValue?]
    var relationships: [[ObjectID]]
}
