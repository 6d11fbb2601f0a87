import Foundation
import Testing
import Trellis
import TrellisTestSupport
@testable import TrellisPostgres

/// The PostgreSQL store's DDL, and names PostgreSQL treats specially (docs/PostgresStore.md).
@Suite(.enabled(if: PostgresTestServer.isEnabled, "TRELLIS_SKIP_POSTGRES=1"))
struct PostgresSchemaTests {
    /// The benchmark's shape: Character.powers ↔ Power.characters (many-to-many),
    /// Character.publisher ↔ Publisher.characters.
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(name: "Character", attributes: [
                AttributeDescription(name: "id", type: .string, isOptional: false),
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "createdAt", type: .date),
                AttributeDescription(name: "rating", type: .double),
                AttributeDescription(name: "price", type: .decimal),
            ], relationships: [
                RelationshipDescription(name: "powers", destinationEntity: "Power", inverseName: "characters", isToMany: true),
                RelationshipDescription(name: "publisher", destinationEntity: "Publisher", inverseName: "characters"),
            ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(name: "Power", attributes: [AttributeDescription(name: "id", type: .string)], relationships: [
                RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "powers", isToMany: true),
            ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(name: "Publisher", attributes: [AttributeDescription(name: "id", type: .string)], relationships: [
                RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "publisher", isToMany: true),
            ], userInfo: ["identityAttributes": "id"]),
        ])
    }

    @Test func theDDLIsTheDocumentedOne() throws {
        let statements = try PostgresStore.schemaStatements(for: try Self.model(), schema: "app")
        #expect(statements == [
            #"CREATE TABLE "app"."trellis_metadata" ("key" text PRIMARY KEY, "value" text NOT NULL)"#,
            #"CREATE TABLE "app"."trellis_locks" ("scope" text PRIMARY KEY)"#,
            #"CREATE SEQUENCE "app"."trellis_commits seq""#,
            #"CREATE TABLE "app"."trellis_commits" ("seq" bigint PRIMARY KEY, "changes" text NOT NULL)"#,
            #"CREATE SEQUENCE "app"."Character keys""#,
            #"CREATE SEQUENCE "app"."Power keys""#,
            #"CREATE SEQUENCE "app"."Publisher keys""#,
            #"""
            CREATE TABLE "app"."Character" (
              "_pk" bigint NOT NULL DEFAULT nextval('"app"."Character keys"'),
              "_entity" text NOT NULL,
              "_placeholder" boolean NOT NULL DEFAULT false,
              "id" text,
              "name" text,
              "createdAt" timestamp with time zone,
              "rating" double precision,
              "price" numeric,
              "publisher" bigint,
              PRIMARY KEY ("_pk")
            )
            """#,
            #"""
            CREATE TABLE "app"."Power" (
              "_pk" bigint NOT NULL DEFAULT nextval('"app"."Power keys"'),
              "_entity" text NOT NULL,
              "_placeholder" boolean NOT NULL DEFAULT false,
              "id" text,
              PRIMARY KEY ("_pk")
            )
            """#,
            #"""
            CREATE TABLE "app"."Publisher" (
              "_pk" bigint NOT NULL DEFAULT nextval('"app"."Publisher keys"'),
              "_entity" text NOT NULL,
              "_placeholder" boolean NOT NULL DEFAULT false,
              "id" text,
              PRIMARY KEY ("_pk")
            )
            """#,
            #"""
            CREATE TABLE "app"."Character.powers" (
              "source" bigint NOT NULL,
              "destination" bigint NOT NULL,
              PRIMARY KEY ("source", "destination")
            )
            """#,
            #"ALTER TABLE "app"."Character" ADD FOREIGN KEY ("publisher") REFERENCES "app"."Publisher" ("_pk") ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED"#,
            #"CREATE INDEX "Character.powers(destination)" ON "app"."Character.powers" ("destination")"#,
            #"CREATE INDEX "Character(publisher)" ON "app"."Character" ("publisher")"#,
            #"CREATE UNIQUE INDEX "Character identity" ON "app"."Character" ("id")"#,
            #"CREATE UNIQUE INDEX "Power identity" ON "app"."Power" ("id")"#,
            #"CREATE UNIQUE INDEX "Publisher identity" ON "app"."Publisher" ("id")"#,
        ])
    }

    /// What a new store holds: exactly the statements' objects, plus one lock row per
    /// hierarchy and the change log's.
    @Test func aNewStoreHasTheTablesIndexesAndLockRows() throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        #expect(try test.rows("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1").map { $0[0] ?? "" }
                == ["Character", "Character.powers", "Power", "Publisher", "trellis_commits", "trellis_locks", "trellis_metadata"])
        #expect(try test.rows("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname NOT LIKE '%pkey' ORDER BY 1")
                .map { $0[0] ?? "" } == ["Character identity", "Character(publisher)", "Character.powers(destination)",
                                         "Power identity", "Publisher identity"])
        #expect(try test.rows(#"SELECT "scope" FROM "trellis_locks" ORDER BY 1"#)
                == [["commit log"], ["import Character"], ["import Power"], ["import Publisher"]])
        #expect(try test.rows(#"SELECT "key" FROM "trellis_metadata" ORDER BY 1"#) == [["format"], ["schema"], ["schemaHash"]])
    }

    /// Reserved words, quotes and semicolons in names, a name that is a PostgreSQL system
    /// column (`xmin`: the column becomes `Order.xmin`) and names differing only in case: all
    /// quoted, all stored and read back.
    @Test func namesPostgreSQLTreatsSpeciallyAreQuotedAndStored() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(name: "Order", attributes: [
                AttributeDescription(name: "select", type: .string),
                AttributeDescription(name: "a\"b;c", type: .integer64),
                AttributeDescription(name: "xmin", type: .string),
                AttributeDescription(name: "Select", type: .string),
            ], relationships: [
                RelationshipDescription(name: "group", destinationEntity: "user"),
                RelationshipDescription(name: "table", destinationEntity: "user", isToMany: true),
            ], userInfo: ["identityAttributes": "select"]),
            EntityDescription(name: "user", attributes: [AttributeDescription(name: "from", type: .string)],
                              userInfo: ["identityAttributes": "from"]),
        ])
        let test = try StoreKind.postgres.makeStore(model: model)
        let ids = try test.store.write { try $0.apply(ChangeSet(inserted: [
            ObjectSnapshot(id: ObjectID(entityName: "user", primaryKey: -1), isPlaceholder: false, attributes: [.string("x'; DROP TABLE --")],
                           relationships: []),
            ObjectSnapshot(id: ObjectID(entityName: "Order", primaryKey: -2), isPlaceholder: false,
                           attributes: [.string("s"), .integer(7), .string("m"), .string("S")],
                           relationships: [[ObjectID(entityName: "user", primaryKey: -1)], [ObjectID(entityName: "user", primaryKey: -1)]]),
        ])) }
        #expect(ids.count == 2)
        #expect(try test.rows(#"SELECT "select", "a""b;c", "Order.xmin", "Order.Select", "group" FROM "Order""#)
                == [["s", "7", "m", "S", "1"]])
        #expect(try test.rows(#"SELECT "source", "destination" FROM "Order.table""#) == [["1", "1"]])
        #expect(try test.dump() == #"""
            Order/1 {select: "s", a"b;c: 7, xmin: "m", Select: "S"} group=[user/1] table=[user/1]
            user/1 {from: "x'; DROP TABLE --"} 
            """#)
    }

    /// A name longer than 63 bytes (PostgreSQL would cut it short) is refused, naming the
    /// entity and property; nothing is created.
    @Test func namesLongerThan63BytesAreRefusedAndNothingIsCreated() throws {
        let long = String(repeating: "é", count: 32)  // 64 bytes
        let model = try ObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: long, type: .string)]),
        ])
        let schema = PostgresTestServer.makeSchemaName()
        defer { PostgresTestServer.dropSchema(schema) }
        #expect {
            _ = try PostgresStore(connection: try PostgresTestServer.connectionString(schema: schema), model: model)
        } throws: { error in
            (error as? StoreError)?.code == .incompatibleSchema && (error as? StoreError)?.message
                == "entity Item, property \(long): the column name '\(long)' is 64 bytes long, but a PostgreSQL identifier holds at "
                + "most 63 bytes (a longer one would be cut short): shorten the name in the model"
        }
        #expect(try PostgresTestServer.execute("SELECT count(*) FROM pg_namespace WHERE nspname = '\(schema)'") == [["0"]])
        #expect(throws: StoreError.self) { _ = try PostgresStore.schemaStatements(for: model) }
    }

    /// Index and sequence names past 63 bytes (derived from long entity names) are shortened
    /// to a prefix and a hash, the same way every time.
    @Test func longDerivedNamesAreShortenedWithAHash() throws {
        let name = String(repeating: "E", count: 60)
        let model = try ObjectModel(entities: [
            EntityDescription(name: name, attributes: [AttributeDescription(name: "id", type: .integer64, userInfo: ["JSONKeyPath": "id"])],
                              userInfo: ["identityAttributes": "id"]),
        ])
        let statements = try PostgresStore.schemaStatements(for: model)
        let sequence = PostgresSchema.relationName(name + " keys")
        #expect(sequence.utf8.count == 63 && sequence.hasPrefix(String(repeating: "E", count: 46) + " "))
        #expect(statements.contains("CREATE SEQUENCE \"public\".\"\(sequence)\""))
        #expect(statements.contains { $0.hasPrefix("CREATE UNIQUE INDEX \"\(PostgresSchema.relationName(name + " identity"))\"") })
        let test = try StoreKind.postgres.makeStore(model: model)
        _ = try ObjectContext(store: test.store).importObjects(from: [["id": 1]], entity: name)
        #expect(try test.rows("SELECT count(*) FROM \"\(name)\"") == [["1"]])
    }
}
