import Foundation
import Trellis
import TrellisModelFile
import TrellisSQLite

/// Runs one `trellis export`: the objects of the entity (optionally those whose attribute
/// equals a value) as one JSON array, compact or pretty, ending with a newline, or as NDJSON;
/// on standard output or into the `-o` file. Objects are read a batch at a time and written
/// as they are built (``ObjectExporter/write(_:as:batchSize:to:)``).
///
/// The store is opened read-only with ``SQLiteStore/MigrationPolicy/inWriteTransactions``, so
/// export never writes it: an empty file reads as a store without objects, and a store made
/// for an older model is read, from a private copy, as the migration would leave it. A
/// PostgreSQL store (`--store postgresql://…`) is read the same way, the migration done inside
/// a transaction that is rolled back.
///
/// An `-o` file is written as a hidden temporary file beside it and renamed over it once the
/// export is complete (`OutputFile`): a failed export leaves the file as it was. On standard
/// output, an export failing midway leaves what was written so far (exit status 1).
struct ExportRunner {
    let options: ExportCommand.Options
    let environment: CommandEnvironment
    /// Objects read per batch.
    var batchSize = 1000

    func run(stdout: inout any TextOutputStream) throws {
        let (file, modelName) = try ModelLoading.load(
            options.modelPath, orRecordedIn: options.storePath, bindings: options.bindingsPath,
            environment: environment)
        let entity = try ModelLoading.entity(options.entity, in: file.model, modelPath: modelName)
        let request = try QueryOptions.request(options.arguments, entity: entity, model: file.model, bindings: file.bindings)
        let store = try StoreLocation(options.storePath, environment: environment).openExisting(
            model: file.model, environment: environment, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        let context = ObjectContext(store: store, bindings: file.bindings)
        var exportOptions = ExportOptions()
        exportOptions.relationshipStyle = options.nested ? .nested : .identifiers
        exportOptions.placeholders = options.excludesPlaceholders ? .exclude : .include
        let exporter = ObjectExporter(context: context, options: exportOptions)
        let format: ObjectExporter.TextFormat = options.format == .ndjson ? .lines : .array(options.pretty ? .pretty : .compact)
        guard let outputPath = options.outputPath else {
            try export(exporter, request, format) { data in stdout.write(String(decoding: data, as: UTF8.self)) }
            return
        }
        do {
            try OutputFile.write(to: environment.url(for: outputPath)) { write in try export(exporter, request, format, to: write) }
        } catch let error as OutputFileError {
            throw CommandError(.writeFailed, "\(outputPath): cannot write: \(error.reason)")
        }
    }

    /// Streams the export into `sink`, turning store and export errors into ``CommandError``s.
    private func export(
        _ exporter: ObjectExporter, _ request: ObjectFetchRequest, _ format: ObjectExporter.TextFormat,
        to sink: (Data) throws -> Void
    ) throws {
        let location = StoreLocation(options.storePath, environment: environment)
        do {
            // One read transaction: the objects and every related object come from one
            // committed state, also while an import commits.
            try exporter.write(request, as: format, batchSize: batchSize, to: sink)
        } catch let error as StoreError {
            throw location.commandError(error, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        } catch let error as ExportError {
            throw CommandError(.store, "\(location.name): cannot export \(error)")
        }
    }

    /// `text` as a value of `attribute`: through its value transformer when it has one
    /// (and the transformer accepts the text), else coerced to the attribute's type.
    /// - Throws: ``CommandError`` naming the attribute and its type.
    static func value(
        _ text: String, for attribute: AttributeDescription, in entity: ResolvedEntity,
        bindings: MappingBindings
    ) throws -> AttributeValue? {
        if let name = attribute.transformerName, let transformer = try? bindings.transformers.transformer(named: name),
            let value = try? transformer.forward(.string(text))
        {
            return value
        }
        if attribute.type == .json {
            // JSON text (`{"a":1}`, `1`, `"x"`); anything else is the string it spells.
            return .json((try? JSONReader.parse(text)) ?? .string(text))
        }
        do {
            return try JSONCoercion.value(from: .string(text), as: attribute.type)
        } catch {
            throw CommandError(
                .unknownName,
                "--where: cannot compare \(entity.name).\(attribute.name) (\(attribute.type)) "
                    + "with \"\(text)\": \(error)")
        }
    }
}
