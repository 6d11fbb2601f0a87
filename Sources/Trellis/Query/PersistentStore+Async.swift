import Dispatch

/// Swift concurrency entry points: the work runs on a Dispatch queue of its own, off the
/// caller's actor (the main actor stays free) and off the cooperative thread pool (store
/// calls block), and the result comes back as a `Sendable` value.
///
///     // a background import, then main-thread reads (the Realm seed's pattern)
///     let report = try await store.importObjects(from: json, entity: "Character")
///     let rows = try await store.fetch(ObjectFetchRequest(entity: "Character", sortDescriptors: [.init("name")]))
///     await MainActor.run { viewModel.show(rows) }
extension PersistentStore {
    /// Imports `json` into the store through a new ``ObjectContext`` with `bindings`
    /// (see ``ObjectContext/importObjects(from:entity:options:)``), off the caller's actor.
    /// - Returns: the import report.
    /// - Throws: as ``ObjectContext/importObjects(from:entity:options:)``; the store is
    ///   unchanged on error.
    public func importObjects(
        from json: JSONValue, entity: String, bindings: MappingBindings = MappingBindings(),
        options: ImportOptions = ImportOptions()
    ) async throws -> ImportReport {
        try await StoreWork.run {
            try ObjectContext(store: self, bindings: bindings).importObjects(from: json, entity: entity, options: options)
        }
    }

    /// The objects `request` asks for, as `Sendable` snapshots, off the caller's actor.
    /// - Throws: ``ModelError``, ``QueryError``, store errors.
    public func fetch(_ request: ObjectFetchRequest) async throws -> [FetchedObject] {
        try await StoreWork.run {
            let resolved = try request.resolved(in: self.model)
            let model = self.model
            return try self.read { try $0.fetch(resolved) }.compactMap { model.fetchedObject($0) }
        }
    }

    /// The number of objects matching `request` (limit and offset ignored), off the caller's actor.
    public func count(_ request: ObjectFetchRequest) async throws -> Int {
        try await StoreWork.run {
            let resolved = try request.resolved(in: self.model)
            return try self.read { try $0.count(resolved) }
        }
    }
}

/// Runs blocking store work on a global Dispatch queue and resumes the awaiting task.
enum StoreWork {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
