import Trellis

/// Steps 2 and 4 of ``SQLiteSession/apply(_:)``: deletions, updates of changed columns, and the
/// references to reserved keys that an upsert conflict replaced.
extension ChangeWriter {
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
                    cleaned.insert(join.table).inserted
                else { continue }
                let statement = try connection.cachedStatement(join.deleteDestinations)
                try statement.bind("[" + deleted.keys.map(String.init).joined(separator: ",") + "]", at: 1)
                try statement.run()
            }
        }
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
                            let c = SQL.identifier(column)
                            let t = SQL.identifier(join.table)
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
}
