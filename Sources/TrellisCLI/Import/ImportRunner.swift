import Foundation
import Trellis
import TrellisModelFile
import TrellisSQLite

/// Runs one `trellis import`: checks everything that can be checked before the store is
/// touched (model, entity, attributes, inputs, store location), then imports every input
/// in one transaction and renders the summary. On failure the store is unchanged; a new
/// store is built under a private name and appears at its path only once its import
/// committed (``StagedStore``), so a failed first import leaves nothing behind.
struct ImportRunner {
    let options: ImportCommand.Options
    let environment: CommandEnvironment
    /// The warnings of the run, for standard error (``IdentityWarning``).
    let warnings = Warnings()

    /// Lines after `warning: `, in the order they arose.
    final class Warnings {
        var lines: [String] = []
    }

    func run() throws -> String {
        let started = ContinuousClock.now
        var inputs = options.inputs
        var cleanups: [() -> Void] = []
        defer { for cleanup in cleanups { cleanup() } }
        // Until the import has read everything, a signal ends it at once: nothing is committed.
        Interruption.begin("nothing was imported")
        defer { Interruption.end() }
        let location = StoreLocation(options.storePath, environment: environment)
        let resolved: ImportModel
        let entity: ResolvedEntity
        if options.modelPath != nil {
            resolved = try ImportModel.resolve(options, inputs: inputs, location: location, environment: environment)
            entity = try checkedEntity(in: resolved)
            for input in inputs { try InputCheck.check(input) }
            try location.checkCreatable()
        } else {
            // The model comes from the inputs (and the store): check those first.
            for input in inputs { try InputCheck.check(input) }
            try location.checkCreatable()
            // Read twice (to infer the model, then to import): standard input, a FIFO or a
            // process substitution (`<(curl …)`) from a copy, since a second read finds nothing.
            for i in inputs.indices where inputs[i].isStream {
                let spooled = try inputs[i].spooled()
                inputs[i] = spooled.input
                cleanups.append(spooled.cleanup)
                if let copy = spooled.input.url { Interruption.onInterrupt { try? FileManager.default.removeItem(at: copy) } }
            }
            resolved = try ImportModel.resolve(options, inputs: inputs, location: location, environment: environment)
            entity = try checkedEntity(in: resolved)
        }
        let file = resolved.loaded

        let makeReaders = {
            inputs.map { input in
                InputElementReader(
                    input: input, at: options.at, lines: input.readsLines(format: options.format),
                    alwaysMembers: options.keyAttribute != nil || resolved.readsMembers,
                    valueKey: options.valueKey, entityName: entity.name)
            }
        }
        let readers = makeReaders()
        let totalBytes = readers.reduce(0) { $0 + ($1.totalBytes ?? 0) }
        let progress = ProgressBar(totalBytes: totalBytes, enabled: environment.showsProgress)
        defer { progress.finish() }
        Interruption.show(progress)

        let report: ImportReport
        switch location {
        case .postgres:
            report = try importIntoPostgres(
                from: readers, makeReaders: makeReaders, rereadable: !inputs.contains(where: \.isStandardInput),
                model: file, record: resolved.record, entity: entity.name, progress: progress)
        case .sqlite(_, let storeURL):
            report = try importIntoSQLite(
                from: readers, makeReaders: makeReaders, inputs: inputs, storeURL: storeURL,
                resolved: resolved, entity: entity.name, progress: progress)
        }
        progress.finish()
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if options.jsonReport {
            return ImportSummary.json(report, model: file.model, imported: entity.name, seconds: seconds, origin: resolved.reportName)
        }
        let storeName = location.name
        let text = ImportSummary.text(
            report, model: file.model, imported: entity.name, files: options.inputs.count,
            store: storeName, seconds: seconds)
        return text + (resolved.summaryLine(store: storeName, dryRun: options.dryRun).map { $0 + "\n" } ?? "")
    }

    /// Imports into the SQLite store at `storeURL`: an existing one in one transaction; a new
    /// one built under a private name and published complete (``StagedStore``).
    private func importIntoSQLite(
        from readers: [InputElementReader], makeReaders: () -> [InputElementReader], inputs: [InputFile],
        storeURL: URL, resolved: ImportModel, entity: String, progress: ProgressBar
    ) throws -> ImportReport {
        let file = resolved.loaded
        if !options.dryRun { StagedStore.removeAbandoned(for: storeURL) }
        let report: ImportReport
        if FileManager.default.fileExists(atPath: storeURL.path) {
            report = try importObjects(
                from: readers, into: storeURL, model: file, record: resolved.record, entity: entity,
                progress: progress)
        } else if options.dryRun {
            report = try importObjects(
                from: readers, into: nil, model: file, record: resolved.record, entity: entity,
                progress: progress)
        } else {
            // A new store is built under a private name and published complete (StagedStore).
            let staged = StagedStore(for: storeURL)
            let removal = Interruption.onInterrupt { staged.remove() }
            defer { Interruption.removeCleanup(removal) }
            var published: ImportReport?
            do {
                let built = try importObjects(
                    from: readers, into: staged.url, model: file, record: resolved.record,
                    entity: entity, progress: progress, migrationPolicy: .onOpen)
                try staged.publish(path: options.storePath)
                published = built
            } catch is StagedStore.DestinationExists {
                staged.remove()
            } catch {
                staged.remove()
                throw error
            }
            if let published {
                report = published
            } else {
                // Another import created the store while this one ran: import again, into it.
                guard !inputs.contains(where: \.isStandardInput) else {
                    throw CommandError(
                        .store,
                        "\(options.storePath): another process created the store while this import "
                            + "read standard input; nothing was written (run the import again)")
                }
                Interruption.show(progress)
                report = try importObjects(
                    from: makeReaders(), into: storeURL, model: file, record: resolved.record,
                    entity: entity, progress: progress)
            }
        }
        return report
    }

    /// Imports into the PostgreSQL store `--store` names, in one transaction that also
    /// creates or migrates its tables (so a failed import or a dry run changes nothing). A
    /// transaction that conflicts with a concurrent import is run again from the first byte
    /// of every file (standard input cannot be read twice: the conflict is reported).
    private func importIntoPostgres(
        from readers: [InputElementReader], makeReaders: @escaping () -> [InputElementReader],
        rereadable: Bool, model file: LoadedModel, record: String, entity: String,
        progress: ProgressBar
    ) throws -> ImportReport {
        let store = try PostgresStoreOpening.open(options.storePath, model: file.model, readOnly: false, modelRecord: record)
        var source = ChainedImportSource(readers: readers, progress: progress, makeReaders: rereadable ? makeReaders : nil)
        var importOptions = ImportOptions()
        importOptions.keyAttribute = options.keyAttribute
        importOptions.dryRun = options.dryRun
        importOptions.reportsObjectIDs = false
        importOptions.origin = options.local ? .local : .import
        let context = ObjectContext(store: store, bindings: file.bindings)
        do {
            return try context.importObjects(from: &source, entity: entity, options: importOptions)
        } catch let error as ImportError {
            throw CommandError(.importFailed, "\(source.locate(error.path)): \(error.message)")
        } catch let error as StoreError {
            throw PostgresStoreOpening.commandError(error, connection: options.storePath)
        }
    }

    /// The imported entity, with `--key-attribute` checked against it.
    private func checkedEntity(in resolved: ImportModel) throws -> ResolvedEntity {
        let entity = try ModelLoading.entity(options.entity, in: resolved.loaded.model, modelPath: options.modelPath ?? options.storePath)
        if let name = options.keyAttribute {
            _ = try ModelLoading.attribute(name, of: entity, option: "--key-attribute") { "--key-attribute \($0)" }
            let mapped = entity.attributeMappings.map { entity.attributes[$0.index].name }
            guard mapped.contains(name) else {
                throw CommandError(
                    .unknownName,
                    "--key-attribute: '\(name)' is not a mapped attribute of \(entity.name) "
                        + "(it has no JSON key path); mapped attributes: " + (mapped.isEmpty ? "none" : mapped.joined(separator: ", ")))
            }
        }
        return entity
    }

    /// Imports the elements of `readers` into the SQLite store at `url` (opened or created;
    /// nil: an in-memory store, for a dry run without a store) in one transaction. The store
    /// is closed when this returns.
    ///
    /// An existing store is migrated inside that transaction (``SQLiteStore/MigrationPolicy/inWriteTransactions``),
    /// so a failed import leaves it as it was, and a dry run, rolled back, too: its report is the
    /// real import's, from the migrated store, and the file keeps every byte. A store being
    /// created (staged, private) gets its schema when it opens.
    /// `record` is the model file text the store records.
    private func importObjects(
        from readers: [InputElementReader], into url: URL?, model file: LoadedModel, record: String,
        entity: String, progress: ProgressBar,
        migrationPolicy: SQLiteStore.MigrationPolicy = .inWriteTransactions
    ) throws -> ImportReport {
        let store: any PersistentStore
        if let url {
            let sqliteStore = try StoreOpening.open(
                url, path: options.storePath, model: file.model, migrationPolicy: migrationPolicy,
                busyTimeoutMilliseconds: options.busyTimeoutMilliseconds, modelRecord: record,
                notes: environment.notes, repairs: !options.dryRun)
            sqliteStore.reportWaits { [progress] waited in progress.waiting(waited) }
            store = sqliteStore
        } else {
            store = InMemoryStore(model: file.model)
        }
        var source = ChainedImportSource(readers: readers, progress: progress)
        var importOptions = ImportOptions()
        importOptions.keyAttribute = options.keyAttribute
        importOptions.dryRun = options.dryRun
        importOptions.reportsObjectIDs = false
        importOptions.origin = options.local ? .local : .import
        let context = ObjectContext(store: store, bindings: file.bindings)
        do {
            let warning =
                url == nil || migrationPolicy == .onOpen
                ? nil
                : try IdentityWarning.before(importing: entity, model: file.model, store: store)
            let report = try context.importObjects(from: &source, entity: entity, options: importOptions)
            if let text = warning?.message(after: report, recordedModel: options.modelPath == nil, storePath: options.storePath) {
                warnings.lines.append(text)
            }
            return report
        } catch let error as ImportError {
            let hint = hint(for: error, in: source, entity: entity, model: file.model).map { "; " + $0 } ?? ""
            throw CommandError(.importFailed, "\(source.locate(error.path)): \(error.message)\(hint)")
        } catch let error as StoreError {
            throw StoreOpening.commandError(error, path: options.storePath, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        }
    }

    /// The hint for a required value missing from a collection read as one object
    /// (``CollectionHint``: `did you mean --at statuses?`), or nil.
    private func hint(
        for error: ImportError, in source: ChainedImportSource, entity name: String,
        model: ObjectModel
    ) -> String? {
        guard error.code == .missingRequiredValue, let entity = model.entity(named: name),
            let (reader, path) = source.input(of: error.path), let collectionPath = reader.wholeCollectionPath,
            path.components.starts(with: collectionPath.components), let collection = reader.wholeCollection()
        else { return nil }
        let hint = CollectionHint(entity: entity, at: options.at)
        return hint.hint(collection: collection, wanted: hint.wantedKeyPaths(missing: error.property))
    }
}
