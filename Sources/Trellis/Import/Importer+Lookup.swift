/// Phase 2 of a batch, *look up*: one store fetch per identity namespace.
extension Importer {
    /// Fetches, once per identity namespace, the identities phase 1 collected that are not
    /// registered, and (once per import) those of objects registered before it, which another
    /// connection may have changed or deleted since they were read. The top-level entity's
    /// stored objects are kept unregistered (``keepStored(_:)``); other destinations are registered.
    func lookUpIdentities() throws {
        for (namespace, keys) in requests.enumerated() where !keys.isEmpty {
            var missing: [[AttributeValue]] = []
            var reread: [ManagedObject] = []
            missing.reserveCapacity(keys.count)
            for key in keys {
                if let object = context.identityMap[NamespacedIdentity(namespace: namespace, key: key)] {
                    guard object.epoch < importEpoch, !object.isInsertedFlag, !object.isDeletedFlag,
                        rereadIDs.insert(object.objectID).inserted
                    else { continue }
                    reread.append(object)
                }
                missing.append(key.values)
            }
            if missing.isEmpty { continue }
            var found = Set<ObjectID>()
            // Objects registered before the import are refreshed from complete rows; the
            // import's own lookups may leave unread inverse to-manys empty (`fetchForImport`).
            let name = schema.entities[namespace].name
            let snapshots =
                reread.isEmpty
                ? try session.fetchForImport(entity: name, identities: missing)
                : try session.fetch(entity: name, identities: missing)
            // The top-level entity's objects (and its sub-entities') stay unregistered until
            // they differ; nested destinations are registered, for the inverses a new source
            // maintains on them.
            let keepsStored = topLevelNamespaces[namespace]
            for snapshot in snapshots {
                if let existing = context.registered[snapshot.id] {
                    if existing.epoch < importEpoch { context.refresh(existing, from: snapshot) }
                } else if keepsStored {
                    try keepStored(snapshot)
                } else {
                    _ = try context.register(snapshot)
                }
                if !reread.isEmpty { found.insert(snapshot.id) }
            }
            // No stored object has that identity any more: the payload's object is a new one.
            for object in reread where !found.contains(object.objectID) { context.unindexIdentity(object) }
        }
    }
}
