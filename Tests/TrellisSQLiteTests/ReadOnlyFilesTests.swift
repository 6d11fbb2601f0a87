import Foundation
import Testing
import Trellis

@testable import TrellisSQLite

/// A read-only store leaves no file behind that was not there (https://sqlite.org/wal.html,
/// "Read-only databases"): its reads of a WAL store create `-wal` and `-shm`, which it
/// removes when it closes last; files another connection made stay.
@Suite struct ReadOnlyFilesTests {
    static func files(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    /// A closed store with objects: only `s.sqlite` is left.
    static func seeded(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path("s.sqlite")
        try OpeningTests().seed(try SQLiteStore(path: path, model: try charactersModel()))
        #expect(try files(in: directory) == ["s.sqlite"])
        return path
    }

    /// Read-only stores, their metadata and recorded model read, closed: the directory holds
    /// exactly what it held; the file's bytes are unchanged.
    @Test func aReadOnlyStoreLeavesNoFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try Self.seeded(directory)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let store = try SQLiteStore(path: path, model: try charactersModel(), configuration: .init(isReadOnly: true))
            #expect(try store.read { try $0.fetch(entity: "Character", matching: nil) }.count == 1)
            #expect(try Self.files(in: directory) == ["s.sqlite", "s.sqlite-shm", "s.sqlite-wal"])  // while it is open
            #expect(throws: StoreError.self) { try store.write { _ in } }
            #expect(try store.read { try $0.metadataValue(forKey: "x") } == nil)
        }
        #expect(try Self.files(in: directory) == ["s.sqlite"])
        _ = try SQLiteStore.recordedModel(atPath: path)
        #expect(try Self.files(in: directory) == ["s.sqlite"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    /// A read-only store opened while a writer has the store open neither removes the
    /// writer's files nor keeps them once the writer is gone and it closes last.
    @Test func theWritersFilesAreTheWriters() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try Self.seeded(directory)
        var writer: SQLiteStore? = try SQLiteStore(path: path, model: try charactersModel())
        _ = try writer?.read { try $0.fetch(entity: "Character", matching: nil) }
        #expect(try Self.files(in: directory) == ["s.sqlite", "s.sqlite-shm", "s.sqlite-wal"])
        do {
            let reader = try SQLiteStore(path: path, model: try charactersModel(), configuration: .init(isReadOnly: true))
            #expect(try reader.read { try $0.fetch(entity: "Character", matching: nil) }.count == 1)
        }
        #expect(try Self.files(in: directory) == ["s.sqlite", "s.sqlite-shm", "s.sqlite-wal"])
        _ = try writer?.write { try $0.setMetadataValue("1", forKey: "k") }
        writer = nil
        #expect(try Self.files(in: directory) == ["s.sqlite"])
        let reader = try SQLiteStore(path: path, model: try charactersModel(), configuration: .init(isReadOnly: true))
        #expect(try reader.read { try $0.metadataValue(forKey: "k") } == "1")
    }

    /// A read-only store refuses every write, also through SQL the layout never runs.
    @Test func aReadOnlyStoreWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = try Self.seeded(directory)
        let store = try SQLiteStore(path: path, model: try charactersModel(), configuration: .init(isReadOnly: true))
        #expect(store.isReadOnly)
        let error = try #require(throws: StoreError.self) { try store.withConnection { try $0.execute("DELETE FROM Character") } }
        #expect(error.code == .readOnly)
        #expect(try store.rows("SELECT count(*) FROM Character") == [["1"]])
    }
}
