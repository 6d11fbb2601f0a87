import Trellis

/// Bulk loads into empty tables: secondary indexes are built once at the end, not row by row.
///
/// The non-unique indexes (a to-one's foreign key column, a many-to-many join table's
/// `destination`) serve reads of inverse relationships and deletes; an import never needs
/// them to write. Maintained row by row while a fresh store fills they cost much more than
/// building them afterwards: each insert lands at one of a few hundred scattered points
/// (measured with Python's sqlite3 on 300k links, CPU seconds: 0.24 without the
/// `destination` index, 0.55 with it, 0.24 + 0.12 to build it afterwards). So the first
/// ``apply(_:)`` of a write session that inserts objects drops each secondary index whose
/// table is still empty, and the session recreates them, with the exact SQL the file
/// recorded, before the transaction commits (``recreateDroppedIndexes()``). Readers on other
/// connections never see the difference (the DDL is part of the transaction); reads inside
/// the session still work, scanning instead of seeking. Unique (identity) indexes, which
/// the upserts rely on, are never dropped.
extension SQLiteSession {
    /// Drops every secondary index (``StoreLayout/secondaryIndexes``) whose table has no row,
    /// remembering its SQL in ``droppedIndexes``.
    /// - Complexity: one `SELECT … LIMIT 1` per secondary index.
    func dropSecondaryIndexesOfEmptyTables() throws(StoreError) {
        for index in layout.secondaryIndexes {
            let empty = try connection.cachedStatement("SELECT 1 FROM \(SQL.identifier(index.table)) LIMIT 1").runReturningInt64() == nil
            guard empty else { continue }
            let lookup = try connection.cachedStatement("SELECT \"sql\" FROM \"sqlite_master\" WHERE \"type\" = ?1 AND \"name\" = ?2")
            try lookup.bind("index", at: 1)
            try lookup.bind(index.name, at: 2)
            defer { lookup.reset() }
            guard try lookup.step(), !lookup.isNull(0) else { continue }
            let sql = lookup.string(0)
            lookup.reset()
            try connection.execute("DROP INDEX \(SQL.identifier(index.name))")
            droppedIndexes.append(DeferredIndex(name: index.name, sql: sql))
        }
    }

    /// Recreates the indexes ``dropSecondaryIndexesOfEmptyTables()`` dropped (before commit).
    /// - Complexity: one index build (a sort) per dropped index.
    func recreateDroppedIndexes() throws(StoreError) {
        while let index = droppedIndexes.popLast() { try connection.execute(index.sql) }
    }
}
