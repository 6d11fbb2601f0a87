import Trellis

/// Writing a ``ChangeSet`` (write sessions only), in this order:
///
/// 1. Permanent keys for inserted objects with temporary IDs: a range after the table's
///    current `max("_pk")`, reserved before anything is written, so every reference
///    (to-one columns, join rows) can be written in the same pass.
/// 2. Deletions: `DELETE FROM "T" WHERE "_pk" = ?` (the object's own join rows cascade,
///    to-one columns pointing at it are set to NULL by the foreign keys), then one
///    `DELETE … WHERE "destination" IN (SELECT value FROM json_each(?))` per join table
///    that may link to the deleted objects.
/// 3. Inserts: one reused `INSERT … ON CONFLICT(<identity>) DO UPDATE SET …` per object
///    (https://sqlite.org/lang_upsert.html). When the identity already exists (the caller
///    missed it), SQLite updates the stored object instead, which the unchanged
///    `sqlite3_last_insert_rowid` reveals; its key is then looked up and replaces the
///    reserved one everywhere. Placeholders use `DO NOTHING`: they never overwrite a
///    stored object. The links of new objects are written 64 rows per `INSERT … VALUES
///    (…), (…)` statement (half the cost of a statement per row, measured on 300,000 rows).
/// 4. Updates: `UPDATE "T" SET <changed columns only> WHERE "_pk" = ?1`, one cached
///    statement per set of changed columns; an object with no changed column is not
///    written at all. (An update names an existing object by its primary key, so an
///    upsert would only risk re-creating a half row for an object deleted meanwhile; a
///    missing object throws `.unknownObject` instead.)
/// 5. Join tables of changed to-many relationships: the object's rows are deleted and
///    the new destinations inserted (with their positions, for an ordered relationship).
///    A to-many stored by its inverse to-one is not written (the inverse carries it).
///
/// Foreign keys are `DEFERRABLE INITIALLY DEFERRED`, so objects may reference each other
/// in any order within the change set; violations surface at commit as `.constraintViolation`.
extension SQLiteSession {
    func apply(_ changes: ChangeSet) throws -> [ObjectID: ObjectID] {
        try checkValid()
        guard isWritable else {
            throw StoreError(.readOnly, message: "cannot apply changes in a read session")
        }
        if changes.isEmpty { return [:] }
        if !checkedBulkLoad, !changes.inserted.isEmpty {
            checkedBulkLoad = true
            try dropSecondaryIndexesOfEmptyTables()
        }
        var writer = ChangeWriter(session: self)
        try writer.reserveKeys(for: changes.inserted)
        try writer.delete(changes.deleted)
        if changes.updated.contains(where: { $0.entityName != nil }) { try writer.retype(changes.updated) }
        try writer.insert(changes.inserted)
        try writer.writeBufferedLinks()
        try writer.writeInverseSideLinks()
        try writer.update(changes.updated)
        try writer.repointConflicts()
        commitRecord.record(changes, mapping: writer.permanentIDs)
        return writer.permanentIDs
    }
}

/// Links of new objects waiting to be written to one join table, 64 rows per statement:
/// parameter values row after row, in ``JoinLayout/insertNew``'s columns.
final class LinkBuffer {
    let join: JoinLayout
    let connection: Connection
    /// The statement of ``ChangeWriter/linksPerStatement`` rows.
    let full: Statement
    let perRow: Int
    var values: [Int64] = []

    init(join: JoinLayout, connection: Connection, full: Statement) {
        self.join = join
        self.connection = connection
        self.full = full
        perRow = join.hasPositions ? 3 : 2
        values.reserveCapacity(ChangeWriter.linksPerStatement * perRow)
    }

    var isFull: Bool { values.count >= ChangeWriter.linksPerStatement * perRow }

    /// One `INSERT INTO "J"(…) VALUES (?, ?), (?, ?), …` of the buffered rows; the buffer is emptied.
    func write() throws(StoreError) {
        if values.isEmpty { return }
        let statement = isFull ? full : try connection.cachedStatement(join.insertNew(rows: values.count / perRow))
        for (i, value) in values.enumerated() { statement.bind(value, at: Int32(i + 1)) }
        values.removeAll(keepingCapacity: true)
        try statement.run()
    }
}

/// The state of one `apply`: reserved keys, the temporary → permanent map, statements.
struct ChangeWriter {
    let session: SQLiteSession
    var connection: Connection { session.connection }
    var layout: StoreLayout { session.layout }
    /// Temporary ID → permanent ID of every inserted object that had a temporary ID.
    var permanentIDs: [ObjectID: ObjectID] = [:]
    /// Inserted objects that came with a permanent ID (a hand-built change set): like those
    /// with temporary IDs, their links to other new objects are written by the owning side.
    private var insertedWithPermanentIDs: Set<ObjectID> = []
    /// Reserved key → key the upsert returned, when an insert hit an existing identity.
    private var conflicts: [(table: TableLayout, reserved: Int64, actual: Int64)] = []
    private var statements: [ObjectIdentifier: Statement] = [:]
    private var updateStatements: [UpdateKey: Statement] = [:]
    private var textStatements: [String: Statement] = [:]
    /// Links of new objects not written yet, per join table.
    private var bufferedLinks: [String: LinkBuffer] = [:]
    /// Links from the inverse side of a many-to-many between two new objects, written once
    /// the owning sides' are (``writeInverseSideLinks()``).
    private var inverseSideLinks: [(join: JoinLayout, object: Int64, destination: ObjectID)] = []
    /// The entities met so far (a change set has few): comparing short names beats hashing them.
    private var entityCache: [(name: String, layout: EntityLayout)] = []
    /// The buffer used last (consecutive objects fill the same table's).
    private var lastLinkBuffer: LinkBuffer?
    /// Rows per multi-row insert of links (192 parameters at most, below every SQLite's limit of 999).
    static let linksPerStatement = 64

    init(session: SQLiteSession) {
        self.session = session
    }

    // MARK: - Steps

    mutating func reserveKeys(for inserted: [ObjectSnapshot]) throws(StoreError) {
        var nextKey: [ObjectIdentifier: Int64] = [:]
        permanentIDs.reserveCapacity(inserted.count)
        for snapshot in inserted where !snapshot.id.isTemporary { insertedWithPermanentIDs.insert(snapshot.id) }
        for snapshot in inserted where snapshot.id.isTemporary {
            let table = try entity(snapshot.id.entityName).table
            var next: Int64
            if let known = nextKey[ObjectIdentifier(table)] {
                next = known
            } else {
                next = (try connection.cachedStatement(table.maxKeySQL).runReturningInt64() ?? 0) + 1
                // Keys given as permanent in this change set must not be handed out again.
                for other in inserted where !other.id.isTemporary && other.id.primaryKey >= next {
                    if (try? layout.entity(other.id.entityName).table) === table { next = other.id.primaryKey + 1 }
                }
            }
            guard permanentIDs[snapshot.id] == nil else {
                throw StoreError(.constraintViolation, message: "the temporary ID \(snapshot.id) is inserted twice")
            }
            permanentIDs[snapshot.id] = ObjectID(entityName: snapshot.id.entityName, primaryKey: next)
            nextKey[ObjectIdentifier(table)] = next + 1
        }
    }

    mutating func delete(_ ids: [ObjectID]) throws(StoreError) {
        guard !ids.isEmpty else { return }
        session.derivedLinks.removeAll()
        var deletedByTable: [ObjectIdentifier: (table: TableLayout, keys: [Int64])] = [:]
        for id in ids {
            let table = try entity(id.entityName).table
            let statement = try cached(table.deleteSQL, for: table)
            let key = try permanent(id).primaryKey
            statement.bind(key, at: 1)
            try statement.run()
            deletedByTable[ObjectIdentifier(table), default: (table, [])].keys.append(key)
        }
        // Links to the deleted objects ("destination" has no foreign key; "source" cascades).
        var cleaned: Set<String> = []
        for entity in layout.entities.values {
            for relationship in entity.relationships {
                guard case .joinTable(let join) = relationship, !join.isInverseSide,
                      let deleted = deletedByTable[ObjectIdentifier(join.destination)],
                      cleaned.insert(join.table).inserted else { continue }
                let statement = try connection.cachedStatement(join.deleteDestinations)
                try statement.bind("[" + deleted.keys.map(String.init).joined(separator: ",") + "]", at: 1)
                try statement.run()
            }
        }
    }

    /// Inserts the objects, each after the new objects its to-ones point at (``InsertOrder``).
    mutating func insert(_ inserted: [ObjectSnapshot]) throws(StoreError) {
        var entities: [EntityLayout] = []
        entities.reserveCapacity(inserted.count)
        for snapshot in inserted {
            let entity = try self.entity(snapshot.id.entityName)
            guard snapshot.attributes.count == entity.attributeColumns.count,
                  snapshot.relationships.count == entity.relationships.count else {
                throw shapeError(snapshot.id, entity)
            }
            entities.append(entity)
        }
        let order = InsertOrder(inserted, toOnes: entities.map(\.toOneIndexes))
        var keys: [Int64] = order.deferred.isEmpty ? [] : Array(repeating: 0, count: inserted.count)
        if let positions = order.order {
            for position in positions {
                let key = try insert(inserted[position], entities[position], position, order)
                if !keys.isEmpty { keys[position] = key }
            }
        } else {
            for position in inserted.indices {
                let key = try insert(inserted[position], entities[position], position, order)
                if !keys.isEmpty { keys[position] = key }
            }
        }
        // The to-ones that closed a cycle of new objects, now that every row exists.
        for (position, slot) in order.deferred {
            let snapshot = inserted[position]
            guard keys[position] != 0, let destination = snapshot.relationships[slot].first,
                  case .foreignKey(let column, _) = entities[position].relationships[slot] else { continue }
            let statement = try cachedByText(entities[position].updateSQL(columns: [column]))
            statement.bind(keys[position], at: 1)
            statement.bind(try permanent(destination).primaryKey, at: 2)
            try statement.run()
        }
    }

    /// Inserts one object; returns the key of its row (the stored object's, when its
    /// identity was stored already), or 0 for a placeholder that left a stored object as it was.
    private mutating func insert(_ snapshot: ObjectSnapshot, _ entity: EntityLayout, _ position: Int,
                                 _ order: InsertOrder) throws(StoreError) -> Int64 {
        let id = try permanent(snapshot.id)
        let statement = snapshot.isPlaceholder
            ? try cachedByText(entity.insertPlaceholderSQL)
            : try cached(entity.insertSQL, for: entity)
        statement.bind(id.primaryKey, at: 1)
        try statement.bind(entity.entity.name, at: 2)
        statement.bind(snapshot.isPlaceholder ? 1 as Int64 : 0, at: 3)
        var parameter: Int32 = 4
        for (index, value) in snapshot.attributes.enumerated() {
            do {
                try statement.bind(value, at: parameter)
            } catch {
                throw attributeFailure(error, entity, index)
            }
            parameter += 1
        }
        for slot in entity.toOneIndexes {
            if let destination = snapshot.relationships[slot].first, !order.defers(position, slot) {
                statement.bind(try permanent(destination).primaryKey, at: parameter)
            } else {
                statement.bindNull(parameter)
            }
            parameter += 1
        }
        connection.clearLastInsertRowID()  // keys are > 0: a row inserted now shows its own
        try statement.run()
        var key = id.primaryKey
        if entity.conflictLookupSQL != nil, connection.lastInsertRowID != key {
            // The identity was already stored: that object was updated (or, for a
            // placeholder, kept); point everything at it.
            key = try storedKey(conflictingWith: snapshot, entity: entity)
            conflicts.append((entity.table, id.primaryKey, key))
            session.derivedLinks.removeAll()
            if snapshot.id.isTemporary { permanentIDs[snapshot.id] = ObjectID(entityName: id.entityName, primaryKey: key) }
        }
        if !session.derivedLinks.isEmpty, key == id.primaryKey {
            // Keep cached inverse to-manys (e.g. a publisher's characters) in step.
            for (n, slot) in entity.toOneIndexes.enumerated() {
                guard let destination = snapshot.relationships[slot].first else { continue }
                let destinationKey = try permanent(destination).primaryKey
                session.derivedLinks[entity.toOneLinksKeys[n]]?[destinationKey]?.insertSorted(id)
            }
        }
        for (slot, relationship) in entity.relationships.enumerated() {
            guard case .joinTable(let join) = relationship else { continue }
            let destinations = snapshot.relationships[slot]
            if key != id.primaryKey, !snapshot.isPlaceholder {
                try replaceJoinRows(join, object: key, destinations: destinations)
            } else if !destinations.isEmpty {
                // A link between two objects this change set inserts is written from the
                // owning side, and from the inverse side once the owning sides' are written,
                // unless there already (an import leaves a side it does not read empty).
                try insertJoinRows(join, object: key, destinations: destinations, isNew: true,
                                   objectID: ObjectID(entityName: id.entityName, primaryKey: key))
            }
        }
        return key != id.primaryKey && snapshot.isPlaceholder ? 0 : key
    }

    mutating func update(_ updated: [ObjectChange]) throws(StoreError) {
        var columns: [String] = []
        for change in updated {
            let entity = try self.entity(change.entityName ?? change.id.entityName)
            let id = try permanent(change.id)
            // Changed columns, in a stable order: placeholder flag, attributes, to-ones.
            var slots: [Int] = []
            columns.removeAll(keepingCapacity: true)
            if change.isPlaceholder != nil {
                slots.append(-1)
                columns.append("_placeholder")
            }
            for attribute in change.attributes {
                guard attribute.index >= 0, attribute.index < entity.attributeColumns.count else { throw shapeError(change.id, entity) }
                slots.append(attribute.index)
                columns.append(entity.attributeColumns[attribute.index])
            }
            for relationship in change.relationships {
                guard relationship.index >= 0, relationship.index < entity.relationships.count else { throw shapeError(change.id, entity) }
                if case .foreignKey(let column, _) = entity.relationships[relationship.index] {
                    slots.append(entity.attributeColumns.count + relationship.index)
                    columns.append(column)
                    if !session.derivedLinks.isEmpty { session.derivedLinks["inverse \(entity.table.name) \(column)"] = nil }
                }
            }
            if !slots.isEmpty {
                let key = UpdateKey(entity: ObjectIdentifier(entity), slots: slots)
                let statement: Statement
                if let known = updateStatements[key] {
                    statement = known
                    statement.reset()
                } else {
                    statement = try connection.cachedStatement(entity.updateSQL(columns: columns))
                    updateStatements[key] = statement
                }
                statement.bind(id.primaryKey, at: 1)
                var parameter: Int32 = 2
                if let flag = change.isPlaceholder {
                    statement.bind(flag ? 1 as Int64 : 0, at: parameter)
                    parameter += 1
                }
                for attribute in change.attributes {
                    do {
                        try statement.bind(attribute.value, at: parameter)
                    } catch {
                        throw attributeFailure(error, entity, attribute.index)
                    }
                    parameter += 1
                }
                for relationship in change.relationships {
                    guard case .foreignKey = entity.relationships[relationship.index] else { continue }
                    if let destination = relationship.destinations.first {
                        statement.bind(try permanent(destination).primaryKey, at: parameter)
                    } else {
                        statement.bindNull(parameter)
                    }
                    parameter += 1
                }
                try statement.run()
                if connection.changes == 0 {
                    throw StoreError(.unknownObject, message: "cannot update \(id): no such object in the store")
                }
                for relationship in change.relationships {
                    guard let sql = entity.orderRowsCleanupSQL[relationship.index] else { continue }
                    try removeStaleOrderRows(sql, object: id.primaryKey, destination: relationship.destinations.first)
                }
            }
            for relationship in change.relationships {
                guard case .joinTable(let join) = entity.relationships[relationship.index] else { continue }
                try replaceJoinRows(join, object: id.primaryKey, destinations: relationship.destinations)
            }
        }
    }

    /// After upsert conflicts: references written with a reserved key now use the stored object's key.
    mutating func repointConflicts() throws(StoreError) {
        guard !conflicts.isEmpty else { return }
        for conflict in conflicts {
            for entity in layout.entities.values {
                for relationship in entity.relationships {
                    switch relationship {
                    case .foreignKey(let column, let destination) where destination === conflict.table:
                        let statement = try connection.cachedStatement(
                            "UPDATE \(entity.table.quotedName) SET \(SQL.identifier(column)) = ?1 WHERE \(SQL.identifier(column)) = ?2")
                        statement.bind(conflict.actual, at: 1)
                        statement.bind(conflict.reserved, at: 2)
                        try statement.run()
                    case .joinTable(let join):
                        for column in ["source", "destination"] where join.referencedTable(column) === conflict.table {
                            // Links already present for the stored object win; the rest move over.
                            let c = SQL.identifier(column), t = SQL.identifier(join.table)
                            let move = try connection.cachedStatement("UPDATE OR IGNORE \(t) SET \(c) = ?1 WHERE \(c) = ?2")
                            move.bind(conflict.actual, at: 1)
                            move.bind(conflict.reserved, at: 2)
                            try move.run()
                            let drop = try connection.cachedStatement("DELETE FROM \(t) WHERE \(c) = ?1")
                            drop.bind(conflict.reserved, at: 1)
                            try drop.run()
                        }
                    default:
                        continue
                    }
                }
            }
        }
    }

    // MARK: - Join rows

    /// After `object`'s to-one changed to `destination`: its rows in the inverse ordered
    /// to-many's order table, except the new destination's, are deleted (else an object
    /// moving back would find its old position instead of coming last).
    private mutating func removeStaleOrderRows(_ sql: String, object: Int64, destination: ObjectID?) throws(StoreError) {
        let statement = try cachedByText(sql)
        statement.bind(object, at: 1)
        if let destination {
            statement.bind(try permanent(destination).primaryKey, at: 2)
        } else {
            statement.bindNull(2)
        }
        try statement.run()
    }

    /// Replaces the links of `object` on this side of the join table.
    private mutating func replaceJoinRows(_ join: JoinLayout, object: Int64, destinations: [ObjectID]) throws(StoreError) {
        try writeBufferedLinks(of: join.table)
        if join.isShared { session.derivedLinks[join.inverseLinksKey] = nil }
        let delete = try cachedByText(join.deleteThisSide)
        delete.bind(object, at: 1)
        try delete.run()
        if !destinations.isEmpty {
            try insertJoinRows(join, object: object, destinations: destinations, isNew: false, objectID: nil)
        }
    }

    /// Inserts the links `object → destinations` (a destination listed twice is linked once,
    /// at its first position).
    /// For a new object (`isNew`), the owning side cannot meet an existing link (plain
    /// INSERT), and the inverse side leaves the links to destinations the change set inserts
    /// (new objects, whether their IDs are temporary or permanent) for
    /// ``writeInverseSideLinks()``. `objectID`, when given, is added to the cached inverse
    /// lists of the destinations.
    private mutating func insertJoinRows(_ join: JoinLayout, object: Int64, destinations: [ObjectID],
                                         isNew: Bool, objectID: ObjectID?) throws(StoreError) {
        let buffer = isNew && !join.isInverseSide ? try linkBuffer(join) : nil
        let statement = buffer == nil ? try cachedByText(join.insert) : nil
        if buffer == nil { try writeBufferedLinks(of: join.table) }
        let skipNew = isNew && join.isInverseSide
        let bindsPosition = join.isOrdered
        let cacheKey = join.isShared && !join.isInverseSide && !session.derivedLinks.isEmpty ? join.inverseLinksKey : nil
        var seen: Set<Int64> = []
        for (position, destination) in destinations.enumerated() {
            if skipNew, destination.isTemporary || insertedWithPermanentIDs.contains(destination) {
                inverseSideLinks.append((join, object, destination))
                continue
            }
            let key = try permanent(destination).primaryKey
            if position > 0 {
                if destinations.count <= 16 {
                    if destinations[..<position].contains(destination) { continue }
                } else if !seen.insert(key).inserted {
                    continue
                }
            } else if destinations.count > 16 {
                seen.insert(key)
            }
            if let buffer {
                buffer.values.append(object)
                buffer.values.append(key)
                if join.hasPositions { buffer.values.append(Int64(position)) }
                if buffer.isFull { try buffer.write() }
            } else if let statement {
                statement.bind(object, at: 1)
                statement.bind(key, at: 2)
                if bindsPosition { statement.bind(Int64(position), at: 3) }
                try statement.run()
            }
            if let cacheKey, let objectID { session.derivedLinks[cacheKey]?[key]?.insertSorted(objectID) }
        }
    }

    /// The layout of the entity named `name` (``StoreLayout/entity(_:)``, cached).
    private mutating func entity(_ name: String) throws(StoreError) -> EntityLayout {
        for cached in entityCache where cached.name == name { return cached.layout }
        let found = try layout.entity(name)
        if entityCache.count < 16 { entityCache.append((name, found)) }
        return found
    }

    /// The buffer of `join`'s table, made on first use.
    private mutating func linkBuffer(_ join: JoinLayout) throws(StoreError) -> LinkBuffer {
        if let last = lastLinkBuffer, last.join === join { return last }
        if let buffer = bufferedLinks[join.table] {
            lastLinkBuffer = buffer
            return buffer
        }
        let buffer = LinkBuffer(join: join, connection: connection,
                                full: try connection.cachedStatement(join.insertNew(rows: ChangeWriter.linksPerStatement)))
        bufferedLinks[join.table] = buffer
        lastLinkBuffer = buffer
        return buffer
    }

    /// Writes the buffered links of `table` (every table when nil): before any other statement
    /// on a join table, and once all inserts are done.
    /// Writes the links between new objects that only the inverse side of their many-to-many
    /// holds (the owning side's new object left them out: an import does not keep a side no
    /// mapping reads), after the owning sides' links: `ON CONFLICT DO NOTHING` keeps a link
    /// both sides hold once, at the owning side's position; one only this side holds is
    /// appended to the owner's order.
    mutating func writeInverseSideLinks() throws(StoreError) {
        for (join, object, destination) in inverseSideLinks {
            let statement = try cachedByText(join.insert)
            let owner = try permanent(destination)
            statement.bind(object, at: 1)
            statement.bind(owner.primaryKey, at: 2)
            try statement.run()
        }
        inverseSideLinks.removeAll()
    }

    mutating func writeBufferedLinks(of table: String? = nil) throws(StoreError) {
        if bufferedLinks.isEmpty { return }
        if let table {
            try bufferedLinks[table]?.write()
        } else {
            for buffer in bufferedLinks.values { try buffer.write() }
        }
    }

    /// The key of the stored object whose identity an insert of `snapshot` ran into.
    /// - Throws: `.constraintViolation` when that object is of another entity (a Dog holding
    ///   the identity a new Cat has, declared on Animal): it was left as it was, and an
    ///   object cannot change its entity.
    private mutating func storedKey(conflictingWith snapshot: ObjectSnapshot, entity: EntityLayout) throws(StoreError) -> Int64 {
        guard let sql = entity.conflictLookupSQL else { return 0 }
        let statement = try cachedByText(sql)
        defer { statement.reset() }
        for (i, index) in entity.conflictAttributeIndexes.enumerated() {
            try statement.bind(snapshot.attributes[index], at: Int32(i + 1))
        }
        guard try statement.step() else {
            throw StoreError(.constraintViolation, message: "inserting \(snapshot.id) into \(entity.entity.name) conflicted "
                             + "with a stored object that cannot be found")
        }
        let key = statement.int64(0)
        let storedEntity = layout.canonicalName(statement.string(1))
        guard storedEntity == entity.entity.name else {
            let identity = entity.conflictAttributeIndexes.map { snapshot.attributes[$0]?.description ?? "null" }.joined(separator: ", ")
            throw StoreError(.constraintViolation,
                             message: "cannot insert \(entity.entity.name) (\(identity)): the store holds \(storedEntity)/\(key) with the same "
                                 + "identity, and an object cannot change its entity")
        }
        return key
    }

    // MARK: - Helpers

    /// The permanent form of `id`.
    /// - Throws: `.unknownObject` for a temporary ID that no inserted object has.
    @inline(__always)
    private func permanent(_ id: ObjectID) throws(StoreError) -> ObjectID {
        guard id.isTemporary else { return id }
        guard let permanent = permanentIDs[id] else {
            throw StoreError(.unknownObject, message: "the temporary ID \(id) is not inserted by the change set")
        }
        return permanent
    }

    /// The cached statement for `sql`, looked up by the identity of the object that owns the SQL.
    private mutating func cached(_ sql: String, for owner: AnyObject) throws(StoreError) -> Statement {
        let key = ObjectIdentifier(owner)
        if let statement = statements[key] { return statement }
        let statement = try connection.cachedStatement(sql)
        statements[key] = statement
        return statement
    }

    /// The cached statement for `sql`, for SQL shared by several owners (join tables, placeholders).
    private mutating func cachedByText(_ sql: String) throws(StoreError) -> Statement {
        if let statement = textStatements[sql] { return statement }
        let statement = try connection.cachedStatement(sql)
        textStatements[sql] = statement
        return statement
    }

    /// `error` (from binding the value of `entity`'s attribute at `index`) naming the
    /// entity and attribute: `entity Note, attribute body: a text value of … bytes is larger …`.
    private func attributeFailure(_ error: StoreError, _ entity: EntityLayout, _ index: Int) -> StoreError {
        let name = index < entity.entity.attributes.count ? entity.entity.attributes[index].name : "#\(index)"
        return StoreError(error.code, message: "entity \(entity.entity.name), attribute \(name): \(error.message)", details: error.details)
    }

    private func shapeError(_ id: ObjectID, _ entity: EntityLayout) -> StoreError {
        StoreError(.unknownObject, message: "the change for \(id) does not match entity \(entity.entity.name)'s "
                   + "\(entity.attributeColumns.count) attributes and \(entity.relationships.count) relationships")
    }
}

extension Array where Element == ObjectID {
    /// Inserts `id` keeping the array sorted (``ObjectID`` order); nothing if present.
    /// O(1) for an ID after the last one (new keys are the largest), O(n) otherwise.
    mutating func insertSorted(_ id: ObjectID) {
        if let last, last < id {
            append(id)
            return
        }
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < id { low = mid + 1 } else { high = mid }
        }
        if low < count, self[low] == id { return }
        insert(id, at: low)
    }
}

/// An UPDATE statement's identity: the entity and its changed slots (-1 = placeholder flag,
/// attribute positions, then attribute count + to-one positions).
struct UpdateKey: Hashable {
    var entity: ObjectIdentifier
    var slots: [Int]
}
