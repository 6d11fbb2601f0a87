import Foundation
import Trellis
import TrellisModelFile

/// The model a `trellis import` uses, and the text the store records of it:
///
/// - `--model` when given (it always wins over a recorded model);
/// - without `--model`, on a new store: a model inferred from the payload;
/// - without `--model`, on a store that records a model: that model, extended with what
///   the payload adds (new optional attributes, relationships, entities), through the
///   store's additive migration. A value that does not fit the recorded model is a located
///   error naming both types; nothing is written.
struct ImportModel {
    /// Where the model came from, for the summary.
    enum Origin: Equatable {
        case file
        case inferred
        case recorded
        case extended([ModelExtension.Change])
    }

    var loaded: LoadedModel
    /// The Trellis JSON model file text the store records.
    var record: String
    var origin: Origin
    /// The payload is an object keyed by its members' identities: import it member by member.
    var readsMembers = false

    /// The model for an import of `inputs` into the store at `location`.
    /// - Throws: ``CommandError``: `.invalidModel` (the model file, or a store that records
    ///   none), `.invalidInput` (no objects to infer from), `.importFailed` (a value that
    ///   conflicts with the recorded model).
    static func resolve(
        _ options: ImportCommand.Options, inputs: [InputFile], location: StoreLocation,
        environment: CommandEnvironment
    ) throws -> ImportModel {
        if let modelPath = options.modelPath {
            let loaded = try ModelLoading.load(modelPath, bindings: options.bindingsPath, environment: environment)
            return ImportModel(loaded: loaded, record: text(of: loaded.modelFile), origin: .file)
        }
        var reading = InferenceReading(inputs: inputs, at: options.at, format: options.format, entity: options.entity, sample: nil)
        reading.keyAttribute = options.keyAttribute
        reading.valueKey = options.valueKey
        guard try location.holdsStore() else {
            let inferred = try reading.infer()
            return ImportModel(
                loaded: LoadedModel(file: inferred.file, store: options.storePath), record: text(of: inferred.file),
                origin: .inferred, readsMembers: inferred.isKeyedCollection)
        }
        let recorded = try ModelLoading.load(options.storePath, environment: environment)
        reading.knownEntities = KnownEntity.entities(of: recorded.model)
        let inferred = try reading.infer()
        let extended: ModelExtension.Extension
        do {
            extended = try ModelExtension.extend(recorded.modelFile, with: inferred)
        } catch {
            throw CommandError(.importFailed, reading.describe(error))
        }
        if extended.changes.isEmpty {
            return ImportModel(
                loaded: recorded, record: text(of: recorded.modelFile), origin: .recorded,
                readsMembers: inferred.isKeyedCollection)
        }
        return ImportModel(
            loaded: LoadedModel(file: extended.file, store: options.storePath), record: text(of: extended.file),
            origin: .extended(extended.changes), readsMembers: inferred.isKeyedCollection)
    }

    /// Whether `url` is an SQLite store that may record a model: false when there is no file or
    /// the file is empty (a 0-byte file is an empty store, as SQLite opens it).
    /// - Throws: `.store` for a non-empty file that is not an SQLite database (it is never read
    ///   as a model file).
    static func existingSQLiteStore(_ url: URL, path: String) throws -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return false }
        if (attributes[.size] as? NSNumber)?.intValue == 0 { return false }
        guard RecordedModel.isSQLiteFile(url) else { throw RecordedModel.notAStore(url, path: path) }
        return true
    }

    static func text(of file: ModelFile) -> String { String(decoding: file.data(), as: UTF8.self) }

    /// The summary line saying which model the import used (nil for `--model`):
    /// `model: inferred from the payload and recorded in t.sqlite; print it with: trellis model show t.sqlite`.
    func summaryLine(store: String, dryRun: Bool) -> String? {
        let show = "print it with: trellis model show \(store)"
        switch origin {
        case .file:
            return nil
        case .inferred:
            return dryRun
                ? "model: inferred from the payload (dry run: not recorded)"
                : "model: inferred from the payload (\(ModelCommand.counts(loaded.model))) and recorded in \(store); \(show)"
        case .recorded:
            return "model: the one recorded in \(store)"
        case .extended(let changes):
            let list = changes.map(\.description).joined(separator: ", ")
            return dryRun
                ? "model: the one recorded in \(store), which the payload would extend: \(list) (dry run: not recorded)"
                : "model: the one recorded in \(store), extended: \(list); \(show)"
        }
    }

    /// For `--report json`: `"inferred"`, `"recorded"`, `"extended"`; nil for `--model`.
    var reportName: String? {
        switch origin {
        case .file: return nil
        case .inferred: return "inferred"
        case .recorded: return "recorded"
        case .extended: return "extended"
        }
    }
}

extension InputFile {
    /// The name prefix of the copies of standard input (`trellis-stdin-PID-UUID.json`).
    static let spoolPrefix = "trellis-stdin-"

    /// Whether the input can be read only once: standard input, or a file that is not a
    /// regular file (a FIFO, `/dev/stdin`, a process substitution's `/dev/fd/63`).
    var isStream: Bool {
        guard let url else { return true }
        return FileContents.kind(of: url) == .stream
    }

    /// Standard input (or the stream at ``url``, see ``isStream``) copied to a temporary
    /// file, for an import that reads its input twice (to infer the model, then to import):
    /// named as before (`<stdin>`, `fifo.json`) in messages.
    ///
    /// The copy is readable by the user only (mode 0600: it holds whatever was piped in) and
    /// removed by `cleanup`. A process killed meanwhile (`kill -9`, Ctrl-C) cannot remove
    /// it: the copies of processes that no longer run are removed here, by the next import
    /// from standard input (``removeAbandonedSpools(in:)``).
    /// - Throws: ``CommandError`` `.invalidInput` when standard input cannot be read or copied.
    func spooled() throws -> (input: InputFile, cleanup: () -> Void) {
        let directory = FileManager.default.temporaryDirectory
        InputFile.removeAbandonedSpools(in: directory)
        let url = directory.appendingPathComponent("\(InputFile.spoolPrefix)\(getpid())-\(UUID().uuidString).json")
        let what = self.url == nil ? "standard input" : "the input"
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let out = try? FileHandle(forWritingTo: url)
        else {
            throw CommandError(.invalidInput, "\(name): cannot copy \(what) to a temporary file")
        }
        defer { try? out.close() }
        do {
            let source = try self.url.map { try FileHandle(forReadingFrom: $0) } ?? standardInput
            defer { if self.url != nil { try? source.close() } }
            while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty {
                try out.write(contentsOf: chunk)
            }
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw CommandError(.invalidInput, "\(name): cannot copy \(what) to a temporary file: \(error.localizedDescription)")
        }
        return (InputFile(name: name, url: url, standardInput: standardInput), { try? FileManager.default.removeItem(at: url) })
    }

    /// Removes the copies of standard input that processes which no longer run left in
    /// `directory`: named with the ID of a process for which `kill(pid, 0)` fails with
    /// `ESRCH` (as ``StagedStore/removeAbandoned(for:)`` does for stores).
    static func removeAbandonedSpools(in directory: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(spoolPrefix) && name.hasSuffix(".json") {
            guard let pid = Int32(name.dropFirst(spoolPrefix.count).prefix { $0 != "-" }), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
        }
    }

    init(name: String, url: URL?, standardInput: FileHandle) {
        self.name = name
        self.url = url
        self.standardInput = standardInput
    }
}
