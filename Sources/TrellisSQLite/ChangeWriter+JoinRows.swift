import Trellis

/// Step 5 of ``SQLiteSession/apply(_:)``: join rows of to-many relationships, the links of
/// new objects buffered 64 rows per statement (``LinkBuffer``).
extension ChangeWriter {
    /// After `object`'s to-one changed to `destination`: its rows in the inverse ordered
    /// to-many's order table, except the new destination's, are deleted (else an object
    /// moving back would find its old position instead of coming last).
    mutating func removeStaleOrderRows(_ sql: String, object: Int64, destination: ObjectID?) throws(StoreError) {
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
    mutating func replaceJoinRows(_ join: JoinLayout, object: Int64, destinations: [ObjectID]) throws(StoreError) {
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
    mutating func insertJoinRows(
        _ join: JoinLayout, object: Int64, destinations: [ObjectID],
        isNew: Bool, objectID: ObjectID?
    ) throws(StoreError) {
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

    /// Writes the buffered links of `table` (every table when nil): before any other statement
    /// on a join table, and once all inserts are done.
    mutating func writeBufferedLinks(of table: String? = nil) throws(StoreError) {
        if bufferedLinks.isEmpty { return }
        if let table {
            try bufferedLinks[table]?.write()
        } else {
            for buffer in bufferedLinks.values { try buffer.write() }
        }
    }
}
