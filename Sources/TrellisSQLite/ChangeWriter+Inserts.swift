import Trellis

/// Steps 1 and 3 of ``SQLiteSession/apply(_:)``: permanent keys for new objects, and their upserts.
extension ChangeWriter {
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

    /// Inserts the objects, each after the new objects its to-ones point at (``InsertOrder``).
    mutating func insert(_ inserted: [ObjectSnapshot]) throws(StoreError) {
        var entities: [EntityLayout] = []
        entities.reserveCapacity(inserted.count)
        for snapshot in inserted {
            let entity = try self.entity(snapshot.id.entityName)
            guard snapshot.attributes.count == entity.attributeColumns.count,
                snapshot.relationships.count == entity.relationships.count
            else {
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
                case .foreignKey(let column, _) = entities[position].relationships[slot]
            else { continue }
            let statement = try cachedByText(entities[position].updateSQL(columns: [column]))
            statement.bind(keys[position], at: 1)
            statement.bind(try permanent(destination).primaryKey, at: 2)
            try statement.run()
        }
    }

    /// Inserts one object; returns the key of its row (the stored object's, when its
    /// identity was stored already), or 0 for a placeholder that left a stored object as it was.
    private mutating func insert(
        _ snapshot: ObjectSnapshot, _ entity: EntityLayout, _ position: Int,
        _ order: InsertOrder
    ) throws(StoreError) -> Int64 {
        let id = try permanent(snapshot.id)
        let statement =
            snapshot.isPlaceholder
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
                try insertJoinRows(
                    join, object: key, destinations: destinations, isNew: true,
                    objectID: ObjectID(entityName: id.entityName, primaryKey: key))
            }
        }
        return key != id.primaryKey && snapshot.isPlaceholder ? 0 : key
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
            throw StoreError(
                .constraintViolation,
                message: "inserting \(snapshot.id) into \(entity.entity.name) conflicted "
                    + "with a stored object that cannot be found")
        }
        let key = statement.int64(0)
        let storedEntity = layout.canonicalName(statement.string(1))
        guard storedEntity == entity.entity.name else {
            let identity = entity.conflictAttributeIndexes.map { snapshot.attributes[$0]?.description ?? "null" }.joined(separator: ", ")
            throw StoreError(
                .constraintViolation,
                message: "cannot insert \(entity.entity.name) (\(identity)): the store holds \(storedEntity)/\(key) with the same "
                    + "identity, and an object cannot change its entity")
        }
        return key
    }
}
