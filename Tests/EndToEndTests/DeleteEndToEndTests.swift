import Foundation
import Testing
import TrellisTestSupport

/// `trellis delete --entity E --where PREDICATE` on SQLite and PostgreSQL (issue 23, point 2):
/// the model's delete rules as ``ObjectContext/delete(_:)`` applies them (cascade, nullify,
/// deny), the report, and a refused delete or predicate leaving the store as it was,
/// checked by `trellis count`.
@Suite struct DeleteEndToEndTests {
    /// Publisher → characters cascades; Character → publisher and powers nullify;
    /// Power → characters denies.
    static let model = """
        {"format": "trellis-model", "formatVersion": 1, "version": "1", "entities": [
          {"name": "Publisher", "identityAttributes": ["id"],
           "attributes": [{"name": "id", "type": "integer64", "jsonKeyPath": "id"}],
           "relationships": [{"name": "characters", "destination": "Character", "inverse": "publisher", "toMany": true,
                              "deleteRule": "cascade", "jsonKeyPath": "characters"}]},
          {"name": "Character", "identityAttributes": ["id"],
           "attributes": [{"name": "id", "type": "integer64", "jsonKeyPath": "id"},
                          {"name": "name", "type": "string", "jsonKeyPath": "name"}],
           "relationships": [{"name": "publisher", "destination": "Publisher", "inverse": "characters"},
                             {"name": "powers", "destination": "Power", "inverse": "characters", "toMany": true,
                              "jsonKeyPath": "powers"}]},
          {"name": "Power", "identityAttributes": ["id"],
           "attributes": [{"name": "id", "type": "integer64", "jsonKeyPath": "id"}],
           "relationships": [{"name": "characters", "destination": "Character", "inverse": "powers", "toMany": true,
                              "deleteRule": "deny"}]}]}
        """

    /// Publisher 1: characters 1 (power 1) and 2 (powers 1, 2); publisher 2: character 3
    /// (powers 2, 3); publisher 3: character 4 (no power).
    static let payload = """
        [{"id": 1, "characters": [{"id": 1, "name": "c1", "powers": [{"id": 1}]},
                                  {"id": 2, "name": "c2", "powers": [{"id": 1}, {"id": 2}]}]},
         {"id": 2, "characters": [{"id": 3, "name": "c3", "powers": [{"id": 2}, {"id": 3}]}]},
         {"id": 3, "characters": [{"id": 4, "name": "c4", "powers": []}]}]
        """

    /// A directory with the model and payload, and a seeded store of `kind`.
    final class Workspace {
        let directory: TemporaryDirectory
        let store: String
        let schema: String?

        init(_ kind: StoreKind) throws {
            directory = try TemporaryDirectory()
            if kind == .postgres {
                let schema = PostgresTestServer.makeSchemaName()
                self.schema = schema
                store = try PostgresTestServer.connectionString(schema: schema)
            } else {
                schema = nil
                store = "store.sqlite"
            }
            try Data(DeleteEndToEndTests.model.utf8).write(to: directory.url.appendingPathComponent("model.json"))
            try Data(DeleteEndToEndTests.payload.utf8).write(to: directory.url.appendingPathComponent("payload.json"))
            let seeded = try run(["import", "payload.json", "--model", "model.json", "--entity", "Publisher", "--store", store])
            #expect(seeded.status == 0, "\(seeded)")
        }

        deinit {
            directory.remove()
            if let schema { PostgresTestServer.dropSchema(schema) }
        }

        func run(_ arguments: [String]) throws -> TrellisProcess.Result {
            try TrellisProcess.run(arguments, in: directory.url)
        }

        func delete(_ entity: String, _ predicate: String) throws -> TrellisProcess.Result {
            try run(["delete", "--model", "model.json", "--entity", entity, "--where", predicate, "--store", store])
        }

        /// Publishers, characters, powers, and the links character–power, e.g. `3 4 3 6`.
        func counts() throws -> String {
            var parts: [String] = []
            for (entity, predicate) in [
                ("Publisher", "TRUEPREDICATE"), ("Character", "TRUEPREDICATE"),
                ("Power", "TRUEPREDICATE"), ("Character", "powers.@count > 0"),
                ("Character", "publisher == nil"),
            ] {
                let result = try run(["count", "--model", "model.json", "--entity", entity, "--where", predicate, "--store", store])
                parts.append(result.status == 0 ? result.stdout.trimmingCharacters(in: .newlines) : "error: \(result.stderr)")
            }
            return parts.joined(separator: " ")
        }

        /// The report without the store and time of its last line.
        func report(_ result: TrellisProcess.Result) -> String {
            guard let range = result.stdout.range(of: " from ", options: .backwards) else { return result.stdout }
            return String(result.stdout[..<range.lowerBound]) + "\n"
        }
    }

    static let seeded = "3 4 3 3 0"

    @Test(arguments: StoreKind.persistent)
    func cascadeDeletesTheCharactersAndNullifiesTheirPowers(kind: StoreKind) throws {
        let workspace = try Workspace(kind)
        #expect(try workspace.counts() == Self.seeded)
        let result = try workspace.delete("Publisher", "id == 1")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "")
        #expect(
            workspace.report(result) == """
                entity      deleted
                Publisher         1
                Character         2
                nullified 3 links
                deleted 3 objects

                """)
        // Power 1 stays (its characters are gone); character 3 keeps powers 2 and 3.
        #expect(try workspace.counts() == "2 2 3 1 0")
    }

    @Test(arguments: StoreKind.persistent)
    func nullifyRemovesTheDeletedCharacterFromItsPublisherAndPowers(kind: StoreKind) throws {
        let workspace = try Workspace(kind)
        let result = try workspace.delete("Character", "name == 'c3'")
        #expect(result.status == 0, "\(result)")
        #expect(
            workspace.report(result) == """
                entity      deleted
                Character         1
                nullified 3 links
                deleted 1 object

                """)
        #expect(try workspace.counts() == "3 3 3 2 0")
        // Publisher 2 has no character left.
        let empty = try workspace.run([
            "count", "--model", "model.json", "--entity", "Publisher", "--where", "characters.@count == 0 AND id == 2",
            "--store", workspace.store,
        ])
        #expect(empty.stdout == "1\n")
    }

    @Test(arguments: StoreKind.persistent)
    func aDeniedDeleteExitsOneAndChangesNothing(kind: StoreKind) throws {
        let workspace = try Workspace(kind)
        // Powers 1 and 3 are still linked (characters 1, 2 and 3): nothing is deleted.
        let result = try workspace.delete("Power", "id == 3 OR id == 1")
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("error: delete denied: Power.characters: cannot delete "), "\(result)")
        #expect(result.stderr.hasSuffix("; nothing was deleted\n"), "\(result)")
        #expect(try workspace.counts() == Self.seeded)
    }

    @Test(arguments: StoreKind.persistent)
    func aBadPredicateIsALocatedUsageErrorAndChangesNothing(kind: StoreKind) throws {
        let workspace = try Workspace(kind)
        let syntax = try workspace.delete("Character", "name == ")
        #expect(syntax.status == 64)
        #expect(syntax.stdout == "")
        #expect(syntax.stderr.hasPrefix("error: invalid predicate for '--where' (name == ): "), "\(syntax)")
        #expect(syntax.stderr.contains("column 9"), "\(syntax)")
        let unknown = try workspace.delete("Character", "rank > 2")
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("error: invalid predicate for '--where' (rank > 2): "), "\(unknown)")
        #expect(unknown.stderr.contains("rank"))
        #expect(try workspace.counts() == Self.seeded)
    }

    @Test(arguments: StoreKind.persistent)
    func noMatchDeletesNothing(kind: StoreKind) throws {
        let workspace = try Workspace(kind)
        let result = try workspace.delete("Publisher", "id == 99")
        #expect(result.status == 0, "\(result)")
        #expect(
            workspace.report(result) == """
                entity      deleted
                Publisher         0
                nullified 0 links
                deleted 0 objects

                """)
        #expect(try workspace.counts() == Self.seeded)
    }

    @Test func aMissingWhereIsBadUsage() throws {
        let workspace = try Workspace(.sqlite)
        let result = try workspace.run(["delete", "--model", "model.json", "--entity", "Power", "--store", workspace.store])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: missing '--where'"), "\(result)")
        #expect(try workspace.counts() == Self.seeded)
    }
}
