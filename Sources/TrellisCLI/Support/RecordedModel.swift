import Foundation
import Trellis
import TrellisModelFile
import TrellisPostgres
import TrellisSQLite

/// The model a store records (`trellis_metadata` key `model`, written by every `trellis
/// import` and `trellis sync`, on SQLite and PostgreSQL), read where a command takes a model:
/// `trellis model show STORE.sqlite` (or `postgresql://…`), `model convert STORE.sqlite -o
/// model.json`, `--model STORE.sqlite`, an import without `--model`.
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

    /// The error for a store named `path` (at `url`) that is not an SQLite database: a
    /// directory, device, FIFO or socket is named as such (``StoreLocation.checkExisting(_:path:)``),
    /// any other file records no model.
    static func notAStore(_ url: URL, path: String) -> any Error {
        do { try StoreLocation.checkExisting(url, path: path) } catch { return error }
        return CommandError(.store, "\(path): not an SQLite store, so it records no model; give the model with --model")
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
            throw CommandError(
                .invalidModel,
                "\(path): the store records no model (it was written by a program that gave none, "
                    + "or by an older Trellis); give the model with --model")
        }
        return text
    }

    /// The text recorded in the PostgreSQL store `connection` names, or nil when the schema
    /// holds no store yet.
    /// - Throws: ``CommandError`` `.store` when the server cannot be reached or the schema
    ///   holds tables but no store, `.invalidModel` when the store records no model.
    static func text(postgres connection: String) throws -> String? {
        let recorded: (storeExists: Bool, model: String?)
        do {
            recorded = try PostgresStore.recordedModel(connection: connection)
        } catch let error as StoreError {
            throw PostgresStoreOpening.commandError(error, connection: connection)
        }
        guard recorded.storeExists else { return nil }
        guard let text = recorded.model else {
            throw CommandError(
                .invalidModel,
                "\(PostgresStoreOpening.name(connection)): the store records no model (it was written "
                    + "by a program that gave none, or by an older Trellis); give the model with --model")
        }
        return text
    }

    /// The recorded model of the PostgreSQL store `connection` names, with the bindings of a bindings file.
    /// - Throws: as ``text(postgres:)``, and ``CommandError`` `.store` when the schema holds no
    ///   store yet; ``ModelFileError`` for a recorded text that does not read.
    static func load(postgres connection: String, bindings: BindingDeclarations, bindingsPath: String?) throws -> LoadedModel {
        let name = PostgresStoreOpening.name(connection)
        guard let text = try text(postgres: connection) else {
            throw CommandError(.store, "\(name): no store there yet, so it records no model; give the model with --model")
        }
        return try ModelLoader.load(recordedModel: Data(text.utf8), name: name, bindings: bindings, bindingsFile: bindingsPath)
    }

    /// The recorded model of the store at `url`, with the bindings of a bindings file.
    /// - Throws: as ``text(store:path:)``; ``ModelFileError`` naming `path` for a recorded text that does not read.
    static func load(store url: URL, path: String, bindings: BindingDeclarations, bindingsPath: String?) throws -> LoadedModel {
        let text = try text(store: url, path: path)
        return try ModelLoader.load(recordedModel: Data(text.utf8), name: path, bindings: bindings, bindingsFile: bindingsPath)
    }
}
