import Foundation
import Testing
import Trellis
import TrellisSQLite
import TrellisTestSupport

@testable import TrellisCLI

/// `trellis import` without `--model` (docs/ModelInference.md, "Imports without a model").
@Suite struct ImportWithoutModelTests {
    static let posts = #"""
        [{"id": 1, "title": "One", "author": {"id": 10, "name": "Ada"}},
         {"id": 2, "title": "Two", "author": {"id": 11, "name": "Grace"}}]
        """#

    @Test func aNewStoreGetsTheInferredModelAndRecordsIt() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        let result = w.run("import", "posts.json", "--entity", "Post", "--store", "p.sqlite")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            CommandWorkspace.withoutTime(result.stdout) == """
                entity  inserted   updated  unchanged   deleted
                Post           2         0          0         0
                Author         2         0          0         0
                imported 2 elements from 1 file into p.sqlite in T s
                model: inferred from the payload (2 entities, 4 attributes, 2 relationships) and recorded in p.sqlite; \
                print it with: trellis model show p.sqlite

                """)
        let inferred = w.run("model", "infer", "posts.json", "--entity", "Post")
        #expect(try SQLiteStore.recordedModel(atPath: w.url.appendingPathComponent("p.sqlite").path) == inferred.stdout)
        #expect(try SQLiteShell.query(w.url.appendingPathComponent("p.sqlite"), "SELECT id, title FROM Post ORDER BY id") == "1|One\n2|Two")

        let again = w.run("import", "posts.json", "--entity", "Post", "--store", "p.sqlite")
        #expect(again.status == 0)
        #expect(
            CommandWorkspace.withoutTime(again.stdout) == """
                entity  inserted   updated  unchanged   deleted
                Post           0         0          2         0
                Author         0         0          2         0
                imported 2 elements from 1 file into p.sqlite in T s
                model: the one recorded in p.sqlite

                """)
    }

    @Test func aLaterPayloadExtendsTheRecordedModel() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        try w.write("more.json", #"[{"id": 3, "title": "Three", "body": "text", "author": {"id": 10, "name": "Ada"}, "tags": [{"id": 5, "name": "swift"}]}]"#)
        #expect(w.run("import", "posts.json", "--entity", "Post").status == 0)
        let result = w.run("import", "more.json", "--entity", "Post")
        #expect(result.status == 0)
        #expect(
            CommandWorkspace.withoutTime(result.stdout) == """
                entity  inserted   updated  unchanged   deleted
                Post           1         0          0         0
                Author         0         0          1         0
                Tag            1         0          0         0
                imported 1 element from 1 file into trellis.sqlite in T s
                model: the one recorded in trellis.sqlite, extended: new attribute Post.body, new entity Tag, \
                new relationship Post.tags; print it with: trellis model show trellis.sqlite

                """)
        let store = w.url.appendingPathComponent("trellis.sqlite")
        #expect(try SQLiteShell.query(store, "SELECT id, title, body FROM Post ORDER BY id") == "1|One|\n2|Two|\n3|Three|text")
        #expect(try SQLiteShell.query(store, "SELECT id, name FROM Tag") == "5|swift")
        let show = w.run("model", "show", "trellis.sqlite")
        #expect(show.status == 0)
        #expect(show.stdout.hasPrefix("model: trellis.sqlite (the model recorded in the store)\n3 entities, 7 attributes, 4 relationships\n"))
        #expect(show.stdout.contains("  attribute body: string, key path body\n"))
    }

    @Test func aConflictingTypeIsALocatedErrorAndTheStoreIsUnchanged() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        try w.write("bad.json", #"[{"id": 3, "title": "Three", "author": {"id": 10, "name": "Ada"}}, {"id": "x-4", "title": "Four"}]"#)
        #expect(w.run("import", "posts.json", "--entity", "Post").status == 0)
        let store = w.url.appendingPathComponent("trellis.sqlite")
        let bytes = try Data(contentsOf: store)
        let result = w.run("import", "bad.json", "--entity", "Post")
        #expect(
            result
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: """
                        error: bad.json: $[1].id: entity Post, property id (key id): the recorded model has type integer64, but the payload \
                        has a string here (their type would be string); the store was not changed

                        """))
        #expect(try Data(contentsOf: store) == bytes)
    }

    @Test func modelAlwaysWinsAndIsRecorded() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        // The inferred Post (id, title) is a part of model.json's, which adds score and Author.
        try w.write("posts.json", #"[{"id": 1, "title": "One"}]"#)
        #expect(w.run("import", "posts.json", "--entity", "Post").status == 0)
        let result = w.run("import", "posts.json", "--entity", "Post", "--model", "model.json")
        #expect(result.status == 0)
        #expect(!result.stdout.contains("model:"))
        let recorded = try #require(try SQLiteStore.recordedModel(atPath: w.url.appendingPathComponent("trellis.sqlite").path))
        #expect(recorded == w.run("model", "convert", "model.json", "--to", "json").stdout)
        // The store now records model.json's model: a later import without --model uses it.
        let later = w.run("import", "posts.json", "--entity", "Post")
        #expect(later.stdout.hasSuffix("model: the one recorded in trellis.sqlite\n"))
    }

    @Test func modelShowAndConvertReadAStoresRecordedModel() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        #expect(w.run("import", "posts.json", "--entity", "Post", "--store", "p.sqlite").status == 0)
        let convert = w.run("model", "convert", "p.sqlite", "-o", "model-out.json")
        #expect(convert == CommandResult(status: 0, stdout: "wrote model-out.json: 2 entities, 4 attributes, 2 relationships\n", stderr: ""))
        let written = try String(contentsOf: w.url.appendingPathComponent("model-out.json"), encoding: .utf8)
        #expect(written == w.run("model", "infer", "posts.json", "--entity", "Post").stdout)
        let show = w.run("model", "show", "p.sqlite")
        #expect(show.stdout.hasPrefix("model: p.sqlite (the model recorded in the store)\n2 entities, 4 attributes, 2 relationships\n\nentity Post\n"))
        // And a store stands for its model where --model is given.
        let export = w.run("export", "--model", "p.sqlite", "--store", "p.sqlite", "--entity", "Author")
        #expect(export.status == 0)
        #expect(export.stdout == #"[{"id":10,"name":"Ada"},{"id":11,"name":"Grace"}]"# + "\n")
    }

    @Test func aStoreThatRecordsNoModelNeedsModel() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Post",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64, userInfo: [GrootAnnotation.jsonKeyPath: "id"])
                ], userInfo: [GrootAnnotation.identityAttributes: "id"])
        ])
        _ = try SQLiteStore(path: w.url.appendingPathComponent("old.sqlite").path, model: model)
        let expected =
            "error: old.sqlite: the store records no model (it was written by a program that gave none, or by an older "
            + "Trellis); give the model with --model\n"
        #expect(w.run("import", "posts.json", "--entity", "Post", "--store", "old.sqlite") == CommandResult(status: 1, stdout: "", stderr: expected))
        #expect(w.run("model", "show", "old.sqlite") == CommandResult(status: 1, stdout: "", stderr: expected))
    }

    @Test func bindingsNeedModel() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        let result = w.run("import", "posts.json", "--entity", "Post", "--bindings", "b.json")
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: '--bindings' needs '--model' (a recorded or inferred model carries its bindings)\n"))
    }

    @Test func aDryRunRecordsNothingAndCreatesNoStore() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("posts.json", Self.posts)
        let result = w.run("import", "posts.json", "--entity", "Post", "--dry-run")
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("nothing was written\nmodel: inferred from the payload (dry run: not recorded)\n"))
        #expect(!w.exists("trellis.sqlite"))
    }

    @Test func standardInputIsReadTwiceFromACopy() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        let result = trellis(arguments: ["import", "-", "--entity", "Post", "--report", "json"], in: w.url, stdin: Self.posts)
        #expect(result.status == 0)
        #expect(
            result.stdout.hasPrefix(
                #"{"entities":{"Post":{"inserted":2,"updated":0,"unchanged":0,"deleted":0},"#
                    + #""Author":{"inserted":2,"updated":0,"unchanged":0,"deleted":0}},"seconds":"#))
        #expect(result.stdout.hasSuffix(#","model":"inferred"}"# + "\n"))
    }

    @Test func anObjectKeyedByIdentityIsImportedMemberByMember() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write(
            "catalog.json",
            #"{"events": {"138586341": {"id": 138586341, "name": "Bach"}, "138586345": {"id": 138586345, "name": "Ravel"}},"#
                + #" "performances": [{"id": 1, "eventId": 138586341}, {"id": 2, "eventId": 138586345}]}"#)
        let events = w.run("import", "catalog.json", "--at", "events", "--entity", "Event")
        #expect(events.status == 0)
        #expect(events.stdout.hasPrefix("entity  inserted   updated  unchanged   deleted\nEvent          2         0          0         0\n"))
        let performances = w.run("import", "catalog.json", "--at", "performances", "--entity", "Performance")
        #expect(performances.status == 0)
        #expect(performances.stdout.contains("extended: new entity Performance, new relationship Event.performances;"))
        let store = w.url.appendingPathComponent("trellis.sqlite")
        #expect(
            try SQLiteShell.query(store, #"SELECT p.id, e.name FROM Performance p JOIN Event e ON e._pk = p.event ORDER BY p.id"#)
                == "1|Bach\n2|Ravel")
    }
}
