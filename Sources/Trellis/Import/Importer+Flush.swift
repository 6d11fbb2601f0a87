/// Phase 4 of a batch, *flush*, and the whole import's report and deletion scope.
extension Importer {
    /// Writes the context's changes into the session, records the report and drops the
    /// objects registered by the import.
    func flush(countingTouched: Bool) throws {
        if !context.retyped.isEmpty { currentObjects() }
        // A stored object found unchanged may have been faulted in since, and changed
        // through an inverse (a one-to-one partner moving): it is reported from its object.
        for s in unchangedStored {
            if let object = registered(stored[s].snapshot.id), object.mark != batchNumber {
                object.mark = batchNumber
                object.flushWrote = false
                touched.append(object)
            }
        }
        if !constrained.isEmpty {
            try validateRelationships()
            constrained.removeAll(keepingCapacity: true)
        }
        try context.validateRequiredValues(registeredBefore: importEpoch)
        let changes = context.makeChangeSet()
        var deleted: [ManagedObject] = []
        for object in context.dirty where object.isDeletedFlag && object.flushWrote { deleted.append(object) }
        var codes: [UInt8] = []
        codes.reserveCapacity(touched.count)
        for object in touched { codes.append(object.isInsertedFlag ? 0 : (object.flushWrote ? 1 : 2)) }
        let temporaryIDs = options.dryRun ? topLevelIDs() : []
        // The batch's objects are dropped after the write: let go of their values first, so
        // the store's arrays they shared (a popular object's to-many) are not copied on write.
        context.releaseStorage(ofObjectsRegisteredSince: importEpoch)
        let mapping = changes.isEmpty ? [:] : try session.apply(changes)
        context.didSave(mapping, dropEpoch: importEpoch)
        // Object IDs are permanent from here on.
        for (object, code) in zip(touched, codes) {
            record(code, object.info, object.objectID.primaryKey)
        }
        for s in unchangedStored { record(2, stored[s].info, stored[s].snapshot.id.primaryKey) }
        for object in deleted {
            report.counts[object.entity.name, default: .init()].deleted += 1
            report.deletedObjectIDs.append(object.objectID)
        }
        // (Top-level objects are all of the imported entity's hierarchy, so of its root's table.)
        for object in topLevel { status[root.rootNumber].markTopLevel(object.objectID.primaryKey) }
        if options.reportsObjectIDs { report.objectIDs += options.dryRun ? temporaryIDs : topLevelIDs() }
        if options.deleteMissing != nil {
            for id in topLevelIDs() { importedIDs.insert(id) }
        }
    }

    /// The IDs of the batch's top-level objects, in input order.
    private func topLevelIDs() -> [ObjectID] {
        retypedIDs.isEmpty ? topLevel.map(\.objectID) : topLevel.map { renamed($0.objectID) }
    }

    /// Counts the object with primary key `key` once per import, with its lowest code
    /// (0 inserted, 1 updated, 2 unchanged) over the batches and occurrences that touched it.
    func record(_ code: UInt8, _ info: EntityInfo, _ key: Int64) {
        let rootNumber = info.rootNumber
        if let previous = status[rootNumber].code(of: key) {
            if code < previous {
                status[rootNumber].set(code, for: key)
                count(info.name, previous, -1)
                count(info.name, code, 1)
            }
        } else {
            status[rootNumber].set(code, for: key)
            count(info.name, code, 1)
        }
    }

    func count(_ entity: String, _ code: UInt8, _ delta: Int) {
        switch code {
        case 0: report.counts[entity, default: .init()].inserted += delta
        case 1: report.counts[entity, default: .init()].updated += delta
        default: report.counts[entity, default: .init()].unchanged += delta
        }
    }

    // MARK: - Deletion scope

    func captureScope() throws {
        guard let scope = options.deleteMissing, case .relationship(let parent, let name) = scope.kind else { return }
        guard let snapshot = try session.fetch(ids: [parent]).first, let info = schema.info(named: parent.entityName) else {
            throw ImportError(
                .invalidOption, path: .root, entity: parent.entityName, property: name, value: nil,
                message: "the deletion scope's parent \(parent) does not exist")
        }
        guard let slot = info.entity.relationshipIndex(of: name),
            schema.entities[info.relationships[slot].destinationNumber].includes(root.number)
                || root.includes(info.relationships[slot].destinationNumber)
        else {
            throw ImportError(
                .invalidOption, path: .root, entity: info.name, property: name, value: nil,
                message: "\(info.name) has no relationship '\(name)' to \(root.name)")
        }
        scopeCandidates = snapshot.relationships[slot]
    }

    func deleteMissing() throws {
        guard let scope = options.deleteMissing else { return }
        let candidates: [ObjectID]
        switch scope.kind {
        case .allObjects:
            candidates = try session.fetch(entity: root.name, matching: nil).map(\.id)
        case .matching(let predicate):
            do {
                _ = try StorePredicate.request(entity: root.entity, matching: predicate, model: context.model)
            } catch {
                throw ImportError(
                    .invalidOption, path: .root, entity: root.name, property: error.keyPath, value: nil,
                    message: "the deletion scope's predicate does not fit \(root.name): \(error.message)")
            }
            candidates = try session.fetch(entity: root.name, matching: predicate).map(\.id)
        case .relationship:
            candidates = scopeCandidates ?? []
        }
        let doomed = candidates.filter { !importedIDs.contains($0) }.sorted()
        if scope.dryRun {
            report.deletedObjectIDs = doomed
            return
        }
        touched.removeAll()
        topLevel.removeAll()
        unchangedStored.removeAll()
        for id in doomed {
            if let object = try context.object(with: id) { try context.delete(object) }
        }
        try flush(countingTouched: false)
        report.deletedObjectIDs.sort()
    }
}
