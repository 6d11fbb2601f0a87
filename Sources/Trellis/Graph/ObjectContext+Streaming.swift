/// Reading a request's objects one batch at a time, dropping each batch once it is used
/// (the exporter's streamed output, ``ObjectExporter/write(_:as:batchSize:to:)``).
extension ObjectContext {
    /// Runs `body` with the objects `request` asks for, in its order, `batchSize` at a time
    /// (``StoreSession/fetch(_:batchSize:_:)``), as ``fetch(_:)-(ObjectFetchRequest)`` would
    /// give them: registered instances as they are, objects deleted in the context left out.
    ///
    /// After each batch its objects are unregistered again; the related objects `body`
    /// faulted in stay registered for the next batches (the few publishers and powers of a
    /// million characters are read once, not once per batch) while the call holds at most
    /// `batchSize` of them, else they are dropped too. So memory stays bounded by two
    /// batches; every object the call registered is dropped at its end, and objects
    /// registered before the call stay. `body` gets `true` when dropping is on: it is off
    /// (everything stays registered, as with a plain fetch) while the context holds inverse
    /// changes for unregistered objects, which registering applies and dropping would lose.
    /// - Throws: store errors; what `body` throws.
    func forEachBatch(
        of request: ResolvedFetchRequest, batchSize: Int,
        _ body: (_ objects: [ManagedObject], _ drops: Bool) throws -> Void
    ) throws {
        epoch += 1
        let callEpoch = epoch
        let registeredBefore = registered.count
        defer { if pendingUnregistered.isEmpty { dropObjects(registeredSince: callEpoch) } }
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
                epoch += 1  // what `body` faults in is told apart from the batch
                try body(objects, drops)
                objects = []
                guard drops else { return }
                dropObjects(registeredSince: batchEpoch, before: batchEpoch + 1)
                if registered.count - registeredBefore > batchSize { dropObjects(registeredSince: callEpoch) }
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

    /// Unregisters the objects registered at or after `epoch` (and before `end`) that have
    /// no unsaved changes.
    func dropObjects(registeredSince epoch: Int, before end: Int = .max) {
        var survivors = 0
        for object in registered.values {
            if object.epoch >= epoch && object.epoch < end && !object.isInDirtyList { object.context = nil } else { survivors += 1 }
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
