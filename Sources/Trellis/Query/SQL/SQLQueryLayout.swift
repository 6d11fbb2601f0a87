/// Where a store keeps each entity, attribute and relationship, as the
/// ``SQLPredicateCompiler`` needs it to write joins and sub-queries. The SQLite store's
/// layout adopts it; a PostgreSQL store's does the same.
public protocol SQLQueryLayout {
    /// The table of `entity`'s hierarchy.
    func sqlTable(for entity: ResolvedEntity) throws -> SQLTableInfo
    /// The column of `entity`'s attribute at `index` (unquoted).
    func sqlColumn(for entity: ResolvedEntity, attribute index: Int) throws -> String
    /// The foreign-key column of `entity`'s to-one relationship at `index` (unquoted).
    func sqlForeignKey(for entity: ResolvedEntity, relationship index: Int) throws -> String
    /// How `entity`'s to-many relationship at `index` is stored.
    func sqlToMany(for entity: ResolvedEntity, relationship index: Int) throws -> SQLToManyStorage
}

/// A hierarchy table as a query sees it.
public struct SQLTableInfo: Sendable, Hashable {
    /// Unquoted table name.
    public var name: String
    /// The primary key column (`_pk`).
    public var primaryKey: String
    /// The concrete-entity column (`_entity`).
    public var entityColumn: String
    /// The entity names a query for the entity keeps (nil: every row of the table).
    public var kinds: [String]?
    /// Entities stored in the table (one: object IDs need no entity test).
    public var entityNames: [String]

    public init(name: String, primaryKey: String, entityColumn: String, kinds: [String]?, entityNames: [String]) {
        self.name = name
        self.primaryKey = primaryKey
        self.entityColumn = entityColumn
        self.kinds = kinds
        self.entityNames = entityNames
    }
}

/// How a to-many relationship is stored.
public enum SQLToManyStorage: Sendable, Hashable {
    /// The destination rows hold the source's primary key in `column`.
    case destinationForeignKey(column: String)
    /// A join table: `sourceColumn` holds the source's key, `destinationColumn` the destination's.
    case joinTable(table: String, sourceColumn: String, destinationColumn: String)
}
