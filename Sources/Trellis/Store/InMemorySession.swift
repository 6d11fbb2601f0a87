/// A session of an ``InMemoryStore``: reads a copy of the committed state; a write session
/// changes its copy, which replaces the committed state when the write returns.
/// Writing: `InMemorySession+Apply.swift`; links and inverses: `InMemorySession+Links.swift`;
/// identity indexes: `InMemorySession+Identities.swift`; retyped placeholders and metadata:
/// `InMemorySession+Retyping.swift`, `InMemorySession+Metadata.swift`.
final class InMemorySession: StoreSession {
    let store: InMemoryStore
    @exclusivity(unchecked) var state: InMemoryState
    /// Ordered to-manys whose inverse is a to-one changed by the current `apply`: put in
    /// their order once it is done (``applyOrder(_:)``).
    var reorder: Set<OrderSlot> = []
    let writable: Bool
    var isValid = true
    var failure: (any Error)?
    /// What the session's applies changed, for observers.
    var commitRecord = StoreCommit()
    var origin: ChangeOrigin = .import
    var pushRules = PushRules()
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
                found.insert(key).inserted
            else { continue }
            result.append(snapshot(row, key))
        }
        return result
    }

    /// Runs the predicate's fetch request (``StoreSession/request(entity:matching:)``).
    func fetch(entity: String, matching predicate: StorePredicate?) throws -> [ObjectSnapshot] {
        try fetch(request(entity: entity, matching: predicate))
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
        return try count(request(entity: entity, matching: predicate))
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
        RequestEvaluator(
            request,
            lookup: { [unowned self] id in
                guard let info = self.schema.info(named: id.entityName),
                    let row = self.state.tables[info.rootNumber].rows[id.primaryKey], row.entity == info.number
                else { return nil }
                return self.snapshot(row, id.primaryKey)
            })
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

    func checkShape(_ info: EntityInfo, attributes: Int, relationships: Int, _ id: ObjectID) throws {
        guard attributes == info.entity.attributes.count, relationships == info.relationships.count else {
            throw StoreError(
                .engine,
                message: "\(id): snapshot has \(attributes) attribute and \(relationships) "
                    + "relationship slots; \(info.name) has \(info.entity.attributes.count) and \(info.relationships.count)")
        }
    }

    private func snapshot(_ row: InMemoryRow, _ key: Int64) -> ObjectSnapshot {
        ObjectSnapshot(
            id: ObjectID(entityName: schema.entities[row.entity].name, primaryKey: key),
            isPlaceholder: row.isPlaceholder, attributes: row.attributes, relationships: row.relationships)
    }
}
