import Trellis

/// The state of one `apply`: reserved keys, the temporary → permanent map, statements.
struct ChangeWriter {
    let session: SQLiteSession
    var connection: Connection { session.connection }
    var layout: StoreLayout { session.layout }
    /// Temporary ID → permanent ID of every inserted object that had a temporary ID.
    var permanentIDs: [ObjectID: ObjectID] = [:]
    /// Inserted objects that came with a permanent ID (a hand-built change set): like those
    /// with temporary IDs, their links to other new objects are written by the owning side.
    var insertedWithPermanentIDs: Set<ObjectID> = []
    /// Reserved key → key the upsert returned, when an insert hit an existing identity.
    var conflicts: [(table: TableLayout, reserved: Int64, actual: Int64)] = []
    private var statements: [ObjectIdentifier: Statement] = [:]
    var updateStatements: [UpdateKey: Statement] = [:]
    private var textStatements: [String: Statement] = [:]
    /// Links of new objects not written yet, per join table.
    var bufferedLinks: [String: LinkBuffer] = [:]
    /// Links from the inverse side of a many-to-many between two new objects, written once
    /// the owning sides' are (``writeInverseSideLinks()``).
    var inverseSideLinks: [(join: JoinLayout, object: Int64, destination: ObjectID)] = []
    /// The entities met so far (a change set has few): comparing short names beats hashing them.
    private var entityCache: [(name: String, layout: EntityLayout)] = []
    /// The buffer used last (consecutive objects fill the same table's).
    private var lastLinkBuffer: LinkBuffer?
    /// Rows per multi-row insert of links (192 parameters at most, below every SQLite's limit of 999).
    static let linksPerStatement = 64

    init(session: SQLiteSession) {
        self.session = session
    }

    // MARK: - Helpers

    /// The layout of the entity named `name` (``StoreLayout/entity(_:)``, cached).
    mutating func entity(_ name: String) throws(StoreError) -> EntityLayout {
        for cached in entityCache where cached.name == name { return cached.layout }
        let found = try layout.entity(name)
        if entityCache.count < 16 { entityCache.append((name, found)) }
        return found
    }

    /// The buffer of `join`'s table, made on first use.
    mutating func linkBuffer(_ join: JoinLayout) throws(StoreError) -> LinkBuffer {
        if let last = lastLinkBuffer, last.join === join { return last }
        if let buffer = bufferedLinks[join.table] {
            lastLinkBuffer = buffer
            return buffer
        }
        let buffer = LinkBuffer(
            join: join, connection: connection,
            full: try connection.cachedStatement(join.insertNew(rows: ChangeWriter.linksPerStatement)))
        bufferedLinks[join.table] = buffer
        lastLinkBuffer = buffer
        return buffer
    }

    /// The permanent form of `id`.
    /// - Throws: `.unknownObject` for a temporary ID that no inserted object has.
    @inline(__always)
    func permanent(_ id: ObjectID) throws(StoreError) -> ObjectID {
        guard id.isTemporary else { return id }
        guard let permanent = permanentIDs[id] else {
            throw StoreError(.unknownObject, message: "the temporary ID \(id) is not inserted by the change set")
        }
        return permanent
    }

    /// The cached statement for `sql`, looked up by the identity of the object that owns the SQL.
    mutating func cached(_ sql: String, for owner: AnyObject) throws(StoreError) -> Statement {
        let key = ObjectIdentifier(owner)
        if let statement = statements[key] { return statement }
        let statement = try connection.cachedStatement(sql)
        statements[key] = statement
        return statement
    }

    /// The cached statement for `sql`, for SQL shared by several owners (join tables, placeholders).
    mutating func cachedByText(_ sql: String) throws(StoreError) -> Statement {
        if let statement = textStatements[sql] { return statement }
        let statement = try connection.cachedStatement(sql)
        textStatements[sql] = statement
        return statement
    }

    /// `error` (from binding the value of `entity`'s attribute at `index`) naming the
    /// entity and attribute: `entity Note, attribute body: a text value of … bytes is larger …`.
    func attributeFailure(_ error: StoreError, _ entity: EntityLayout, _ index: Int) -> StoreError {
        let name = index < entity.entity.attributes.count ? entity.entity.attributes[index].name : "#\(index)"
        return error.withMessage("entity \(entity.entity.name), attribute \(name): \(error.message)")
    }

    func shapeError(_ id: ObjectID, _ entity: EntityLayout) -> StoreError {
        StoreError(
            .unknownObject,
            message: "the change for \(id) does not match entity \(entity.entity.name)'s "
                + "\(entity.attributeColumns.count) attributes and \(entity.relationships.count) relationships")
    }
}

/// An UPDATE statement's identity: the entity and its changed slots (-1 = placeholder flag,
/// attribute positions, then attribute count + to-one positions).
struct UpdateKey: Hashable {
    var entity: ObjectIdentifier
    var slots: [Int]
}
