import Trellis

/// Stored placeholders completed as a sub-entity (``ObjectChange/entityName``): the row stays
/// where it is (an entity and its sub-entities share the root's table), with the same key,
/// so every foreign key and join row pointing at it still does; only its `"_entity"` column
/// changes (`UPDATE "T" SET "_entity" = ?2 WHERE "_pk" = ?1`), and the sub-entity's partial
/// identity index, if it has one, checks it. Reads then report the object under its new ID.
extension ChangeWriter {
    /// Retypes the placeholders `updated` names with a new entity; the returned mapping then
    /// maps each old ID to its new one.
    /// - Throws: `.unknownObject` when there is no such object; `.constraintViolation` for an
    ///   object that is not a placeholder, or an entity that is not a sub-entity of its own.
    mutating func retype(_ updated: [ObjectChange]) throws(StoreError) {
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
            let read = try connection.cachedStatement("SELECT \"_entity\", \"_placeholder\" FROM \(old.table.quotedName) WHERE \"_pk\" = ?1")
            read.bind(change.id.primaryKey, at: 1)
            guard try read.step(), layout.canonicalName(read.string(0)) == old.entity.name else {
                read.reset()
                throw StoreError(.unknownObject, message: "cannot make \(change.id) \(withIndefiniteArticle(name)): no such object")
            }
            let isPlaceholder = read.int64(1) != 0
            read.reset()
            guard isPlaceholder else {
                throw StoreError(
                    .constraintViolation,
                    message: "cannot make \(change.id) \(withIndefiniteArticle(name)): only a "
                        + "placeholder becomes one of its entity's sub-entities")
            }
            let write = try connection.cachedStatement("UPDATE \(old.table.quotedName) SET \"_entity\" = ?2 WHERE \"_pk\" = ?1")
            write.bind(change.id.primaryKey, at: 1)
            try write.bind(new.entity.name, at: 2)
            try write.run()
            permanentIDs[change.id] = ObjectID(entityName: new.entity.name, primaryKey: change.id.primaryKey)
            session.derivedLinks.removeAll()
        }
    }
}
