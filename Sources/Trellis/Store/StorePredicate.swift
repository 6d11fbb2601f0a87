/// A simple condition on attribute values, which every store can run set-based
/// (SQL `WHERE`). Relationship conditions compare the destination's object ID.
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
