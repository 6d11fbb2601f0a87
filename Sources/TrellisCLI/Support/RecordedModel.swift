import Foundation
import Trellis
import TrellisModelFile
import TrellisSQLite

/// The model a store records (`trellis_metadata` key `model`, written by every `trellis
/// import`), read where a command takes a model: `trellis model show STORE.sqlite`,
/// `model convert STORE.sqlite -o model.json`, `--model STORE.sqlite`, an import without `--model`.
enum RecordedModel {
    /// Whether the file at `url` starts with SQLite's header string (https://sqlite.org/fileformat.html#the_database_header).
    static func isSQLiteFile(_ url: URL) -> Bool {
        // Only a regular file: reading the header of a FIFO or a process substitution
        // (`--model <(cat model.json)`) would take those bytes from the model's reader.
        guard FileContents.kind(of: url) == .regular, let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return header == Data("SQLite format 3\0".utf8)
    }

    /// The text recorded in the store at `url` (named `path` in messages).
    /// - Throws: ``CommandError`` `.store` when the file is not a Trellis store,
    ///   `.invalidModel` when it records no model.
    static func text(store url: URL, path: String) throws -> String {
        let text: String?
        do {
            text = try SQLiteStore.recordedModel(atPath: url.path)
        } catch {
            throw StoreOpening.commandError(error, path: path, busyTimeoutMilliseconds: 0)
        }
        guard let text else {
            throw CommandError(.invalidModel, "\(path): the store records no model (it was written by a program that gave none, "
                               + "or by an older Trellis); give the model with --model")
        }
        return text
    }

    /// The recorded model of the store at `url`, with the bindings of a bindings file.
    /// - Throws: as ``text(store:path:)``; ``ModelFileError`` naming `path` for a recorded text that does not read.
    static func load(store url: URL, path: String, bindings: BindingDeclarations, bindingsPath: String?) throws -> LoadedModel {
        let text = try text(store: url, path: path)
        return try ModelLoader.load(recordedModel: Data(text.utf8), name: path, bindings: bindings, bindingsFile: bindingsPath)
    }
}
