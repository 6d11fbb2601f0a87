/// In-memory evaluation of ``StorePredicate``, shared by ``InMemoryStore`` and by
/// ``ObjectContext`` (which re-evaluates fetch predicates on unsaved objects).
extension StorePredicate {
    /// The first attribute or relationship name the predicate uses that `entity` lacks, if any.
    func unknownName(in entity: ResolvedEntity) -> String? {
        switch self {
        case .equals(let a, _), .oneOf(let a, _):
            return entity.attributeIndex(of: a) == nil ? a : nil
        case .relatedTo(let r, _):
            guard let i = entity.relationshipIndex(of: r), !entity.relationships[i].isToMany else { return r }
            return nil
        case .and(let ps), .or(let ps):
            return ps.lazy.compactMap { $0.unknownName(in: entity) }.first
        case .not(let p):
            return p.unknownName(in: entity)
        }
    }

    /// `true` when an object of `entity` with these values satisfies the predicate.
    /// Unknown names never match (callers validate with ``unknownName(in:)`` first).
    func evaluate(entity: ResolvedEntity, attributes: [AttributeValue?], relationships: [[ObjectID]]) -> Bool {
        switch self {
        case .equals(let a, let value):
            guard let i = entity.attributeIndex(of: a), i < attributes.count else { return false }
            return attributes[i] == value
        case .oneOf(let a, let values):
            guard let i = entity.attributeIndex(of: a), i < attributes.count, let v = attributes[i] else { return false }
            return values.contains(v)
        case .relatedTo(let r, let destination):
            guard let i = entity.relationshipIndex(of: r), i < relationships.count else { return false }
            return relationships[i].first == destination
        case .and(let ps):
            return ps.allSatisfy { $0.evaluate(entity: entity, attributes: attributes, relationships: relationships) }
        case .or(let ps):
            return ps.contains { $0.evaluate(entity: entity, attributes: attributes, relationships: relationships) }
        case .not(let p):
            return !p.evaluate(entity: entity, attributes: attributes, relationships: relationships)
        }
    }
}
