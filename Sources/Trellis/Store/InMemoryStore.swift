import Foundation

/// A ``PersistentStore`` that keeps objects in memory: for tests, previews, and as the
/// reference implementation of the store contract.
///
/// - Sessions: ``read(_:)`` works on the committed state as it was when the session began
///   (a copy-on-write value, so later writes never show through); ``write(_:)`` works on a
///   private copy that replaces the committed state only when the closure returns. Writers
///   are serialised by a lock; readers never wait for writers. Do not nest `write` calls.
/// - Atomicity: a failed ``StoreSession/apply(_:)`` poisons its write session, so the
///   transaction rolls back even if the closure catches the error.
/// - Constraints: identity values are unique per inheritance hierarchy (every entity whose
///   identity attributes differ from its parent's adds its own uniqueness scope);
///   relationship destinations must exist. Both give ``StoreError/Code/constraintViolation``.
/// - Relationships follow ``ChangeSet``'s storage rules: a to-many whose inverse is a to-one
///   is derived from the inverse's foreign keys (its slot in a change is ignored); other
///   to-manys behave as join tables; inverses are kept on both sides.
/// - Complexity: identity fetches O(1) per identity; a write copies each table it changes
///   once (O(rows)); predicate fetches scan the hierarchy's rows.
public final class InMemoryStore: PersistentStore {
    /// The model the store was created with.
    public let model: ObjectModel
    let schema: ModelSchema
    private let box: StateBox
    private let writer = NSLock()
    /// Recent commits, for observers (``ObservableStore``).
    let commitLog = CommitLog()
    let listeners = CommitListeners()

    /// An empty store for `model`.
    public init(model: ObjectModel) {
        self.model = model
        self.schema = ModelSchema(model: model)
        self.box = StateBox(InMemoryState(tableCount: schema.entities.count))
    }

    /// Runs `body` over the committed state as of now; later writes are not visible to it.
    public func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        let session = InMemorySession(store: self, state: box.current(), writable: false)
        defer { session.isValid = false }
        return try body(session)
    }

    /// Runs `body` in one transaction: its changes replace the committed state when it
    /// returns; nothing is kept when it throws or when an `apply` inside it failed.
    public func write<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        writer.lock()
        defer { writer.unlock() }
        let session = InMemorySession(store: self, state: box.current(), writable: true)
        defer { session.isValid = false }
        let result = try body(session)
        if let failure = session.failure { throw failure }
        var commit = session.commitRecord
        if !commit.isEmpty {
            commit.sequence = session.state.sequence + 1
            session.state.sequence = commit.sequence
        }
        box.replace(session.state)
        if !commit.isEmpty {
            commitLog.append(commit)
            listeners.notify()
        }
        return result
    }

    /// The number of stored objects of every entity (test and diagnostics helper).
    public var objectCount: Int { box.current().tables.reduce(0) { $0 + $1.rows.count } }
}

// MARK: - State

/// The committed state behind a lock.
// SAFETY: `state` is only read or replaced while `lock` is held; the value itself is
// copy-on-write and never shared mutably.
private final class StateBox: @unchecked Sendable {
    private let lock = NSLock()
    private var state: InMemoryState
    init(_ state: InMemoryState) { self.state = state }
    func current() -> InMemoryState { lock.withLock { state } }
    func replace(_ new: InMemoryState) { lock.withLock { state = new } }
}

struct InMemoryState {
    /// One table per inheritance root (indexed by entity number; non-roots stay empty).
    var tables: [InMemoryTable]
    /// The order given to an ordered to-many whose inverse is a to-one (membership follows
    /// the inverse's foreign keys), member → position, as the SQLite store's order table keeps it.
    var orders: [OrderSlot: [ObjectID: Int]] = [:]
    /// The sequence of the last commit (``StoreCommit/sequence``).
    var sequence: Int64 = 0
    /// ``StoreSession/metadataValue(forKey:)``'s map, committed with the objects.
    var metadata: [String: String] = [:]
    init(tableCount: Int) { tables = Array(repeating: InMemoryTable(), count: tableCount) }
}

/// An object's relationship slot.
struct OrderSlot: Hashable {
    let object: ObjectID
    let slot: Int
}

struct InMemoryTable {
    var rows: [Int64: InMemoryRow] = [:]
    var nextKey: Int64 = 1
    /// identity namespace (entity number) → identity → primary key.
    var identities: [Int: [IdentityKey: Int64]] = [:]
}

struct InMemoryRow {
    var entity: Int
    var isPlaceholder: Bool
    var attributes: [AttributeValue?]
    var relationships: [[ObjectID]]
}

// MARK: - Session

final class InMemorySession: StoreSession {
    let store: InMemoryStore
    @exclusivity(unchecked) var state: InMemoryState
    /// Ordered to-manys whose inverse is a to-one changed by the current `apply`: put in
    /// their order once it is done (``applyOrder(_:)``).
    private var reorder: Set<OrderSlot> = []
    let writable: Bool
    var isValid = true
    var failure: (any Error)?
    /// What the session's applies changed, for observers.
    var commitRecord = StoreCommit()
    var schema: ModelSchema { store.schema }
    var model: ObjectModel { store.model }

    init(store: InMemoryStore, state: InMemoryState, writable: Bool) {
        self.store = store
        self.state = state
        self.writable = writable
    }

    // MARK: Fetching

    func fetch(entity: String, identities: [[AttributeValue]]) throws -> [ObjectSnapshot] {
        try checkValid()
        let info = try entityInfo(entity)
        guard info.namespace >= 0 else { return [] }
        let table = state.tables[info.rootNumber]
        guard let index = table.identities[info.namespace] else { return [] }
        let width = info.entity.identityAttributeIndexes.count
        var result: [ObjectSnapshot] = []
        result.reserveCapacity(identities.count)
        // An identity asked for twice finds its object once, as in SQL (`IN`).
        var found = Set<Int64>(minimumCapacity: identities.count)
        for values in identities {
            guard values.count == width else {
                throw StoreError(.engine, message: "an identity of \(entity) has \(width) value(s), not \(values.count)")
            }
            guard let key = index[IdentityKey(values)], let row = table.rows[key], info.includes(row.entity),
                  found.insert(key).inserted else { continue }
            result.append(snapshot(row, key))
        }
        return result
    }

    func fetch(entity: String, matching predicate: StorePredicate?) throws -> [ObjectSnapshot] {
        try checkValid()
        let info = try entityInfo(entity)
        if let predicate, let name = predicate.unknownName(in: info.entity) {
            throw StoreError(.unknownObject, message: "'\(name)' is not an attribute or to-one relationship of \(entity)")
        }
        var result: [ObjectSnapshot] = []
        for (key, row) in state.tables[info.rootNumber].rows where info.includes(row.entity) {
            let rowEntity = schema.entities[row.entity].entity
            if let predicate, !predicate.evaluate(entity: rowEntity, attributes: row.attributes, relationships: row.relationships) {
                continue
            }
            result.append(snapshot(row, key))
        }
        result.sort { $0.id < $1.id }
        return result
    }

    func fetch(ids: [ObjectID]) throws -> [ObjectSnapshot] {
        try checkValid()
        var result: [ObjectSnapshot] = []
        result.reserveCapacity(ids.count)
        for id in ids {
            let info = try entityInfo(id.entityName)
            guard let row = state.tables[info.rootNumber].rows[id.primaryKey], row.entity == info.number else { continue }
            result.append(snapshot(row, id.primaryKey))
        }
        return result
    }

    func count(entity: String, matching predicate: StorePredicate?) throws -> Int {
        if predicate == nil {
            try checkValid()
            let info = try entityInfo(entity)
            return state.tables[info.rootNumber].rows.values.reduce(0) { $0 + (info.includes($1.entity) ? 1 : 0) }
        }
        return try fetch(entity: entity, matching: predicate).count
    }

    /// Evaluates the request over the hierarchy's rows (``RequestEvaluator``).
    func fetch(_ request: ResolvedFetchRequest) throws -> [ObjectSnapshot] {
        try evaluator(request).run(try candidates(request))
    }

    func count(_ request: ResolvedFetchRequest) throws -> Int {
        try evaluator(request).count(try candidates(request))
    }

    private func candidates(_ request: ResolvedFetchRequest) throws -> [ObjectSnapshot] {
        try checkValid()
        let info = try entityInfo(request.entity.name)
        var result: [ObjectSnapshot] = []
        for (key, row) in state.tables[info.rootNumber].rows where info.includes(row.entity) { result.append(snapshot(row, key)) }
        return result
    }

    private func evaluator(_ request: ResolvedFetchRequest) -> RequestEvaluator {
        RequestEvaluator(request, lookup: { [unowned self] id in
            guard let info = self.schema.info(named: id.entityName),
                  let row = self.state.tables[info.rootNumber].rows[id.primaryKey], row.entity == info.number else { return nil }
            return self.snapshot(row, id.primaryKey)
        })
    }

    // MARK: Writing

    /// Applies deletions, then insertions, then updates. Throws on the first problem and
    /// poisons the session (the enclosing write rolls back).
    func apply(_ changes: ChangeSet) throws -> [ObjectID: ObjectID] {
        try checkValid()
        guard writable else { throw StoreError(.readOnly, message: "cannot apply changes in a read session") }
        do {
            let mapping = try applyChanges(changes)
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
                  state.tables[info.rootNumber].rows.values[rowIndex].entity == info.number else {
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

    // MARK: Internals

    func checkValid() throws {
        guard isValid else { throw StoreError(.engine, message: "the session was used outside its closure") }
        if let failure { throw failure }
    }

    func entityInfo(_ name: String) throws -> EntityInfo {
        guard let info = schema.info(named: name) else {
            throw StoreError(.unknownObject, message: "unknown entity '\(name)'")
        }
        return info
    }

    private func checkShape(_ info: EntityInfo, attributes: Int, relationships: Int, _ id: ObjectID) throws {
        guard attributes == info.entity.attributes.count, relationships == info.relationships.count else {
            throw StoreError(.engine, message: "\(id): snapshot has \(attributes) attribute and \(relationships) "
                + "relationship slots; \(info.name) has \(info.entity.attributes.count) and \(info.relationships.count)")
        }
    }

    private func snapshot(_ row: InMemoryRow, _ key: Int64) -> ObjectSnapshot {
        ObjectSnapshot(id: ObjectID(entityName: schema.entities[row.entity].name, primaryKey: key),
                       isPlaceholder: row.isPlaceholder, attributes: row.attributes, relationships: row.relationships)
    }

    private func remap(_ ids: [ObjectID], _ mapping: [ObjectID: ObjectID], _ retypes: Bool) -> [ObjectID] {
        if mapping.isEmpty || (!retypes && !ids.contains(where: \.isTemporary)) { return ids }
        return ids.map { mapping[$0] ?? $0 }
    }

    func index(_ info: EntityInfo, _ key: Int64, _ values: [AttributeValue?]) throws {
        var done: [(Int, IdentityKey)] = []
        for namespace in info.lineageNamespaces {
            guard let identity = schema.entities[namespace].identity(of: values) else { continue }
            let existing = state.tables[info.rootNumber].identities[namespace, default: [:]].updateValue(key, forKey: identity)
            if let existing, existing != key {
                state.tables[info.rootNumber].identities[namespace]?[identity] = existing
                for (n, k) in done { state.tables[info.rootNumber].identities[n]?[k] = nil }
                throw StoreError(.constraintViolation,
                                 message: "another \(schema.entities[namespace].name) already has identity \(identity)",
                                 details: "existing \(schema.entities[namespace].name)/\(existing)")
            }
            if info.lineageNamespaces.count > 1 { done.append((namespace, identity)) }
        }
    }

    private func unindex(_ info: EntityInfo, _ key: Int64, _ values: [AttributeValue?]) {
        for namespace in info.lineageNamespaces {
            guard let identity = schema.entities[namespace].identity(of: values) else { continue }
            if state.tables[info.rootNumber].identities[namespace]?[identity] == key {
                state.tables[info.rootNumber].identities[namespace]?[identity] = nil
            }
        }
    }

    /// Runs `body` on the row of `id` in place; false when there is no such row.
    @discardableResult
    private func modifyRow(_ id: ObjectID, _ body: (inout InMemoryRow) -> Void) -> Bool {
        guard let info = schema.info(named: id.entityName),
              let i = state.tables[info.rootNumber].rows.index(forKey: id.primaryKey) else { return false }
        body(&state.tables[info.rootNumber].rows.values[i])
        return true
    }

    /// Sets relationship `index` of `id` and keeps the inverse side in step.
    private func setRelationship(_ id: ObjectID, _ info: EntityInfo, _ index: Int, _ given: [ObjectID]) throws {
        let rel = info.relationships[index]
        if rel.storage == .derivedFromInverse {
            // Membership is kept from the inverse's foreign keys; an ordered one takes its order
            // from here (members it does not list come last, by key), as in the SQLite store.
            if rel.isOrdered {
                var positions: [ObjectID: Int] = [:]
                for (i, d) in given.enumerated() where positions[d] == nil { positions[d] = i }
                let slot = OrderSlot(object: id, slot: index)
                state.orders[slot] = positions
                reorder.insert(slot)
            }
            return
        }
        var new = given
        if !rel.isToMany {
            guard new.count <= 1 else {
                throw StoreError(.engine, message: "\(id).\(rel.description.name) is a to-one; got \(new.count) destinations")
            }
        } else if new.count > 1 {
            if rel.isOrdered {
                if new.count <= 16 {
                    var unique: [ObjectID] = []
                    unique.reserveCapacity(new.count)
                    for d in new where !unique.contains(d) { unique.append(d) }
                    new = unique
                } else {
                    var seen = Set<ObjectID>()
                    new = new.filter { seen.insert($0).inserted }
                }
            } else if !zip(new, new.dropFirst()).allSatisfy({ $0 < $1 }) {
                new.sort()
                var unique: [ObjectID] = []
                unique.reserveCapacity(new.count)
                for d in new where unique.last != d { unique.append(d) }
                new = unique
            }
        }
        let table = info.rootNumber
        guard let own = state.tables[table].rows.index(forKey: id.primaryKey) else {
            throw StoreError(.unknownObject, message: "\(id) does not exist")
        }
        let old = state.tables[table].rows.values[own].relationships[index]
        state.tables[table].rows.values[own].relationships[index] = new
        let (removed, added) = difference(old, new)
        let inverse = rel.inverseIndex
        // Dictionary indexes stay valid: rows are only changed in place below.
        for d in added {
            guard let (root, k) = locate(d), schema.entities[rel.destinationNumber].includes(state.tables[root].rows.values[k].entity) else {
                throw StoreError(.constraintViolation, message: "\(id).\(rel.description.name) points at \(d), which does not exist "
                    + "or is not \(withIndefiniteArticle(schema.entities[rel.destinationNumber].name))")
            }
            guard let inverse else { continue }
            if rel.inverseIsToMany {
                InMemorySession.insert(id, into: &state.tables[root].rows.values[k].relationships[inverse], ordered: rel.inverseIsOrdered)
                if !rel.isToMany, rel.inverseIsOrdered { reorder.insert(OrderSlot(object: d, slot: inverse)) }
            } else {
                // One-to-one: the destination's previous source loses its link.
                let previous = state.tables[root].rows.values[k].relationships[inverse].first
                state.tables[root].rows.values[k].relationships[inverse] = [id]
                if let previous, previous != id {
                    modifyRow(previous) { row in
                        if row.relationships[index].first == d { row.relationships[index] = [] }
                    }
                }
            }
        }
        if let inverse {
            for d in removed {
                unlink(d, inverse, from: id)
                // An object that leaves an ordered to-many through its to-one loses its place
                // there: coming back, it joins the members the order does not list (the SQLite
                // store deletes its order row).
                if !rel.isToMany, rel.inverseIsOrdered {
                    state.orders[OrderSlot(object: d, slot: inverse)]?[id] = nil
                }
            }
        }
    }

    /// Puts the members of an ordered to-many whose inverse is a to-one in the order last
    /// given for it; members it does not list come after, by key.
    private func applyOrder(_ slot: OrderSlot) {
        let positions = state.orders[slot] ?? [:]
        _ = modifyRow(slot.object) { row in
            let members = row.relationships[slot.slot]
            let listed = members.filter { positions[$0] != nil }.sorted { positions[$0]! < positions[$1]! }
            let unlisted = members.filter { positions[$0] == nil }.sorted { $0.primaryKey < $1.primaryKey }
            row.relationships[slot.slot] = listed + unlisted
        }
    }

    /// The table and dictionary index of the row of `id`, when it exists with that concrete entity.
    private func locate(_ id: ObjectID) -> (Int, Dictionary<Int64, InMemoryRow>.Index)? {
        guard let info = schema.info(named: id.entityName),
              let k = state.tables[info.rootNumber].rows.index(forKey: id.primaryKey),
              state.tables[info.rootNumber].rows.values[k].entity == info.number else { return nil }
        return (info.rootNumber, k)
    }

    private func difference(_ old: [ObjectID], _ new: [ObjectID]) -> (removed: [ObjectID], added: [ObjectID]) {
        if old.isEmpty { return ([], new) }
        if old.count * new.count <= 256 {
            return (old.filter { !new.contains($0) }, new.filter { !old.contains($0) })
        }
        let oldSet = Set(old), newSet = Set(new)
        return (old.filter { !newSet.contains($0) }, new.filter { !oldSet.contains($0) })
    }

    private func unlink(_ destination: ObjectID, _ slot: Int, from source: ObjectID) {
        modifyRow(destination) { row in
            if let i = row.relationships[slot].firstIndex(of: source) { row.relationships[slot].remove(at: i) }
        }
    }

    /// Adds `source` to a to-many slot: appended when ordered, else at its sorted position.
    static func insert(_ source: ObjectID, into slot: inout [ObjectID], ordered: Bool) {
        if ordered {
            if !slot.contains(source) { slot.append(source) }
            return
        }
        // New keys are usually the largest, so check the end first.
        if let last = slot.last, last < source {
            slot.append(source)
            return
        }
        var low = 0, high = slot.count
        while low < high {
            let mid = (low + high) / 2
            if slot[mid] < source { low = mid + 1 } else { high = mid }
        }
        if low < slot.count, slot[low] == source { return }
        slot.insert(source, at: low)
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
                          state.tables[source.rootNumber].rows.values[k].entity == source.number else { continue }
                    if state.tables[source.rootNumber].rows.values[k].relationships[i].contains(where: doomed.contains) {
                        state.tables[source.rootNumber].rows.values[k].relationships[i].removeAll(where: doomed.contains)
                    }
                }
            }
        }
    }
}

// MARK: - Observation

extension InMemoryStore: ObservableStore {
    public func readObserving<T>(_ body: (any StoreSession) throws -> T) throws -> (sequence: Int64, value: T) {
        let state = box.current()
        let session = InMemorySession(store: self, state: state, writable: false)
        defer { session.isValid = false }
        return (state.sequence, try body(session))
    }

    /// The last 256 commits are kept; an observer further behind runs its request again.
    public func commits(after sequence: Int64) throws -> [StoreCommit]? {
        commitLog.commits(after: sequence)
    }

    /// Listeners are called on the writing thread, right after the commit.
    public func addCommitListener(_ listener: @escaping @Sendable () -> Void) -> CommitListenerToken {
        listeners.add(listener)
    }
}
