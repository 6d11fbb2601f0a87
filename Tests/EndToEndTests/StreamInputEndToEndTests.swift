import Foundation
import Testing
import TrellisTestSupport

/// An import without `--model` reads its input twice (to infer the model, then to import):
/// an input that is not a regular file (`/dev/stdin`, a process substitution `<(curl …)`)
/// is copied first, as standard input is, so the second read is not an empty stream.
@Suite struct StreamInputEndToEndTests {
    static let payload = #"[{"id": 1, "title": "one"}, {"id": 2, "title": "two"}]"#

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [String]
        var input: String?
        var launcher: [String] = []
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "/dev/stdin", arguments: ["import", "/dev/stdin", "--entity", "Post", "--store", "s.sqlite"], input: payload),
        Case(
            name: "process substitution",
            arguments: ["import", "--entity", "Post", "--store", "s.sqlite"],
            launcher: ["/bin/bash", "-c", #"exec "$0" "$@" <(printf '%s' '\#(payload)')"#]),
    ]

    @Test(arguments: cases) func aStreamIsImportedWithAnInferredModel(_ c: Case) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try TrellisProcess.run(c.arguments, in: directory.url, input: c.input.map { Data($0.utf8) }, launcher: c.launcher)
        #expect(result.status == 0 && result.stderr == "", "\(result)")
        #expect(
            result.stdout.hasPrefix("entity  inserted   updated  unchanged   deleted\nPost           2         0          0         0\n"),
            "\(result)")
        let export = try TrellisProcess.run(["export", "--entity", "Post", "--store", "s.sqlite", "--sort", "id"], in: directory.url)
        #expect(export == TrellisProcess.Result(status: 0, stdout: #"[{"id":1,"title":"one"},{"id":2,"title":"two"}]"# + "\n", stderr: ""))
    }
}
