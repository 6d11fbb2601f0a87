import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisPostgres

/// What the PostgreSQL store writes, and how its transactions meet other writers, lost
/// connections and server restarts.
@Suite(.enabled(if: PostgresTestServer.isEnabled, "TRELLIS_SKIP_POSTGRES=1"))
struct PostgresWriteTests {
    /// Characters (identity `id`, with powers and a publisher), mapped for imports.
    static func model() throws -> ObjectModel {
        func attribute(_ name: String, _ type: AttributeType, _ key: String) -> AttributeDescription {
            AttributeDescription(name: name, type: type, userInfo: ["JSONKeyPath": key])
        }
        return try ObjectModel(entities: [
            EntityDescription(
                name: "Character",
                attributes: [
                    attribute("id", .integer64, "id"), attribute("name", .string, "name"), attribute("rating", .double, "rating"),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "powers", destinationEntity: "Power", inverseName: "characters", isToMany: true,
                        userInfo: ["JSONKeyPath": "powers"]),
                    RelationshipDescription(
                        name: "publisher", destinationEntity: "Publisher", inverseName: "characters",
                        userInfo: ["JSONKeyPath": "publisher"]),
                ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Power", attributes: [attribute("id", .integer64, "id"), attribute("name", .string, "name")],
                relationships: [
                    RelationshipDescription(
                        name: "characters", destinationEntity: "Character",
                        inverseName: "powers", isToMany: true)
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Publisher", attributes: [attribute("id", .integer64, "id"), attribute("name", .string, "name")],
                relationships: [
                    RelationshipDescription(
                        name: "characters", destinationEntity: "Character",
                        inverseName: "publisher", isToMany: true)
                ],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    static func characters(_ ids: Range<Int>, name: String = "c") -> JSONValue {
        .array(
            ids.map { i in
                [
                    "id": JSONValue(i), "name": .string("\(name)\(i)"), "rating": JSONValue(floatLiteral: Double(i) / 2),
                    "powers": [["id": JSONValue(i % 7), "name": .string("p\(i % 7)")], ["id": JSONValue(i % 5 + 100), "name": "q"]],
                    "publisher": ["id": JSONValue(i % 3), "name": .string("u\(i % 3)")],
                ]
            })
    }

    /// Triggers log every row written, and which columns an UPDATE set.
    static func logWrites(_ test: TestStore) throws {
        _ = try test.rows(
            #"""
            CREATE TABLE "log" ("n" serial, "entry" text);
            CREATE FUNCTION "note"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO "log" ("entry") VALUES (TG_TABLE_NAME || ' ' || TG_OP); RETURN NULL; END $$;
            CREATE FUNCTION "note column"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO "log" ("entry") VALUES (TG_ARGV[0]); RETURN NULL; END $$;
            CREATE TRIGGER "rows" AFTER INSERT OR UPDATE OR DELETE ON "Character" FOR EACH ROW EXECUTE FUNCTION "note"();
            CREATE TRIGGER "rows" AFTER INSERT OR UPDATE OR DELETE ON "Power" FOR EACH ROW EXECUTE FUNCTION "note"();
            CREATE TRIGGER "rows" AFTER INSERT OR UPDATE OR DELETE ON "Publisher" FOR EACH ROW EXECUTE FUNCTION "note"();
            CREATE TRIGGER "rows" AFTER INSERT OR UPDATE OR DELETE ON "Character.powers" FOR EACH ROW EXECUTE FUNCTION "note"();
            CREATE TRIGGER "name" AFTER UPDATE OF "name" ON "Character" FOR EACH ROW EXECUTE FUNCTION "note column"('set name');
            CREATE TRIGGER "rating" AFTER UPDATE OF "rating" ON "Character" FOR EACH ROW EXECUTE FUNCTION "note column"('set rating');
            CREATE TRIGGER "id" AFTER UPDATE OF "id" ON "Character" FOR EACH ROW EXECUTE FUNCTION "note column"('set id');
            """#)
    }

    static func log(_ test: TestStore) throws -> [String] {
        let entries = try test.rows(#"SELECT "entry" FROM "log" ORDER BY "n""#).map { $0[0] ?? "" }
        _ = try test.rows(#"DELETE FROM "log""#)
        return entries
    }

    /// An unchanged import writes no row; a changed attribute writes that row and column only.
    @Test func unchangedObjectsAreNotWrittenAndChangesWriteTheirColumnsOnly() throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        try Self.logWrites(test)
        let context = ObjectContext(store: test.store)
        _ = try context.importObjects(from: Self.characters(0..<20), entity: "Character")
        let first = try Self.log(test)
        #expect(first.filter { $0 == "Character INSERT" }.count == 20)
        #expect(first.filter { $0 == "Power INSERT" }.count == 12)
        #expect(first.filter { $0 == "Publisher INSERT" }.count == 3)
        #expect(first.filter { $0 == "Character.powers INSERT" }.count == 40)
        #expect(first.count == 75)

        let again = try context.importObjects(from: Self.characters(0..<20), entity: "Character")
        #expect(again.counts(for: "Character") == .init(unchanged: 20))
        #expect(try Self.log(test) == [])

        var changed = Self.characters(0..<20)
        if case .array(var elements) = changed {
            elements[4] = ["id": 4, "name": "renamed"]
            changed = .array(elements)
        }
        let report = try context.importObjects(from: changed, entity: "Character")
        #expect(report.counts(for: "Character") == .init(updated: 1, unchanged: 19))
        #expect(try Self.log(test) == ["set name", "Character UPDATE"])  // triggers fire in name order
        let statements = try #require(test.store as? PostgresStore).preparedSQL.filter { $0.hasPrefix("UPDATE") }
        #expect(statements.contains { $0.contains(#"SET "name" = v.c1 FROM unnest($1::bigint[], $2::text[])"#) })
    }

    /// Two writers change the same row: the one whose snapshot is older fails with a
    /// serialization failure (REPEATABLE READ), is rolled back and runs again, and its change
    /// is the last; with one attempt allowed, the conflict is reported.
    @Test(arguments: [10, 1])
    func aConflictingTransactionRunsAgain(maxAttempts: Int) throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        let location = try #require(test.location)
        _ = try ObjectContext(store: test.store).importObjects(from: Self.characters(0..<2), entity: "Character")
        let mine = try PostgresStore(connection: location, model: try Self.model(), configuration: .init(maxAttempts: maxAttempts))
        let other = try PostgresStore(connection: location, model: try Self.model())
        let character = ObjectID(entityName: "Character", primaryKey: 1)
        func rename(_ name: String) -> ChangeSet {
            ChangeSet(updated: [ObjectChange(id: character, attributes: [AttributeChange(index: 1, value: .string(name))])])
        }
        var runs = 0
        let outcome = Result {
            try mine.write { session in
                runs += 1
                _ = try session.fetch(ids: [character])  // the snapshot
                if runs == 1 { _ = try other.write { try $0.apply(rename("theirs")) } }
                return try session.apply(rename("mine"))
            }
        }
        let name = try test.rows(#"SELECT "name" FROM "Character" WHERE "_pk" = 1"#)
        if maxAttempts > 1 {
            #expect(throws: Never.self) { try outcome.get() }
            #expect(runs == 2)
            #expect(name == [["mine"]])
        } else {
            #expect(runs == 1)
            #expect(name == [["theirs"]])
            #expect { try outcome.get() } throws: { error in
                guard let error = error as? StoreError else { return false }
                return error.code == .transactionConflict
                    && error.message == "could not serialize access due to concurrent update "
                        + "(the transaction was tried 1 time and rolled back each time)"
                    && error.engineCode == .sqlState("40001")
            }
        }
    }

    /// The connection dies inside a write session (the server ends the backend): the write
    /// fails as unavailable, nothing of it is stored, and the store's next session connects again.
    @Test func aConnectionLostMidTransactionCommitsNothingAndTheStoreReconnects() throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        let store = try #require(test.store as? PostgresStore)
        let context = ObjectContext(store: store)
        _ = try context.importObjects(from: Self.characters(0..<10), entity: "Character")
        let pid = try #require(try store.rows("SELECT pg_backend_pid()").first?.first ?? nil)
        var options = ImportOptions()
        options.batchSize = 2
        var source = CallbackSource(elements: Self.characters(10..<20, name: "new"), at: 5) {
            _ = try? PostgresTestServer.execute("SELECT pg_terminate_backend(\(pid))")
        }
        #expect {
            _ = try context.importObjects(from: &source, entity: "Character", options: options)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .unavailable && error.message.hasPrefix("the connection to postgresql://trellis@")
                && error.message.contains("was lost; the open transaction was not committed")
        }
        #expect(try test.rows(#"SELECT count(*), max("id") FROM "Character""#) == [["10", "9"]])
        let rerun = try context.importObjects(from: Self.characters(10..<20, name: "new"), entity: "Character")
        #expect(rerun.counts(for: "Character") == .init(inserted: 10))
        #expect(try test.rows(#"SELECT count(*), count(DISTINCT "id") FROM "Character""#) == [["20", "20"]])
    }

    /// The server restarts in the middle of an import: the import fails cleanly (nothing of
    /// it stored) and, run again with the same store, succeeds. (A server of its own, so the
    /// tests beside it keep theirs.)
    @Test func aServerRestartMidImportFailsCleanlyAndARerunSucceeds() throws {
        let server = try PostgresTestServer.startPrivateServer()
        let store = try PostgresStore(connection: server.url, model: try Self.model())
        let context = ObjectContext(store: store)
        _ = try context.importObjects(from: Self.characters(0..<10), entity: "Character")
        var options = ImportOptions()
        options.batchSize = 3
        var source = CallbackSource(elements: Self.characters(0..<30, name: "v2"), at: 7) { try? server.restart() }
        #expect {
            _ = try context.importObjects(from: &source, entity: "Character", options: options)
        } throws: { ($0 as? StoreError)?.code == .unavailable }
        #expect(try store.rows(#"SELECT count(*), min("name"), max("name") FROM "Character""#) == [["10", "c0", "c9"]])
        let rerun = try context.importObjects(from: Self.characters(0..<30, name: "v2"), entity: "Character", options: options)
        #expect(rerun.counts(for: "Character") == .init(inserted: 20, updated: 10))
        #expect(try store.rows(#"SELECT count(*), count(DISTINCT "id"), min("name") FROM "Character""#) == [["30", "30", "v20"]])
    }

    /// A scope locked exclusively (an import that deletes what its payload lacks) makes a
    /// shared locker (a plain import of the same hierarchy) wait until it ends.
    @Test func anExclusiveScopeLockMakesOtherImportsWait() throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        let location = try #require(test.location)
        let first = try PostgresStore(connection: location, model: try Self.model())
        let second = try PostgresStore(connection: location, model: try Self.model())
        let events = Events()
        let secondPID = try #require(try second.rows("SELECT pg_backend_pid()").first?.first ?? nil)
        let done = DispatchSemaphore(value: 0)
        try first.write { session in
            try session.lock(scope: "import Character", exclusive: true)
            Thread {
                defer { done.signal() }
                do {
                    try second.write { try $0.lock(scope: "import Character", exclusive: false) }
                    events.add("second locked")
                } catch {
                    events.add("second failed: \(error)")
                }
            }.start()
            // Wait until the second store's backend is seen waiting for the row lock.
            var waiting = false
            for _ in 0..<6_000 where !waiting {
                let state = try PostgresTestServer.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = \(secondPID)")
                waiting = state.first?.first == "Lock"
                if !waiting { Thread.sleep(forTimeInterval: 0.01) }
            }
            events.add(waiting ? "first commits" : "the second never waited")
        }
        done.wait()
        #expect(events.all == ["first commits", "second locked"])
    }
}

/// Elements of a JSON array, running `action` once when element `index` is asked for (after
/// the earlier batches were written into the transaction).
struct CallbackSource: ImportSource {
    var inner: JSONImportSource
    let index: Int
    let action: () -> Void
    var position = 0

    init(elements: JSONValue, at index: Int, action: @escaping () -> Void) {
        guard case .array(let array) = elements else { fatalError("an array") }
        inner = JSONImportSource(array: array)
        self.index = index
        self.action = action
    }

    mutating func nextElement() throws -> ImportElement? {
        if position == index { action() }
        position += 1
        return try inner.nextElement()
    }
}

/// Events recorded by several threads, in order.
// SAFETY: `entries` is only touched while `lock` is held.
final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    func add(_ entry: String) { lock.withLock { entries.append(entry) } }
    var all: [String] { lock.withLock { entries } }
}
