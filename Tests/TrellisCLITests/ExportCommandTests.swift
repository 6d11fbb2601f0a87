import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisCLI

@Suite struct ExportCommandTests {
    /// A workspace whose store holds posts 1 and 2 by author 10, and post 3 without author.
    static func imported() throws -> CommandWorkspace {
        let w = try CommandWorkspace()
        try w.write(
            "posts.json",
            #"""
            [{"id": 1, "title": "One", "stats": {"score": 5}, "author": {"id": 10, "name": "Ada"}},
             {"id": 2, "title": "Two", "author": 10},
             {"id": 3, "title": "Three"}]
            """#)
        let result = w.run("import", "posts.json", "--model", "model.json", "--entity", "Post")
        try #require(result.status == 0, "\(result.stderr)")
        return w
    }

    /// Nested by default, as `ExportOptions`: each exported object starts its own tree, so
    /// author 10 is written in full under both of its posts.
    @Test func exportsACompactArrayWithRelationshipsNestedByDefault() throws {
        let w = try Self.imported()
        defer { w.remove() }
        let result = w.run("export", "--model", "model.json", "--entity", "Post")
        #expect(
            result
                == CommandResult(
                    status: 0,
                    stdout: #"""
                        [{"id":1,"title":"One","stats":{"score":5},"author":{"id":10,"name":"Ada"}},\#
                        {"id":2,"title":"Two","stats":{"score":null},"author":{"id":10,"name":"Ada"}},\#
                        {"id":3,"title":"Three","stats":{"score":null},"author":null}]

                        """#, stderr: ""))
        #expect(w.run("export", "--model", "model.json", "--entity", "Post", "--relationships", "nested") == result)
    }

    /// `--placeholders include` (the default) writes a top-level placeholder as the object of
    /// its identity (`{"id":11}`); `exclude` leaves it out; a related placeholder stays its identifier.
    @Test func placeholdersExcludeLeavesThemOutOfTheArray() throws {
        let w = try Self.imported()
        defer { w.remove() }
        try w.write("more.json", #"[{"id": 4, "title": "Four", "author": 11}]"#)
        try #require(w.run("import", "more.json", "--model", "model.json", "--entity", "Post").status == 0)
        let included = w.run("export", "--model", "model.json", "--entity", "Author")
        #expect(included == CommandResult(status: 0, stdout: "[{\"id\":10,\"name\":\"Ada\"},{\"id\":11}]\n", stderr: ""))
        #expect(w.run("export", "--model", "model.json", "--entity", "Author", "--placeholders", "include") == included)
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Author", "--placeholders", "exclude")
                == CommandResult(status: 0, stdout: "[{\"id\":10,\"name\":\"Ada\"}]\n", stderr: ""))
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--where", "id=4", "--placeholders", "exclude").stdout
                == "[{\"id\":4,\"title\":\"Four\",\"stats\":{\"score\":null},\"author\":11}]\n")
        let bad = w.run("export", "--model", "model.json", "--entity", "Author", "--placeholders", "none")
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("error: "))
    }

    @Test func relationshipsIdsWritesIdentifiers() throws {
        let w = try Self.imported()
        defer { w.remove() }
        let result = w.run("export", "--model", "model.json", "--entity", "Post", "--relationships", "ids")
        #expect(
            result
                == CommandResult(
                    status: 0,
                    stdout: #"""
                        [{"id":1,"title":"One","stats":{"score":5},"author":10},{"id":2,"title":"Two","stats":{"score":null},"author":10},\#
                        {"id":3,"title":"Three","stats":{"score":null},"author":null}]

                        """#, stderr: ""))
    }

    @Test func whereCoercesTheValueAndNestedIncludesDestinations() throws {
        let w = try Self.imported()
        defer { w.remove() }
        let result = w.run(
            "export", "--model", "model.json", "--entity", "Post", "--where", "id=1", "--relationships", "nested",
            "--pretty")
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                [
                  {
                    "id": 1,
                    "title": "One",
                    "stats": {
                      "score": 5
                    },
                    "author": {
                      "id": 10,
                      "name": "Ada"
                    }
                  }
                ]

                """)
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--where", "title=Two", "--relationships", "ids").stdout
                == #"[{"id":2,"title":"Two","stats":{"score":null},"author":10}]"# + "\n")
        #expect(w.run("export", "--model", "model.json", "--entity", "Post", "--where", "id=99").stdout == "[]\n")
    }

    @Test func whereReadsTheValueOfAJSONAttributeAsJSON() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write(
            "notes-model.json",
            #"""
            {"format": "trellis-model", "formatVersion": 1, "entities": [{"name": "Note", "identityAttributes": ["id"],
             "attributes": [{"name": "id", "type": "integer64", "jsonKeyPath": "id"}, {"name": "meta", "type": "json", "jsonKeyPath": "meta"}]}]}
            """#)
        try w.write("notes.json", #"[{"id": 1, "meta": {"lang": "en"}}, {"id": 2, "meta": 3}, {"id": 3, "meta": "plain"}]"#)
        try #require(w.run("import", "notes.json", "--model", "notes-model.json", "--entity", "Note").status == 0)
        func ids(_ condition: String) -> String {
            w.run("export", "--model", "notes-model.json", "--entity", "Note", "--where", condition, "--store", "trellis.sqlite").stdout
        }
        #expect(ids(#"meta={"lang":"en"}"#) == #"[{"id":1,"meta":{"lang":"en"}}]"# + "\n")
        #expect(ids("meta=3") == #"[{"id":2,"meta":3}]"# + "\n")
        #expect(ids(#"meta="plain""#) == #"[{"id":3,"meta":"plain"}]"# + "\n")
        #expect(ids("meta=plain") == #"[{"id":3,"meta":"plain"}]"# + "\n")
        #expect(ids(#"meta={"lang":"fr"}"#) == "[]\n")
    }

    @Test func anEmptyFileIsAnEmptyStore() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        try w.write("empty.sqlite", "")
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--store", "empty.sqlite")
                == CommandResult(status: 0, stdout: "[]\n", stderr: ""))
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--store", "empty.sqlite", "--where", "id=1", "--pretty")
                == CommandResult(status: 0, stdout: "[]\n", stderr: ""))
        #expect(try Data(contentsOf: w.url.appendingPathComponent("empty.sqlite")).isEmpty)
        // A file that is not an SQLite database is still refused.
        try w.write("notes.txt", String(repeating: "not a database\n", count: 200))
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--store", "notes.txt")
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: notes.txt: not a Trellis store: \(w.url.appendingPathComponent("notes.txt").path) is not an SQLite database\n"))
    }

    @Test func aStoreMadeForAnOlderModelExportsAsTheMigrationWouldLeaveIt() throws {
        let w = try Self.imported()
        defer { w.remove() }
        // `views` has a default (0); `summary` has none (null); `Trial` is a new entity.
        try w.write(
            "model2.json",
            ImportCommandTests.extendedModel.replacingOccurrences(
                of: #""default": 0, "jsonKeyPath": "views"}"#,
                with: #""default": 0, "jsonKeyPath": "views"}, {"name": "summary", "type": "string", "jsonKeyPath": "summary"}"#))
        let store = w.url.appendingPathComponent("trellis.sqlite")
        let bytes = try Data(contentsOf: store)
        let state = try SQLiteShell.state(of: store)
        #expect(
            w.run("export", "--model", "model2.json", "--entity", "Post", "--where", "id=1")
                == CommandResult(
                    status: 0,
                    stdout: #"""
                        [{"id":1,"title":"One","stats":{"score":5},"views":0,"summary":null,"author":{"id":10,"name":"Ada"}}]

                        """#, stderr: ""))
        #expect(w.run("export", "--model", "model2.json", "--entity", "Trial") == CommandResult(status: 0, stdout: "[]\n", stderr: ""))
        #expect(try Data(contentsOf: store) == bytes)
        #expect(try SQLiteShell.state(of: store) == state)
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--where", "id=1").stdout
                == #"[{"id":1,"title":"One","stats":{"score":5},"author":{"id":10,"name":"Ada"}}]"# + "\n")
    }

    @Test func aModelThatDoesNotFitTheStoreNamesEveryDifference() throws {
        let w = try Self.imported()
        defer { w.remove() }
        try w.write(
            "item.json",
            #"""
            {"format": "trellis-model", "formatVersion": 1, "entities": [{"name": "Item", "identityAttributes": ["id"],
             "attributes": [{"name": "id", "type": "integer64", "jsonKeyPath": "id"}]}]}
            """#)
        #expect(
            w.run("export", "--model", "item.json", "--entity", "Item")
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: """
                        error: trellis.sqlite: the store's schema does not fit the model: entity Post: the entity was removed; \
                        entity Author: the entity was removed

                        """))
    }

    @Test func badConditionsAndMissingStore() throws {
        let w = try Self.imported()
        defer { w.remove() }
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--where", "id=one")
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: --where: cannot compare Post.id (integer64) with \"one\": string \"one\" is not a valid integer64: "
                        + "not a decimal number\n"))
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--where", "rank=1")
                == CommandResult(
                    status: 1, stdout: "", stderr: "error: --where: 'rank' is not an attribute of Post; its attributes: id, title, score\n"))
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--store", "other.sqlite")
                == CommandResult(
                    status: 1, stdout: "", stderr: "error: other.sqlite: no such store\n"))
        #expect(!w.exists("other.sqlite"))
    }

    /// `--format ndjson` writes one compact object a line, what `import --format ndjson`
    /// reads back (every object unchanged); an `-o` file named `.ndjson` or `.jsonl` is NDJSON
    /// without `--format`; `--pretty` with NDJSON is a usage error.
    @Test func ndjsonIsOneObjectALineAndImportsBack() throws {
        let w = try Self.imported()
        defer { w.remove() }
        let lines = """
            {"id":1,"title":"One","stats":{"score":5},"author":{"id":10,"name":"Ada"}}
            {"id":2,"title":"Two","stats":{"score":null},"author":{"id":10,"name":"Ada"}}
            {"id":3,"title":"Three","stats":{"score":null},"author":null}

            """
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--format", "ndjson")
                == CommandResult(status: 0, stdout: lines, stderr: ""))
        #expect(w.run("export", "--model", "model.json", "--entity", "Post", "-o", "posts.ndjson") == CommandResult(status: 0, stdout: "", stderr: ""))
        #expect(try String(contentsOf: w.url.appendingPathComponent("posts.ndjson"), encoding: .utf8) == lines)
        #expect(
            w.run(
                "export", "--model", "model.json", "--entity", "Post", "--where", "id>1", "--sort", "-id", "--format", "ndjson",
                "--relationships", "ids"
            ).stdout == """
                {"id":3,"title":"Three","stats":{"score":null},"author":null}
                {"id":2,"title":"Two","stats":{"score":null},"author":10}

                """)
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--limit", "0", "--format", "ndjson")
                == CommandResult(status: 0, stdout: "", stderr: ""))
        let again = w.run("import", "posts.ndjson", "--model", "model.json", "--entity", "Post")
        #expect(again.status == 0, "\(again.stderr)")
        let postRow = again.stdout.split(separator: "\n").first { $0.hasPrefix("Post ") }?.split(separator: " ")
        #expect(postRow == ["Post", "0", "0", "3", "0"], "\(again.stdout)")
        let bad = w.run("export", "--model", "model.json", "--entity", "Post", "--format", "ndjson", "--pretty")
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("error: --pretty writes a JSON array; NDJSON is one compact object per line"))
    }

    /// `-o FILE` writes the export there (nothing on standard output), replacing a file that
    /// was there; `-o -` is standard output; a directory is refused and nothing is written.
    @Test func outputFileIsReplacedWhole() throws {
        let w = try Self.imported()
        defer { w.remove() }
        try w.write("posts.json", "old")
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--relationships", "ids", "-o", "posts.json")
                == CommandResult(status: 0, stdout: "", stderr: ""))
        let expected =
            #"[{"id":1,"title":"One","stats":{"score":5},"author":10},{"id":2,"title":"Two","stats":{"score":null},"author":10},"#
            + #"{"id":3,"title":"Three","stats":{"score":null},"author":null}]"# + "\n"
        #expect(try String(contentsOf: w.url.appendingPathComponent("posts.json"), encoding: .utf8) == expected)
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "--relationships", "ids", "-o", "-")
                == CommandResult(status: 0, stdout: expected, stderr: ""))
        try FileManager.default.createDirectory(at: w.url.appendingPathComponent("out"), withIntermediateDirectories: false)
        #expect(
            w.run("export", "--model", "model.json", "--entity", "Post", "-o", "out")
                == CommandResult(status: 1, stdout: "", stderr: "error: out: cannot write: it is a directory\n"))
        let names = try FileManager.default.contentsOfDirectory(atPath: w.url.path).filter { $0.hasPrefix(".") }
        #expect(names == [])
    }
}
