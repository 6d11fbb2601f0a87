import Foundation
import Trellis
import TrellisModelFile
import TrellisSQLite

/// `trellis watch --model MODEL --entity NAME [--where …] [--sort …] [--limit N]`: observes
/// the request (``ObjectContext/observe(_:handler:)``) and prints one NDJSON line for the
/// current results, then one per change set, until interrupted (or `--updates N` change
/// sets). Commits of other processes are seen within the store's poll interval (50 ms).
///
/// Lines (objects as `export` writes them, relationships as identifiers):
///
///     {"sequence":3,"count":2,"objects":[{…},{…}]}
///     {"sequence":4,"count":2,"inserted":[{"index":0,"objectID":"Character/9","object":{…}}],
///      "updated":[{"index":1,"from":0,"changed":["name"],"objectID":"Character/1","object":{…}}],
///      "deleted":[{"index":1,"objectID":"Character/2","identity":{"id":2}}]}
enum WatchCommand: LeafCommand {
    static let updates = OptionKey<Int?>(
        "--updates", valueName: "n",
        help: "Exit after this many change sets (default: run until interrupted).")

    static let spec = CommandSpec(
        name: "watch",
        abstract: "Print the objects of an entity, then each change to them, as NDJSON.",
        discussion: """
            The first line holds the matching objects; each later line one commit's changes \
            (inserted, updated and deleted objects with their positions in the sorted results), \
            also commits made by other processes. Runs until interrupted.
            """,
        options: [
            CommonOptions.storeModel,
            CommonOptions.entity.with(help: "The entity to watch (with its sub-entities)."),
            CommonOptions.store,
            CommonOptions.busyTimeout,
            QueryOptions.wheres, QueryOptions.sort, QueryOptions.limit, QueryOptions.offset,
            updates,
            CommonOptions.bindings,
        ])

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        let opened = try QueryStore.open(arguments, environment: context.environment)
        let request = try QueryOptions.request(arguments, entity: opened.entity, model: opened.file.model, bindings: opened.file.bindings)
        if let n = arguments[updates], n < 0 { throw UsageError("invalid value '\(n)' for '--updates'; expected 0 or more") }
        let queue = UpdateQueue()
        let observation = try opened.run {
            try ObjectContext(store: opened.store, bindings: opened.file.bindings).observe(request, handler: queue.push)
        }
        defer { observation.cancel() }
        var previous: [ObjectID: FetchedObject] = [:]
        var changes = 0
        while true {
            let update = try opened.run { try queue.pop().get() }
            context.stdout.write(try opened.run { try line(update, previous: previous, opened: opened) } + "\n")
            previous = Dictionary(update.results.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            if update.change != nil { changes += 1 }
            if let n = arguments[updates], changes >= n { return }
        }
    }

    /// The NDJSON line of `update`.
    static func line(_ update: FetchResultsUpdate, previous: [ObjectID: FetchedObject], opened: QueryStore) throws -> String {
        let context = ObjectContext(store: opened.store, bindings: opened.file.bindings)
        let exporter = ObjectExporter(context: context)
        var object = JSONObject()
        object["sequence"] = .number(JSONNumber(update.sequence))
        object["count"] = .number(JSONNumber(Int64(update.results.count)))
        try context.read {
            func exported(_ id: ObjectID) throws -> JSONValue {
                guard let managed = try context.object(with: id) else { return .null }
                return try exporter.json(for: [managed]).arrayValue?.first ?? .null
            }
            guard let change = update.change else {
                object["objects"] = .array(try update.results.map { try exported($0.id) })
                return
            }
            object["inserted"] = .array(
                try change.inserted.map { i in
                    .object(
                        JSONObject([
                            ("index", .number(JSONNumber(Int64(i.index)))), ("objectID", .string(i.id.description)),
                            ("object", try exported(i.id)),
                        ]))
                })
            object["updated"] = .array(
                try change.updated.map { u in
                    .object(
                        JSONObject([
                            ("index", .number(JSONNumber(Int64(u.index)))), ("from", .number(JSONNumber(Int64(u.oldIndex)))),
                            ("changed", .array((u.changedAttributes + u.changedRelationships).map(JSONValue.string))),
                            ("objectID", .string(u.id.description)), ("object", try exported(u.id)),
                        ]))
                })
            object["deleted"] = .array(
                change.deleted.map { d in
                    var entry = JSONObject([("index", .number(JSONNumber(Int64(d.index)))), ("objectID", .string(d.id.description))])
                    if let old = previous[d.id] {
                        var identity = JSONObject()
                        for attribute in old.entity.identityAttributes {
                            identity[attribute.name] = old[attribute.name].map { JSONCoercion.json(from: $0, as: attribute.type) } ?? .null
                        }
                        entry["identity"] = .object(identity)
                    }
                    return .object(entry)
                })
        }
        return try JSONWriter.string(for: .object(object))
    }
}

/// Updates handed from the observation's queue to the command's thread.
final class UpdateQueue: @unchecked Sendable {
    // SAFETY: `items` is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var items: [Result<FetchResultsUpdate, any Error>] = []

    func push(_ item: Result<FetchResultsUpdate, any Error>) {
        condition.lock()
        items.append(item)
        condition.signal()
        condition.unlock()
    }

    /// The next update, waiting for it.
    func pop() -> Result<FetchResultsUpdate, any Error> {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        return items.removeFirst()
    }
}
