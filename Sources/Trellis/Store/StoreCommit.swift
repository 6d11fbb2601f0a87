/// What one committed write changed, as observers see it: the IDs of inserted, updated and
/// deleted objects (permanent IDs), and for updates the positions of the changed attributes
/// and relationships. Made from the change sets the write applied (the importer's own
/// diff), so a write that changed nothing has an empty commit and notifies nobody.
///
/// Stores that log commits (``ObservableStore``) number them with increasing
/// ``sequence`` values and keep the recent ones, also for other processes.
public struct StoreCommit: Sendable, Hashable {
    /// The commit's number in the store's log (1, 2, …; 0 before it is logged).
    public var sequence: Int64
    /// Objects the write created (in the order of their first change).
    public var inserted: [ObjectID] {
        get { insertedInOrder }
        set {
            insertedInOrder = newValue
            insertedMembers = Set(newValue)
        }
    }
    /// Objects the write changed, with what changed.
    public var updated: [ObjectID: PropertyChanges]
    /// Objects the write deleted.
    public var deleted: [ObjectID]

    /// ``inserted``, kept with the set of its members: ``record(_:mapping:)`` runs once per
    /// change set of a write (a batch of an import), and rebuilding the set from the whole
    /// list each time made a large import's commit record quadratic in its objects.
    private var insertedInOrder: [ObjectID]
    private var insertedMembers: Set<ObjectID>

    public init(sequence: Int64 = 0, inserted: [ObjectID] = [], updated: [ObjectID: PropertyChanges] = [:], deleted: [ObjectID] = []) {
        self.sequence = sequence
        self.insertedInOrder = inserted
        self.insertedMembers = Set(inserted)
        self.updated = updated
        self.deleted = deleted
    }

    public static func == (a: StoreCommit, b: StoreCommit) -> Bool {
        a.sequence == b.sequence && a.insertedInOrder == b.insertedInOrder && a.updated == b.updated && a.deleted == b.deleted
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sequence)
        hasher.combine(insertedInOrder)
        hasher.combine(updated)
        hasher.combine(deleted)
    }

    /// Nothing changed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Adds one applied change set (`mapping`: the permanent ID of each temporary one, as
    /// ``StoreSession/apply(_:)`` returned it).
    public mutating func record(_ changes: ChangeSet, mapping: [ObjectID: ObjectID]) {
        let deletedNow = Set(changes.deleted)
        if !deletedNow.isEmpty {
            if !insertedMembers.isDisjoint(with: deletedNow) {
                insertedInOrder.removeAll { deletedNow.contains($0) }
                insertedMembers.subtract(deletedNow)
            }
            for id in deletedNow { updated[id] = nil }
            deleted.append(contentsOf: changes.deleted)
        }
        for snapshot in changes.inserted {
            let id = mapping[snapshot.id] ?? snapshot.id
            if insertedMembers.insert(id).inserted { insertedInOrder.append(id) }
        }
        for change in changes.updated {
            let id = mapping[change.id] ?? change.id
            if insertedMembers.contains(id) { continue }
            if change.attributes.isEmpty && change.relationships.isEmpty && change.isPlaceholder == nil { continue }
            var properties = updated[id] ?? PropertyChanges()
            for a in change.attributes { properties.attributes.insert(a.index) }
            for r in change.relationships { properties.relationships.insert(r.index) }
            if change.isPlaceholder != nil { properties.placeholder = true }
            updated[id] = properties
        }
    }

    /// Adds a later commit's changes (for observers catching up on several commits).
    public mutating func merge(_ later: StoreCommit) {
        var changes = ChangeSet()
        changes.deleted = later.deleted
        record(changes, mapping: [:])
        for id in later.inserted where insertedMembers.insert(id).inserted { insertedInOrder.append(id) }
        for (id, properties) in later.updated where !insertedMembers.contains(id) {
            var merged = updated[id] ?? PropertyChanges()
            merged.attributes.formUnion(properties.attributes)
            merged.relationships.formUnion(properties.relationships)
            merged.placeholder = merged.placeholder || properties.placeholder
            updated[id] = merged
        }
        sequence = max(sequence, later.sequence)
    }

    /// The names of the entities with changed objects.
    public var entityNames: Set<String> {
        var names = Set(inserted.map(\.entityName))
        for id in updated.keys { names.insert(id.entityName) }
        for id in deleted { names.insert(id.entityName) }
        return names
    }

    // MARK: - Log text

    /// The commit as compact JSON for a store's log, by entity:
    /// `{"Character":{"i":[1,2],"u":[[5,[1],[0],0]],"d":[7]}}` (inserted keys; updated
    /// `[key, attribute positions, relationship positions, placeholder changed]`; deleted keys).
    public var logText: String {
        var byEntity: [String: (i: [Int64], u: [(Int64, PropertyChanges)], d: [Int64])] = [:]
        for id in inserted { byEntity[id.entityName, default: ([], [], [])].i.append(id.primaryKey) }
        for (id, p) in updated { byEntity[id.entityName, default: ([], [], [])].u.append((id.primaryKey, p)) }
        for id in deleted { byEntity[id.entityName, default: ([], [], [])].d.append(id.primaryKey) }
        var out = "{"
        for (n, entity) in byEntity.keys.sorted().enumerated() {
            guard let e = byEntity[entity] else { continue }
            if n > 0 { out += "," }
            out += JSONWriter.quoted(entity) + ":{\"i\":[" + e.i.map(String.init).joined(separator: ",") + "],\"u\":["
            out += e.u.sorted { $0.0 < $1.0 }.map { key, p in
                "[\(key),[\(p.attributes.sorted().map(String.init).joined(separator: ","))],"
                    + "[\(p.relationships.sorted().map(String.init).joined(separator: ","))],\(p.placeholder ? 1 : 0)]"
            }.joined(separator: ",")
            out += "],\"d\":[" + e.d.map(String.init).joined(separator: ",") + "]}"
        }
        return out + "}"
    }

    /// Reads ``logText``.
    /// - Throws: `StoreError` `.engine` when the text is not a logged commit.
    public init(sequence: Int64, logText: String) throws {
        self.init(sequence: sequence)
        let bad = StoreError(.engine, message: "commit \(sequence) in the store's change log is not readable")
        guard let json = try? JSONReader.parse(logText), let object = json.objectValue else { throw bad }
        func keys(_ value: JSONValue?) throws -> [Int64] {
            guard let array = value?.arrayValue else { throw bad }
            return try array.map {
                guard let k = $0.int64Value else { throw bad }
                return k
            }
        }
        for (entity, value) in object {
            for key in try keys(value["i"]) {
                let id = ObjectID(entityName: entity, primaryKey: key)
                if insertedMembers.insert(id).inserted { insertedInOrder.append(id) }
            }
            for key in try keys(value["d"]) { deleted.append(ObjectID(entityName: entity, primaryKey: key)) }
            guard let updates = value["u"]?.arrayValue else { throw bad }
            for u in updates {
                guard let key = u[0]?.int64Value else { throw bad }
                let attributes = try keys(u[1]).map { Int($0) }
                let relationships = try keys(u[2]).map { Int($0) }
                updated[ObjectID(entityName: entity, primaryKey: key)] = PropertyChanges(
                    attributes: Set(attributes), relationships: Set(relationships), placeholder: u[3]?.int64Value == 1)
            }
        }
    }
}

/// The changed properties of one updated object: positions in its entity's attributes and relationships.
public struct PropertyChanges: Sendable, Hashable {
    public var attributes: Set<Int>
    public var relationships: Set<Int>
    /// The placeholder flag changed (a placeholder was completed).
    public var placeholder: Bool

    public init(attributes: Set<Int> = [], relationships: Set<Int> = [], placeholder: Bool = false) {
        self.attributes = attributes
        self.relationships = relationships
        self.placeholder = placeholder
    }
}
