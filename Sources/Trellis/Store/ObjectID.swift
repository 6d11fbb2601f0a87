/// The identity of a stored object: its concrete entity and a primary key unique within
/// the entity's inheritance hierarchy.
///
/// Keys are positive once an object is saved. A context gives new objects temporary,
/// negative keys; ``StoreSession/apply(_:)`` returns the permanent ones.
public struct ObjectID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The concrete entity of the object.
    public let entityName: String
    /// The primary key: > 0 permanent (a SQLite rowid), < 0 temporary.
    public let primaryKey: Int64

    public init(entityName: String, primaryKey: Int64) {
        self.entityName = entityName
        self.primaryKey = primaryKey
    }

    /// `true` for an ID a context assigned before the object was saved.
    public var isTemporary: Bool { primaryKey < 0 }

    /// `Character/42` (temporary: `Character/t7`).
    public var description: String {
        primaryKey < 0 ? "\(entityName)/t\(-primaryKey)" : "\(entityName)/\(primaryKey)"
    }

    /// Hashes the primary key only (equal IDs still hash equally): identity maps and
    /// change sets hash millions of IDs, and hashing the entity name would dominate.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(primaryKey)
    }

    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        (lhs.entityName, lhs.primaryKey) < (rhs.entityName, rhs.primaryKey)
    }
}
