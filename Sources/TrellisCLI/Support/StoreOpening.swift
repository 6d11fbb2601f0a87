import Foundation
import Trellis
import TrellisSQLite

/// Opening `--store` with messages that name the file and say what is wrong.
enum StoreOpening {
    /// Opens (or creates) the SQLite store at `url` for `model`.
    ///
    /// With ``SQLiteStore/MigrationPolicy/inWriteTransactions`` the schema work the model needs
    /// is done inside the import's transaction (and rolled back with it: a failed import or a
    /// dry run leaves the file as it was), and a read-only store (export) reads the file as the
    /// work would leave it, without writing it.
    /// - Throws: ``CommandError`` `.store`.
    /// `modelRecord` is the model file text the store records (``SQLiteStore/Configuration/modelRecord``).
    /// `manyTransactions`: the command commits many small transactions (`trellis sync`, one per
    /// page): temporary data in memory, fewer WAL checkpoints (see ``SQLiteStore/Configuration``).
    /// Indexes a killed sync run left deferred are rebuilt on opening (unless `repairs` is
    /// false: a dry run), and `notes` gets a line saying so.
    static func open(
        _ url: URL, path: String, model: ObjectModel, readOnly: Bool = false,
        migrationPolicy: SQLiteStore.MigrationPolicy,
        busyTimeoutMilliseconds: Int, modelRecord: String? = nil, manyTransactions: Bool = false,
        notes: CommandNotes, repairs: Bool = true
    ) throws -> SQLiteStore {
        do {
            let configuration = SQLiteStore.Configuration(
                isReadOnly: readOnly, busyTimeoutMilliseconds: busyTimeoutMilliseconds,
                migrationPolicy: migrationPolicy, modelRecord: modelRecord,
                keepsTemporaryDataInMemory: manyTransactions,
                walAutocheckpointPages: manyTransactions ? 10_000 : nil,
                repairsDeferredIndexes: repairs)
            let store = try SQLiteStore(path: url.path, model: model, configuration: configuration)
            if let note = repairNote(store.repairedDeferredIndexes, path: path) { notes.add(note) }
            return store
        } catch let error as StoreError {
            throw commandError(error, path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        }
    }

    /// `PATH: rebuilt 3 indexes a sync run left deferred (it was interrupted)`; nil for 0.
    static func repairNote(_ count: Int, path: String) -> String? {
        guard count > 0 else { return nil }
        return "\(path): rebuilt \(count) \(count == 1 ? "index" : "indexes") a sync run left deferred (it was interrupted)"
    }

    /// `PATH: not a Trellis store: …`, `PATH: the store is read-only`,
    /// `PATH: the store's schema cannot be migrated to the model: entity E: the entity was removed`,
    /// `PATH: cannot write the store: disk I/O error: File too large`, …
    static func commandError(_ error: StoreError, path: String, busyTimeoutMilliseconds: Int) -> CommandError {
        switch error.code {
        case .notAStore: return CommandError(.store, "\(path): not a Trellis store: \(error.message)")
        case .readOnly: return CommandError(.store, "\(path): the store is read-only")
        case .incompatibleSchema: return CommandError(.store, "\(path): \(error.message)")
        case .busy:
            return CommandError(
                .store,
                "\(path): the store is locked by another writer (gave up after "
                    + "\(seconds(busyTimeoutMilliseconds)); see --busy-timeout): \(error.message)")
        case .diskFull: return CommandError(.store, "\(path): cannot write the store: \(error.message)")
        default: return CommandError(.store, "\(path): \(error)")
        }
    }

    /// `60 s`, `0.25 s`.
    static func seconds(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}
