/// Metadata of the in-memory store: part of the state a write session replaces on commit,
/// so a value set in a session that rolls back is gone with its object changes.
extension InMemorySession {
    func metadataValue(forKey key: String) throws -> String? {
        try checkValid()
        return state.metadata[key]
    }

    func setMetadataValue(_ value: String?, forKey key: String) throws {
        try checkValid()
        guard writable else { throw StoreError(.readOnly, message: "cannot set metadata in a read session") }
        guard !key.isEmpty else { throw StoreError(.engine, message: "a metadata key must not be empty") }
        state.metadata[key] = value
    }
}
