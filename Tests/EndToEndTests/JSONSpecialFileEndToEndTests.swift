import Foundation
import Testing
import TrellisTestSupport

/// `trellis json check|format` read what `import` reads: a device (`/dev/null`, read as
/// empty input) and a FIFO (read to its end), not "cannot read the file".
@Suite struct JSONSpecialFileEndToEndTests {
    @Test(arguments: [["json", "check", "/dev/null"], ["json", "format", "/dev/null"]])
    func devNullIsEmptyInput(_ arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try TrellisProcess.run(arguments, in: directory.url)
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: "error: /dev/null:1:1: expected a JSON value, found end of input\n"))
    }

    static let fifoCases: [(arguments: [String], status: Int32, stdout: String, stderr: String)] = [
        (["json", "format", "--sort-keys", "in.fifo"], 0, "{\n  \"a\": 1,\n  \"b\": [\n    true\n  ]\n}\n", ""),
        (["json", "check", "in.fifo"], 0, "", ""),
    ]

    /// A shell writes the text into the FIFO (blocking until `trellis` opens it; given up after
    /// 60 s, so a binary that never opens it leaves no writer behind), then the binary runs.
    @Test(arguments: 0..<fifoCases.count) func aFIFOIsReadToItsEnd(_ index: Int) throws {
        let c = Self.fifoCases[index]
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.url.appendingPathComponent("in.fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let writer = [
            "/bin/sh", "-c", #"( exec </dev/null >/dev/null 2>&1; timeout 60 sh -c 'printf "{\"b\": [true], \"a\": 1}" > in.fifo' ) & exec "$0" "$@""#,
        ]
        let result = try TrellisProcess.run(c.arguments, in: directory.url, launcher: writer)
        #expect(result == TrellisProcess.Result(status: c.status, stdout: c.stdout, stderr: c.stderr))
    }
}
