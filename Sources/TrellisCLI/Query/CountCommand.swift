import Foundation
import Trellis
import TrellisModelFile
import TrellisSQLite

/// `trellis count [--model MODEL] --entity NAME [--where …]`: the number of objects that
/// match, printed as one line. Reads the store without writing it (as `export`).
enum CountCommand: LeafCommand {
    static let spec = CommandSpec(
        name: "count",
        abstract: "Count the objects of an entity (that match the predicates).",
        discussion: "Prints the number of objects of the entity and its sub-entities matching every --where.",
        options: [
            CommonOptions.storeModel,
            CommonOptions.entity.with(help: "The entity to count (with its sub-entities)."),
            CommonOptions.store,
            CommonOptions.busyTimeout,
            QueryOptions.wheres,
            CommonOptions.bindings,
        ])

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        let opened = try QueryStore.open(arguments, environment: context.environment)
        let request = try QueryOptions.request(
            arguments, entity: opened.entity, model: opened.file.model,
            bindings: opened.file.bindings, sorting: false)
        let count = try opened.run { try ObjectContext(store: opened.store, bindings: opened.file.bindings).count(request) }
        context.stdout.write("\(count)\n")
    }
}

/// The model, entity and store a query command works on, opened as `export` opens them:
/// read-only, without writing the file.
struct QueryStore {
    let file: LoadedModel
    let entity: ResolvedEntity
    let store: any PersistentStore
    let location: StoreLocation
    let busyTimeoutMilliseconds: Int

    /// `readOnly: false` (`delete`): opened for writing; the store must exist all the same.
    static func open(_ arguments: ParsedArguments, environment: CommandEnvironment, readOnly: Bool = true) throws -> QueryStore {
        let storePath = arguments[CommonOptions.store]
        let (file, modelName) = try ModelLoading.load(
            arguments[CommonOptions.storeModel], orRecordedIn: storePath,
            bindings: arguments[CommonOptions.bindings], environment: environment)
        let entity = try ModelLoading.entity(arguments[CommonOptions.entity], in: file.model, modelPath: modelName)
        let timeout = arguments[CommonOptions.busyTimeout].milliseconds
        let location = StoreLocation(storePath, environment: environment)
        let store = try location.openExisting(model: file.model, environment: environment, busyTimeoutMilliseconds: timeout, readOnly: readOnly)
        return QueryStore(file: file, entity: entity, store: store, location: location, busyTimeoutMilliseconds: timeout)
    }

    /// Runs `body`, turning store errors into the CLI's messages.
    func run<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw location.commandError(error, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        }
    }
}
