import Foundation
import Testing
import Trellis
import TrellisPostgres
import TrellisTestSupport

/// The PostgreSQL store's outbox table (issue 23, point 1) and its tombstones of acknowledged
/// deletes (point 7): made with the store's own tables, and added to a store made before them,
/// on open or in the first write session.
@Suite struct PostgresOutboxTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Cat",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64),
                    AttributeDescription(name: "name", type: .string),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
    }

    /// Drops the outbox of `test`'s store, as a store made before it has none.
    func dropOutbox(_ test: TestStore) throws {
        _ = try test.rows(#"DROP TABLE "trellis_outbox""#)
        #expect(
            try test.rows(#"SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'trellis_outbox'"#)
                == [["0"]])
    }

    func saveACat(_ store: any PersistentStore) throws {
        let context = ObjectContext(store: store)
        let cat = try context.insert("Cat")
        try cat.setValue(.integer(1), forKey: "id")
        try context.save()
    }

    @Test(arguments: [PostgresStore.MigrationPolicy.onOpen, .inWriteTransactions])
    func aStoreMadeBeforeTheOutboxGetsIt(policy: PostgresStore.MigrationPolicy) throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        try dropOutbox(test)
        let location = try #require(test.location)
        var configuration = PostgresStore.Configuration()
        configuration.migrationPolicy = policy
        let reopened = try PostgresStore(connection: location, model: try Self.model(), configuration: configuration)
        #expect(try reopened.outbox() == [])
        try saveACat(reopened)
        #expect(try reopened.outbox().map { "\($0.operation.rawValue) \($0.object) \($0.fields)" } == [#"create Cat/1 ["id"]"#])
        #expect(try test.rows(#"SELECT "operation", "state", "attempts" FROM "trellis_outbox""#) == [["create", "pending", "0"]])
    }

    @Test(arguments: [PostgresStore.MigrationPolicy.onOpen, .inWriteTransactions])
    func anOutboxMadeBeforeItsBaseValuesGetsTheColumn(policy: PostgresStore.MigrationPolicy) throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        let context = ObjectContext(store: test.store)
        for (id, name) in [(1, "Tom"), (2, "Felix")] {
            let cat = try context.insert("Cat")
            try cat.setValue(.integer(Int64(id)), forKey: "id")
            try cat.setValue(.string(name), forKey: "name")
        }
        context.origin = .import
        try context.save()
        context.origin = .local
        #expect(try test.store.outbox() == [])
        try #require(try context.fetch("Cat", id: .integer(1))).setValue(.string("Thomas"), forKey: "name")
        try context.save()
        _ = try test.rows(#"ALTER TABLE "trellis_outbox" DROP COLUMN "base_values""#)
        let location = try #require(test.location)
        var configuration = PostgresStore.Configuration()
        configuration.migrationPolicy = policy
        let reopened = try PostgresStore(connection: location, model: try Self.model(), configuration: configuration)
        #expect(try reopened.outbox().map { "\($0.operation.rawValue) \($0.object) \($0.baseValues)" } == ["update Cat/1 [:]"])
        let again = ObjectContext(store: reopened)
        try #require(try again.fetch("Cat", id: .integer(2))).setValue(.string("Felicity"), forKey: "name")
        try again.save()
        #expect(try reopened.outbox().map(\.baseValues) == [[:], ["name": .string("Felix")]])
        #expect(try test.rows(#"SELECT "base_values" FROM "trellis_outbox" ORDER BY "seq""#) == [[nil], [#"{"name":"Felix"}"#]])
    }

    @Test(arguments: [PostgresStore.MigrationPolicy.onOpen, .inWriteTransactions])
    func aStoreMadeBeforeTheTombstonesGetsThem(policy: PostgresStore.MigrationPolicy) throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        _ = try test.rows(#"DROP TABLE "trellis_tombstones""#)
        let location = try #require(test.location)
        var configuration = PostgresStore.Configuration()
        configuration.migrationPolicy = policy
        let reopened = try PostgresStore(connection: location, model: try Self.model(), configuration: configuration)
        #expect(try reopened.tombstones() == [])
        try reopened.write { session in
            try #require(session as? any OutboxStorage).writeTombstones([
                Tombstone(entityName: "Cat", serverIdentity: [1], stamp: "2024-01-01T00:00:00.007Z", acknowledgedAt: Date(timeIntervalSince1970: 1_704_067_200))
            ])
        }
        #expect(try reopened.tombstones().map { "\($0.entityName) \($0.serverIdentityText) \($0.stamp)" } == ["Cat [1] 2024-01-01T00:00:00.007Z"])
        #expect(
            try test.rows(#"SELECT "server_identity", "entity", "stamp", "acknowledged_at" FROM "trellis_tombstones""#)
                == [["[1]", "Cat", "2024-01-01T00:00:00.007Z", "1704067200000"]])
    }
}
