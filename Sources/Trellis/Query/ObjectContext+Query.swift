/// Fetch requests on a context.
extension ObjectContext {
    /// The objects `request` asks for, run in the store (the SQLite store compiles it to
    /// SQL), as the context's registered instances: an object already registered comes back
    /// as that instance, with its unsaved changes, but whether it matches and where it sorts
    /// are decided on the saved state (Core Data's `includesPendingChanges = false`; save
    /// first to query unsaved changes). Objects deleted in the context are left out.
    ///
    ///     let request = ObjectFetchRequest(entity: "Character",
    ///                                      predicate: try ObjectPredicate("publisher.name == %@", "DC Comics"),
    ///                                      sortDescriptors: [ObjectSortDescriptor("name")], limit: 20)
    ///     for hero in try context.fetch(request) { print(hero["name"] ?? "") }
    ///
    /// - Throws: ``ModelError`` `.unknownEntity`; ``QueryError`` (an unknown key path, a
    ///   type mismatch, with the column in the predicate text); store errors.
    public func fetch(_ request: ObjectFetchRequest) throws -> [ManagedObject] {
        let resolved = try request.resolved(in: model)
        let snapshots = try withSession { try $0.fetch(resolved) }
        var result: [ManagedObject] = []
        result.reserveCapacity(snapshots.count)
        for snapshot in snapshots {
            let object = try register(snapshot)
            if !object.isDeletedFlag { result.append(object) }
        }
        return result
    }

    /// The number of objects matching `request`'s predicate in the store (limit and offset
    /// ignored; saved state, as ``fetch(_:)-(ObjectFetchRequest)``).
    /// - Throws: as ``fetch(_:)-(ObjectFetchRequest)``.
    public func count(_ request: ObjectFetchRequest) throws -> Int {
        let resolved = try request.resolved(in: model)
        return try withSession { try $0.count(resolved) }
    }

    /// `Sendable` snapshots of the objects `request` asks for, read in one store session
    /// (saved state; nothing is registered in the context).
    /// - Throws: as ``fetch(_:)-(ObjectFetchRequest)``.
    public func fetchSnapshots(_ request: ObjectFetchRequest) throws -> [FetchedObject] {
        let resolved = try request.resolved(in: model)
        let model = self.model
        return try withSession { try $0.fetch(resolved) }.compactMap { model.fetchedObject($0) }
    }
}

extension ManagedObject {
    /// A `Sendable` snapshot of the object's current values (including unsaved changes).
    public var fetchedObject: FetchedObject {
        let current = context.map { c in self.links.indices.map { c.links(of: self, $0) } } ?? self.links
        return FetchedObject(
            entity: entity,
            snapshot: ObjectSnapshot(
                id: objectID, isPlaceholder: isPlaceholder,
                attributes: values, relationships: current))
    }
}

/// Managed objects belong to their context's thread; hand out ``ManagedObject/objectID`` or
/// ``ManagedObject/fetchedObject`` instead.
@available(*, unavailable, message: "a ManagedObject belongs to its context's thread; pass its objectID or fetchedObject")
extension ManagedObject: @unchecked Sendable {}

/// A context is confined to one thread (or task) at a time; each task makes its own.
@available(*, unavailable, message: "an ObjectContext belongs to one thread; create one per task over the shared store")
extension ObjectContext: @unchecked Sendable {}
