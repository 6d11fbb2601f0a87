/// Reading several objects from one committed state.
extension ObjectContext {
    /// Runs `body` inside one read session of the store: every fetch and every relationship
    /// fault in it sees the same committed state, even while another connection (another
    /// process, or another ``SQLiteStore`` on the same file) commits meanwhile. Without it,
    /// each fetch and fault is a read of its own, so objects read later may show a newer
    /// state than objects read earlier.
    ///
    ///     let json = try context.read {
    ///         try ObjectExporter(context: context).json(for: context.fetch("Character"))
    ///     }
    ///
    /// With the SQLite store this is one WAL read transaction (https://sqlite.org/wal.html#concurrency):
    /// it does not block writers, and writers do not block it. Inside an import (an open
    /// write session) `body` simply runs in that session.
    ///
    /// Do not save or import inside `body`: a store runs one session at a time per
    /// connection, and the write would throw. Objects registered before the call keep the
    /// values they had; only objects read inside `body` come from its state.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: whatever `body` throws; store errors from opening the read session.
    public func read<T>(_ body: () throws -> T) throws -> T {
        if session != nil { return try body() }
        return try store.read { session in
            self.session = session
            defer { self.session = nil }
            return try body()
        }
    }
}
