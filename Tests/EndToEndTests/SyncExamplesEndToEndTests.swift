import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Every sync example runs offline: the first command of `Examples/NAME/README.md` is a
/// `trellis sync … --replay Examples/NAME/staged …` line, run here as written (in a copy of
/// the example, with the API's variables unset: no key, and a replay never reaches the
/// network), and the store it leaves holds the staged records; the second command is the
/// live one, the same but for `--replay`.
@Suite struct SyncExamplesEndToEndTests {
    struct Example: Sendable, CustomTestStringConvertible {
        let name: String
        /// The variables the live command sets (unset for the replay).
        let variables: [String]
        var testDescription: String { name }
    }

    static let examples = [
        Example(name: "nytimes", variables: ["NYT_API_KEY"]),
        Example(name: "github", variables: ["GITHUB_TOKEN"]),
        Example(name: "parse", variables: ["PARSE_APP_ID", "PARSE_REST_API_KEY"]),
    ]

    /// The command lines of the README's first `sh` block that run `trellis sync`.
    static func syncLines(_ example: Example) throws -> [String] {
        let readme = try String(
            contentsOf: Fixtures.repositoryRoot().appendingPathComponent("Examples/\(example.name)/README.md"),
            encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        return block.split(separator: "\n").map(String.init).filter { $0.contains("trellis sync ") }
    }

    /// Runs the README's replay line in a fresh copy of the example, the live command's
    /// variables unset. Returns the directory (the store is inside) and the result.
    static func replay(_ example: Example) throws -> (TemporaryDirectory, TrellisProcess.Result) {
        let line = try #require(try syncLines(example).first)
        let words = line.split(separator: " ").map(String.init)
        try #require(words.first == "trellis")
        let directory = try TemporaryDirectory()
        let examples = directory.url.appendingPathComponent("Examples")
        try FileManager.default.createDirectory(at: examples, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Fixtures.repositoryRoot().appendingPathComponent("Examples/\(example.name)"),
            to: examples.appendingPathComponent(example.name))
        let launcher = ["/usr/bin/env"] + example.variables.flatMap { ["-u", $0] }
        return (directory, try TrellisProcess.run(Array(words.dropFirst()), in: directory.url, launcher: launcher))
    }

    @Test(arguments: examples) func theReadmeShowsTheReplayLineFirstThenTheLiveOne(_ example: Example) throws {
        let lines = try Self.syncLines(example)
        try #require(lines.count == 2)
        let replay = lines[0].split(separator: " ").map(String.init)
        #expect(replay.prefix(2) == ["trellis", "sync"])
        #expect(replay[2].hasPrefix("Examples/\(example.name)/") && replay[2].hasSuffix(".source.json"))
        let at = try #require(replay.firstIndex(of: "--replay"))
        #expect(replay[at + 1] == "Examples/\(example.name)/staged")
        #expect(replay.contains("--store"))
        // The live line: the variables set, then the same command without --replay.
        let live = lines[1].split(separator: " ").map(String.init)
        #expect(live.prefix(example.variables.count) == ArraySlice(example.variables.map { $0 + "=…" }))
        var withoutReplay = replay
        withoutReplay.removeSubrange(at...(at + 1))
        #expect(Array(live.dropFirst(example.variables.count)) == withoutReplay)
    }

    @Test func theNYTimesExampleReplaysItsArticles() throws {
        let (directory, result) = try Self.replay(Self.examples[0])
        defer { directory.remove() }
        #expect(
            result
                == TrellisProcess.Result(
                    status: 0,
                    stdout: """
                        articles → Article: 3 pages (2 changed, 0 not modified), 14 records; inserted 14, updated 0, unchanged 0, deleted 0
                          Keyword: inserted 3, updated 0, unchanged 3, deleted 0
                          watermark none; walk complete; 3 requests, 0 retries

                        """, stderr: ""))
        let store = directory.url.appendingPathComponent("articles.sqlite")
        // python3 -c 'import json; d=[x for p in (0,1) for x in json.load(open(f"Examples/nytimes/recorded/articlesearch-page{p}.json"))["response"]["docs"]]; print(len(d), sum(x["word_count"] for x in d))'
        // → 14 9485
        #expect(try SQLiteShell.query(store, "SELECT count(*), sum(wordCount) FROM Article") == "14|9485")
        #expect(
            try SQLiteShell.query(store, "SELECT value, kind FROM Keyword ORDER BY value")
                == "Moon|subjects\nNational Aeronautics and Space Administration|organizations\nSpace and Astronomy|subjects")
        #expect(
            try SQLiteShell.query(store, "SELECT headline FROM Article WHERE id = 'nyt://article/00000000-0000-4000-8000-000000000014'")
                == "Example Article 14: Looking Back at the Moon Landing")
        // pub_date 2015-07-03T09:00:00+0000 … 2015-07-29T12:00:00+0000, as Unix seconds.
        #expect(try SQLiteShell.query(store, "SELECT min(publishedAt), max(publishedAt) FROM Article") == "1435914000.0|1438171200.0")
    }

    /// `recorded/` holds raw response bodies, not staged pages: the replay says what it expected.
    @Test func aDirectoryOfRawBodiesIsNotAReplay() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let root = Fixtures.repositoryRoot().path
        let result = try TrellisProcess.run(
            [
                "sync", root + "/Examples/nytimes/articles.source.json", "--replay", root + "/Examples/nytimes/recorded",
                "--model", root + "/Examples/nytimes/model.json", "--store", "x.sqlite",
            ],
            in: directory.url, launcher: ["/usr/bin/env", "-u", "NYT_API_KEY"])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr == "error: resource articles, page https://api.nytimes.com/svc/search/v2/articlesearch.json?q=moon%20landing"
                + "&begin_date=20150701&end_date=20150731&sort=oldest&page=0: no pages staged for this resource in \(root)/Examples/nytimes/recorded "
                + "(a staged page is \(root)/Examples/nytimes/recorded/articles/000001.json with its 000001.body, as 'trellis sync --stage' writes them)\n")
    }

    @Test func theGitHubExampleReplaysTheRecordedIssuePages() throws {
        let (directory, result) = try Self.replay(Self.examples[1])
        defer { directory.remove() }
        #expect(
            result
                == TrellisProcess.Result(
                    status: 0,
                    stdout: """
                        issues → Issue: 5 pages (5 changed, 0 not modified), 13 records; inserted 13, updated 0, unchanged 0, deleted 0
                          User: inserted 1, updated 0, unchanged 4, deleted 0
                          watermark none; walk complete; 5 requests, 0 retries

                        """, stderr: ""))
        let store = directory.url.appendingPathComponent("issues.sqlite")
        // python3 -c 'import json; x=[i for n in range(1,6) for i in json.load(open(f"Tests/Fixtures/github/issues-page-{n}.json"))]; print(len(x), sum(i["comments"] for i in x))'
        // → 13 546
        #expect(try SQLiteShell.query(store, "SELECT count(*), sum(comments), min(number), max(number) FROM Issue") == "13|546|1|13")
        #expect(
            try SQLiteShell.query(store, "SELECT number, title, state, createdAt FROM Issue ORDER BY number DESC LIMIT 1")
                == "13|Test issue 13|open|1507651200.0")  // 2017-10-10T16:00:00Z
        // Every issue links the one user, stored once.
        #expect(try SQLiteShell.query(store, "SELECT login, id, _placeholder FROM User") == "octokit-fixture-user-a|1000|0")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Issue JOIN User ON Issue.user = User._pk") == "13")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Label") == "0")
        // `--status` sends nothing either: it reads the checkpoint without the API's token.
        let status = try TrellisProcess.run(
            ["sync", "Examples/github/issues.source.json", "--status", "--store", "issues.sqlite"],
            in: directory.url, launcher: ["/usr/bin/env", "-u", "GITHUB_TOKEN"])
        #expect(status.status == 0)
        #expect(status.stderr == "")
        #expect(status.stdout.hasPrefix("issues"))
        #expect(!status.stdout.contains("unset-in-replay"))
    }

    @Test func theParseExampleReplaysTypedDatesFilesAndPointers() throws {
        let (directory, result) = try Self.replay(Self.examples[2])
        defer { directory.remove() }
        #expect(
            result
                == TrellisProcess.Result(
                    status: 0,
                    stdout: """
                        users → User: 2 pages (1 changed, 0 not modified), 2 records; inserted 2, updated 0, unchanged 0, deleted 0
                          watermark 2026-11-05T08:15:00.000Z; walk complete; 2 requests, 0 retries
                        holidays → Holiday: 2 pages (1 changed, 0 not modified), 5 records; inserted 5, updated 0, unchanged 0, deleted 0
                          watermark 2026-11-15T07:45:30.500Z; walk complete; 2 requests, 0 retries
                        birthdays → Birthday: 2 pages (1 changed, 0 not modified), 4 records; inserted 4, updated 0, unchanged 0, deleted 0
                          watermark 2026-11-24T10:10:10.010Z; walk complete; 2 requests, 0 retries

                        """, stderr: ""))
        let store = directory.url.appendingPathComponent("dates.sqlite")
        #expect(
            try SQLiteShell.query(store, "SELECT (SELECT count(*) FROM User), (SELECT count(*) FROM Holiday), (SELECT count(*) FROM Birthday)")
                == "2|5|4")
        // Date → date (2027-10-31T00:00:00.000Z; 1815-12-10 before 1970), File → its URL, an array → JSON.
        #expect(
            try SQLiteShell.query(store, "SELECT date, image, observedBy FROM Holiday WHERE name = 'Halloween'")
                == #"1824940800.0|https://parsefiles.back4app.com/APPLICATION_ID/e9b4-halloween.png|["Ireland","United Kingdom","United States","Canada"]"#)
        #expect(
            try SQLiteShell.query(store, "SELECT date, image FROM Birthday WHERE name = 'Ada Lovelace'")
                == "-4861728000.0|https://parsefiles.back4app.com/APPLICATION_ID/f0a1-ada.png")
        // updatedAt to the millisecond (2026-11-15T07:45:30.500Z).
        #expect(try SQLiteShell.query(store, "SELECT updatedAt FROM Holiday WHERE name = 'Thanksgiving'") == "1794728730.5")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Holiday WHERE image IS NULL") == "2")
        // Pointer → the owner, linked to the synced user (no placeholder left).
        #expect(
            try SQLiteShell.query(store, "SELECT u.username, count(*) FROM Holiday h JOIN User u ON h.owner = u._pk GROUP BY 1 ORDER BY 1")
                == "chris|3\nray|2")
        #expect(
            try SQLiteShell.query(store, "SELECT u.username, count(*) FROM Birthday b JOIN User u ON b.owner = u._pk GROUP BY 1 ORDER BY 1")
                == "chris|2\nray|2")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM User WHERE _placeholder <> 0") == "0")
    }
}

/// The examples' replay lines into a PostgreSQL store (`--store postgresql://…`): the same
/// records as on SQLite, offline and without keys.
@Suite(.enabled(if: PostgresTestServer.isEnabled, "TRELLIS_SKIP_POSTGRES=1"))
struct PostgresSyncExamplesEndToEndTests {
    /// Rows of `sql` in `schema`, `|` between columns, one row per line.
    func query(_ sql: String, schema: String) throws -> String {
        try PostgresTestServer.execute("SET search_path TO \"\(schema)\"; " + sql)
            .map { $0.map { $0 ?? "" }.joined(separator: "|") }.joined(separator: "\n")
    }

    /// The README's replay line of `example` with its `--store` in a new schema; the schema's name.
    func replay(_ example: SyncExamplesEndToEndTests.Example) throws -> String {
        let schema = PostgresTestServer.makeSchemaName()
        let line = try #require(try SyncExamplesEndToEndTests.syncLines(example).first)
        var words = Array(line.split(separator: " ").map(String.init).dropFirst())
        let store = try #require(words.firstIndex(of: "--store"))
        words[store + 1] = try PostgresTestServer.connectionString(schema: schema)
        let launcher = ["/usr/bin/env"] + example.variables.flatMap { ["-u", $0] }
        let result = try TrellisProcess.run(words, in: Fixtures.repositoryRoot(), launcher: launcher)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "")
        return schema
    }

    @Test func theExamplesReplayIntoPostgreSQL() throws {
        let examples = SyncExamplesEndToEndTests.examples
        let nytimes = try replay(examples[0])
        defer { PostgresTestServer.dropSchema(nytimes) }
        #expect(try query(#"SELECT count(*), sum("wordCount") FROM "Article""#, schema: nytimes) == "14|9485")
        #expect(try query(#"SELECT count(*) FROM "Keyword""#, schema: nytimes) == "3")

        let github = try replay(examples[1])
        defer { PostgresTestServer.dropSchema(github) }
        #expect(try query(#"SELECT count(*), sum("comments"), min("number"), max("number") FROM "Issue""#, schema: github) == "13|546|1|13")
        #expect(try query(#"SELECT "login" FROM "User""#, schema: github) == "octokit-fixture-user-a")

        let parse = try replay(examples[2])
        defer { PostgresTestServer.dropSchema(parse) }
        #expect(
            try query(
                #"SELECT (SELECT count(*) FROM "User"), (SELECT count(*) FROM "Holiday"), (SELECT count(*) FROM "Birthday")"#,
                schema: parse) == "2|5|4")
        #expect(
            try query(
                #"SELECT u."username", count(*) FROM "Holiday" h JOIN "User" u ON h."owner" = u."_pk" GROUP BY 1 ORDER BY 1"#,
                schema: parse) == "chris|3\nray|2")
        #expect(
            try query(#"SELECT "image" FROM "Birthday" WHERE "name" = 'Ada Lovelace'"#, schema: parse)
                == "https://parsefiles.back4app.com/APPLICATION_ID/f0a1-ada.png")
    }
}
