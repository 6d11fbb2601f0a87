import Foundation
import Trellis

/// `trellis delete --entity NAME --where PREDICATE [--model MODEL] [--store STORE] [--local]`:
/// deletes the objects that match, with the model's delete rules (``ObjectContext/delete(_:)``:
/// nullify, cascade, deny), in one transaction, and prints the objects deleted per entity
/// and the links nullified. A denied delete changes nothing (exit 1). With `--local` the
/// deletions (and the nullified links) are local changes, recorded in the store's outbox in
/// the same transaction; without it they are of origin import and not recorded.
enum DeleteCommand: LeafCommand {
    static let local = OptionKey<Bool>(
        flag: "--local",
        help: "Record the deletions (and nullified links) as local changes in the store's outbox (trellis_outbox), "
            + "to be pushed to the API; default: not recorded.")

    static let spec = CommandSpec(
        name: "delete",
        abstract: "Delete the objects of an entity that match the predicates.",
        discussion: "Deletes the objects of the entity and its sub-entities matching every --where (at least one), "
            + "applying the model's delete rules (nullify, cascade, deny) in one transaction. "
            + "A delete that a deny rule refuses changes nothing.",
        options: [
            CommonOptions.storeModel,
            CommonOptions.entity.with(help: "The entity to delete from (with its sub-entities)."),
            CommonOptions.store,
            CommonOptions.busyTimeout,
            QueryOptions.wheres,
            local,
            CommonOptions.bindings,
        ])

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        guard !arguments[QueryOptions.wheres].isEmpty else {
            throw UsageError("missing '--where': the predicate of the objects to delete ('--where TRUEPREDICATE' deletes all)")
        }
        let start = Date()
        let opened = try QueryStore.open(arguments, environment: context.environment, readOnly: false)
        let request = try QueryOptions.request(
            arguments, entity: opened.entity, model: opened.file.model,
            bindings: opened.file.bindings, sorting: false)
        let (counts, nullified) = try opened.run { () throws -> ([String: Int], Int) in
            let objectContext = ObjectContext(
                store: opened.store, bindings: opened.file.bindings,
                origin: arguments[local] ? .local : .import)
            var counts: [String: Int] = [:]
            var nullified = 0
            for object in try objectContext.fetch(request) where !object.isDeleted {
                let result: ObjectContext.DeleteResult
                do {
                    result = try objectContext.delete(object)
                } catch let error as ContextError where error.code == .deleteDenied {
                    throw CommandError(.deleteDenied, "delete denied: \(error); nothing was deleted")
                }
                for deleted in result.deletedObjects { counts[deleted.entity.name, default: 0] += 1 }
                nullified += result.nullifiedLinks
            }
            try objectContext.save()
            return (counts, nullified)
        }
        context.stdout.write(
            summary(
                counts, nullified: nullified, model: opened.file.model, entity: opened.entity.name,
                store: opened.location.name, seconds: Date().timeIntervalSince(start)))
    }

    /// ```
    /// entity      deleted
    /// Publisher         1
    /// Character         3
    /// nullified 2 links
    /// deleted 4 objects from trellis.sqlite in 0.01 s
    /// ```
    /// The rows: the entities with deleted objects in model order, and the entity asked
    /// for (unless abstract) even with none.
    static func summary(
        _ counts: [String: Int], nullified: Int, model: ObjectModel, entity: String, store: String,
        seconds: Double
    ) -> String {
        let names = model.entities.filter { counts[$0.name] != nil || ($0.name == entity && !$0.isAbstract) }.map(\.name)
        let width = max(6, names.map(\.count).max() ?? 0)
        func pad(_ s: String, _ n: Int, left: Bool) -> String {
            let fill = String(repeating: " ", count: max(0, n - s.count))
            return left ? s + fill : fill + s
        }
        var text = pad("entity", width, left: true) + pad("deleted", 10, left: false) + "\n"
        for name in names { text += pad(name, width, left: true) + pad(String(counts[name] ?? 0), 10, left: false) + "\n" }
        text += "nullified \(nullified) link\(nullified == 1 ? "" : "s")\n"
        let total = counts.values.reduce(0, +)
        text += "deleted \(total) object\(total == 1 ? "" : "s") from \(store) in \(String(format: "%.2f s", seconds))\n"
        return text
    }
}
