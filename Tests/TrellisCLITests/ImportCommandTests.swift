import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisCLI

/// A temporary directory with a small model (`model.json`) for in-process command tests.
struct CommandWorkspace {
    static let model = #"""
        {"format": "trellis-model", "formatVersion": 1, "entities": [
          {"name": "Post", "identityAttributes": ["id"],
           "attributes": [{"name": "id", "type": "integer64", "jsonKeyPath": "id"},
                          {"name": "title", "type": "string", "jsonKeyPath": "title"},
                          {"name": "score", "type": "integer32", "jsonKeyPath": "stats.score"}],
           "relationships": [{"name": "author", "destination": "Author", "inverse": "posts", "jsonKeyPath": "author"}]},
          {"name": "Author", "identityAttributes": ["id"],
           "attributes": [{"name": "id", "type": "integer64", "jsonKeyPath": "id"},
                          {"name": "name", "type": "string", "jsonKeyPath": "name"}],
           "relationships": [{"name": "posts", "destination": "Post", "inverse": "author", "toMany": true}]}
        ]}
        """#

    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-cli-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try write("model.json", Self.model)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
    }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path) }

    func run(_ arguments: String...) -> CommandResult { trellis(arguments: arguments, in: url) }

    /// The output without the elapsed time of the summary's last line (`in 0.01 s`).
    static func withoutTime(_ text: String) -> String {
        text.replacingOccurrences(of: #" in [0-9]+\.[0-9]{2} s"#, with: " in T s", options: .regularExpression)
    }
}

@Suite struct ImportCommandTests {
    static let posts = #"""
        {"data": {"posts": [
          {"id": 1, "title": "One", "stats": {"score": 5}, "author": {"id": 10, "name": "Ada"}},
          {"id": 2, "title": "Two", "author": 10},
          {"id": 1, "title": "One again"}
        ]}}
        """#

    @Test func importPrintsATableOfCounts() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        let result = w.run("import", "posts.json", "--model", "model.json", "--entity", "Post", "--at", "data.posts")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            CommandWorkspace.withoutTime(result.stdout) == """
                entity  inserted   updated  unchanged   deleted
                Post           2         0          0         0
                Author         1         0          0         0
                imported 3 elements from 1 file into trellis.sqlite in T s

                """)
        #expect(w.exists("trellis.sqlite"))
    }

    /// An abstract entity's objects are counted under their sub-entities: it gets no row of zeros.
    @Test func anAbstractImportedEntityHasNoRow() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("vehicles.json", #"[{"id": 1, "type": "car"}, {"id": 2, "type": "bike"}, {"id": 3, "type": "bike"}]"#)
        let fixtures = Fixtures.url("coredata").path
        let result = w.run(
            "import", "vehicles.json", "--model", fixtures + "/Vehicles.xcdatamodeld",
            "--bindings", fixtures + "/vehicles-bindings.json", "--entity", "Vehicle")
        #expect(result.stderr == "")
        #expect(
            CommandWorkspace.withoutTime(result.stdout) == """
                entity  inserted   updated  unchanged   deleted
                Bike           2         0          0         0
                Car            1         0          0         0
                imported 3 elements from 1 file into trellis.sqlite in T s

                """)
    }

    @Test func jsonReportIsOneLine() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        _ = w.run("import", "posts.json", "--model", "model.json", "--entity", "Post", "--at", "data.posts")
        try w.write("more.json", #"[{"id": 2, "title": "Two!"}, {"id": 3}]"#)
        let result = w.run("import", "more.json", "--model", "model.json", "--entity", "Post", "--report", "json")
        #expect(result.status == 0)
        let report = try JSONReader.parse(result.stdout)
        #expect(report["entities"] == ["Post": ["inserted": 1, "updated": 1, "unchanged": 0, "deleted": 0]])
        #expect(result.stdout.filter { $0 == "\n" }.count == 1)
    }

    @Test func dryRunWritesNothing() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        let result = w.run("import", "posts.json", "--model", "model.json", "--entity", "Post", "--at", "data.posts", "--dry-run")
        #expect(result.status == 0)
        #expect(
            CommandWorkspace.withoutTime(result.stdout).hasSuffix(
                "Author         1         0          0         0\n"
                    + "dry run: 3 elements from 1 file checked against trellis.sqlite in T s; nothing was written\n"))
        #expect(!w.exists("trellis.sqlite"))
    }

    /// The workspace's model with `Post.views` (default 0) and a new entity `Trial`: a store
    /// made with `model.json` needs a migration for it.
    static let extendedModel = CommandWorkspace.model
        .replacingOccurrences(
            of: #"{"name": "score", "type": "integer32", "jsonKeyPath": "stats.score"}"#,
            with: #"{"name": "score", "type": "integer32", "jsonKeyPath": "stats.score"}, "#
                + #"{"name": "views", "type": "integer32", "default": 0, "jsonKeyPath": "views"}"#
        )
        .replacingOccurrences(of: "\n]}", with: ",\n  {\"name\": \"Trial\"}\n]}")

    /// A workspace whose store holds `posts` imported with `model.json`, and `model2.json`
    /// (``extendedModel``) beside it.
    static func workspaceWithImportedPosts() throws -> CommandWorkspace {
        let w = try CommandWorkspace()
        try w.write("posts.json", Self.posts)
        try w.write("model2.json", Self.extendedModel)
        try #require(w.run("import", "posts.json", "--model", "model.json", "--entity", "Post", "--at", "data.posts").status == 0)
        return w
    }

    @Test func dryRunWithAModelThatNeedsAMigrationLeavesTheStoreByteForByte() throws {
        let w = try Self.workspaceWithImportedPosts()
        defer { w.remove() }
        try w.write("more.json", #"{"data": {"posts": [{"id": 2, "title": "Two!", "views": 7}, {"id": 4, "author": 10}]}}"#)
        let store = w.url.appendingPathComponent("trellis.sqlite")
        let bytes = try Data(contentsOf: store)
        let state = try SQLiteShell.state(of: store)
        #expect(bytes.count > 0 && state.contains("Post: 2\n"))

        let dryRun = w.run("import", "more.json", "--model", "model2.json", "--entity", "Post", "--at", "data.posts", "--dry-run")
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stderr == "")
        #expect(
            CommandWorkspace.withoutTime(dryRun.stdout) == """
                entity  inserted   updated  unchanged   deleted
                Post           1         1          0         0
                dry run: 2 elements from 1 file checked against trellis.sqlite in T s; nothing was written

                """)
        #expect(try Data(contentsOf: store) == bytes)
        #expect(try SQLiteShell.state(of: store) == state)
        // The model the store was made for still fits it.
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post")
                == CommandResult(
                    status: 0,
                    stdout: #"""
                        [{"id":1,"title":"One again","stats":{"score":5},"author":{"id":10,"name":"Ada"}},\#
                        {"id":2,"title":"Two","stats":{"score":null},"author":{"id":10,"name":"Ada"}}]

                        """#, stderr: ""))

        // The real import reports what the dry run did, and migrates the store.
        let real = w.run("import", "more.json", "--model", "model2.json", "--entity", "Post", "--at", "data.posts")
        #expect(
            CommandWorkspace.withoutTime(real.stdout)
                == CommandWorkspace.withoutTime(dryRun.stdout)
                .replacingOccurrences(
                    of: "dry run: 2 elements from 1 file checked against trellis.sqlite in T s; nothing was written",
                    with: "imported 2 elements from 1 file into trellis.sqlite in T s"))
        #expect(try SQLiteShell.query(store, #"SELECT "id", "views" FROM "Post" ORDER BY "id""#) == "1|0\n2|7\n4|0")
        #expect(try SQLiteShell.query(store, "SELECT name FROM sqlite_master WHERE name = 'Trial'") == "Trial")
    }

    @Test func dryRunIntoAnEmptyFileLeavesItEmpty() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        try w.write("empty.sqlite", "")
        let before = try FileManager.default.contentsOfDirectory(atPath: w.url.path).sorted()
        let result = w.run(
            "import", "posts.json", "--model", "model.json", "--entity", "Post", "--at", "data.posts",
            "--store", "empty.sqlite", "--dry-run")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            CommandWorkspace.withoutTime(result.stdout) == """
                entity  inserted   updated  unchanged   deleted
                Post           2         0          0         0
                Author         1         0          0         0
                dry run: 3 elements from 1 file checked against empty.sqlite in T s; nothing was written

                """)
        #expect(try Data(contentsOf: w.url.appendingPathComponent("empty.sqlite")).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: w.url.path).sorted() == before)
    }

    @Test func aFailedImportWithAModelThatNeedsAMigrationLeavesTheStoreUnmigrated() throws {
        let w = try Self.workspaceWithImportedPosts()
        defer { w.remove() }
        let store = w.url.appendingPathComponent("trellis.sqlite")
        let bytes = try Data(contentsOf: store)
        let state = try SQLiteShell.state(of: store)
        try w.write("bad.json", #"[{"id": 5}, {"id": 6, "views": "many"}]"#)
        let result = w.run("import", "bad.json", "--model", "model2.json", "--entity", "Post")
        #expect(
            result
                == CommandResult(
                    status: 1, stdout: "", stderr: "error: bad.json: $[1].views: cannot store \"many\" in Post.views (integer32): not a decimal number\n"))
        #expect(try Data(contentsOf: store) == bytes)
        #expect(try SQLiteShell.state(of: store) == state)
    }

    @Test func aModelThatCannotBeMigratedNamesEveryDifference() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        try #require(w.run("import", "posts.json", "--model", "model.json", "--entity", "Post", "--at", "data.posts").status == 0)
        try w.write(
            "other.json",
            #"""
            {"format": "trellis-model", "formatVersion": 1, "entities": [
              {"name": "Post", "identityAttributes": ["id"], "attributes": [{"name": "id", "type": "string", "jsonKeyPath": "id"}]}]}
            """#)
        try w.write("one.json", #"[{"id": "x"}]"#)
        #expect(
            w.run("import", "one.json", "--model", "other.json", "--entity", "Post")
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: """
                        error: trellis.sqlite: the store's schema cannot be migrated to the model: entity Author: the entity was removed; \
                        entity Post, property id: the attribute type changed from integer64 to string; entity Post, property title: the attribute \
                        was removed; entity Post, property score: the attribute was removed; entity Post, property author: the relationship was removed

                        """))
    }

    @Test func objectOfObjectsWithKeyAttributeAndValueKey() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("authors.json", #"{"names": {"10": "Ada", "11": "Grace"}}"#)
        let result = w.run(
            "import", "authors.json", "--model", "model.json", "--entity", "Author", "--at", "names",
            "--key-attribute", "id", "--value-key", "name", "--report", "json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try JSONReader.parse(result.stdout)["entities"] == ["Author": ["inserted": 2, "updated": 0, "unchanged": 0, "deleted": 0]])
        let export = w.run("export", "--model", "model.json", "--entity", "Author")
        #expect(export.stdout == #"[{"id":10,"name":"Ada"},{"id":11,"name":"Grace"}]"# + "\n")
    }

    @Test func badValueNamesFilePathEntityAndAttribute() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("good.json", #"[{"id": 1}]"#)
        try w.write("bad.json", #"[{"id": 2}, {"id": 3, "stats": {"score": "high"}}]"#)
        let result = w.run("import", "good.json", "bad.json", "--model", "model.json", "--entity", "Post")
        #expect(
            result
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: bad.json: $[1].stats.score: cannot store \"high\" in Post.score (integer32): not a decimal number\n"))
        #expect(!w.exists("trellis.sqlite"))
    }

    @Test func ndjsonErrorsNameTheLine() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.ndjson", "{\"id\": 1}\n\n{\"id\": 2, \"title\": 7}\n{\"id\": \"x\"}\n")
        let result = w.run("import", "posts.ndjson", "--format", "ndjson", "--model", "model.json", "--entity", "Post")
        #expect(
            result
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: posts.ndjson:4: $[2].id: cannot store \"x\" in Post.id (integer64): not a decimal number\n"))
    }

    @Test func severalNDJSONFilesNameTheFileAndLine() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("a.ndjson", "{\"id\": 1}\n{\"id\": 2}\n")
        try w.write("b.ndjson", "{\"id\": 3}\n{\"id\": 4, \"stats\": {\"score\": []}}\n")
        let result = w.run("import", "a.ndjson", "b.ndjson", "--format", "ndjson", "--model", "model.json", "--entity", "Post")
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("error: b.ndjson:2: $[1].stats.score: cannot store [] in Post.score (integer32)"),
            "\(result.stderr)")
        #expect(!w.exists("trellis.sqlite"))
        let good = w.run("import", "a.ndjson", "--format", "ndjson", "--model", "model.json", "--entity", "Post", "--report", "json")
        #expect(try JSONReader.parse(good.stdout)["entities"] == ["Post": ["inserted": 2, "updated": 0, "unchanged": 0, "deleted": 0]])
    }

    @Test func unknownNamesListWhatExists() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", "[]")
        #expect(
            w.run("import", "posts.json", "--model", "model.json", "--entity", "Comment")
                == CommandResult(
                    status: 1, stdout: "", stderr: "error: unknown entity 'Comment' in model.json; the model has: Post, Author\n"))
        #expect(
            w.run("import", "posts.json", "--model", "model.json", "--entity", "Post", "--key-attribute", "ident")
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: --key-attribute: 'ident' is not an attribute of Post; its attributes: id, title, score\n"))
    }

    @Test func keyAttributeMustBeMapped() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("tags.json", #"{"t": {"1": "a"}}"#)
        try w.write(
            "tags-model.json",
            #"""
            {"format": "trellis-model", "formatVersion": 1, "entities": [{"name": "Tag", "identityAttributes": ["id"],
             "attributes": [{"name": "id", "type": "integer64"}, {"name": "name", "type": "string", "jsonKeyPath": "name"}]}]}
            """#)
        #expect(
            w.run(
                "import", "tags.json", "--model", "tags-model.json", "--entity", "Tag", "--at", "t", "--key-attribute", "id",
                "--value-key", "name")
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: --key-attribute: 'id' is not a mapped attribute of Tag (it has no JSON key path); mapped attributes: name\n"))
    }

    @Test func singleObjectAtAKeyPath() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        let result = w.run(
            "import", "posts.json", "--model", "model.json", "--entity", "Post", "--at", "data.posts.0",
            "--report", "json")
        #expect(result.status == 0)
        #expect(
            try JSONReader.parse(result.stdout)["entities"] == [
                "Post": ["inserted": 1, "updated": 0, "unchanged": 0, "deleted": 0],
                "Author": ["inserted": 1, "updated": 0, "unchanged": 0, "deleted": 0],
            ])
    }

    @Test func missingKeyPathAndMissingFile() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        let result = w.run("import", "posts.json", "--model", "model.json", "--entity", "Post", "--at", "data.post")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: posts.json: no value at 'data.post' (--at): "))
        #expect(
            w.run("import", "nope.json", "--model", "model.json", "--entity", "Post")
                == CommandResult(status: 1, stdout: "", stderr: "error: nope.json: no such file\n"))
        #expect(!w.exists("trellis.sqlite"))
    }

    @Test func invalidModelFileIsNamedWithItsPath() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("bad-model.json", #"{"format": "trellis-model", "formatVersion": 1, "entities": [{"name": "A", "atributes": []}]}"#)
        try w.write("posts.json", "[]")
        let result = w.run("import", "posts.json", "--model", "bad-model.json", "--entity", "A")
        #expect(result.status == 1)
        #expect(
            result.stderr == "error: bad-model.json: $.entities[0].atributes: unknown key 'atributes' in an entity "
                + "(did you mean 'attributes'?); allowed keys: name, parent, abstract, identityAttributes, entityMapper, "
                + "dictionaryTransformer, userInfo, attributes, relationships\n")
    }
}
