/// Reading a request's objects one batch at a time, dropping each batch once it is used
/// (the exporter's streamed output, ``ObjectExporter/write(_:as:batchSize:to:)``).
extension ObjectContext {
    /// Runs `body` with the objects `request` asks for, in its order, `batchSize` at a time
    /// (``StoreSession/fetch(_:batchSize:_:)``), as ``fetch(_:)-(ObjectFetchRequest)`` would
    /// give them: registered instances as they are, objects deleted in the context left out.
    ///
    /// After each batch, the objects registered while it ran (the batch and whatever `body`
    /// faulted in) are unregistered again, so memory stays bounded by one batch; objects
    /// registered before the call stay. `body` gets `true` when dropping is on: it is off
    /// (everything stays registered, as with a plain fetch) while the context holds inverse
    /// changes for unregistered objects, which registering applies and dropping would lose.
    /// - Throws: store errors; what `body` throws.
    func forEachBatch(of request: ResolvedFetchRequest, batchSize: Int,
                      _ body: (_ objects: [ManagedObject], _ drops: Bool) throws -> Void) throws {
        try withSession { session in
            try session.fetch(request, batchSize: batchSize) { snapshots in
                let drops = pendingUnregistered.isEmpty
                epoch += 1
                let batchEpoch = epoch
                var objects: [ManagedObject] = []
                objects.reserveCapacity(snapshots.count)
                for snapshot in snapshots {
                    let object = try register(snapshot)
                    if !object.isDeletedFlag { objects.append(object) }
                }
                try body(objects, drops)
                objects = []
                if drops { dropObjects(registeredSince: batchEpoch) }
            }
        }
    }

    /// Registers the objects with `ids` that are not registered yet, with one store fetch
    /// (``StoreSession/fetchForExport(ids:)`` when `skippingUnread`, for objects that are
    /// dropped before anyone but the exporter reads them).
    /// - Returns: the objects registered by this call.
    func registerObjects(_ ids: [ObjectID], skippingUnread: Bool) throws -> [ManagedObject] {
        let missing = ids.filter { !$0.isTemporary && registered[$0] == nil }
        guard !missing.isEmpty else { return [] }
        let snapshots = try withSession { skippingUnread ? try $0.fetchForExport(ids: missing) : try $0.fetch(ids: missing) }
        return try snapshots.map { try register($0) }
    }

    /// Unregisters the objects registered at or after `epoch` that have no unsaved changes.
    func dropObjects(registeredSince epoch: Int) {
        var survivors = 0
        for object in registered.values {
            if object.epoch >= epoch && !object.isInDirtyList { object.context = nil } else { survivors += 1 }
        }
        if survivors == 0 {
            registered.removeAll(keepingCapacity: true)
            identityMap.removeAll(keepingCapacity: true)
        } else {
            registered = registered.filter { $0.value.context === self }
            identityMap = identityMap.filter { $0.value.context === self }
        }
    }
}
