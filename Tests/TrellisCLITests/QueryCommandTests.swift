import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisCLI

/// `export --where/--sort/--limit/--offset` and `count`, on posts 1 (One, score 5, by Ada),
/// 2 (Two, by Ada) and 3 (Three, no author), plus post 4 (Four, score 9, by Bob).
@Suite struct QueryCommandTests {
    static func imported() throws -> CommandWorkspace {
        let w = try ExportCommandTests.imported()
        try w.write("more.json", #"[{"id": 4, "title": "Four", "stats": {"score": 9}, "author": {"id": 11, "name": "Bob"}}]"#)
        let result = w.run("import", "more.json", "--model", "model.json", "--entity", "Post")
        try #require(result.status == 0, "\(result.stderr)")
        return w
    }

    static func titles(_ stdout: String) throws -> [String] {
        try JSONReader.parse(stdout).arrayValue?.map { $0["title"]?.stringValue ?? "" } ?? []
    }

    struct Case: CustomStringConvertible, Sendable {
        var arguments: [String]
        var titles: [String]
        var description: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["--where", "score>4"], titles: ["One", "Four"]),
        Case(arguments: ["--where", "score == nil"], titles: ["Two", "Three"]),
        Case(arguments: ["--where", "score=null"], titles: ["Two", "Three"]),
        Case(arguments: ["--where", "author.name=Ada"], titles: ["One", "Two"]),
        Case(arguments: ["--where", "author.name == 'Ada'", "--where", "score != nil"], titles: ["One"]),
        Case(arguments: ["--where", "title BEGINSWITH[c] 't'", "--sort", "-title"], titles: ["Two", "Three"]),
        Case(arguments: ["--sort", "-score,title"], titles: ["Four", "One", "Three", "Two"]),
        Case(arguments: ["--sort", "author.name,-id", "--limit", "2"], titles: ["Three", "Two"]),
        Case(arguments: ["--sort", "title", "--offset", "1", "--limit", "2"], titles: ["One", "Three"]),
        Case(arguments: ["--where", "title=Two"], titles: ["Two"]),
        Case(arguments: ["--where", "id IN {1, 3}"], titles: ["One", "Three"]),
    ]

    @Test(arguments: cases)
    func exportSelectsSortsAndLimits(testCase: Case) throws {
        let w = try Self.imported()
        defer { w.remove() }
        let result = trellis(arguments: ["export", "--model", "model.json", "--entity", "Post"] + testCase.arguments, in: w.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.titles(result.stdout) == testCase.titles)
    }

    @Test func countPrintsTheNumberOfMatchingObjects() throws {
        let w = try Self.imported()
        defer { w.remove() }
        #expect(w.run("count", "--model", "model.json", "--entity", "Post") == CommandResult(status: 0, stdout: "4\n", stderr: ""))
        #expect(
            w.run("count", "--model", "model.json", "--entity", "Post", "--where", "author.name == 'Ada'", "--where", "score > 1")
                == CommandResult(status: 0, stdout: "1\n", stderr: ""))
        #expect(
            w.run("count", "--model", "model.json", "--entity", "Author", "--where", "ANY posts.score >= 9")
                == CommandResult(status: 0, stdout: "1\n", stderr: ""))
    }

    static let usage =
        "usage: trellis export --entity <entity> [--model <model>] [--store <path>] [--busy-timeout <seconds>] [--format <format>] [-o <file>] [--pretty] "
        + "[--where <predicate>]... [--sort <keys>] [--limit <n>] [--offset <n>] [--relationships <mode>] [--placeholders <mode>] [--bindings <file>]\n"
        + "  See 'trellis export --help' for more information.\n"

    @Test func badPredicatesAreBadUsageNamingTheColumn() throws {
        let w = try Self.imported()
        defer { w.remove() }
        let before = try SQLiteShell.query(w.url.appendingPathComponent("trellis.sqlite"), "SELECT count(*) FROM \"Post\"")
        let cases: [(String, String, String)] = [
            (
                "--where", "title == 'One",
                "error: invalid predicate for '--where' (title == 'One): column 10: the string starting at column 10 is not closed; add ' at its end\n"
            ),
            (
                "--where", "score > 'high'",
                "error: invalid predicate for '--where' (score > 'high'): column 9: Post.score (integer32) cannot be compared with a string (\"high\"); write the number without quotes\n"
            ),
            (
                "--where", "ANY author.name == 'Ada'",
                "error: invalid predicate for '--where' (ANY author.name == 'Ada'): column 1: ANY needs a key path through a to-many relationship; 'author.name' has none (drop ANY)\n"
            ),
            (
                "--where", "titel > 2",
                "error: invalid predicate for '--where' (titel > 2): column 1: Post has no attribute or relationship 'titel'; its attributes: id, title, score; its relationships: author\n"
            ),
            (
                "--sort", "author",
                "error: invalid value for '--sort': cannot sort by 'author': Post.author is a to-one relationship; sort by one of its attributes (author.name)\n"
            ),
            ("--limit", "-1", "error: invalid value '-1' for '--limit'; expected 0 or more\n"),
        ]
        for (option, value, message) in cases {
            #expect(
                w.run("export", "--model", "model.json", "--entity", "Post", option, value)
                    == CommandResult(status: 64, stdout: "", stderr: message + Self.usage))
        }
        #expect(try SQLiteShell.query(w.url.appendingPathComponent("trellis.sqlite"), "SELECT count(*) FROM \"Post\"") == before)
    }
}
