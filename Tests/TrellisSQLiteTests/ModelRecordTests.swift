import Foundation
import Testing
import Trellis

@testable import TrellisSQLite

/// The model a store records (`trellis_metadata` key `model`, ``SQLiteStore/Configuration/modelRecord``).
@Suite struct ModelRecordTests {
    func configuration(_ record: String?, policy: SQLiteStore.MigrationPolicy = .onOpen) -> SQLiteStore.Configuration {
        SQLiteStore.Configuration(migrationPolicy: policy, modelRecord: record)
    }

    func extendedModel() throws -> ObjectModel {
        try charactersModel(extraCharacterAttributes: [AttributeDescription(name: "alias", type: .string)])
    }

    @Test func aNewStoreRecordsTheGivenText() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        _ = try SQLiteStore(path: path, model: try charactersModel(), configuration: configuration(#"{"format":"trellis-model"}"#))
        #expect(try SQLiteStore.recordedModel(atPath: path) == #"{"format":"trellis-model"}"#)
        let rows = try SQLiteStore(path: path, model: try charactersModel()).rows("SELECT value FROM trellis_metadata WHERE key = 'model'")
        #expect(rows == [[#"{"format":"trellis-model"}"#]])
    }

    @Test func aStoreOpenedWithoutATextKeepsTheRecordWhileTheSchemaIsTheSame() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        _ = try SQLiteStore(path: path, model: try charactersModel(), configuration: configuration("one"))
        _ = try SQLiteStore(path: path, model: try charactersModel())
        #expect(try SQLiteStore.recordedModel(atPath: path) == "one")
        // A migration without a text drops it: it no longer describes the file.
        _ = try SQLiteStore(path: path, model: try extendedModel())
        #expect(try SQLiteStore.recordedModel(atPath: path) == nil)
    }

    @Test func aNewTextReplacesTheRecordWithOrWithoutAMigration() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        _ = try SQLiteStore(path: path, model: try charactersModel(), configuration: configuration("one"))
        _ = try SQLiteStore(path: path, model: try charactersModel(), configuration: configuration("two"))
        #expect(try SQLiteStore.recordedModel(atPath: path) == "two")
        _ = try SQLiteStore(path: path, model: try extendedModel(), configuration: configuration("three"))
        #expect(try SQLiteStore.recordedModel(atPath: path) == "three")
    }

    /// With migrations in write transactions, the record is written with the first write
    /// session, and a session that rolls back leaves the old record.
    @Test func theRecordCommitsOrRollsBackWithTheWriteSession() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        _ = try SQLiteStore(path: path, model: try charactersModel(), configuration: configuration("one"))

        struct Failure: Error {}
        let failing = try SQLiteStore(path: path, model: try extendedModel(), configuration: configuration("two", policy: .inWriteTransactions))
        #expect(try SQLiteStore.recordedModel(atPath: path) == "one")
        #expect(throws: Failure.self) { try failing.write { _ in throw Failure() } }
        #expect(try SQLiteStore.recordedModel(atPath: path) == "one")

        let store = try SQLiteStore(path: path, model: try charactersModel(), configuration: configuration("three", policy: .inWriteTransactions))
        #expect(try SQLiteStore.recordedModel(atPath: path) == "one")
        try store.write { _ in }
        #expect(try SQLiteStore.recordedModel(atPath: path) == "three")
    }

    @Test func aStoreWithoutARecordReadsNil() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        _ = try SQLiteStore(path: path, model: try charactersModel())
        #expect(try SQLiteStore.recordedModel(atPath: path) == nil)
    }

    @Test func aFileThatIsNotAStoreIsNotAStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let text = directory.path("t.sqlite")
        try Data("not a database, not at all; sixteen bytes and more".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: StoreError.self) { try SQLiteStore.recordedModel(atPath: text) }
        let empty = directory.path("e.sqlite")
        try Data().write(to: URL(fileURLWithPath: empty))
        let error = try #require(throws: StoreError.self) { try SQLiteStore.recordedModel(atPath: empty) }
        #expect(error.code == .notAStore)
        #expect(error.message == "\(empty) is not a Trellis store (it has no trellis_metadata table)")
    }
}
