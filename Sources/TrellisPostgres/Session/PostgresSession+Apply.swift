import Trellis

/// Writing a ``ChangeSet`` set-based, in four round trips at most (each a pipeline):
///
/// 1. Keys and deletions: `SELECT nextval(…) FROM generate_series(1, $1)` per table with new
///    objects (keys reserved before anything is written, so references between new objects
///    are written in one pass), then `DELETE … WHERE "_pk" = ANY($1)` per table and the join
///    rows of and to deleted objects (join tables have no foreign keys).
/// 2. Inserts: per entity, one `INSERT … SELECT … FROM unnest($1::bigint[], …) ON CONFLICT
///    (<identity>) DO UPDATE SET <every other column> = excluded.… WHERE ROW(…) IS DISTINCT
///    FROM ROW(excluded.…) RETURNING "_pk"`, rows de-duplicated and sorted by identity (two
///    writers lock rows in the same order); placeholders `DO NOTHING`. A row whose reserved key
///    does not come back ran into a stored identity (a concurrent writer inserted it, or the
///    caller missed it).
/// 3. Only then: the stored keys of those rows, by identity (`unnest … WITH ORDINALITY`), and
///    references re-pointed to them.
/// 4. The rest: links of new objects (`INSERT INTO "J" … SELECT * FROM unnest(…)`), updates
///    (`UPDATE … SET <changed columns> FROM unnest(…) WHERE t."_pk" = v.k`, one statement per
///    set of changed columns, sorted by key), pruned order rows, replaced join rows.
///
/// Foreign keys are deferred, so the order of rows within the change set does not matter;
/// violations surface at commit as `.constraintViolation`.
extension PostgresSession {
    func apply(_ changes: ChangeSet) throws -> [ObjectID: ObjectID] {
        try checkValid()
        guard isWritable else { throw StoreError(.readOnly, message: "cannot apply changes in a read session") }
        if changes.isEmpty { return [:] }
        var changes = changes
        var writer = PostgresChangeWriter(session: self)
        do {
            if origin == .sync { changes = try PullGuard(model: model, rules: pushRules).filter(changes, in: self).0 }
            var prior: [ObjectID: ObjectSnapshot] = [:]
            if origin == .local {
                for snapshot in try fetch(ids: OutboxRecorder.priorIDs(of: changes)) { prior[snapshot.id] = snapshot }
            }
            try writer.write(changes)
            if origin == .local {
                try OutboxRecorder(model: model, rules: pushRules).record(changes, mapping: writer.permanentIDs, prior: prior, in: self)
            }
        } catch {
            // The transaction must not commit half a change set, even if the caller goes on.
            failure = error
            throw error
        }
        commitRecord.record(changes, mapping: writer.permanentIDs)
        return writer.permanentIDs
    }
}

/// The state of one `apply`.
struct PostgresChangeWriter {
    let session: PostgresSession
    var connection: PostgresConnection { session.connection }
    var layout: PostgresLayout { session.layout }
    /// Temporary ID → permanent ID of every inserted object that had a temporary one.
    var permanentIDs: [ObjectID: ObjectID] = [:]
    /// Inserted objects that came with a permanent ID.
    private var insertedWithPermanentIDs: Set<ObjectID> = []
    /// Per table: reserved (or given) key → key of the stored object the insert ran into.
    private var moved: [ObjectIdentifier: [Int64: Int64]] = [:]
    /// Inserted objects whose row was not written (their identity was stored already).
    private var conflicted: Set<ObjectID> = []
    /// Whether placeholders were retyped (``permanentIDs`` then maps their old IDs too).
    private var retyped = false
    /// The updates of the last pipeline: (query position, entity, keys), checked for missing objects.
    var updateChecks: [(index: Int, entity: PostgresEntityLayout, keys: [Int64])] = []

    init(session: PostgresSession) {
        self.session = session
    }

    mutating func write(_ changes: ChangeSet) throws(StoreError) {
        // Placeholders completed as a sub-entity first: inserts and updates name their new IDs.
        if changes.updated.contains(where: { $0.entityName != nil }) { try retype(changes.updated) }
        let inserted = try checkShapes(changes.inserted)
        var queries: [PostgresConnection.Query] = []
        let reservations = try reserveKeys(for: inserted, into: &queries)
        try deletions(changes.deleted, into: &queries)
        let results = try connection.pipeline(queries)
        for (n, reservation) in reservations.enumerated() {
            let result = results[n]
            for (i, id) in reservation.ids.enumerated() where i < result.rowCount {
                permanentIDs[id] = ObjectID(entityName: id.entityName, primaryKey: result.int64(i, 0))
            }
        }
        try insertRows(inserted)
        var rest: [PostgresConnection.Query] = []
        try repointReferences(into: &rest)
        try insertLinks(inserted, into: &rest)
        try updates(changes.updated, into: &rest)
        let written = try connection.pipeline(rest)
        for check in updateChecks where written[check.index].changedRows < check.keys.count {
            try reportMissing(check.entity, check.keys)
        }
    }

    /// Throws `.unknownObject` for the first of `keys` that has no row (an update of an
    /// object deleted meanwhile).
    private func reportMissing(_ entity: PostgresEntityLayout, _ keys: [Int64]) throws(StoreError) {
        var parameters = PostgresParameters()
        parameters.append(PostgresChangeWriter.keyArray(keys))
        let result = try connection.run(
            "SELECT t.\"_pk\" FROM \(entity.table.qualifiedName) AS t WHERE t.\"_pk\" = ANY($1::bigint[])",
            parameters)
        let present = Set((0..<result.rowCount).map { result.int64($0, 0) })
        let missing = keys.first { !present.contains($0) } ?? keys[0]
        throw StoreError(.unknownObject, message: "cannot update \(entity.entity.name)/\(missing): no such object in the store")
    }

    // MARK: - Keys

    private mutating func checkShapes(_ inserted: [ObjectSnapshot]) throws(StoreError) -> [(ObjectSnapshot, PostgresEntityLayout)] {
        var result: [(ObjectSnapshot, PostgresEntityLayout)] = []
        result.reserveCapacity(inserted.count)
        var seen: Set<ObjectID> = []
        for snapshot in inserted {
            let entity = try layout.entity(snapshot.id.entityName)
            guard !entity.entity.isAbstract || snapshot.isPlaceholder else {
                throw StoreError(.constraintViolation, message: "cannot insert \(snapshot.id): \(entity.entity.name) is abstract")
            }
            guard snapshot.attributes.count == entity.attributeColumns.count,
                snapshot.relationships.count == entity.relationships.count
            else { throw shapeError(snapshot.id, entity) }
            guard seen.insert(snapshot.id).inserted else {
                throw StoreError(.constraintViolation, message: "the ID \(snapshot.id) is inserted twice")
            }
            if !snapshot.id.isTemporary { insertedWithPermanentIDs.insert(snapshot.id) }
            result.append((snapshot, entity))
        }
        return result
    }

    /// One `nextval` query per table with new objects (after moving the sequence past keys
    /// the change set gives as permanent).
    private func reserveKeys(
        for inserted: [(ObjectSnapshot, PostgresEntityLayout)],
        into queries: inout [PostgresConnection.Query]
    ) throws(StoreError) -> [(table: PostgresTableLayout, ids: [ObjectID])] {
        var byTable: [ObjectIdentifier: (table: PostgresTableLayout, ids: [ObjectID], maxGiven: Int64)] = [:]
        var order: [ObjectIdentifier] = []
        for (snapshot, entity) in inserted {
            let key = ObjectIdentifier(entity.table)
            if byTable[key] == nil {
                byTable[key] = (entity.table, [], 0)
                order.append(key)
            }
            if snapshot.id.isTemporary {
                byTable[key]?.ids.append(snapshot.id)
            } else {
                let given = byTable[key]?.maxGiven ?? 0
                byTable[key]?.maxGiven = max(given, snapshot.id.primaryKey)
            }
        }
        var setvals: [PostgresConnection.Query] = []
        var reservations: [(table: PostgresTableLayout, ids: [ObjectID])] = []
        for key in order {
            guard let entry = byTable[key] else { continue }
            let sequence = SQLText.literal(entry.table.qualifiedSequence)
            if entry.maxGiven > 0 {
                var parameters = PostgresParameters()
                parameters.append(entry.maxGiven)
                setvals.append(
                    .init(
                        sql: "SELECT setval(\(sequence), $1) WHERE $1 > (SELECT last_value FROM \(entry.table.qualifiedSequence))",
                        parameters: parameters))
            }
            guard !entry.ids.isEmpty else { continue }
            var parameters = PostgresParameters()
            parameters.append(Int64(entry.ids.count))
            queries.append(.init(sql: "SELECT nextval(\(sequence)) FROM generate_series(1, $1)", parameters: parameters))
            reservations.append((entry.table, entry.ids))
        }
        if !setvals.isEmpty { _ = try connection.pipeline(setvals) }
        return reservations
    }

    /// The permanent form of `id` (after conflicts: the stored object's key).
    /// - Throws: `.unknownObject` for a temporary ID no inserted object has.
    @inline(__always)
    func permanent(_ id: ObjectID) throws(StoreError) -> ObjectID {
        guard id.isTemporary else { return retyped ? permanentIDs[id] ?? id : id }
        guard let permanent = permanentIDs[id] else {
            throw StoreError(.unknownObject, message: "the temporary ID \(id) is not inserted by the change set")
        }
        return permanent
    }

    /// Stored placeholders completed as a sub-entity (``ObjectChange/entityName``): the row
    /// keeps its table and key, so every reference to it still holds; its `"_entity"` changes
    /// (one `UPDATE … FROM unnest`), and ``permanentIDs`` maps the old ID to the new one.
    /// - Throws: `.unknownObject` for no such object; `.constraintViolation` for an object
    ///   that is not a placeholder, or an entity that is not a sub-entity of its own.
    private mutating func retype(_ updated: [ObjectChange]) throws(StoreError) {
        var byTable: [ObjectIdentifier: (table: PostgresTableLayout, rows: [(ObjectChange, PostgresEntityLayout, PostgresEntityLayout)])] = [:]
        for change in updated {
            guard let name = change.entityName else { continue }
            let old = try layout.entity(change.id.entityName)
            let new = try layout.entity(name)
            guard old.table === new.table, old !== new, old.kindNames.contains(new.entity.name) else {
                throw StoreError(
                    .constraintViolation,
                    message: "cannot make \(change.id) \(withIndefiniteArticle(name)): "
                        + "\(name) is not a sub-entity of \(old.entity.name)")
            }
            byTable[ObjectIdentifier(old.table), default: (old.table, [])].rows.append((change, old, new))
        }
        for (_, entry) in byTable.sorted(by: { $0.value.table.name < $1.value.table.name }) {
            var parameters = PostgresParameters()
            parameters.append(PostgresChangeWriter.keyArray(entry.rows.map(\.0.id.primaryKey)))
            let result = try connection.run(
                "SELECT t.\"_pk\", t.\"_entity\", t.\"_placeholder\" FROM \(entry.table.qualifiedName) AS t "
                    + "WHERE t.\"_pk\" = ANY($1::bigint[])", parameters)
            var stored: [Int64: (String, Bool)] = [:]
            for row in 0..<result.rowCount { stored[result.int64(row, 0)] = (result.string(row, 1), result.bool(row, 2)) }
            var keys = PostgresArray(of: PostgresType.int8)
            var names = PostgresArray(of: PostgresType.text)
            for (change, old, new) in entry.rows.sorted(by: { $0.0.id.primaryKey < $1.0.id.primaryKey }) {
                guard let (entity, isPlaceholder) = stored[change.id.primaryKey], layout.canonicalName(entity) == old.entity.name else {
                    throw StoreError(.unknownObject, message: "cannot make \(change.id) \(withIndefiniteArticle(new.entity.name)): no such object")
                }
                guard isPlaceholder else {
                    throw StoreError(
                        .constraintViolation,
                        message: "cannot make \(change.id) \(withIndefiniteArticle(new.entity.name)): "
                            + "only a placeholder becomes one of its entity's sub-entities")
                }
                keys.append(change.id.primaryKey)
                names.append(bytes: new.entity.name.utf8)
                permanentIDs[change.id] = ObjectID(entityName: new.entity.name, primaryKey: change.id.primaryKey)
            }
            var update = PostgresParameters()
            update.append(keys)
            update.append(names)
            try connection.run(
                "UPDATE \(entry.table.qualifiedName) AS t SET \"_entity\" = v.e FROM unnest($1::bigint[], $2::text[]) "
                    + "AS v(k, e) WHERE t.\"_pk\" = v.k", update)
        }
        retyped = true
    }

    // MARK: - Deletions

    private mutating func deletions(_ ids: [ObjectID], into queries: inout [PostgresConnection.Query]) throws(StoreError) {
        guard !ids.isEmpty else { return }
        var keysByTable: [ObjectIdentifier: (table: PostgresTableLayout, keys: [Int64])] = [:]
        var order: [ObjectIdentifier] = []
        for id in ids {
            let table = try layout.entity(id.entityName).table
            let key = ObjectIdentifier(table)
            if keysByTable[key] == nil {
                keysByTable[key] = (table, [])
                order.append(key)
            }
            keysByTable[key]?.keys.append(try permanent(id).primaryKey)
        }
        for key in order {
            guard let entry = keysByTable[key] else { continue }
            var parameters = PostgresParameters()
            parameters.append(PostgresChangeWriter.keyArray(entry.keys.sorted()))
            queries.append(.init(sql: "DELETE FROM \(entry.table.qualifiedName) WHERE \"_pk\" = ANY($1::bigint[])", parameters: parameters))
        }
        // The links of and to the deleted objects (join tables have no foreign keys).
        var cleaned: Set<String> = []
        for name in layout.entities.keys.sorted() {
            guard let entity = layout.entities[name] else { continue }
            for relationship in entity.relationships {
                guard case .joinTable(let join) = relationship, !join.isInverseSide else { continue }
                for (column, table) in [("source", join.ownTable), ("destination", join.destination)] {
                    guard let deleted = keysByTable[ObjectIdentifier(table)], cleaned.insert(join.table + " " + column).inserted else { continue }
                    var parameters = PostgresParameters()
                    parameters.append(PostgresChangeWriter.keyArray(deleted.keys.sorted()))
                    queries.append(
                        .init(
                            sql: "DELETE FROM \(join.qualifiedName) WHERE \"\(column)\" = ANY($1::bigint[])",
                            parameters: parameters))
                }
            }
        }
    }

    // MARK: - Inserts

    /// A batch of rows of one entity for one upsert statement.
    private struct InsertGroup {
        let entity: PostgresEntityLayout
        let isPlaceholder: Bool
        var rows: [(snapshot: ObjectSnapshot, key: Int64)] = []
    }

    private mutating func insertRows(_ inserted: [(ObjectSnapshot, PostgresEntityLayout)]) throws(StoreError) {
        guard !inserted.isEmpty else { return }
        // Group by entity and placeholder flag, in table order then model order.
        var groups: [String: InsertGroup] = [:]
        var order: [String] = []
        for (snapshot, entity) in inserted {
            let name = "\(snapshot.isPlaceholder ? "p" : "o") \(entity.entity.name)"
            if groups[name] == nil {
                groups[name] = InsertGroup(entity: entity, isPlaceholder: snapshot.isPlaceholder)
                order.append(name)
            }
            groups[name]?.rows.append((snapshot, try permanent(snapshot.id).primaryKey))
        }
        // Sorted by identity; a second row with an identity already in the statement goes to
        // the next round (ON CONFLICT cannot touch a row twice), where it updates the first.
        var statements: [InsertGroup] = []
        for name in order {
            guard var group = groups[name] else { continue }
            let identity = group.entity.conflictIndexes
            if !identity.isEmpty {
                group.rows.sort { PostgresChangeWriter.identityPrecedes($0.snapshot.attributes, $1.snapshot.attributes, identity) }
            } else {
                group.rows.sort { $0.key < $1.key }
            }
            var rounds: [InsertGroup] = []
            var previous: [AttributeValue?]?
            var round = 0
            for row in group.rows {
                let values = identity.map { row.snapshot.attributes[$0] }
                if !identity.isEmpty, let previous, previous == values, !values.contains(where: { $0 == nil }) {
                    round += 1
                } else {
                    round = 0
                }
                previous = values
                while rounds.count <= round { rounds.append(InsertGroup(entity: group.entity, isPlaceholder: group.isPlaceholder)) }
                rounds[round].rows.append(row)
            }
            statements += rounds
        }
        var queries: [PostgresConnection.Query] = []
        for statement in statements { queries.append(try upsert(statement)) }
        let results = try connection.pipeline(queries)
        var unresolved: [(InsertGroup, [Int])] = []
        for (n, statement) in statements.enumerated() where statement.entity.conflictTarget != nil {
            let result = results[n]
            var written = Set<Int64>(minimumCapacity: result.rowCount)
            for row in 0..<result.rowCount { written.insert(result.int64(row, 0)) }
            let missing = statement.rows.indices.filter { !written.contains(statement.rows[$0].key) }
            if !missing.isEmpty { unresolved.append((statement, missing)) }
        }
        if !unresolved.isEmpty { try resolveConflicts(unresolved) }
    }

    /// The upsert of `group` (``PostgresEntityLayout/upsertSQL``).
    private func upsert(_ group: InsertGroup) throws(StoreError) -> PostgresConnection.Query {
        let entity = group.entity
        var keys = PostgresArray(of: PostgresType.int8)
        keys.reserve(group.rows.count, bytesEach: 8)
        var attributes = entity.attributeTypes.map { PostgresArray(of: PostgresValues.elementType(for: $0).oid) }
        var toOnes = entity.toOneIndexes.map { _ in PostgresArray(of: PostgresType.int8) }
        for row in group.rows {
            keys.append(row.key)
            for (index, type) in entity.attributeTypes.enumerated() {
                do {
                    try PostgresValues.append(row.snapshot.attributes[index], as: type, to: &attributes[index])
                } catch {
                    throw attributeFailure(error, entity, index)
                }
            }
            for (n, slot) in entity.toOneIndexes.enumerated() {
                if let destination = row.snapshot.relationships[slot].first {
                    toOnes[n].append(try permanent(destination).primaryKey)
                } else {
                    toOnes[n].appendNull()
                }
            }
        }
        var parameters = PostgresParameters()
        parameters.append(keys)
        parameters.append(text: entity.entity.name)
        parameters.append(group.isPlaceholder)
        for array in attributes { parameters.append(array) }
        for array in toOnes { parameters.append(array) }
        return .init(sql: group.isPlaceholder ? entity.insertPlaceholderSQL : entity.upsertSQL, parameters: parameters)
    }

    /// Looks up the stored objects the rows at `positions` ran into, by identity, and points
    /// the inserted IDs at them.
    /// - Throws: `.constraintViolation` when that object is of another entity (a Dog holding
    ///   the identity a new Cat has): it was left as it was, and an object cannot change its entity.
    private mutating func resolveConflicts(_ unresolved: [(InsertGroup, [Int])]) throws(StoreError) {
        var queries: [PostgresConnection.Query] = []
        for (group, positions) in unresolved {
            let entity = group.entity
            var arrays = entity.conflictIndexes.map { PostgresArray(of: PostgresValues.elementType(for: entity.attributeTypes[$0]).oid) }
            for position in positions {
                for (n, index) in entity.conflictIndexes.enumerated() {
                    try PostgresValues.append(group.rows[position].snapshot.attributes[index], as: entity.attributeTypes[index], to: &arrays[n])
                }
            }
            var parameters = PostgresParameters()
            for array in arrays { parameters.append(array) }
            let names = entity.conflictIndexes.indices.map { "k\($0)" }
            let casts = entity.conflictIndexes.enumerated().map { "$\($0 + 1)\(PostgresValues.elementType(for: entity.attributeTypes[$1]).cast)" }
            var on = entity.conflictIndexes.enumerated().map { "t.\(SQLText.identifier(entity.attributeColumns[$1])) = v.\(names[$0])" }
            if let kinds = entity.conflictKinds {
                parameters.append(PostgresSession.textArray(kinds))
                on.append("t.\"_entity\" = ANY($\(parameters.count)::text[])")
            }
            queries.append(
                .init(
                    sql: "SELECT v.n, t.\"_pk\", t.\"_entity\" FROM unnest(\(casts.joined(separator: ", "))) "
                        + "WITH ORDINALITY AS v(\(names.joined(separator: ", ")), n) JOIN \(entity.table.qualifiedName) AS t ON "
                        + on.joined(separator: " AND "), parameters: parameters))
        }
        let results = try connection.pipeline(queries)
        for (n, (group, positions)) in unresolved.enumerated() {
            let result = results[n]
            let entity = group.entity
            var found: [Int: (Int64, String)] = [:]
            for row in 0..<result.rowCount { found[Int(result.int64(row, 0)) - 1] = (result.int64(row, 1), result.string(row, 2)) }
            for (i, position) in positions.enumerated() {
                let snapshot = group.rows[position].snapshot
                guard let (key, storedEntity) = found[i] else {
                    throw StoreError(
                        .constraintViolation,
                        message: "inserting \(snapshot.id) into \(entity.entity.name) conflicted "
                            + "with a stored object that cannot be found")
                }
                let stored = layout.canonicalName(storedEntity)
                guard stored == entity.entity.name else {
                    let identity = entity.conflictIndexes.map { snapshot.attributes[$0]?.description ?? "null" }.joined(separator: ", ")
                    throw StoreError(
                        .constraintViolation,
                        message: "cannot insert \(entity.entity.name) (\(identity)): the store holds \(stored)/\(key) with the same "
                            + "identity, and an object cannot change its entity")
                }
                let reserved = group.rows[position].key
                moved[ObjectIdentifier(entity.table), default: [:]][reserved] = key
                conflicted.insert(snapshot.id)
                let id = ObjectID(entityName: entity.entity.name, primaryKey: key)
                if snapshot.id.isTemporary { permanentIDs[snapshot.id] = id }
            }
        }
    }

    /// Foreign keys written with a reserved key of a row that was not inserted now hold the
    /// stored object's key (one `UPDATE … FROM unnest` per to-one column referencing the table).
    private func repointReferences(into queries: inout [PostgresConnection.Query]) throws(StoreError) {
        guard !moved.isEmpty else { return }
        var done: Set<String> = []
        for name in layout.entities.keys.sorted() {
            guard let entity = layout.entities[name] else { continue }
            for relationship in entity.relationships {
                guard case .foreignKey(let column, let destination) = relationship,
                    let map = moved[ObjectIdentifier(destination)],
                    done.insert("\(entity.table.name)\u{0}\(column)").inserted
                else { continue }
                let pairs = map.sorted { $0.key < $1.key }
                var parameters = PostgresParameters()
                parameters.append(PostgresChangeWriter.keyArray(pairs.map(\.key)))
                parameters.append(PostgresChangeWriter.keyArray(pairs.map(\.value)))
                let c = SQLText.identifier(column)
                queries.append(
                    .init(
                        sql: "UPDATE \(entity.table.qualifiedName) AS t SET \(c) = v.a FROM unnest($1::bigint[], $2::bigint[]) "
                            + "AS v(r, a) WHERE t.\(c) = v.r", parameters: parameters))
            }
        }
    }

    // MARK: - Helpers

    /// A total order on identity values that every writer computes the same way (so that two
    /// writers inserting the same identities lock them in the same order): by value kind, then value.
    static func identityPrecedes(_ a: [AttributeValue?], _ b: [AttributeValue?], _ indexes: [Int]) -> Bool {
        for index in indexes {
            let order = compare(a[index], b[index])
            if order != 0 { return order < 0 }
        }
        return false
    }

    private static func compare(_ a: AttributeValue?, _ b: AttributeValue?) -> Int {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (.integer(let x)?, .integer(let y)?): return x < y ? -1 : x == y ? 0 : 1
        case (.string(let x)?, .string(let y)?): return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : x.utf8.elementsEqual(y.utf8) ? 0 : 1
        case (.double(let x)?, .double(let y)?): return x < y ? -1 : x == y ? 0 : 1
        case (.uuid(let x)?, .uuid(let y)?): return compare(.string(x.uuidString), .string(y.uuidString))
        case (let x?, let y?):
            let (dx, dy) = (x.description, y.description)
            return dx < dy ? -1 : dx == dy ? 0 : 1
        }
    }

    static func keyArray(_ keys: [Int64]) -> PostgresArray {
        var array = PostgresArray(of: PostgresType.int8)
        array.reserve(keys.count, bytesEach: 8)
        for key in keys { array.append(key) }
        return array
    }

    /// `error` (from encoding the value of `entity`'s attribute at `index`) naming the entity and attribute.
    func attributeFailure(_ error: StoreError, _ entity: PostgresEntityLayout, _ index: Int) -> StoreError {
        let name = index < entity.entity.attributes.count ? entity.entity.attributes[index].name : "#\(index)"
        return error.withMessage("entity \(entity.entity.name), attribute \(name): \(error.message)")
    }

    func shapeError(_ id: ObjectID, _ entity: PostgresEntityLayout) -> StoreError {
        StoreError(
            .unknownObject,
            message: "the change for \(id) does not match entity \(entity.entity.name)'s "
                + "\(entity.attributeColumns.count) attributes and \(entity.relationships.count) relationships")
    }

    /// Whether `id` was inserted by this change set (its owning side writes links to it).
    func isInsertedHere(_ id: ObjectID) -> Bool {
        id.isTemporary || insertedWithPermanentIDs.contains(id)
    }

    /// Whether the insert of `id` ran into a stored object.
    func didConflict(_ id: ObjectID) -> Bool { conflicted.contains(id) }
}
