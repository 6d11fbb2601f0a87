/// A fetch request checked against the model, as stores receive it: key paths are
/// positions in resolved entities, values have the attributes' types, and text operands of
/// `[c]`/`[d]` comparisons are already folded (``PredicateText/fold(_:_:)``). Stores compile
/// it (``SQLPredicateCompiler``) or evaluate it (``RequestEvaluator``).
public struct ResolvedFetchRequest: Sendable {
    public let entity: ResolvedEntity
    public let predicate: ResolvedPredicate
    public let sortDescriptors: [ResolvedSortDescriptor]
    public let limit: Int?
    public let offset: Int

    public init(
        entity: ResolvedEntity, predicate: ResolvedPredicate, sortDescriptors: [ResolvedSortDescriptor],
        limit: Int?, offset: Int
    ) {
        self.entity = entity
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.limit = limit
        self.offset = offset
    }

    /// The same request without limit and offset (what a count counts).
    public var unlimited: ResolvedFetchRequest {
        ResolvedFetchRequest(entity: entity, predicate: predicate, sortDescriptors: sortDescriptors, limit: nil, offset: 0)
    }

    /// The same request restricted to objects with these IDs (AND), without limit, offset
    /// or sort (observation evaluates changed objects with it).
    public func restricted(to ids: [ObjectID]) -> ResolvedFetchRequest {
        ResolvedFetchRequest(
            entity: entity, predicate: .and([.objectIDs(Set(ids)), predicate]), sortDescriptors: sortDescriptors,
            limit: nil, offset: 0)
    }
}

/// A to-one step of a key path: from `source`'s relationship at `index` to `destination`.
public struct ResolvedHop: Sendable, Hashable {
    public let source: ResolvedEntity
    public let index: Int
    public let destination: ResolvedEntity
    public var relationship: RelationshipDescription { source.relationships[index] }
}

/// Where a key path ends, after its to-one hops.
public enum ResolvedTarget: Sendable, Hashable {
    /// An attribute of the last entity (position in its attributes).
    case attribute(entity: ResolvedEntity, index: Int)
    /// A to-one relationship of the last entity, compared with object IDs or nil.
    case toOne(entity: ResolvedEntity, index: Int)
    /// The object itself (`SELF`), compared with object IDs.
    case object
}

/// A key path to a value: to-one hops, then an attribute (or a to-one, or `SELF`).
public struct ResolvedKeyPath: Sendable, Hashable {
    public let hops: [ResolvedHop]
    public let target: ResolvedTarget
    /// The key path as written (for messages).
    public let text: String

    /// The attribute at the end, if the target is one.
    public var attribute: AttributeDescription? {
        if case .attribute(let entity, let index) = target { return entity.attributes[index] }
        return nil
    }
}

/// A key path to a to-many relationship: to-one hops, then the to-many.
public struct ResolvedToManyPath: Sendable, Hashable {
    public let hops: [ResolvedHop]
    public let toMany: ResolvedHop
    public let text: String
}

/// A resolved condition. Comparisons of a missing value (nil, or no destination on the
/// way) are false except `== nil`, `!= value` and `NOT IN`; `NOT` negates the two-valued
/// result (there is no SQL "unknown").
public indirect enum ResolvedPredicate: Sendable, Hashable {
    case constant(Bool)
    /// `path op values` (one value; two for BETWEEN; any number for IN), with the options;
    /// a nil value only with `==` and `!=`.
    case compare(ResolvedKeyPath, PredicateOperator, [AttributeValue?], PredicateOptions)
    /// Some destination of the to-many satisfies the predicate (resolved on the destination entity).
    case exists(ResolvedToManyPath, ResolvedPredicate)
    /// The number of destinations compared with a count.
    case count(ResolvedToManyPath, PredicateOperator, [Int64])
    /// The object's ID is one of these.
    case objectIDs(Set<ObjectID>)
    case and([ResolvedPredicate])
    case or([ResolvedPredicate])
    case not(ResolvedPredicate)
}

/// A resolved sort key: to-one hops then an attribute.
public struct ResolvedSortDescriptor: Sendable, Hashable {
    public let keyPath: ResolvedKeyPath
    public let ascending: Bool
}
