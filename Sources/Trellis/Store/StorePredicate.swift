/// A simple condition on attribute values, which every store can run set-based
/// (SQL `WHERE`). Relationship conditions compare the destination's object ID.
///
/// It is the same query language as ``ObjectPredicate`` (``ObjectPredicate/init(_:)``): every
/// store runs it as the fetch request ``request(entity:matching:model:)`` returns, through the
/// one SQL compiler or the one evaluator, so `NOT` over a missing value, value conversion
/// and errors are the same on every store (docs/Queries.md).
public indirect enum StorePredicate: Sendable, Hashable, CustomStringConvertible {
    /// `attribute = value` (`value` nil: `attribute IS NULL`).
    case equals(attribute: String, value: AttributeValue?)
    /// `attribute IN (values)`.
    case oneOf(attribute: String, values: [AttributeValue])
    /// To-one `relationship` points at `destination` (nil: has no destination).
    case relatedTo(relationship: String, destination: ObjectID?)
    /// All conditions hold (an empty list is always true).
    case and([StorePredicate])
    /// Any condition holds (an empty list is always false).
    case or([StorePredicate])
    /// The condition does not hold.
    case not(StorePredicate)

    public var description: String {
        switch self {
        case .equals(let a, let v): return "\(a) == \(v.map { "\($0)" } ?? "nil")"
        case .oneOf(let a, let vs): return "\(a) IN (\(vs.map { "\($0)" }.joined(separator: ", ")))"
        case .relatedTo(let r, let d): return "\(r) == \(d.map { "\($0)" } ?? "nil")"
        case .and(let ps): return "(" + ps.map(\.description).joined(separator: " AND ") + ")"
        case .or(let ps): return "(" + ps.map(\.description).joined(separator: " OR ") + ")"
        case .not(let p): return "NOT \(p)"
        }
    }
}

// MARK: - As a fetch request

extension StorePredicate {
    /// The fetch request every store runs for `predicate` on `entity` (nil: every object):
    /// the objects of `entity` and its sub-entities that match, ordered by object ID. Names
    /// and values are resolved as an ``ObjectFetchRequest``'s are (``ObjectPredicate/init(_:)``,
    /// docs/Queries.md): a name is an attribute or to-one relationship of `entity`, and a value
    /// converts to the attribute's type as a fetch request's value does (`.integer(3)` for a
    /// double attribute is `3.0`; `.string("x")` for an integer attribute, or NaN, does not fit).
    /// - Throws: ``QueryError`` (`.unknownProperty`, `.invalidKeyPath`, `.typeMismatch`, with
    ///   the entity and the name).
    package static func request(
        entity: ResolvedEntity, matching predicate: StorePredicate?,
        model: ObjectModel
    ) throws(QueryError) -> ResolvedFetchRequest {
        let resolved =
            try predicate.map { (p) throws(QueryError) in
                try PredicateResolver(model: model).resolve(ObjectPredicate(p), in: entity)
            } ?? .constant(true)
        return ResolvedFetchRequest(entity: entity, predicate: resolved, sortDescriptors: [], limit: nil, offset: 0)
    }
}

extension StoreSession {
    /// The fetch request ``fetch(entity:matching:)`` and ``count(entity:matching:)`` run for
    /// `predicate` on `entity` (``StorePredicate/request(entity:matching:model:)``): every
    /// store resolves a ``StorePredicate`` here, so every store answers, and fails, alike.
    /// - Throws: `StoreError` `.unknownObject` for an unknown entity, or a name that is not an
    ///   attribute or to-one relationship of it; `.unsupportedValue` for a value that does not
    ///   convert to its attribute's type; the message is the ``QueryError``'s.
    package func request(entity: String, matching predicate: StorePredicate?) throws(StoreError) -> ResolvedFetchRequest {
        guard let resolved = model.entity(named: entity) else {
            throw StoreError(.unknownObject, message: "unknown entity '\(entity)'")
        }
        do {
            return try StorePredicate.request(entity: resolved, matching: predicate, model: model)
        } catch {
            switch error.code {
            case .typeMismatch: throw StoreError(.unsupportedValue, message: error.message)
            case .unknownProperty, .invalidKeyPath: throw StoreError(.unknownObject, message: error.message)
            default: throw StoreError(.unsupported, message: error.message)
            }
        }
    }
}
