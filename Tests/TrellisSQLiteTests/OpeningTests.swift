import Foundation
import Testing
import Trellis

@testable import TrellisSQLite

@Suite struct OpeningTests {
    func seed(_ store: SQLiteStore) throws {
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Publisher", 1), isPlaceholder: false, attributes: [.string("p"), .string("DC")], relationships: [[]]),
                    ObjectSnapshot(
                        id: tid("Character", 2), isPlaceholder: false,
                        attributes: [.string("a"), .string("Ann"), nil, nil, .double(4.5), .bool(true)],
                        relationships: [[], [tid("Publisher", 1)]]),
                ]))
        }
    }

    /// A store at `path` for ``charactersModel()`` holding the ``seed(_:)`` objects.
    func seededStore(at path: String) throws -> SQLiteStore {
        let store = try SQLiteStore(path: path, model: try charactersModel())
        try seed(store)
        return store
    }

    /// The store's tables and indexes, to show a refused migration left them as they were.
    func schema(of store: SQLiteStore) throws -> [[String?]] {
        try store.rows("SELECT type, name, sql FROM sqlite_master ORDER BY name")
    }

    @Test func additiveModelChangesMigrateAndKeepData() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try seed(try SQLiteStore(path: path, model: try charactersModel(versionLabel: "1")))

        var entities = try charactersModel().entities
        entities[0].attributes.append(AttributeDescription(name: "alias", type: .string))
        entities[0].relationships += [
            RelationshipDescription(name: "team", destinationEntity: "Team", inverseName: "members"),
            RelationshipDescription(name: "allies", destinationEntity: "Character", isToMany: true),
        ]
        entities.append(
            EntityDescription(
                name: "Team", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "members", destinationEntity: "Character", inverseName: "team", isToMany: true)
                ], userInfo: ["identityAttributes": "name"]))
        let model = try ObjectModel(entities: entities, versionLabel: "2")
        let store = try SQLiteStore(path: path, model: model)

        #expect(
            try store.rows("SELECT name FROM pragma_table_info('Character') ORDER BY cid").map { $0[0] ?? "" }
                == ["_pk", "_entity", "_placeholder", "id", "name", "realName", "createdAt", "rating", "active", "publisher", "alias", "team"])
        #expect(
            try store.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { $0[0] ?? "" }
                == ["Character", "Character.allies", "Character.powers", "Power", "Publisher", "Team", "trellis_commits", "trellis_metadata"])
        #expect(try store.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('Team identity', 'Character(team)')").count == 2)
        #expect(try store.rows("SELECT value FROM trellis_metadata WHERE key = 'modelVersion'") == [["2"]])
        #expect(try store.rows(#"SELECT "id", "name", "rating", "alias", "team" FROM "Character""#) == [["a", "Ann", "4.5", nil, nil]])

        let character = ObjectID(entityName: "Character", primaryKey: 1)
        let ids = try store.write {
            try $0.apply(
                ChangeSet(
                    inserted: [ObjectSnapshot(id: tid("Team", 1), isPlaceholder: false, attributes: [.string("JLA")], relationships: [[]])],
                    updated: [
                        ObjectChange(
                            id: character, attributes: [AttributeChange(index: 6, value: .string("The A"))],
                            relationships: [
                                RelationshipChange(index: 2, destinations: [tid("Team", 1)]),
                                RelationshipChange(index: 3, destinations: [character]),
                            ])
                    ]))
        }
        let team = try #require(ids[tid("Team", 1)])
        let fetched = try store.read { try $0.fetch(ids: [character, team]) }
        #expect(
            fetched.map(\.attributes) == [
                [.string("a"), .string("Ann"), nil, nil, .double(4.5), .bool(true), .string("The A")],
                [.string("JLA")],
            ])
        #expect(
            fetched.map(\.relationships) == [
                [[], [ObjectID(entityName: "Publisher", primaryKey: 1)], [team], [character]],
                [[character]],
            ])
        // Opening again with the same model changes nothing.
        let schema = try store.rows("SELECT value FROM trellis_metadata WHERE key = 'schema'")
        _ = try SQLiteStore(path: path, model: model)
        #expect(try store.rows("SELECT value FROM trellis_metadata WHERE key = 'schema'") == schema)
    }

    @Test func aNewAttributeWithADefaultValueGivesItToTheStoredObjects() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try seed(try SQLiteStore(path: path, model: try charactersModel()))
        var entities = try charactersModel().entities
        entities[0].attributes.append(AttributeDescription(name: "level", type: .integer32, isOptional: false, defaultValue: .integer(1)))
        entities[0].attributes.append(AttributeDescription(name: "motto", type: .string, defaultValue: .string("it's on")))
        let store = try SQLiteStore(path: path, model: try ObjectModel(entities: entities))
        #expect(try store.rows(#"SELECT "id", "level", "motto" FROM "Character""#) == [["a", "1", "it's on"]])
    }

    @Test func aNewRequiredAttributeWithoutDefaultIsRefusedWhenObjectsAreStored() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let original = try seededStore(at: path)
        let before = try schema(of: original)
        var entities = try charactersModel().entities
        entities[0].attributes.append(AttributeDescription(name: "level", type: .integer32, isOptional: false))
        let error = #expect(throws: StoreError.self) { _ = try SQLiteStore(path: path, model: try ObjectModel(entities: entities)) }
        #expect(error?.code == .incompatibleSchema)
        #expect(
            error?.message == "the store's schema cannot be migrated to the model: entity Character, property level: "
                + "the new attribute is required and has no default value, but 1 stored object has no value for it")
        #expect(try schema(of: original) == before)
        // An entity without stored objects takes it.
        entities[1].attributes.append(AttributeDescription(name: "rank", type: .integer32, isOptional: false))
        entities[0].attributes.removeLast()
        _ = try SQLiteStore(path: path, model: try ObjectModel(entities: entities))
        #expect(try original.rows("SELECT name FROM pragma_table_info('Power') WHERE name = 'rank'") == [["rank"]])
    }

    struct Incompatible: CustomTestStringConvertible, Sendable {
        var label: String
        var change: @Sendable (inout [EntityDescription]) -> Void
        var message: String
        var testDescription: String { label }
    }

    static let incompatibleChanges: [Incompatible] = [
        Incompatible(
            label: "attribute type", change: { $0[0].attributes[4].type = .string },
            message: "entity Character, property rating: the attribute type changed from double to string"),
        Incompatible(
            label: "removed attribute", change: { $0[0].attributes.remove(at: 2) },
            message: "entity Character, property realName: the attribute was removed"),
        Incompatible(
            label: "identity", change: { $0[1].userInfo["identityAttributes"] = "id, name" },
            message: "entity Power: the identity attributes changed from [id] to [id, name]"),
        Incompatible(
            label: "removed entity",
            change: {
                $0[0].relationships.remove(at: 0)
                $0.remove(at: 1)
            },
            message: "entity Power: the entity was removed; entity Character, property powers: the relationship was removed"),
        Incompatible(
            label: "to-one became to-many",
            change: {
                $0[0].relationships[1].isToMany = true
                $0[2].relationships[0].isToMany = false
            },
            message: "entity Character, property publisher: the relationship changed between to-one, to-many and ordered; "
                + "entity Publisher, property characters: the relationship changed between to-one, to-many and ordered"),
        Incompatible(
            label: "new parent",
            change: {
                $0[1].parentName = "Thing"
                $0.append(EntityDescription(name: "Thing"))
            }, message: "entity Power: the parent entity changed from none to Thing"),
    ]

    @Test(arguments: incompatibleChanges)
    func incompatibleModelChangesAreRefusedAndDataIsUntouched(_ incompatible: Incompatible) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let original = try seededStore(at: path)
        let before = try schema(of: original)
        let metadata = try original.rows("SELECT key, value FROM trellis_metadata ORDER BY key")

        var entities = try charactersModel().entities
        incompatible.change(&entities)
        let model = try ObjectModel(entities: entities)
        #expect {
            _ = try SQLiteStore(path: path, model: model)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .incompatibleSchema else { return false }
            return error.message == "the store's schema cannot be migrated to the model: \(incompatible.message)"
        }
        #expect(try schema(of: original) == before)
        #expect(try original.rows("SELECT key, value FROM trellis_metadata ORDER BY key") == metadata)
        #expect(try original.read { try $0.count(entity: "Character", matching: nil) } == 1)
    }

    @Test func filesThatAreNotStoresAreRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let text = directory.path("notes.txt")
        try Data(String(repeating: "not a database\n", count: 200).utf8).write(to: URL(fileURLWithPath: text))
        #expect { _ = try SQLiteStore(path: text, model: try charactersModel()) } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .notAStore && error.message == "\(text) is not an SQLite database"
                && error.engineCode == .sqlite(26, name: "file is not a database")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: text)).count == 3_000)

        let other = directory.path("other.sqlite")
        let store = try SQLiteStore(path: directory.path("scratch.sqlite"), model: try charactersModel())
        try store.execute("ATTACH DATABASE '\(other)' AS other; CREATE TABLE other.things (x); DETACH DATABASE other")
        #expect { _ = try SQLiteStore(path: other, model: try charactersModel()) } throws: { error in
            (error as? StoreError)?.code == .notAStore
                && (error as? StoreError)?.message.contains("not a Trellis store") == true
        }

        // An empty file is an empty database: it becomes a store.
        let empty = directory.path("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let fresh = try SQLiteStore(path: empty, model: try charactersModel())
        #expect(try fresh.rows("SELECT value FROM trellis_metadata WHERE key = 'format'") == [["1"]])
    }

    @Test func readOnlyStoresReadButRefuseWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        do {
            try seed(try SQLiteStore(path: path, model: try charactersModel()))
        }
        let store = try SQLiteStore(path: path, model: try charactersModel(), configuration: .init(isReadOnly: true))
        #expect(store.isReadOnly)
        #expect(try store.read { try $0.fetch(entity: "Character", identities: [[.string("a")]]) }.map(\.attributes[1]) == [.string("Ann")])
        #expect { try store.write { _ in } } throws: { ($0 as? StoreError)?.code == .readOnly }
        // A model that needs a migration cannot be opened read-only.
        var entities = try charactersModel().entities
        entities[1].attributes.append(AttributeDescription(name: "level", type: .integer16))
        #expect {
            _ = try SQLiteStore(path: path, model: try ObjectModel(entities: entities), configuration: .init(isReadOnly: true))
        } throws: { ($0 as? StoreError)?.code == .readOnly }
        // Nor can a new store be created read-only.
        #expect(throws: StoreError.self) {
            _ = try SQLiteStore(path: directory.path("missing.sqlite"), model: try charactersModel(), configuration: .init(isReadOnly: true))
        }
    }

    /// The characters model with `Character.level` (default 1) and a new entity `Team`.
    func extendedModel() throws -> ObjectModel {
        var entities = try charactersModel().entities
        entities[0].attributes.append(AttributeDescription(name: "level", type: .integer32, isOptional: false, defaultValue: .integer(1)))
        entities.append(EntityDescription(name: "Team", attributes: [AttributeDescription(name: "name", type: .string)]))
        return try ObjectModel(entities: entities, versionLabel: "2")
    }

    struct Rollback: Error {}

    @Test func aDeferredMigrationRollsBackWithItsWriteSession() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        do { try seed(try SQLiteStore(path: path, model: try charactersModel(versionLabel: "1"))) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let observer = try SQLiteStore(path: path, model: try charactersModel(versionLabel: "1"), configuration: .init(isReadOnly: true))
        let tables = try observer.rows("SELECT type, name, sql FROM sqlite_master ORDER BY name")
        let metadata = try observer.rows("SELECT key, value FROM trellis_metadata ORDER BY key")

        let store = try SQLiteStore(path: path, model: try extendedModel(), configuration: .init(migrationPolicy: .inWriteTransactions))
        func fileIsUnchanged() throws {
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
            #expect(try observer.rows("SELECT type, name, sql FROM sqlite_master ORDER BY name") == tables)
            #expect(try observer.rows("SELECT key, value FROM trellis_metadata ORDER BY key") == metadata)
            #expect(try observer.rows(#"SELECT * FROM "Character""#) == [["1", "Character", "0", "a", "Ann", nil, nil, "4.5", "1", "1"]])
        }
        try fileIsUnchanged()
        // A write session sees the migrated schema and rolls it back with its own changes.
        #expect(throws: Rollback.self) {
            try store.write { session in
                #expect(try session.fetch(entity: "Character", identities: [[.string("a")]]).map(\.attributes[6]) == [.integer(1)])
                _ = try session.apply(
                    ChangeSet(inserted: [
                        ObjectSnapshot(id: tid("Team", 1), isPlaceholder: false, attributes: [.string("JLA")], relationships: [])
                    ]))
                throw Rollback()
            }
        }
        try fileIsUnchanged()
        // A read session sees the objects as the migration leaves them, and writes nothing.
        #expect(try store.read { try $0.fetch(entity: "Character", identities: [[.string("a")]]) }.map(\.attributes[6]) == [.integer(1)])
        #expect(try store.read { try $0.count(entity: "Team", matching: nil) } == 0)
        try fileIsUnchanged()
        // A write session that commits commits the migration with its changes.
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Team", 1), isPlaceholder: false, attributes: [.string("JLA")], relationships: [])
                ]))
        }
        #expect(try observer.rows(#"SELECT "id", "level" FROM "Character""#) == [["a", "1"]])
        #expect(try observer.rows(#"SELECT "name" FROM "Team""#) == [["JLA"]])
        #expect(try observer.rows("SELECT value FROM trellis_metadata WHERE key = 'modelVersion'") == [["2"]])
        #expect(try store.read { try $0.count(entity: "Team", matching: nil) } == 1)
    }

    @Test func aDeferredStoreInAnEmptyFileLeavesItEmptyUntilAWriteCommits() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let store = try SQLiteStore(path: path, model: try charactersModel(), configuration: .init(migrationPolicy: .inWriteTransactions))
        #expect(try store.read { try $0.count(entity: "Character", matching: nil) } == 0)
        #expect(throws: Rollback.self) { try store.write { _ in throw Rollback() } }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["empty.sqlite"])

        try seed(store)
        #expect(try store.rows("PRAGMA journal_mode") == [["wal"]])
        #expect(try store.rows(#"SELECT "id" FROM "Character""#) == [["a"]])
        #expect(try store.rows("SELECT value FROM trellis_metadata WHERE key = 'format'") == [["1"]])
    }

    @Test func aDeferredReadOnlyStoreReadsAMigratedCopyAndNeverWritesTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        do { try seed(try SQLiteStore(path: path, model: try charactersModel())) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = SQLiteStore.Configuration(isReadOnly: true, migrationPolicy: .inWriteTransactions)

        let store = try SQLiteStore(path: path, model: try extendedModel(), configuration: reader)
        #expect(
            try store.read { try $0.fetch(entity: "Character", identities: [[.string("a")]]) }.map(\.attributes)
                == [[.string("a"), .string("Ann"), nil, nil, .double(4.5), .bool(true), .integer(1)]])
        #expect(try store.read { try $0.count(entity: "Team", matching: nil) } == 0)
        #expect { try store.write { _ in } } throws: { ($0 as? StoreError)?.code == .readOnly }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        // Each read session copies the file again, so it sees what was committed since.
        do {
            _ = try SQLiteStore(path: path, model: try charactersModel()).write {
                try $0.apply(
                    ChangeSet(deleted: [
                        ObjectID(entityName: "Character", primaryKey: 1)
                    ]))
            }
        }
        #expect(try store.read { try $0.count(entity: "Character", matching: nil) } == 0)

        // An empty file reads as a store without objects, and stays empty.
        let empty = directory.path("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let emptyStore = try SQLiteStore(path: empty, model: try charactersModel(), configuration: reader)
        #expect(try emptyStore.read { try $0.fetch(entity: "Character", matching: nil) }.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: empty)).isEmpty)

        // A model that does not fit is refused when the store opens, naming every difference.
        var entities = try charactersModel().entities
        entities[0].attributes[4].type = .string
        entities[1].attributes.remove(at: 1)
        #expect {
            _ = try SQLiteStore(path: path, model: try ObjectModel(entities: entities), configuration: reader)
        } throws: { error in
            (error as? StoreError)?.code == .incompatibleSchema
                && (error as? StoreError)?.message
                    == "the store's schema does not fit the model: entity Character, property rating: the attribute type changed "
                    + "from double to string; entity Power, property name: the attribute was removed"
        }
    }

    @Test(.enabled(if: geteuid() != 0, "root can write a file whatever its permissions"))
    func aFileWithoutWritePermissionOpensReadOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try seed(try SQLiteStore(path: path, model: try charactersModel()))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        let store = try SQLiteStore(path: path, model: try charactersModel())
        #expect(store.isReadOnly)
        #expect(try store.read { try $0.count(entity: "Character", matching: nil) } == 1)
        #expect { try store.write { _ in } } throws: { ($0 as? StoreError)?.code == .readOnly }
    }

    @Test func aReaderDuringAWriteSeesTheLastCommittedState() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let writer = try SQLiteStore(path: path, model: try charactersModel())
        let reader = try SQLiteStore(path: path, model: try charactersModel())
        try seed(writer)
        let insert = ChangeSet(inserted: [
            ObjectSnapshot(
                id: tid("Character", 1), isPlaceholder: false,
                attributes: [.string("b"), nil, nil, nil, nil, nil], relationships: [[], []])
        ])
        try writer.write { session in
            _ = try session.apply(insert)
            #expect(try session.count(entity: "Character", matching: nil) == 2)
            #expect(try reader.read { try $0.count(entity: "Character", matching: nil) } == 1)
        }
        #expect(try reader.read { try $0.count(entity: "Character", matching: nil) } == 2)

        // A read session keeps its snapshot while another connection commits.
        try reader.read { session in
            #expect(try session.count(entity: "Character", matching: nil) == 2)
            _ = try writer.write { try $0.apply(ChangeSet(deleted: [ObjectID(entityName: "Character", primaryKey: 1)])) }
            #expect(try session.count(entity: "Character", matching: nil) == 2)
            #expect(try session.fetch(entity: "Character", identities: [[.string("a")]]).count == 1)
        }
        #expect(try reader.read { try $0.count(entity: "Character", matching: nil) } == 1)

        // A second writer waits for the busy timeout, then fails with .busy.
        let impatient = try SQLiteStore(path: path, model: try charactersModel(), configuration: .init(busyTimeoutMilliseconds: 50))
        try writer.write { _ -> Void in
            #expect { try impatient.write { _ in () } } throws: { ($0 as? StoreError)?.code == .busy }
        }
    }
}
