/// A `Sendable` value snapshot of a stored object: what a fetch read, safe to hand to
/// another actor (a `@MainActor` view model) or task, unlike ``ManagedObject`` and
/// ``ObjectContext``, which belong to one thread.
///
///     let heroes = try await store.fetch(request)       // [FetchedObject], off the main actor
///     await MainActor.run { model.rows = heroes.map { $0["name"]?.stringValue ?? "" } }
public struct FetchedObject: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The object's entity (concrete).
    public let entity: ResolvedEntity
    /// The stored state.
    public let snapshot: ObjectSnapshot

    public init(entity: ResolvedEntity, snapshot: ObjectSnapshot) {
        self.entity = entity
        self.snapshot = snapshot
    }

    /// The object ID.
    public var id: ObjectID { snapshot.id }
    /// `true` for a placeholder (holds only its identity).
    public var isPlaceholder: Bool { snapshot.isPlaceholder }

    /// The value of the attribute `name` (nil: no value, or no such attribute).
    public subscript(name: String) -> AttributeValue? {
        guard let i = entity.attributeIndex(of: name), i < snapshot.attributes.count else { return nil }
        return snapshot.attributes[i]
    }

    /// The destinations of the relationship `name` (to-one: zero or one; empty for no such relationship).
    public func destinationIDs(forKey name: String) -> [ObjectID] {
        guard let i = entity.relationshipIndex(of: name), i < snapshot.relationships.count else { return [] }
        return snapshot.relationships[i]
    }

    /// `Character/3 {id: 1699, name: "Batman"}`.
    public var description: String {
        let shown = entity.identityAttributeIndexes.isEmpty ? Array(entity.attributes.indices.prefix(3)) : entity.identityAttributeIndexes
        let parts = shown.filter { $0 < snapshot.attributes.count }
            .map { "\(entity.attributes[$0].name): \(snapshot.attributes[$0]?.description ?? "nil")" }
        return "\(id) {\(parts.joined(separator: ", "))}"
    }

    public static func == (lhs: FetchedObject, rhs: FetchedObject) -> Bool { lhs.snapshot == rhs.snapshot }
    public func hash(into hasher: inout Hasher) { hasher.combine(snapshot) }
}

extension ObjectModel {
    /// `snapshot` with its entity, for handing out (nil when the model lacks the entity).
    func fetchedObject(_ snapshot: ObjectSnapshot) -> FetchedObject? {
        entity(named: snapshot.id.entityName).map { FetchedObject(entity: $0, snapshot: snapshot) }
    }
}
