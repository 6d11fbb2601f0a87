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
///
/// The steps are ``ChangeWriter``'s: keys and inserts in `ChangeWriter+Inserts.swift`,
/// deletions and updates in `ChangeWriter+Updates.swift`, retyped placeholders in
/// `ChangeWriter+Retyping.swift`, join rows in `ChangeWriter+JoinRows.swift`.
extension SQLiteSession {
    func apply(_ changes: ChangeSet) throws -> [ObjectID: ObjectID] {
        try checkValid()
        guard isWritable else {
            throw StoreError(.readOnly, message: "cannot apply changes in a read session")
        }
        var changes = changes
        if origin == .sync { changes = try PullGuard(model: model, rules: pushRules).filter(changes, in: self).0 }
        if changes.isEmpty { return [:] }
        if !changes.deleted.isEmpty {
            try rebuildDeferredIndexesBeforeDeleting()
        } else if !changes.inserted.isEmpty {
            try deferSecondaryIndexesIfWorthIt(inserting: changes.inserted.count)
        }
        if !checkedBulkLoad, !changes.inserted.isEmpty {
            checkedBulkLoad = true
            try dropSecondaryIndexesOfEmptyTables()
        }
        var prior: [ObjectID: ObjectSnapshot] = [:]
        if origin == .local {
            // The recorder reads only the attributes (identity, stamp): no to-many queries.
            for snapshot in try fetchAttributes(ids: OutboxRecorder.priorIDs(of: changes)) { prior[snapshot.id] = snapshot }
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
        if origin == .local {
            try OutboxRecorder(model: model, rules: pushRules).record(changes, mapping: writer.permanentIDs, prior: prior, in: self)
        }
        commitRecord.record(changes, mapping: writer.permanentIDs)
        return writer.permanentIDs
    }
}
