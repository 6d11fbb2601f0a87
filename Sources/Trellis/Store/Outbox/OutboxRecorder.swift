import Foundation

/// The outbox rows of a store, as a write session reads and writes them (for store
/// implementations; ``OutboxRecorder`` decides what to write).
package protocol OutboxStorage: AnyObject {
    /// The rows whose object has one of `objectKeys` as primary key, or whose
    /// ``OutboxEntry/serverIdentityText`` is one of `serverIdentities`, in any entity and state,
    /// by ``OutboxEntry/sequence``.
    func outboxRows(objectKeys: [Int64], serverIdentities: [String]) throws -> [OutboxEntry]
    /// Appends `rows` (their ``OutboxEntry/sequence`` is ignored: the store assigns the next
    /// numbers, in order).
    func insertOutboxRows(_ rows: [OutboxEntry]) throws
    /// Rewrites the rows with these sequences (every other field).
    func updateOutboxRows(_ rows: [OutboxEntry]) throws
    /// Removes the rows with these sequences.
    func deleteOutboxRows(sequences: [Int64]) throws

    /// The tombstones (``Tombstone``) whose ``Tombstone/serverIdentityText`` is one of
    /// `serverIdentities`, in any entity; every tombstone when nil.
    func tombstoneRows(serverIdentities: [String]?) throws -> [Tombstone]
    /// Writes `rows`, replacing the tombstone of the same entity and server identity.
    func writeTombstones(_ rows: [Tombstone]) throws
    /// Removes the tombstones of these rows' entities and server identities.
    func deleteTombstones(_ rows: [Tombstone]) throws
}

/// Records the local changes of one applied ``ChangeSet`` in the outbox, merging them into
/// pending rows by the rules of ``OutboxEntry``. Engine-neutral: every store's write session
/// runs it inside its ``StoreSession/apply(_:)`` when its ``StoreSession/origin`` is
/// ``ChangeOrigin/local``, so the rows commit or roll back with the changes.
///
/// Inserted placeholders are not recorded (a placeholder stands for an object the server
/// already has); an update whose only change is the placeholder flag neither.
package struct OutboxRecorder {
    let model: ObjectModel
    let rules: PushRules
    let now: Date

    package init(model: ObjectModel, rules: PushRules, now: Date = Date()) {
        self.model = model
        self.rules = rules
        self.now = now
    }

    /// The objects whose stored state before `changes` the recorder needs (``record(_:mapping:prior:in:)``'s
    /// `prior`): the updated and the deleted ones.
    package static func priorIDs(of changes: ChangeSet) -> [ObjectID] {
        changes.updated.map(\.id) + changes.deleted
    }

    /// One change to record.
    private struct Draft {
        var object: ObjectID
        var entity: ResolvedEntity
        var operation: OutboxEntry.Operation
        var fields: [String]
        /// The identity before the change (updates, deletes).
        var serverIdentity: JSONValue?
        /// The identity of a new object (creates), to find a pending delete of the same identity.
        var identityText: String?
        var base: String?
        /// The changed attributes' values before the change (updates).
        var baseValues: [String: JSONValue] = [:]
        var notPushable: String?
    }

    /// Records `changes` (applied, with `mapping` from temporary to permanent IDs as the store
    /// returned it; `prior`: the snapshots of ``priorIDs(of:)`` before the changes, by ID).
    /// - Throws: `StoreError` from `storage`; `.unknownObject` for an entity the model lacks.
    package func record(
        _ changes: ChangeSet, mapping: [ObjectID: ObjectID], prior: [ObjectID: ObjectSnapshot],
        in storage: some OutboxStorage
    ) throws {
        let drafts = try makeDrafts(changes, mapping: mapping, prior: prior)
        guard !drafts.isEmpty else { return }
        let candidates = try storage.outboxRows(
            objectKeys: drafts.map(\.object.primaryKey),
            serverIdentities: drafts.compactMap(\.identityText))
        var work = Worklist(model: model, rows: candidates)
        for draft in drafts { apply(draft, to: &work) }
        let removed = work.removed.sorted()
        if !removed.isEmpty { try storage.deleteOutboxRows(sequences: removed) }
        let changed = work.changed.sorted().compactMap { work.rows[$0] }
        if !changed.isEmpty { try storage.updateOutboxRows(changed) }
        let added = work.rows[candidates.count...].compactMap { $0 }
        if !added.isEmpty { try storage.insertOutboxRows(added) }
    }

    // MARK: - Drafts

    private func makeDrafts(_ changes: ChangeSet, mapping: [ObjectID: ObjectID], prior: [ObjectID: ObjectSnapshot]) throws -> [Draft] {
        var drafts: [Draft] = []
        for id in changes.deleted {
            let entity = try resolved(id.entityName)
            let before = prior[id]
            drafts.append(
                Draft(
                    object: id, entity: entity, operation: .delete, fields: [],
                    serverIdentity: before.flatMap { identity(entity, $0.attributes) },
                    base: before.flatMap { stamp(entity, $0.attributes) }, notPushable: rules.reasonNotPushable(entity)))
        }
        for change in changes.updated {
            let id = mapping[change.id] ?? change.id
            let entity = try resolved(id.entityName)
            var positions = Set(change.attributes.map(\.index))
            for r in change.relationships { positions.insert(entity.attributes.count + r.index) }
            guard !positions.isEmpty else { continue }
            let before = prior[change.id]
            drafts.append(
                Draft(
                    object: id, entity: entity, operation: .update, fields: names(entity, positions),
                    serverIdentity: before.flatMap { identity(entity, $0.attributes) },
                    base: before.flatMap { stamp(entity, $0.attributes) },
                    baseValues: before.map { values(entity, positions, $0.attributes) } ?? [:],
                    notPushable: rules.reasonNotPushable(entity)))
        }
        for snapshot in changes.inserted where !snapshot.isPlaceholder {
            let id = mapping[snapshot.id] ?? snapshot.id
            let entity = try resolved(id.entityName)
            var positions = Set<Int>()
            for (i, value) in snapshot.attributes.enumerated() where value != nil { positions.insert(i) }
            for (i, links) in snapshot.relationships.enumerated() where !links.isEmpty { positions.insert(entity.attributes.count + i) }
            let identityText = identity(entity, snapshot.attributes).flatMap { try? JSONWriter.string(for: $0) }
            drafts.append(
                Draft(
                    object: id, entity: entity, operation: .create, fields: names(entity, positions),
                    identityText: identityText, notPushable: rules.reasonNotPushable(entity)))
        }
        return drafts
    }

    private func resolved(_ name: String) throws(StoreError) -> ResolvedEntity {
        guard let entity = model.entity(named: name) else {
            throw StoreError(.unknownObject, message: "the model has no entity \(name)")
        }
        return entity
    }

    /// Names of property positions (attributes `0..<n`, then relationships `n…`), in the entity's order.
    private func names(_ entity: ResolvedEntity, _ positions: Set<Int>) -> [String] {
        let count = entity.attributes.count
        return positions.sorted().compactMap { p in
            p < count ? entity.attributes[p].name : (p - count < entity.relationships.count ? entity.relationships[p - count].name : nil)
        }
    }

    /// Every attribute and relationship of `entity`.
    private func allNames(_ entity: ResolvedEntity) -> [String] {
        entity.attributes.map(\.name) + entity.relationships.map(\.name)
    }

    /// The identity values as a JSON array; nil without identity attributes or with a missing value.
    private func identity(_ entity: ResolvedEntity, _ values: [AttributeValue?]) -> JSONValue? {
        guard !entity.identityAttributeIndexes.isEmpty else { return nil }
        var elements: [JSONValue] = []
        for i in entity.identityAttributeIndexes {
            guard i < values.count, let value = values[i] else { return nil }
            elements.append(JSONCoercion.json(from: value, as: entity.attributes[i].type))
        }
        return .array(elements)
    }

    /// The values of the attributes among `positions` (relationships have none), `null` for no value.
    private func values(_ entity: ResolvedEntity, _ positions: Set<Int>, _ values: [AttributeValue?]) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for p in positions where p < entity.attributes.count {
            let attribute = entity.attributes[p]
            result[attribute.name] = p < values.count ? values[p].map { JSONCoercion.json(from: $0, as: attribute.type) } ?? .null : .null
        }
        return result
    }

    /// The stamp attribute's value as text.
    private func stamp(_ entity: ResolvedEntity, _ values: [AttributeValue?]) -> String? {
        guard let i = rules.stampAttributeIndex(entity), i < values.count, let value = values[i] else { return nil }
        let json = JSONCoercion.json(from: value, as: entity.attributes[i].type)
        if let text = json.stringValue { return text }
        return try? JSONWriter.string(for: json)
    }

    // MARK: - Merging

    /// The candidate rows and what the recording did to them; rows after the candidates are new.
    private struct Worklist {
        var rows: [OutboxEntry?]
        var changed = Set<Int>()
        var removed = Set<Int64>()
        /// Row positions by root entity and object key, in sequence order.
        var byObject: [String: [Int]] = [:]
        let model: ObjectModel

        init(model: ObjectModel, rows: [OutboxEntry]) {
            self.model = model
            self.rows = rows
            for (i, row) in rows.enumerated() { byObject[objectKey(row.object), default: []].append(i) }
        }

        func objectKey(_ id: ObjectID) -> String {
            "\(model.entity(named: id.entityName)?.rootName ?? id.entityName)\u{0}\(id.primaryKey)"
        }

        func root(_ id: ObjectID) -> String { model.entity(named: id.entityName)?.rootName ?? id.entityName }

        /// The object's last row, by position.
        func latest(_ id: ObjectID) -> Int? { byObject[objectKey(id)]?.last }

        /// Whether a live row of the object is a create (its create not yet acknowledged). Rows
        /// before the key's last delete belong to an object deleted before (SQLite may give a
        /// new object the key of a deleted one) and do not count.
        func hasCreate(_ id: ObjectID) -> Bool {
            for i in (byObject[objectKey(id)] ?? []).reversed() {
                switch rows[i]?.operation {
                case .create: return true
                case .delete: return false
                default: continue
                }
            }
            return false
        }

        /// The last live delete row of `root` whose server identity is `identity`.
        func latestDelete(root: String, identity: String) -> Int? {
            rows.indices.last { i in
                guard let row = rows[i], row.operation == .delete else { return false }
                return self.root(row.object) == root && row.serverIdentityText == identity
            }
        }

        mutating func update(_ i: Int, _ row: OutboxEntry) {
            let old = rows[i]
            rows[i] = row
            if let old, old.object != row.object {
                byObject[objectKey(old.object)]?.removeAll { $0 == i }
                byObject[objectKey(row.object), default: []].append(i)
            }
            if row.sequence > 0 { changed.insert(i) }
        }

        mutating func remove(_ i: Int) {
            guard let row = rows[i] else { return }
            rows[i] = nil
            byObject[objectKey(row.object)]?.removeAll { $0 == i }
            changed.remove(i)
            if row.sequence > 0 { removed.insert(row.sequence) }
        }

        mutating func append(_ row: OutboxEntry) {
            rows.append(row)
            byObject[objectKey(row.object), default: []].append(rows.count - 1)
        }
    }

    /// A row `draft` may merge into: pending for a pushable change; rejected before any attempt
    /// (not pushable) for a change that is not pushable.
    private func mergeable(_ row: OutboxEntry, _ draft: Draft) -> Bool {
        if draft.notPushable == nil { return row.state == .pending }
        return row.state == .rejected && row.attempts == 0
    }

    private func apply(_ draft: Draft, to work: inout Worklist) {
        if draft.operation == .create {
            if let text = draft.identityText, let i = work.latestDelete(root: draft.entity.rootName, identity: text),
                var row = work.rows[i], mergeable(row, draft), work.latest(row.object) == i
            {
                // Deleted, then made again with the same identity: the server's object is updated in full.
                row.operation = .update
                row.object = draft.object
                row.fields = allNames(draft.entity)
                work.update(i, row)
                return
            }
            append(draft, serverIdentity: nil, to: &work)
            return
        }
        guard let i = work.latest(draft.object), var row = work.rows[i], mergeable(row, draft), row.operation != .delete else {
            append(draft, serverIdentity: work.hasCreate(draft.object) ? nil : draft.serverIdentity, to: &work)
            return
        }
        switch draft.operation {
        case .update:
            row.fields = union(row.fields, draft.fields, draft.entity)
            if row.operation == .update { row.baseValues.merge(draft.baseValues) { older, _ in older } }
            work.update(i, row)
        case .delete:
            if row.operation == .create, row.attempts == 0 {
                work.remove(i)
            } else {
                row.operation = .delete
                row.fields = []
                work.update(i, row)
            }
        case .create:
            break
        }
    }

    private func append(_ draft: Draft, serverIdentity: JSONValue?, to work: inout Worklist) {
        work.append(
            OutboxEntry(
                sequence: 0, object: draft.object, serverIdentity: serverIdentity, operation: draft.operation,
                fields: draft.fields, base: draft.operation == .create ? nil : draft.base,
                baseValues: draft.operation == .update ? draft.baseValues : [:], key: UUID(),
                state: draft.notPushable == nil ? .pending : .rejected, attempts: 0,
                lastError: draft.notPushable, enqueuedAt: now))
    }

    /// `a ∪ b` in the entity's order (names it lacks last, as they came).
    private func union(_ a: [String], _ b: [String], _ entity: ResolvedEntity) -> [String] {
        let all = Set(a).union(b)
        let ordered = allNames(entity)
        let known = Set(ordered)
        var result = ordered.filter(all.contains)
        var seen = Set(result)
        for name in a + b where !known.contains(name) && seen.insert(name).inserted { result.append(name) }
        return result
    }
}
