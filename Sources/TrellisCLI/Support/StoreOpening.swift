import Foundation
import Trellis
import TrellisSQLite

/// Opening `--store` with messages that name the file and say what is wrong.
enum StoreOpening {
    /// Opens (or creates) the SQLite store at `url` for `model`.
    /// - Throws: ``CommandError`` `.store`.
    static func open(_ url: URL, path: String, model: ObjectModel, readOnly: Bool = false) throws -> SQLiteStore {
        do {
            return try SQLiteStore(path: url.path, model: model, configuration: SQLiteStore.Configuration(isReadOnly: readOnly))
        } catch let error as StoreError {
            throw commandError(error, path: path)
        }
    }

    /// `PATH: not a Trellis store: …`, `PATH: the store is read-only`,
    /// `PATH: cannot write the store: disk I/O error: File too large`, …
    static func commandError(_ error: StoreError, path: String) -> CommandError {
        switch error.code {
        case .notAStore: return CommandError(.store, "\(path): not a Trellis store: \(error.message)")
        case .readOnly: return CommandError(.store, "\(path): the store is read-only")
        case .incompatibleSchema: return CommandError(.store, "\(path): the store does not fit the model: \(error.message)")
        case .busy: return CommandError(.store, "\(path): the store is locked by another writer: \(error.message)")
        case .diskFull: return CommandError(.store, "\(path): cannot write the store: \(error.message)")
        default: return CommandError(.store, "\(path): \(error)")
        }
    }

    /// Removes a store file this command created (and SQLite's `-wal`, `-shm` and `-journal` files).
    static func removeStoreFiles(at url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }
}
