import Foundation
import Trellis
import TrellisModelFile
import TrellisPostgres
import TrellisSQLite

/// Runs one `trellis export`: the objects of the entity (optionally those whose attribute
/// equals a value) as one JSON array, compact or pretty, ending with a newline.
///
/// The store is opened read-only with ``SQLiteStore/MigrationPolicy/inWriteTransactions``, so
/// export never writes it: an empty file reads as a store without objects, and a store made
/// for an older model is read, from a private copy, as the migration would leave it. A
/// PostgreSQL store (`--store postgresql://…`) is read the same way, the migration done inside
/// a transaction that is rolled back.
struct ExportRunner {
    let options: ExportCommand.Options
    let environment: CommandEnvironment

    func run() throws -> String {
        let (file, modelName) = try ModelLoading.load(options.modelPath, orRecordedIn: options.storePath, bindings: options.bindingsPath,
                                                      environment: environment)
        let entity = try ModelLoading.entity(options.entity, in: file.model, modelPath: modelName)
        let request = try QueryOptions.request(options.arguments, entity: entity, model: file.model, bindings: file.bindings)
        let isPostgres = PostgresStore.isConnectionString(options.storePath)
        let store = try ExportRunner.openStore(options.storePath, model: file.model, environment: environment,
                                               busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        let context = ObjectContext(store: store, bindings: file.bindings)
        var exportOptions = ExportOptions()
        exportOptions.relationshipStyle = options.nested ? .nested : .identifiers
        exportOptions.placeholders = options.excludesPlaceholders ? .exclude : .include
        let exporter = ObjectExporter(context: context, options: exportOptions)
        let json: JSONValue
        do {
            // One read transaction: the objects and every related object come from one
            // committed state, also while an import commits.
            json = try context.read { try exporter.json(for: try context.fetch(request)) }
        } catch let error as StoreError {
            if isPostgres { throw PostgresStoreOpening.commandError(error, connection: options.storePath) }
            throw StoreOpening.commandError(error, path: options.storePath, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        } catch let error as ExportError {
            throw CommandError(.store, "\(isPostgres ? PostgresStoreOpening.name(options.storePath) : options.storePath): cannot export \(error)")
        }
        return try JSONWriter.string(for: json, options: options.pretty ? .pretty : .compact) + "\n"
    }

    /// The store at `path`, which must exist, opened read-only without writing the file.
    static func openStore(_ path: String, model: ObjectModel, environment: CommandEnvironment,
                          busyTimeoutMilliseconds: Int, readOnly: Bool = true) throws -> any PersistentStore {
        if PostgresStore.isConnectionString(path) {
            return try PostgresStoreOpening.open(path, model: model, readOnly: readOnly)
        }
        let storeURL = environment.url(for: path)
        try StoreLocation.checkFilePath(path)
        guard FileManager.default.fileExists(atPath: storeURL.path) else {
            if let dangling = StoreLocation.danglingLink(storeURL) {
                throw CommandError(.store, "\(path): no such store: \(dangling)")
            }
            throw CommandError(.store, "\(path): no such store")
        }
        try StoreLocation.checkExisting(storeURL, path: path)
        return try StoreOpening.open(storeURL, path: path, model: model, readOnly: readOnly, migrationPolicy: .inWriteTransactions,
                                     busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }

    /// `text` as a value of `attribute`: through its value transformer when it has one
    /// (and the transformer accepts the text), else coerced to the attribute's type.
    /// - Throws: ``CommandError`` naming the attribute and its type.
    static func value(_ text: String, for attribute: AttributeDescription, in entity: ResolvedEntity,
                      bindings: MappingBindings) throws -> AttributeValue? {
        if let name = attribute.transformerName, let transformer = try? bindings.transformers.transformer(named: name),
           let value = try? transformer.forward(.string(text)) {
            return value
        }
        if attribute.type == .json {
            // JSON text (`{"a":1}`, `1`, `"x"`); anything else is the string it spells.
            return .json((try? JSONReader.parse(text)) ?? .string(text))
        }
        do {
            return try JSONCoercion.value(from: .string(text), as: attribute.type)
        } catch {
            throw CommandError(.unknownName, "--where: cannot compare \(entity.name).\(attribute.name) (\(attribute.type)) "
                                   + "with \"\(text)\": \(error)")
        }
    }
}
