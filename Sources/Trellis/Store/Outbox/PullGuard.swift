import Foundation

/// Keeps the pages a pull applies (``ChangeOrigin/sync``) from undoing the local changes the
/// outbox still holds (issue 23, point 7). Engine-neutral: every store's write session runs it
/// inside its ``StoreSession/apply(_:)`` before writing a change set of origin sync, in the
/// same transaction as the page, so what it drops and what it records in the outbox commit
/// together.
///
/// A row is *live* while it is ``OutboxEntry/State/pending``, ``OutboxEntry/State/sending`` or
/// ``OutboxEntry/State/uncertain``. Against live rows:
///
/// - an update of a field (attribute or relationship) that a live row of the object names in
///   ``OutboxEntry/fields`` is dropped: the local value stays. A pending update row takes the
///   page's stamp (the stamp attribute's incoming value) as its new ``OutboxEntry/base``, and
///   becomes ``OutboxEntry/State/conflict`` when the server moved one of those attributes: its
///   incoming value differs from the row's ``OutboxEntry/baseValues`` entry;
/// - an insert of an object whose identity (in the same entity hierarchy) has a live delete
///   row is dropped, with every link to it in the change set: a pull does not bring back a
///   pending delete. Inserted placeholders count: a page's bare identifier of the object does
///   not bring it back either;
/// - the same for an identity with a ``Tombstone`` (an acknowledged delete), unless the
///   inserted object is not a placeholder and its stamp attribute's incoming value is after the
///   tombstone's ``Tombstone/stamp`` (``Tombstone/isOlder(than:type:)``): the server made the
///   object again, it is inserted and the tombstone removed. Without a stamp to compare the
///   tombstone holds;
/// - a delete of an object with a live create row is dropped: a pull does not undo a local
///   create that the server does not have yet.
///
/// Changes to other fields and objects pass unchanged; an entity without identity attributes
/// has no server identity and is never matched by identity.
package struct PullGuard {
    let model: ObjectModel
    let rules: PushRules

    package init(model: ObjectModel, rules: PushRules) {
        self.model = model
        self.rules = rules
    }

    /// What ``filter(_:in:)`` dropped, for tests and reports.
    package struct Outcome: Sendable, Hashable {
        /// Updates of fields with a live row, by object and field name.
        package var keptLocal: [ObjectID: [String]] = [:]
        /// Inserts dropped for a pending delete or a tombstone of their identity.
        package var notRecreated: [ObjectID] = []
        /// Inserts of a tombstone's identity stamped after it (the server made the object again):
        /// applied, and the tombstone removed.
        package var revived: [ObjectID] = []
        /// Deletes dropped for a live create.
        package var notDeleted: [ObjectID] = []
    }

    /// Returns `changes` without what would undo a live outbox row, and rewrites those rows in
    /// `storage` (new bases, conflicts).
    /// - Throws: `StoreError` from `storage`; `.unknownObject` for an entity the model lacks.
    package func filter(_ changes: ChangeSet, in storage: some OutboxStorage) throws -> (ChangeSet, Outcome) {
        var outcome = Outcome()
        // Inserted objects (placeholders too: a bare identifier of a deleted object is no more
        // welcome than the object) by root entity and identity text.
        var identities: [String: ObjectSnapshot] = [:]
        for snapshot in changes.inserted {
            let entity = try resolved(snapshot.id.entityName)
            if let text = identityText(entity, snapshot.attributes) { identities["\(entity.rootName)\u{0}\(text)"] = snapshot }
        }
        let keys = changes.updated.map(\.id.primaryKey) + changes.deleted.map(\.primaryKey)
        guard !keys.isEmpty || !identities.isEmpty else { return (changes, outcome) }
        let texts = Array(Set(identities.keys.map { String($0.split(separator: "\u{0}", maxSplits: 1)[1]) }))
        let rows = try storage.outboxRows(objectKeys: keys, serverIdentities: texts)
        let live = rows.filter { $0.state == .pending || $0.state == .sending || $0.state == .uncertain }
        // Read after the outbox rows: on PostgreSQL their FOR UPDATE waits for a push recording
        // the acknowledgement that removes a delete row and writes its tombstone.
        let tombstones = texts.isEmpty ? [] : try storage.tombstoneRows(serverIdentities: texts)
        guard !live.isEmpty || !tombstones.isEmpty else { return (changes, outcome) }
        var byObject: [String: [OutboxEntry]] = [:]
        for row in live { byObject[objectKey(row.object), default: []].append(row) }

        var result = changes
        // Deletes of objects whose create is not acknowledged.
        result.deleted = changes.deleted.filter { id in
            let keep = !(byObject[objectKey(id)] ?? []).contains { $0.operation == .create }
            if !keep { outcome.notDeleted.append(id) }
            return keep
        }
        // Inserts of identities with a live delete, or with a tombstone the object's stamp is not after.
        var dropped = Set<ObjectID>()
        for row in live where row.operation == .delete {
            guard let text = row.serverIdentityText else { continue }
            if let snapshot = identities["\(root(row.object))\u{0}\(text)"] { dropped.insert(snapshot.id) }
        }
        var revived: [Tombstone] = []
        for tombstone in tombstones {
            guard let snapshot = identities["\(root(tombstone.entityName))\u{0}\(tombstone.serverIdentityText)"], !dropped.contains(snapshot.id)
            else { continue }
            let entity = try resolved(snapshot.id.entityName)
            if !snapshot.isPlaceholder, let index = rules.stampAttributeIndex(entity), index < snapshot.attributes.count,
                tombstone.isOlder(than: snapshot.attributes[index], type: entity.attributes[index].type) == true
            {
                // Stamped after the delete: the server made the object again.
                revived.append(tombstone)
                outcome.revived.append(snapshot.id)
            } else {
                dropped.insert(snapshot.id)
            }
        }
        if !revived.isEmpty { try storage.deleteTombstones(revived) }
        if !dropped.isEmpty {
            result.inserted = result.inserted.filter { !dropped.contains($0.id) }
            outcome.notRecreated = changes.inserted.map(\.id).filter(dropped.contains)
            for i in result.inserted.indices {
                result.inserted[i].relationships = result.inserted[i].relationships.map { $0.filter { !dropped.contains($0) } }
            }
        }
        // Updates of fields with a live row.
        var rewritten: [OutboxEntry] = []
        result.updated = []
        for var change in changes.updated {
            if !dropped.isEmpty {
                for i in change.relationships.indices {
                    change.relationships[i].destinations = change.relationships[i].destinations.filter { !dropped.contains($0) }
                }
            }
            let objectRows = byObject[objectKey(change.id)] ?? []
            guard !objectRows.isEmpty else {
                result.updated.append(change)
                continue
            }
            let entity = try resolved(change.entityName ?? change.id.entityName)
            let guarded = Set(objectRows.filter { $0.operation != .delete }.flatMap(\.fields))
            var kept: [String] = []
            var moved = false
            var stamp: String?
            let stampIndex = rules.stampAttributeIndex(entity)
            change.attributes = change.attributes.filter { a in
                guard a.index < entity.attributes.count else { return true }
                let attribute = entity.attributes[a.index]
                if a.index == stampIndex { stamp = a.value.map { stampText(JSONCoercion.json(from: $0, as: attribute.type)) } }
                guard guarded.contains(attribute.name) else { return true }
                kept.append(attribute.name)
                let incoming = a.value.map { JSONCoercion.json(from: $0, as: attribute.type) } ?? .null
                for row in objectRows where row.operation == .update {
                    if let base = row.baseValues[attribute.name], base != incoming { moved = true }
                }
                return false
            }
            change.relationships = change.relationships.filter { r in
                guard r.index < entity.relationships.count, guarded.contains(entity.relationships[r.index].name) else { return true }
                kept.append(entity.relationships[r.index].name)
                return false
            }
            for var row in objectRows where row.state == .pending && row.operation == .update {
                let before = row
                if let stamp { row.base = stamp }
                if moved { row.state = .conflict }
                if row != before { rewritten.append(row) }
            }
            if !kept.isEmpty { outcome.keptLocal[change.id] = kept }
            if !change.attributes.isEmpty || !change.relationships.isEmpty || change.isPlaceholder != nil || change.entityName != nil {
                result.updated.append(change)
            }
        }
        if !rewritten.isEmpty { try storage.updateOutboxRows(rewritten) }
        return (result, outcome)
    }

    // MARK: - Internals

    private func resolved(_ name: String) throws(StoreError) -> ResolvedEntity {
        guard let entity = model.entity(named: name) else {
            throw StoreError(.unknownObject, message: "the model has no entity \(name)")
        }
        return entity
    }

    private func root(_ id: ObjectID) -> String { root(id.entityName) }

    private func root(_ entityName: String) -> String { model.entity(named: entityName)?.rootName ?? entityName }

    private func objectKey(_ id: ObjectID) -> String { "\(root(id))\u{0}\(id.primaryKey)" }

    /// The identity as ``OutboxEntry/serverIdentityText`` spells it; nil without identity attributes or a value.
    private func identityText(_ entity: ResolvedEntity, _ values: [AttributeValue?]) -> String? {
        guard !entity.identityAttributeIndexes.isEmpty else { return nil }
        var elements: [JSONValue] = []
        for i in entity.identityAttributeIndexes {
            guard i < values.count, let value = values[i] else { return nil }
            elements.append(JSONCoercion.json(from: value, as: entity.attributes[i].type))
        }
        return try? JSONWriter.string(for: .array(elements))
    }

    /// A stamp as ``OutboxEntry/base`` holds it (the text of a string, else compact JSON).
    private func stampText(_ json: JSONValue) -> String {
        if let text = json.stringValue { return text }
        return (try? JSONWriter.string(for: json)) ?? ""
    }
}
