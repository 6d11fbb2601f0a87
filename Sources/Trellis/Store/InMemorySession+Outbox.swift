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

    private func checkOutboxWritable() throws {
        try checkValid()
        guard writable else { throw StoreError(.readOnly, message: "cannot change the outbox in a read session") }
    }
}
