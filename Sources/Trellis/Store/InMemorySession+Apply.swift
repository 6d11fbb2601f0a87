/// Applying a ``ChangeSet`` to a write session's copy of the state.
extension InMemorySession {
    /// Applies deletions, then insertions, then updates. Throws on the first problem and
    /// poisons the session (the enclosing write rolls back).
    func apply(_ changes: ChangeSet) throws -> [ObjectID: ObjectID] {
        try checkValid()
        guard writable else { throw StoreError(.readOnly, message: "cannot apply changes in a read session") }
        var changes = changes
        do {
            if origin == .sync { changes = try PullGuard(model: model, rules: pushRules).filter(changes, in: self).0 }
            var prior: [ObjectID: ObjectSnapshot] = [:]
            if origin == .local {
                for snapshot in try fetch(ids: OutboxRecorder.priorIDs(of: changes)) { prior[snapshot.id] = snapshot }
            }
            let mapping = try applyChanges(changes)
            if origin == .local {
                try OutboxRecorder(model: model, rules: pushRules).record(changes, mapping: mapping, prior: prior, in: self)
            }
            commitRecord.record(changes, mapping: mapping)
            return mapping
        } catch {
            failure = error
            throw error
        }
    }

    private func applyChanges(_ changes: ChangeSet) throws -> [ObjectID: ObjectID] {
        var mapping: [ObjectID: ObjectID] = [:]
        if !changes.deleted.isEmpty { try delete(changes.deleted) }
        // Placeholders completed as a sub-entity first: inserts and updates name their new IDs.
        if changes.updated.contains(where: { $0.entityName != nil }) { mapping = try retype(changes.updated) }
        let retypes = !mapping.isEmpty

        var inserted: [(ObjectID, EntityInfo)] = []
        inserted.reserveCapacity(changes.inserted.count)
        for snapshot in changes.inserted {
            let info = try entityInfo(snapshot.id.entityName)
            guard !info.entity.isAbstract || snapshot.isPlaceholder else {
                throw StoreError(.constraintViolation, message: "cannot insert \(snapshot.id): \(info.name) is abstract")
            }
            try checkShape(info, attributes: snapshot.attributes.count, relationships: snapshot.relationships.count, snapshot.id)
            var key = snapshot.id.primaryKey
            if snapshot.id.isTemporary {
                key = state.tables[info.rootNumber].nextKey
                state.tables[info.rootNumber].nextKey += 1
            } else if state.tables[info.rootNumber].rows[key] != nil {
                throw StoreError(.constraintViolation, message: "\(snapshot.id) already exists")
            } else {
                state.tables[info.rootNumber].nextKey = max(state.tables[info.rootNumber].nextKey, key + 1)
            }
            let id = ObjectID(entityName: info.name, primaryKey: key)
            if snapshot.id.isTemporary { mapping[snapshot.id] = id }
            try index(info, key, snapshot.attributes)
            state.tables[info.rootNumber].rows[key] = InMemoryRow(
                entity: info.number, isPlaceholder: snapshot.isPlaceholder, attributes: snapshot.attributes,
                relationships: Array(repeating: [], count: info.relationships.count))
            inserted.append((id, info))
        }
        for (position, snapshot) in changes.inserted.enumerated() {
            let (id, info) = inserted[position]
            for (i, destinations) in snapshot.relationships.enumerated() where !destinations.isEmpty {
                try setRelationship(id, info, i, remap(destinations, mapping, retypes))
            }
        }

        for change in changes.updated {
            let id = mapping[change.id] ?? change.id
            let info = try entityInfo(id.entityName)
            guard let rowIndex = state.tables[info.rootNumber].rows.index(forKey: id.primaryKey),
                state.tables[info.rootNumber].rows.values[rowIndex].entity == info.number
            else {
                throw StoreError(.unknownObject, message: "cannot update \(id): no such object")
            }
            if !change.attributes.isEmpty {
                var values = state.tables[info.rootNumber].rows.values[rowIndex].attributes
                let old = values
                for c in change.attributes {
                    guard c.index >= 0, c.index < values.count else {
                        throw StoreError(.engine, message: "\(id): attribute position \(c.index) out of range")
                    }
                    values[c.index] = c.value
                }
                unindex(info, id.primaryKey, old)
                do {
                    try index(info, id.primaryKey, values)
                } catch {
                    try? index(info, id.primaryKey, old)
                    throw error
                }
                state.tables[info.rootNumber].rows.values[rowIndex].attributes = values
            }
            if let flag = change.isPlaceholder {
                state.tables[info.rootNumber].rows.values[rowIndex].isPlaceholder = flag
            }
            for c in change.relationships {
                guard c.index >= 0, c.index < info.relationships.count else {
                    throw StoreError(.engine, message: "\(id): relationship position \(c.index) out of range")
                }
                try setRelationship(id, info, c.index, remap(c.destinations, mapping, retypes))
            }
        }
        for slot in reorder { applyOrder(slot) }
        reorder.removeAll()
        return mapping
    }

    private func remap(_ ids: [ObjectID], _ mapping: [ObjectID: ObjectID], _ retypes: Bool) -> [ObjectID] {
        if mapping.isEmpty || (!retypes && !ids.contains(where: \.isTemporary)) { return ids }
        return ids.map { mapping[$0] ?? $0 }
    }

    /// Removes rows and every link to them.
    private func delete(_ ids: [ObjectID]) throws {
        let doomed = Set(ids)
        for id in ids {
            let info = try entityInfo(id.entityName)
            guard let row = state.tables[info.rootNumber].rows[id.primaryKey], row.entity == info.number else {
                throw StoreError(.unknownObject, message: "cannot delete \(id): no such object")
            }
            unindex(info, id.primaryKey, row.attributes)
            state.tables[info.rootNumber].rows[id.primaryKey] = nil
            for (i, rel) in info.relationships.enumerated() {
                guard let inverse = rel.inverseIndex else { continue }
                for d in row.relationships[i] where !doomed.contains(d) {
                    modifyRow(d) { r in
                        if rel.inverseIsToMany {
                            if let k = r.relationships[inverse].firstIndex(of: id) { r.relationships[inverse].remove(at: k) }
                        } else if r.relationships[inverse].first == id {
                            r.relationships[inverse] = []
                        }
                    }
                }
            }
        }
        // Relationships without an inverse that point at deleted objects.
        for source in schema.entities {
            for (i, rel) in source.relationships.enumerated() where rel.inverseIndex == nil {
                let destination = schema.entities[rel.destinationNumber]
                guard ids.contains(where: { schema.info(named: $0.entityName).map { destination.includes($0.number) } ?? false })
                else { continue }
                for key in Array(state.tables[source.rootNumber].rows.keys) {
                    guard let k = state.tables[source.rootNumber].rows.index(forKey: key),
                        state.tables[source.rootNumber].rows.values[k].entity == source.number
                    else { continue }
                    if state.tables[source.rootNumber].rows.values[k].relationships[i].contains(where: doomed.contains) {
                        state.tables[source.rootNumber].rows.values[k].relationships[i].removeAll(where: doomed.contains)
                    }
                }
            }
        }
    }
}
