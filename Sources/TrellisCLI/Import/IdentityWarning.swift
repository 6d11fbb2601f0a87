import Trellis

/// The warning `trellis import` prints on standard error, once per import, when it inserts
/// top-level objects of an entity without identity attributes into a store that already
/// holds objects of that entity. Such objects are always inserted (docs/ModelFormat.md,
/// "Objects without identity attributes"): nothing finds the stored ones, so importing a
/// payload twice stores it twice, which is rarely what was meant.
///
///     warning: Event has no identity attributes; 184 objects were inserted again (the store
///     already held 184 Events) — add "identityAttributes" to Event in the model to merge
///     them by identity (docs/ModelFormat.md, "Identity attributes")
struct IdentityWarning {
    /// The imported entity.
    let entity: String
    /// Objects of the entity (and its sub-entities) in the store before the import.
    let storedBefore: Int

    /// The warning's state for an import of `name` into `store`, read before the import; nil
    /// when the entity or one of its sub-entities has identity attributes (objects can be
    /// found), or the store holds none of its objects.
    static func before(importing name: String, model: ObjectModel, store: any PersistentStore) throws -> IdentityWarning? {
        guard let entity = model.entity(named: name),
            entity.kindNames.allSatisfy({ model.entity(named: $0)?.identityAttributeIndexes.isEmpty ?? true })
        else { return nil }
        let count = try store.read { try $0.count(entity: name, matching: nil) }
        return count > 0 ? IdentityWarning(entity: name, storedBefore: count) : nil
    }

    /// The text after `warning: `, or nil when the import inserted no top-level object.
    /// `recordedModel`: the model is the store's (no `--model`), which the user edits after
    /// writing it out with `trellis model convert`.
    func message(after report: ImportReport, recordedModel: Bool, storePath: String) -> String? {
        let inserted = report.elementCount - report.nullElementsSkipped
        guard inserted > 0 else { return nil }
        let objects = inserted == 1 ? "1 object was" : "\(inserted) objects were"
        let verb = report.isDryRun ? (inserted == 1 ? "1 object would be" : "\(inserted) objects would be") : objects
        let held = storedBefore == 1 ? "1 \(entity)" : "\(storedBefore) \(entity)s"
        let fix =
            recordedModel
            ? "write the recorded model out with 'trellis model convert \(storePath) -o model.json', add \"identityAttributes\" "
                + "to \(entity) there, and import with --model model.json"
            : "add \"identityAttributes\" to \(entity) in the model"
        return "\(entity) has no identity attributes; \(verb) inserted again (the store already held \(held)) — \(fix) "
            + "to merge them by identity (docs/ModelFormat.md, \"Objects without identity attributes\")"
    }
}
