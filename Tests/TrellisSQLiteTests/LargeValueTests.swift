import CSQLite
import Foundation
import Testing
import Trellis

@testable import TrellisSQLite

/// Values longer than SQLite's length limit (`SQLITE_LIMIT_LENGTH`, 1,000,000,000 bytes by
/// default) are refused with an error naming the entity and attribute, never cut short or
/// stored as NULL. The tests lower the limit on the store's connection to 1,000 bytes
/// instead of binding a gigabyte.
@Suite struct LargeValueTests {
    static let limit: Int32 = 1000

    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Note",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64),
                    AttributeDescription(name: "body", type: .string),
                    AttributeDescription(name: "blob", type: .binary),
                ], userInfo: ["identityAttributes": "id"])
        ])
    }

    static func store(in directory: TemporaryDirectory) throws -> SQLiteStore {
        let store = try SQLiteStore(path: directory.path("notes.sqlite"), model: model())
        try store.withConnection { connection in
            _ = sqlite3_limit(connection.handle, SQLITE_LIMIT_LENGTH, limit)
        }
        return store
    }

    static func note(_ n: Int64, body: String?, blob: Data? = nil) -> ObjectSnapshot {
        ObjectSnapshot(
            id: tid("Note", n), isPlaceholder: false,
            attributes: [.integer(n), body.map(AttributeValue.string), blob.map(AttributeValue.binary)], relationships: [])
    }

    @Test func textLongerThanTheLimitIsAnErrorNotNull() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(in: directory)
        _ = try store.write { try $0.apply(ChangeSet(inserted: [Self.note(1, body: String(repeating: "a", count: 900))])) }

        let error = try #require(throws: StoreError.self) {
            try store.write { try $0.apply(ChangeSet(inserted: [Self.note(2, body: String(repeating: "é", count: 600))])) }
        }
        #expect(error.code == .valueTooLarge)
        #expect(error.message == "entity Note, attribute body: a text value of 1200 bytes is larger than the store's limit of 1000 bytes")
        #expect(error.engineCode == .sqlite(18, name: "string or blob too big"))
        #expect(error.sql?.hasPrefix("INSERT INTO \"Note\"") == true)
        #expect(try store.rows(#"SELECT "id", length("body") FROM "Note""#) == [["1", "900"]])
    }

    @Test func anUpdateToATooLongValueKeepsTheOldValue() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(in: directory)
        let ids = try store.write { try $0.apply(ChangeSet(inserted: [Self.note(1, body: "short")])) }
        let id = try #require(ids[tid("Note", 1)])
        let error = try #require(throws: StoreError.self) {
            try store.write {
                try $0.apply(
                    ChangeSet(updated: [ObjectChange(id: id, attributes: [AttributeChange(index: 1, value: .string(String(repeating: "b", count: 1001)))])]))
            }
        }
        #expect(error.code == .valueTooLarge)
        #expect(error.message == "entity Note, attribute body: a text value of 1001 bytes is larger than the store's limit of 1000 bytes")
        #expect(try store.rows(#"SELECT "body" FROM "Note""#) == [["short"]])
    }

    @Test func bytesLongerThanTheLimitAreAnError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Self.store(in: directory)
        let error = try #require(throws: StoreError.self) {
            try store.write { try $0.apply(ChangeSet(inserted: [Self.note(1, body: nil, blob: Data(count: 4096))])) }
        }
        #expect(error.code == .valueTooLarge)
        #expect(error.message == "entity Note, attribute blob: a binary value of 4096 bytes is larger than the store's limit of 1000 bytes")
        #expect(try store.rows(#"SELECT count(*) FROM "Note""#) == [["0"]])
    }
}
