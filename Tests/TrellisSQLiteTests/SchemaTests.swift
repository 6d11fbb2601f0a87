import Foundation
import Testing
import Trellis

@testable import TrellisSQLite

@Suite struct SchemaTests {
    @Test func charactersModelCreatesDocumentedTablesAndIndexes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try charactersModel(versionLabel: "3"))
        let objects = try store.rows("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        #expect(
            objects == [
                [
                    "table", "trellis_metadata", "trellis_metadata",
                    #"CREATE TABLE "trellis_metadata" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL)"#,
                ],
                [
                    "table", "Character", "Character",
                    #"""
                    CREATE TABLE "Character" (
                      "_pk" INTEGER PRIMARY KEY,
                      "_entity" TEXT NOT NULL,
                      "_placeholder" INTEGER NOT NULL DEFAULT 0,
                      "id" TEXT,
                      "name" TEXT,
                      "realName" TEXT,
                      "createdAt" REAL,
                      "rating" REAL,
                      "active" INTEGER,
                      "publisher" INTEGER REFERENCES "Publisher"("_pk") ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED
                    )
                    """#,
                ],
                [
                    "table", "Power", "Power",
                    #"""
                    CREATE TABLE "Power" (
                      "_pk" INTEGER PRIMARY KEY,
                      "_entity" TEXT NOT NULL,
                      "_placeholder" INTEGER NOT NULL DEFAULT 0,
                      "id" TEXT,
                      "name" TEXT
                    )
                    """#,
                ],
                [
                    "table", "Publisher", "Publisher",
                    #"""
                    CREATE TABLE "Publisher" (
                      "_pk" INTEGER PRIMARY KEY,
                      "_entity" TEXT NOT NULL,
                      "_placeholder" INTEGER NOT NULL DEFAULT 0,
                      "id" TEXT,
                      "name" TEXT
                    )
                    """#,
                ],
                [
                    "table", "Character.powers", "Character.powers",
                    #"""
                    CREATE TABLE "Character.powers" (
                      "source" INTEGER NOT NULL REFERENCES "Character"("_pk") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                      "destination" INTEGER NOT NULL,
                      PRIMARY KEY ("source", "destination")
                    ) WITHOUT ROWID
                    """#,
                ],
                ["index", "Character(publisher)", "Character", #"CREATE INDEX "Character(publisher)" ON "Character"("publisher")"#],
                ["index", "Character identity", "Character", #"CREATE UNIQUE INDEX "Character identity" ON "Character"("id")"#],
                ["index", "Power identity", "Power", #"CREATE UNIQUE INDEX "Power identity" ON "Power"("id")"#],
                ["index", "Publisher identity", "Publisher", #"CREATE UNIQUE INDEX "Publisher identity" ON "Publisher"("id")"#],
            ])
        #expect(try SQLiteStore.schemaStatements(for: try charactersModel()) == objects.map { $0[3] ?? "" })
        let metadata = try store.rows("SELECT key, value FROM trellis_metadata WHERE key <> 'schema' ORDER BY key")
        let schema = try #require(try store.rows("SELECT value FROM trellis_metadata WHERE key = 'schema'").first?.first ?? nil)
        #expect(metadata == [["format", "1"], ["modelVersion", "3"], ["schemaHash", SQLiteStore.fnv1a64Hex(schema)]])
        // The schema description is JSON that SQLite's JSON functions read.
        #expect(
            try store.rows(
                """
                SELECT json_extract(e.value, '$.name'), json_extract(e.value, '$.table')
                FROM trellis_metadata AS m, json_each(m.value, '$.entities') AS e WHERE m.key = 'schema'
                """) == [["Character", "Character"], ["Power", "Power"], ["Publisher", "Publisher"]])
        #expect(try store.rows("PRAGMA journal_mode") == [["wal"]])
        #expect(try store.rows("PRAGMA foreign_keys") == [["1"]])
        #expect(try store.rows("PRAGMA synchronous") == [["1"]])  // NORMAL
    }

    @Test func inheritanceHierarchySharesOneTableWithAnEntityColumn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try animalsModel())
        #expect(
            try store.rows("SELECT name FROM pragma_table_info('Animal') ORDER BY cid")
                == [
                    ["_pk"], ["_entity"], ["_placeholder"], ["id"], ["name"], ["barks"], ["color"], ["lives"], ["Cat.color"], ["friend"],
                ].map { $0.map(Optional.some) })
        #expect(
            try store.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") == [
                ["Animal"], ["Seat"], ["Seat.tags"], ["Tag"], ["Vehicle"], ["trellis_metadata"],
            ])
        #expect(
            try store.rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql LIKE '%UNIQUE%' ORDER BY name") == [
                ["Animal identity", #"CREATE UNIQUE INDEX "Animal identity" ON "Animal"("id")"#],
                ["Car identity", #"CREATE UNIQUE INDEX "Car identity" ON "Vehicle"("plate") WHERE "_entity" IN ('Car', 'SportsCar')"#],
                ["Seat identity", #"CREATE UNIQUE INDEX "Seat identity" ON "Seat"("row", "number")"#],
                ["Tag identity", #"CREATE UNIQUE INDEX "Tag identity" ON "Tag"("label")"#],
            ])
        #expect(try store.rows("SELECT name FROM pragma_table_info('Seat.tags') ORDER BY cid") == [["source"], ["destination"], ["position"]])
    }

    @Test func identifiersWithQuotesSemicolonsAndKeywordsWork() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try quotingModel()
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: model)
        #expect(
            try store.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") == [
                ["Order"], ["Order.items"], ["a\"b;c"], ["trellis_metadata"],
            ])
        #expect(
            try store.rows(#"SELECT name FROM pragma_table_info('a"b;c') ORDER BY cid"#)
                == [
                    ["_pk"], ["_entity"], ["_placeholder"], ["from"], ["a\"b;c._pk"], ["Select"],
                ].map { $0.map(Optional.some) })
        let ids = try store.write { session in
            try session.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(
                        id: tid("a\"b;c", 1), isPlaceholder: false,
                        attributes: [.string("x'); DROP TABLE \"Order\"; --"), .integer(7), .string("sel")], relationships: []),
                    ObjectSnapshot(
                        id: tid("Order", 2), isPlaceholder: false,
                        attributes: [.string("o1"), .integer(-1)],
                        relationships: [[tid("a\"b;c", 1)], [tid("a\"b;c", 1)]]),
                ]))
        }
        let order = try #require(ids[tid("Order", 2)])
        let fetched = try store.read { try $0.fetch(entity: "Order", identities: [[.string("o1")]]) }
        #expect(
            fetched == [
                ObjectSnapshot(
                    id: order, isPlaceholder: false, attributes: [.string("o1"), .integer(-1)],
                    relationships: [
                        [ObjectID(entityName: "a\"b;c", primaryKey: 1)],
                        [ObjectID(entityName: "a\"b;c", primaryKey: 1)],
                    ])
            ])
        #expect(try store.rows(#"SELECT "from", "a""b;c._pk", "Select" FROM "a""b;c""#) == [["x'); DROP TABLE \"Order\"; --", "7", "sel"]])
        #expect(try store.rows(#"SELECT "select", "a""b;c", "group" FROM "Order""#) == [["o1", "-1", "1"]])
        let quotedMatches = try store.read {
            try $0.fetch(entity: "a\"b;c", matching: .equals(attribute: "from", value: .string("x'); DROP TABLE \"Order\"; --")))
        }
        #expect(quotedMatches.map(\.id) == [ObjectID(entityName: "a\"b;c", primaryKey: 1)])
    }
}
