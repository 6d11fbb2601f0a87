import Foundation
import Testing
import Trellis
import TrellisSQLite
import TrellisTestSupport
@testable import TrellisCLI

/// `trellis import` without `--model` on the inputs `import` reads in other ways: NDJSON
/// records (errors name their line). docs/CLI.md, "Imports without a model".
@Suite struct ImportWithoutModelInputTests {
    struct LineCase: CustomTestStringConvertible, Sendable {
        /// A first NDJSON import (nil: none), then the failing one.
        var first: String?
        var second: String
        var stderr: String
        var testDescription: String { second }
    }

    /// A value of an NDJSON record is located by its line, as the import locates it
    /// (`events.ndjson:3: $[2].id: …`): inference's errors and the recorded model's conflicts too.
    static let lineCases: [LineCase] = [
        LineCase(first: nil, second: "{\"id\": 1}\n\n[1, 2]\n",
                 stderr: "error: e.ndjson:3: $[1][0]: expected an object (each element becomes an Event), found a number\n"),
        LineCase(first: nil, second: "{\"id\": 1}\n7\n",
                 stderr: "error: e.ndjson:2: $[1]: expected an object (each element becomes an Event), found a number\n"),
        LineCase(first: "{\"id\": 1, \"name\": \"a\"}\n", second: "{\"id\": 2, \"name\": \"b\"}\n\n{\"id\": 3, \"name\": {\"first\": \"c\"}}\n",
                 stderr: "error: e.ndjson:3: $[1].name: entity Event, property name (key name): the recorded model has type string, "
                     + "but the payload has an object here; the store was not changed\n"),
        LineCase(first: "{\"id\": 1, \"n\": 5}\n", second: "{\"id\": 2, \"n\": 5}\n{\"id\": 3, \"n\": \"five\"}\n",
                 stderr: "error: e.ndjson:2: $[1].n: entity Event, property n (key n): the recorded model has type integer64, "
                     + "but the payload has a string here (their type would be string); the store was not changed\n"),
    ]

    @Test(arguments: lineCases)
    func errorsInNDJSONRecordsNameTheLine(_ c: LineCase) throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        if let first = c.first {
            try w.write("first.ndjson", first)
            #expect(w.run("import", "first.ndjson", "--format", "ndjson", "--entity", "Event").status == 0)
        }
        let store = w.url.appendingPathComponent("trellis.sqlite")
        let before = c.first == nil ? nil : try Data(contentsOf: store)
        try w.write("e.ndjson", c.second)
        #expect(w.run("import", "e.ndjson", "--format", "ndjson", "--entity", "Event") == CommandResult(status: 1, stdout: "", stderr: c.stderr))
        if let before {
            #expect(try Data(contentsOf: store) == before)
        } else {
            #expect(!w.exists("trellis.sqlite"))
            // model infer reads the same records and says the same.
            if c.stderr.contains("expected an object") {
                #expect(w.run("model", "infer", "e.ndjson", "--format", "ndjson", "--entity", "Event").stderr == c.stderr)
            }
        }
    }
}
