import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisPostgres

/// Opening a PostgreSQL store on bad ground: each case a clear error, and nothing changed.
@Suite(.enabled(if: PostgresTestServer.isEnabled, "TRELLIS_SKIP_POSTGRES=1"))
struct PostgresOpeningTests {
    static func model(extra: [AttributeDescription] = []) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64, userInfo: ["JSONKeyPath": "id"]),
                    AttributeDescription(name: "name", type: .string, userInfo: ["JSONKeyPath": "name"]),
                ] + extra, userInfo: ["identityAttributes": "id"])
        ])
    }

    /// A schema of its own, dropped at the end.
    struct Schema: ~Copyable {
        let name = PostgresTestServer.makeSchemaName()
        func location() throws -> String { try PostgresTestServer.connectionString(schema: name) }
        func rows(_ sql: String) throws -> [[String?]] {
            try PostgresTestServer.execute("SET search_path TO \"\(name)\"; " + sql)
        }
        deinit { PostgresTestServer.dropSchema(name) }
    }

    @Test func aSchemaWithOtherTablesIsNotAStoreAndIsLeftAlone() throws {
        let schema = Schema()
        try PostgresTestServer.execute(
            "CREATE SCHEMA \"\(schema.name)\"; CREATE TABLE \"\(schema.name)\".\"orders\" (\"n\" int); "
                + "INSERT INTO \"\(schema.name)\".\"orders\" VALUES (1)")
        #expect {
            _ = try PostgresStore(connection: try schema.location(), model: try Self.model())
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .notAStore && error.message.hasPrefix("schema \(schema.name) of postgresql://trellis@")
                && error.message.hasSuffix(#" holds tables ("orders") but no Trellis store (it has no trellis_metadata table)"#)
        }
        #expect(try schema.rows("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()") == [["orders"]])
        #expect(try schema.rows(#"SELECT "n" FROM "orders""#) == [["1"]])
    }

    @Test func aStoreOfANewerTrellisIsRefusedAndLeftAlone() throws {
        let schema = Schema()
        _ = try PostgresStore(connection: try schema.location(), model: try Self.model())
        _ = try schema.rows(#"UPDATE "trellis_metadata" SET "value" = '2' WHERE "key" = 'format'"#)
        let before = try schema.rows(#"SELECT "key", "value" FROM "trellis_metadata" ORDER BY 1"#)
        #expect {
            _ = try PostgresStore(connection: try schema.location(), model: try Self.model())
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .notAStore
                && error.message.hasSuffix(
                    "was made by a newer version of Trellis (store format 2; this version reads format 1): use that version or a newer one")
        }
        #expect(try schema.rows(#"SELECT "key", "value" FROM "trellis_metadata" ORDER BY 1"#) == before)
    }

    /// A new attribute is added (with its default in the stored objects); a changed type is
    /// refused, naming what changed, and the store keeps every row and column.
    @Test func additiveChangesMigrateAndOthersAreRefusedWithTheDataUntouched() throws {
        let schema = Schema()
        let first = try PostgresStore(connection: try schema.location(), model: try Self.model())
        _ = try ObjectContext(store: first).importObjects(from: [["id": 1, "name": "a"], ["id": 2, "name": "b"]], entity: "Item")

        let added = try Self.model(extra: [AttributeDescription(name: "rank", type: .integer32, defaultValue: .integer(5))])
        let second = try PostgresStore(connection: try schema.location(), model: added)
        #expect(try schema.rows(#"SELECT "id", "name", "rank" FROM "Item" ORDER BY 1"#) == [["1", "a", "5"], ["2", "b", "5"]])
        _ = try ObjectContext(store: second).importObjects(from: [["id": 3, "name": "c"]], entity: "Item")

        let changed = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64),
                    AttributeDescription(name: "name", type: .integer64),
                    AttributeDescription(name: "rank", type: .integer32),
                ], userInfo: ["identityAttributes": "id"])
        ])
        let before = try schema.rows(#"SELECT * FROM "Item" ORDER BY 1"#)
        #expect {
            _ = try PostgresStore(connection: try schema.location(), model: changed)
        } throws: { error in
            (error as? StoreError)?.code == .incompatibleSchema
                && (error as? StoreError)?.message
                    == "the store's schema cannot be migrated to the model: entity Item, property name: the attribute type changed from string to integer64"
        }
        #expect(try schema.rows(#"SELECT * FROM "Item" ORDER BY 1"#) == before)
        #expect(
            try schema.rows(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                    + "AND table_name = 'Item' ORDER BY ordinal_position"
            ).map { $0[0] ?? "" }
                == ["_pk", "_entity", "_placeholder", "id", "name", "rank"])
    }

    @Test func anUnreachableServerIsUnavailable() throws {
        // A port nothing listens on (bound, then closed).
        let url = "postgresql://trellis:pw-never-shown@127.0.0.1:\(try Self.closedPort())/postgres"
        #expect {
            _ = try PostgresStore(connection: url, model: try Self.model())
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .unavailable && error.message.hasPrefix("cannot connect to postgresql://trellis@127.0.0.1:")
                && error.message.contains("Connection refused") && !error.description.contains("pw-never-shown")
        }
    }

    @Test func aWrongPasswordIsRefusedAndNeverShown() throws {
        let port = try #require(PostgresTestServer.tcpPort, "the server's TCP port")
        let role = "trellis_pw_\(UInt32.random(in: 0...UInt32.max))"
        try PostgresTestServer.execute("CREATE ROLE \(role) LOGIN PASSWORD 'right-one'")
        defer { _ = try? PostgresTestServer.execute("DROP ROLE \(role)") }
        for url in [
            "postgresql://\(role):wrong-secret@127.0.0.1:\(port)/postgres",
            "host=127.0.0.1 port=\(port) dbname=postgres user=\(role) password='wrong-secret'",
        ] {
            #expect {
                _ = try PostgresStore(connection: url, model: try Self.model())
            } throws: { error in
                guard let error = error as? StoreError else { return false }
                return error.code == .unavailable
                    && error.message.hasPrefix("cannot connect to postgresql://\(role)@127.0.0.1:\(port)/postgres: ")
                    && error.message.contains("password authentication failed for user \"\(role)\"")
                    && !error.description.contains("wrong-secret")
            }
        }
    }

    /// A role that may not create tables gets a message saying which privilege it lacks;
    /// nothing is created.
    @Test func aRoleWithoutCreatePrivilegeIsToldWhatIsMissing() throws {
        let port = try #require(PostgresTestServer.tcpPort, "the server's TCP port")
        let role = "trellis_ro_\(UInt32.random(in: 0...UInt32.max))"
        let schema = Schema()
        try PostgresTestServer.execute(
            "CREATE ROLE \(role) LOGIN PASSWORD 'pw'; CREATE SCHEMA \"\(schema.name)\"; "
                + "GRANT USAGE ON SCHEMA \"\(schema.name)\" TO \(role)")
        defer { _ = try? PostgresTestServer.execute("DROP OWNED BY \(role); DROP ROLE \(role)") }
        let url = "postgresql://\(role):pw@127.0.0.1:\(port)/postgres?schema=\(schema.name)"
        #expect {
            _ = try PostgresStore(connection: url, model: try Self.model())
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .permissionDenied
                && error.message == "the role \"\(role)\" may not create the store's tables in schema \(schema.name) of "
                    + "postgresql://\(role)@127.0.0.1:\(port)/postgres (it lacks the CREATE privilege on the schema): grant it, or "
                    + "create the store once with a role that has it (PostgreSQL: permission denied for schema \(schema.name))"
        }
        #expect(try schema.rows("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()") == [["0"]])
        // A store created by another role: without grants on its tables, reading names the table.
        _ = try PostgresStore(connection: try schema.location(), model: try Self.model())
        #expect {
            let store = try PostgresStore(connection: url, model: try Self.model())
            _ = try store.read { try $0.count(entity: "Item", matching: nil) }
        } throws: { error in
            (error as? StoreError)?.code == .permissionDenied
                && (error as? StoreError)?.message.contains("permission denied for table trellis_metadata") == true
        }
    }

    /// The `schema` parameter of a connection string (URI and key-value forms) picks the
    /// PostgreSQL schema; libpq never sees it.
    @Test func theSchemaParameterPicksThePostgreSQLSchema() throws {
        let schema = Schema()
        let base = try PostgresTestServer.connectionString()
        let store = try PostgresStore(connection: base + "?schema=" + schema.name, model: try Self.model())
        #expect(store.schema == schema.name)
        #expect(store.storeDescription.hasPrefix("schema \(schema.name) of postgresql://trellis@"))
        #expect(ConnectionString.takingSchema(from: "host=/tmp dbname=x schema='a b' user=u").0 == "host=/tmp dbname=x user=u")
        #expect(ConnectionString.takingSchema(from: "host=/tmp dbname=x schema='a b' user=u").1 == "a b")
        #expect(ConnectionString.takingSchema(from: "postgresql://u@h/db?sslmode=disable&schema=s%20t").0 == "postgresql://u@h/db?sslmode=disable")
        #expect(ConnectionString.takingSchema(from: "postgresql://u@h/db?sslmode=disable&schema=s%20t").1 == "s t")
        #expect(PostgresStore.describe(connection: "postgresql://u:secret@h:5/db?sslmode=require") == "postgresql://u@h:5/db")
        #expect(PostgresStore.isConnectionString("host=db dbname=catalog") && PostgresStore.isConnectionString("postgres://x"))
        #expect(!PostgresStore.isConnectionString("trellis.sqlite") && !PostgresStore.isConnectionString("dir/a=b.sqlite"))
    }

    /// An unparsable string: the error never repeats what may be its password.
    @Test func anUnparsableConnectionStringHidesItsPassword() throws {
        #expect {
            _ = try PostgresStore(connection: "host=db password=hunter2 oops", model: try Self.model())
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .unavailable && error.message.hasPrefix("invalid PostgreSQL connection string: ")
                && !error.description.contains("hunter2")
        }
    }

    static func closedPort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
