import Trellis

/// Links (join rows) and updates: the last pipeline of an `apply`.
extension PostgresChangeWriter {
    /// Rows for one join table from one side, written by one statement.
    struct LinkRows {
        let join: PostgresJoinLayout
        /// `true`: the rows of new objects on the owning side (plain `INSERT`, nothing to meet).
        let isNew: Bool
        var rows: [(this: Int64, other: Int64, position: Int64)] = []
    }

    /// The join rows of inserted objects: the owning side of a new object inserts plainly;
    /// the inverse side's links to destinations the change set inserts are written after
    /// every owning side's (`ON CONFLICT DO NOTHING`: a link both sides hold keeps the owner's
    /// position; one only the inverse side holds, since an import leaves a side no mapping
    /// reads empty, is appended to the owner's order); an object whose insert ran into a
    /// stored one replaces that object's links.
    mutating func insertLinks(
        _ inserted: [(ObjectSnapshot, PostgresEntityLayout)],
        into queries: inout [PostgresConnection.Query]
    ) throws(StoreError) {
        var replaced: [String: (join: PostgresJoinLayout, keys: [Int64])] = [:]
        var batches: [String: LinkRows] = [:]
        var order: [String] = []
        /// Inverse-side links between two new objects, by join table.
        var betweenNew: [String: LinkRows] = [:]
        var betweenNewOrder: [String] = []
        for (snapshot, entity) in inserted {
            let key = try permanent(snapshot.id).primaryKey
            let replaces = didConflict(snapshot.id) && !snapshot.isPlaceholder
            for (slot, relationship) in entity.relationships.enumerated() {
                guard case .joinTable(let join) = relationship else { continue }
                let destinations = snapshot.relationships[slot]
                if replaces {
                    replaced[join.table + "\u{0}" + join.thisColumn, default: (join, [])].keys.append(key)
                } else if destinations.isEmpty {
                    continue
                }
                let isNew = !join.isInverseSide && !didConflict(snapshot.id)
                let name = "\(join.table)\u{0}\(join.thisColumn)\u{0}\(isNew)"
                if batches[name] == nil {
                    batches[name] = LinkRows(join: join, isNew: isNew)
                    order.append(name)
                }
                let skipsInserted = join.isInverseSide && !replaces
                try appendLinks(key, destinations, skippingInserted: skipsInserted, to: &batches[name]!)
                guard skipsInserted else { continue }
                let toNew = destinations.filter(isInsertedHere)
                guard !toNew.isEmpty else { continue }
                if betweenNew[name] == nil {
                    betweenNew[name] = LinkRows(join: join, isNew: false)
                    betweenNewOrder.append(name)
                }
                try appendLinks(key, toNew, skippingInserted: false, to: &betweenNew[name]!)
            }
        }
        for name in replaced.keys.sorted() {
            guard let entry = replaced[name] else { continue }
            queries.append(deleteLinks(entry.join, of: entry.keys))
        }
        for name in order {
            guard let batch = batches[name], !batch.rows.isEmpty else { continue }
            queries.append(insert(batch))
        }
        for name in betweenNewOrder {
            guard let batch = betweenNew[name], !batch.rows.isEmpty else { continue }
            queries.append(insert(batch))
        }
    }

    /// Appends `object → destinations` (a destination listed twice is linked once, at its first position).
    private func appendLinks(
        _ object: Int64, _ destinations: [ObjectID], skippingInserted: Bool,
        to batch: inout LinkRows
    ) throws(StoreError) {
        var seen: Set<Int64> = []
        for (position, destination) in destinations.enumerated() {
            if skippingInserted, isInsertedHere(destination) { continue }
            let key = try permanent(destination).primaryKey
            guard seen.insert(key).inserted else { continue }
            batch.rows.append((object, key, Int64(position)))
        }
    }

    /// `DELETE FROM "J" WHERE <this side> = ANY($1)`.
    private func deleteLinks(_ join: PostgresJoinLayout, of keys: [Int64]) -> PostgresConnection.Query {
        var parameters = PostgresParameters()
        parameters.append(PostgresChangeWriter.keyArray(Array(Set(keys)).sorted()))
        return .init(
            sql: "DELETE FROM \(join.qualifiedName) WHERE \(SQLText.identifier(join.thisColumn)) = ANY($1::bigint[])",
            parameters: parameters)
    }

    /// The insert of `batch`'s rows, sorted by (source, destination):
    /// - owning side of new objects: plain `INSERT … SELECT * FROM unnest(…)`;
    /// - owning side otherwise: the same, `ON CONFLICT DO NOTHING` for a shared table (the
    ///   inverse side may have written the link), or `DO UPDATE SET "position"` when it is ordered;
    /// - inverse side: `ON CONFLICT DO NOTHING`, and, when the owning side is ordered, after
    ///   the owner's last position.
    private func insert(_ batch: LinkRows) -> PostgresConnection.Query {
        let join = batch.join
        var rows = batch.rows
        if join.isInverseSide {
            rows.sort { ($0.other, $0.this) < ($1.other, $1.this) }
        } else {
            rows.sort { ($0.this, $0.other) < ($1.this, $1.other) }
        }
        var this = PostgresArray(of: PostgresType.int8)
        var other = PostgresArray(of: PostgresType.int8)
        var positions = PostgresArray(of: PostgresType.int8)
        for row in rows {
            this.append(row.this)
            other.append(row.other)
            positions.append(row.position)
        }
        var parameters = PostgresParameters()
        parameters.append(this)
        parameters.append(other)
        let t = join.qualifiedName
        let sql: String
        if join.isInverseSide {
            sql =
                join.hasPositions
                ? "INSERT INTO \(t) (\"destination\", \"source\", \"position\") SELECT v.d, v.s, coalesce((SELECT max(j.\"position\") + 1 "
                    + "FROM \(t) AS j WHERE j.\"source\" = v.s), 0) + row_number() OVER (PARTITION BY v.s ORDER BY v.n) - 1 "
                    + "FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS v(d, s, n) ON CONFLICT DO NOTHING"
                : "INSERT INTO \(t) (\"destination\", \"source\") SELECT * FROM unnest($1::bigint[], $2::bigint[]) ON CONFLICT DO NOTHING"
        } else {
            let conflict =
                batch.isNew || !join.isShared
                ? ""
                : join.hasPositions
                    ? " ON CONFLICT (\"source\", \"destination\") DO UPDATE SET \"position\" = excluded.\"position\""
                    : " ON CONFLICT DO NOTHING"
            if join.hasPositions {
                parameters.append(positions)
                sql =
                    "INSERT INTO \(t) (\"source\", \"destination\", \"position\") SELECT * FROM unnest($1::bigint[], $2::bigint[], "
                    + "$3::bigint[])" + conflict
            } else {
                sql = "INSERT INTO \(t) (\"source\", \"destination\") SELECT * FROM unnest($1::bigint[], $2::bigint[])" + conflict
            }
        }
        return .init(sql: sql, parameters: parameters)
    }

    // MARK: - Updates

    /// Updates of stored objects: the changed columns of objects with the same changed slots in
    /// one `UPDATE … FROM unnest(…)`; then, for changed to-ones whose inverse is ordered, the
    /// object's rows in that order table except its new owner's; then replaced join rows.
    mutating func updates(_ updated: [ObjectChange], into queries: inout [PostgresConnection.Query]) throws(StoreError) {
        guard !updated.isEmpty else { return }
        // One change per object (a later one wins per slot).
        var merged: [ObjectID: ObjectChange] = [:]
        var order: [ObjectID] = []
        for change in updated {
            let id = try permanent(change.id)
            if var known = merged[id] {
                if let flag = change.isPlaceholder { known.isPlaceholder = flag }
                for a in change.attributes {
                    known.attributes.removeAll { $0.index == a.index }
                    known.attributes.append(a)
                }
                for r in change.relationships {
                    known.relationships.removeAll { $0.index == r.index }
                    known.relationships.append(r)
                }
                merged[id] = known
            } else {
                merged[id] = change
                order.append(id)
            }
        }
        struct Shape: Hashable {
            let entity: ObjectIdentifier
            let placeholder: Bool
            let attributes: [Int]
            let toOnes: [Int]
        }
        var shapes: [Shape: (entity: PostgresEntityLayout, rows: [(Int64, ObjectChange)])] = [:]
        var shapeOrder: [Shape] = []
        var cleanups: [String: [(Int64, Int64?)]] = [:]
        var replaced: [String: (join: PostgresJoinLayout, keys: [Int64])] = [:]
        var links: [String: LinkRows] = [:]
        for id in order.sorted(by: { $0.primaryKey < $1.primaryKey }) {
            guard var change = merged[id] else { continue }
            let entity = try layout.entity(id.entityName)  // a retyped placeholder's new entity
            change.attributes.sort { $0.index < $1.index }
            change.relationships.sort { $0.index < $1.index }
            var toOnes: [Int] = []
            for attribute in change.attributes where attribute.index < 0 || attribute.index >= entity.attributeColumns.count {
                throw shapeError(change.id, entity)
            }
            for relationship in change.relationships {
                guard relationship.index >= 0, relationship.index < entity.relationships.count else { throw shapeError(change.id, entity) }
                switch entity.relationships[relationship.index] {
                case .foreignKey:
                    toOnes.append(relationship.index)
                    if let table = entity.orderTables[relationship.index] {
                        var owner: Int64?
                        if let destination = relationship.destinations.first { owner = try permanent(destination).primaryKey }
                        cleanups[table, default: []].append((id.primaryKey, owner))
                    }
                case .joinTable(let join):
                    replaced[join.table + "\u{0}" + join.thisColumn, default: (join, [])].keys.append(id.primaryKey)
                    let name = join.table + "\u{0}" + join.thisColumn
                    if links[name] == nil { links[name] = LinkRows(join: join, isNew: false) }
                    try appendLinks(id.primaryKey, relationship.destinations, skippingInserted: false, to: &links[name]!)
                case .inverseForeignKey:
                    continue
                }
            }
            guard change.isPlaceholder != nil || !change.attributes.isEmpty || !toOnes.isEmpty else { continue }
            let shape = Shape(
                entity: ObjectIdentifier(entity), placeholder: change.isPlaceholder != nil,
                attributes: change.attributes.map(\.index), toOnes: toOnes)
            if shapes[shape] == nil {
                shapes[shape] = (entity, [])
                shapeOrder.append(shape)
            }
            shapes[shape]?.rows.append((id.primaryKey, change))
        }
        for shape in shapeOrder {
            guard let (entity, rows) = shapes[shape] else { continue }
            updateChecks.append((queries.count, entity, rows.map(\.0)))
            queries.append(try update(entity, rows: rows, placeholder: shape.placeholder, attributes: shape.attributes, toOnes: shape.toOnes))
        }
        for table in cleanups.keys.sorted() {
            let rows = cleanups[table] ?? []
            var objects = PostgresArray(of: PostgresType.int8)
            var owners = PostgresArray(of: PostgresType.int8)
            for (object, owner) in rows {
                objects.append(object)
                if let owner { owners.append(owner) } else { owners.appendNull() }
            }
            var parameters = PostgresParameters()
            parameters.append(objects)
            parameters.append(owners)
            queries.append(
                .init(
                    sql: "DELETE FROM \(table) AS j USING unnest($1::bigint[], $2::bigint[]) AS v(o, d) "
                        + "WHERE j.\"destination\" = v.o AND j.\"source\" IS DISTINCT FROM v.d", parameters: parameters))
        }
        for name in replaced.keys.sorted() {
            guard let entry = replaced[name] else { continue }
            queries.append(deleteLinks(entry.join, of: entry.keys))
            if let batch = links[name], !batch.rows.isEmpty { queries.append(insert(batch)) }
        }
    }

    /// `UPDATE "T" AS t SET <columns> = v.… FROM unnest($1::bigint[], …) AS v(k, …) WHERE t."_pk" = v.k`.
    private func update(
        _ entity: PostgresEntityLayout, rows: [(Int64, ObjectChange)], placeholder: Bool, attributes: [Int],
        toOnes: [Int]
    ) throws(StoreError) -> PostgresConnection.Query {
        var keys = PostgresArray(of: PostgresType.int8)
        var flags = PostgresArray(of: PostgresType.bool)
        var values = attributes.map { PostgresArray(of: PostgresValues.elementType(for: entity.attributeTypes[$0]).oid) }
        var references = toOnes.map { _ in PostgresArray(of: PostgresType.int8) }
        for (key, change) in rows {
            keys.append(key)
            if placeholder { flags.append(change.isPlaceholder ?? false) }
            for (n, attribute) in change.attributes.enumerated() {
                do {
                    try PostgresValues.append(attribute.value, as: entity.attributeTypes[attribute.index], to: &values[n])
                } catch {
                    throw attributeFailure(error, entity, attribute.index)
                }
            }
            var n = 0
            for relationship in change.relationships {
                guard case .foreignKey = entity.relationships[relationship.index] else { continue }
                if let destination = relationship.destinations.first {
                    references[n].append(try permanent(destination).primaryKey)
                } else {
                    references[n].appendNull()
                }
                n += 1
            }
        }
        var parameters = PostgresParameters()
        parameters.append(keys)
        var arrays = ["$1::bigint[]"]
        var set: [String] = []
        if placeholder {
            parameters.append(flags)
            arrays.append("$\(parameters.count)::boolean[]")
            set.append("\"_placeholder\" = v.c\(arrays.count - 1)")
        }
        for (n, index) in attributes.enumerated() {
            parameters.append(values[n])
            arrays.append("$\(parameters.count)\(PostgresValues.elementType(for: entity.attributeTypes[index]).cast)")
            set.append("\(SQLText.identifier(entity.attributeColumns[index])) = v.c\(arrays.count - 1)")
        }
        for (n, slot) in toOnes.enumerated() {
            guard case .foreignKey(let column, _) = entity.relationships[slot] else { continue }
            parameters.append(references[n])
            arrays.append("$\(parameters.count)::bigint[]")
            set.append("\(SQLText.identifier(column)) = v.c\(arrays.count - 1)")
        }
        let names = (0..<arrays.count).map { "c\($0)" }.joined(separator: ", ")
        return .init(
            sql: "UPDATE \(entity.table.qualifiedName) AS t SET \(set.joined(separator: ", ")) FROM unnest("
                + "\(arrays.joined(separator: ", "))) AS v(\(names)) WHERE t.\"_pk\" = v.c0", parameters: parameters)
    }
}
