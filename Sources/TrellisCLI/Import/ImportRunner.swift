import Foundation
import Trellis
import TrellisModelFile
import TrellisSQLite

/// Runs one `trellis import`: checks everything that can be checked before the store is
/// touched (model, entity, attributes, inputs, store location), then imports every input
/// in one transaction and renders the summary. On failure the store is unchanged, and a
/// store file this run created is removed.
struct ImportRunner {
    let options: ImportCommand.Options
    let environment: CommandEnvironment

    func run() throws -> String {
        let started = ContinuousClock.now
        let file = try ModelLoading.load(options.modelPath, bindings: options.bindingsPath, environment: environment)
        let entity = try ModelLoading.entity(options.entity, in: file.model, modelPath: options.modelPath)
        if let name = options.keyAttribute {
            _ = try ModelLoading.attribute(name, of: entity, option: "--key-attribute")
            let mapped = entity.attributeMappings.map { entity.attributes[$0.index].name }
            guard mapped.contains(name) else {
                throw CommandError(.unknownName, "--key-attribute: '\(name)' is not a mapped attribute of \(entity.name) "
                                       + "(it has no JSON key path); mapped attributes: " + (mapped.isEmpty ? "none" : mapped.joined(separator: ", ")))
            }
        }
        for input in options.inputs { try InputCheck.check(input) }
        let storeURL = environment.url(for: options.storePath)
        try StoreLocation.check(storeURL, path: options.storePath)

        var mappedKeys: Set<String> = []
        for mapping in entity.attributeMappings { if let k = mapping.keyPath.components.first?.key { mappedKeys.insert(k) } }
        for mapping in entity.relationshipMappings { if let k = mapping.keyPath.components.first?.key { mappedKeys.insert(k) } }
        let readers = try options.inputs.map { input in
            try InputElementReader(input: input, at: options.at, lines: options.lines, alwaysMembers: options.keyAttribute != nil,
                                   valueKey: options.valueKey, mappedKeys: mappedKeys)
        }
        let totalBytes = readers.reduce(0) { $0 + ($1.totalBytes ?? 0) }
        let progress = ProgressBar(totalBytes: totalBytes, enabled: environment.showsProgress)
        defer { progress.finish() }

        let existed = FileManager.default.fileExists(atPath: storeURL.path)
        let report: ImportReport
        do {
            let store: any PersistentStore
            if options.dryRun && !existed {
                store = InMemoryStore(model: file.model)
            } else {
                store = try StoreOpening.open(storeURL, path: options.storePath, model: file.model,
                                              busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
            }
            var source = ChainedImportSource(readers: readers, progress: progress)
            var importOptions = ImportOptions()
            importOptions.keyAttribute = options.keyAttribute
            importOptions.dryRun = options.dryRun
            importOptions.reportsObjectIDs = false
            let context = ObjectContext(store: store, bindings: file.bindings)
            do {
                report = try context.importObjects(from: &source, entity: entity.name, options: importOptions)
            } catch let error as ImportError {
                throw CommandError(.importFailed, "\(source.locate(error.path)): \(error.message)")
            } catch let error as StoreError {
                throw StoreOpening.commandError(error, path: options.storePath, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
            }
        } catch {
            if !existed { StoreOpening.removeStoreFiles(at: storeURL) }
            throw error
        }
        progress.finish()
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if options.jsonReport {
            return ImportSummary.json(report, model: file.model, imported: entity.name, seconds: seconds)
        }
        return ImportSummary.text(report, model: file.model, imported: entity.name, files: options.inputs.count,
                                  store: options.storePath, seconds: seconds)
    }
}
