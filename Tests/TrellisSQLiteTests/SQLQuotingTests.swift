import CSQLite
import Foundation
import Testing
import Trellis
import TrellisSQL

@testable import TrellisSQLite

/// An audit of every SQL text the store runs: identifiers are always quoted, values never
/// appear in SQL. Every entity and property name holds the marker `zq` next to quotes,
/// semicolons and SQL keywords, and every value the marker `vq`; the test records each
/// statement SQLite runs (`sqlite3_trace_v2`) while importing, updating, fetching by
/// identity, predicate and ID, counting, loading every kind of to-many and deleting, plus
/// the schema and migration DDL, then checks that `zq` occurs only inside quoted
/// identifiers or string literals and that `vq` occurs nowhere.
@Suite struct SQLQuotingTests {
    static func model(withExtras: Bool = true) throws -> ObjectModel {
        var order = [
            AttributeDescription(name: "select\"zq;", type: .string),
            AttributeDescription(name: "group by zq", type: .integer64),
            AttributeDescription(name: "x'); DROP TABLE zq; --", type: .string),
        ]
        if withExtras { order.append(AttributeDescription(name: "new \"zq\" column", type: .string)) }
        var entities = [
            EntityDescription(
                name: "Order \"zq\"", attributes: order,
                relationships: [
                    RelationshipDescription(name: "from zq'", destinationEntity: "Item;zq", inverseName: "orders zq"),
                    RelationshipDescription(name: "values \"zq\"", destinationEntity: "Item;zq", isToMany: true),
                    RelationshipDescription(name: "tags zq", destinationEntity: "Tag zq", inverseName: "orders\"zq", isToMany: true, isOrdered: true),
                ], userInfo: ["identityAttributes": "select\"zq;"]),
            // An ordered to-many whose inverse is a to-one, and a to-one to a hierarchy of three entities.
            EntityDescription(
                name: "Item;zq", attributes: [AttributeDescription(name: "id\"zq", type: .string)],
                relationships: [
                    RelationshipDescription(name: "orders zq", destinationEntity: "Order \"zq\"", inverseName: "from zq'", isToMany: true, isOrdered: true),
                    RelationshipDescription(name: "vehicle zq", destinationEntity: "Vehicle zq'"),
                ], userInfo: ["identityAttributes": "id\"zq"]),
            EntityDescription(
                name: "Tag zq",
                attributes: [
                    AttributeDescription(name: "a'zq", type: .string), AttributeDescription(name: "b\"zq", type: .integer64),
                ],
                relationships: [
                    RelationshipDescription(name: "orders\"zq", destinationEntity: "Order \"zq\"", inverseName: "tags zq", isToMany: true)
                ], userInfo: ["identityAttributes": "a'zq, b\"zq"]),
            EntityDescription(
                name: "Vehicle zq'", attributes: [AttributeDescription(name: "plate\"zq", type: .string)],
                userInfo: ["entityMapperName": "Kind"]),
            EntityDescription(name: "Car'zq", parentName: "Vehicle zq'", userInfo: ["identityAttributes": "plate\"zq"]),
            EntityDescription(name: "Bike zq", parentName: "Vehicle zq'"),
        ]
        if withExtras { entities.append(EntityDescription(name: "Table\"zq\"; --", attributes: [AttributeDescription(name: "n zq", type: .integer64)])) }
        return try ObjectModel(entities: entities, keyConvention: .propertyName)
    }

    /// Collects the SQL text of every statement SQLite starts on a connection.
    final class Trace: @unchecked Sendable {
        // SAFETY: appended to only by SQLite's trace callback, which runs on the thread
        // using the connection (the test's), and read after the store's sessions end.
        var statements: [String] = []
    }

    /// `sql` without its double-quoted identifiers and single-quoted literals (`""` and
    /// `''` inside them are escapes); nil when a quote is not closed.
    static func unquoted(_ sql: String) -> String? {
        var out = ""
        var quote: Character?
        var chars = Array(sql)[...]
        while let c = chars.popFirst() {
            if let q = quote {
                if c == q {
                    if chars.first == q { chars.removeFirst() } else { quote = nil }
                }
            } else if c == "\"" || c == "'" {
                quote = c
                out.append(" ")
            } else {
                out.append(c)
            }
        }
        return quote == nil ? out : nil
    }

    @Test func unquotedStripsIdentifiersAndLiterals() {
        #expect(Self.unquoted(#"SELECT "a""zq" FROM "t" WHERE x = 'it''s zq'"#) == "SELECT   FROM   WHERE x =  ")
        #expect(Self.unquoted(#"SELECT "zq"#) == nil)
    }

    @Test func everyIdentifierIsQuotedAndNoValueReachesSQLText() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try Self.model()
        let store = try SQLiteStore(
            path: directory.path("quoting.sqlite"), model: model,
            configuration: .init(lookupChunkSize: 2))
        let trace = Trace()
        try store.withConnection { connection in
            let callback: @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = {
                _, context, _, text in
                guard let context, let text else { return 0 }
                let trace = Unmanaged<Trace>.fromOpaque(context).takeUnretainedValue()
                trace.statements.append(String(cString: text.assumingMemoryBound(to: CChar.self)))
                return 0
            }
            _ = sqlite3_trace_v2(connection.handle, UInt32(SQLITE_TRACE_STMT), callback, Unmanaged.passUnretained(trace).toOpaque())
        }

        let kind = EntityMapper(name: "Kind") { object in object["kind"]?.stringValue == "car" ? "Car'zq" : "Bike zq" }
        let context = ObjectContext(store: store, bindings: MappingBindings(entityMappers: [kind]))
        let orders: JSONValue = [
            [
                "select\"zq;": "vq1'); DROP TABLE x; --", "group by zq": 1, "x'); DROP TABLE zq; --": "vq\" OR 1=1",
                "from zq'": "vq-item-1", "values \"zq\"": ["vq-item-2", ["id\"zq": "vq-item-3"]],
                "tags zq": [["a'zq": "vq-a", "b\"zq": 1], ["a'zq": "vq-b", "b\"zq": 2]],
            ],
            [
                "select\"zq;": "vq2", "from zq'": ["id\"zq": "vq-item-1", "vehicle zq": ["plate\"zq": "vq-P2", "kind": "bike"]],
                "tags zq": [["a'zq": "vq-b", "b\"zq": 2]],
            ],
            ["select\"zq;": "vq3", "new \"zq\" column": "vq-new"],
        ]
        _ = try context.importObjects(from: orders, entity: "Order \"zq\"")
        // Updates (changed columns only), replaced to-manys, lookups of stored identities.
        _ = try context.importObjects(
            from: [
                ["select\"zq;": "vq1'); DROP TABLE x; --", "group by zq": 2, "values \"zq\"": ["vq-item-3"], "tags zq": [["a'zq": "vq-b", "b\"zq": 2]]],
                ["select\"zq;": "vq2", "from zq'": nil, "x'); DROP TABLE zq; --": "vq-changed"],
            ], entity: "Order \"zq\"")
        _ = try context.importObjects(
            from: [
                ["plate\"zq": "vq-P1", "kind": "car"], ["plate\"zq": "vq-P1", "kind": "car"],
                ["plate\"zq": "vq-P1", "kind": "bike"],
            ], entity: "Vehicle zq'")
        let all = try store.read { session in
            _ = try session.fetch(
                entity: "Tag zq", identities: [[.string("vq-a"), .integer(1)], [.string("vq-b"), .integer(2)], [.string("vq-c"), .integer(3)]])
            _ = try session.fetch(entity: "Car'zq", identities: [[.string("vq-P1")]])
            _ = try session.count(entity: "Vehicle zq'", matching: .equals(attribute: "plate\"zq", value: .string("vq-P1")))
            let item = try #require(try session.fetch(entity: "Item;zq", identities: [[.string("vq-item-1")]]).first)
            _ = try session.fetch(
                entity: "Order \"zq\"",
                matching: .and([
                    .or([.equals(attribute: "select\"zq;", value: .string("vq2")), .oneOf(attribute: "x'); DROP TABLE zq; --", values: [.string("vq-x")])]),
                    .not(.relatedTo(relationship: "from zq'", destination: item.id)),
                    .equals(attribute: "group by zq", value: nil),
                ]))
            _ = try session.fetch(entity: "Item;zq", matching: nil)
            return try session.fetch(entity: "Order \"zq\"", matching: nil)
        }
        #expect(all.count == 3)
        _ = try store.read { try $0.fetch(ids: all.map(\.id)) }
        let doomed = try #require(try context.fetch("Order \"zq\"", identity: [.string("vq3")]))
        try context.delete(doomed)
        let item = try #require(try context.fetch("Item;zq", identity: [.string("vq-item-2")]))
        try context.delete(item)
        try context.save()
        #expect(try context.fetch("Order \"zq\"").count == 2)

        let statements =
            trace.statements + (try SQLiteStore.schemaStatements(for: model))
            + SQLiteStore.migrationStatements(
                from: try SchemaDescription(model: try Self.model(withExtras: false), previous: nil),
                to: try SchemaDescription(model: model, previous: nil))
        // The statements cover every kind of SQL the store writes.
        for kind in [
            "CREATE TABLE", "CREATE INDEX", "CREATE UNIQUE INDEX", "ALTER TABLE", "INSERT INTO", "ON CONFLICT", "UPDATE",
            "DELETE FROM", "json_each", "FROM (VALUES", "LEFT JOIN", "ORDER BY", "count(*)", "max(\"_pk\")", "NOT coalesce(",
            "WHERE \"_entity\" IN ('",
        ] {
            #expect(statements.contains { $0.contains(kind) }, "no statement with \(kind)")
        }
        for sql in statements {
            let rest = Self.unquoted(sql)
            #expect(rest != nil, "unclosed quote: \(sql)")
            #expect(rest?.contains("zq") == false, "a name outside quotes: \(sql)")
            #expect(!sql.contains("vq"), "a value in SQL text: \(sql)")
        }
    }
}
