/// The outbox of the in-memory store: part of the state a write session replaces on commit,
/// so rows recorded in a session that rolls back are gone with its object changes.
extension InMemorySession: OutboxStorage {
    func outboxEntries() throws -> [OutboxEntry] {
        try checkValid()
        return state.outbox
    }

    func outboxRows(objectKeys: [Int64], serverIdentities: [String]) throws -> [OutboxEntry] {
        try checkValid()
        let keys = Set(objectKeys)
        let identities = Set(serverIdentities)
        return state.outbox.filter { row in
            keys.contains(row.object.primaryKey) || row.serverIdentityText.map(identities.contains) == true
        }
    }

    func insertOutboxRows(_ rows: [OutboxEntry]) throws {
        try checkOutboxWritable()
        for var row in rows {
            state.outboxSequence += 1
            row.sequence = state.outboxSequence
            state.outbox.append(row)
        }
    }

    func updateOutboxRows(_ rows: [OutboxEntry]) throws {
        try checkOutboxWritable()
        let bySequence = Dictionary(rows.map { ($0.sequence, $0) }, uniquingKeysWith: { _, b in b })
        for i in state.outbox.indices {
            if let row = bySequence[state.outbox[i].sequence] { state.outbox[i] = row }
        }
    }

    func deleteOutboxRows(sequences: [Int64]) throws {
        try checkOutboxWritable()
        let doomed = Set(sequences)
        state.outbox.removeAll { doomed.contains($0.sequence) }
    }

    func tombstoneEntries() throws -> [Tombstone] {
        try checkValid()
        return state.tombstones.values.sorted { ($0.entityName, $0.serverIdentityText) < ($1.entityName, $1.serverIdentityText) }
    }

    func tombstoneRows(serverIdentities: [String]?) throws -> [Tombstone] {
        guard let serverIdentities else { return try tombstoneEntries() }
        let identities = Set(serverIdentities)
        return try tombstoneEntries().filter { identities.contains($0.serverIdentityText) }
    }

    func writeTombstones(_ rows: [Tombstone]) throws {
        try checkOutboxWritable()
        for row in rows { state.tombstones[tombstoneKey(row)] = row }
    }

    func deleteTombstones(_ rows: [Tombstone]) throws {
        try checkOutboxWritable()
        for row in rows { state.tombstones[tombstoneKey(row)] = nil }
    }

    private func tombstoneKey(_ row: Tombstone) -> String { "\(row.entityName)\u{0}\(row.serverIdentityText)" }

    private func checkOutboxWritable() throws {
        try checkValid()
        guard writable else { throw StoreError(.readOnly, message: "cannot change the outbox in a read session") }
    }
}
