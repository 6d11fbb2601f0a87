import Foundation
import Testing
import Trellis

@testable import TrellisCLI

@Suite struct ImportInputTests {
    /// Writes `text` to a temporary file and reads all its elements.
    static func elements(
        _ text: String, at: String? = nil, lines: Bool = false, alwaysMembers: Bool = false,
        valueKey: String? = nil
    ) throws -> [String] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-input-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let input = InputFile(argument: url.path, environment: CommandEnvironment())
        let reader = InputElementReader(
            input: input, at: try at.map { try JSONKeyPath(parsing: $0) }, lines: lines,
            alwaysMembers: alwaysMembers, valueKey: valueKey, entityName: "Status")
        var out: [String] = []
        while let element = try reader.next() {
            let json = try JSONWriter.string(for: element.value, options: JSONWriter.Options(sortedKeys: true))
            out.append("\(element.path) \(element.key ?? "-") \(json)")
        }
        return out
    }

    @Test func arrayAtKeyPath() throws {
        #expect(
            try Self.elements(#"{"meta": 1, "response": {"docs": [{"id": 1}, {"id": 2}]}}"#, at: "response.docs")
                == [#"$.response.docs[0] - {"id":1}"#, #"$.response.docs[1] - {"id":2}"#])
    }

    /// An all-digit `--at` component that indexes an array is shown as an index in element
    /// paths (it read as a key: `$.pages["1"]`); one that names an object member stays a key.
    @Test func keyPathThroughArraysShowsIndexes() throws {
        let text = #"{"pages": [{"items": [1]}, {"items": [{"id": 2}, {"id": 3}]}], "by": {"1": [4]}}"#
        #expect(try Self.elements(text, at: "pages.1.items") == [#"$.pages[1].items[0] - {"id":2}"#, #"$.pages[1].items[1] - {"id":3}"#])
        #expect(try Self.elements(text, at: "by.1") == [#"$.by["1"][0] - 4"#])
        #expect(
            try Self.elements(text + "\n" + text + "\n", at: "pages.1.items", lines: true)
                == [
                    #"$[0].pages[1].items[0] - {"id":2}"#, #"$[0].pages[1].items[1] - {"id":3}"#,
                    #"$[1].pages[1].items[0] - {"id":2}"#, #"$[1].pages[1].items[1] - {"id":3}"#,
                ])
    }

    @Test func topLevelArray() throws {
        #expect(try Self.elements(#"[{"id": 1}, 7]"#) == [#"$[0] - {"id":1}"#, "$[1] - 7"])
    }

    @Test func objectIsOneObjectWithoutKeyAttributeOrValueKey() throws {
        // Members holding objects that hold mapped keys do not make it an object of objects.
        #expect(
            try Self.elements(#"{"events": {"138586341": {"id": 138586341}, "2": {"name": "b"}}}"#, at: "events")
                == [#"$.events - {"138586341":{"id":138586341},"2":{"name":"b"}}"#])
        #expect(
            try Self.elements(#"{"s": {"metadata": {"lang": "ja"}, "id": 5}}"#, at: "s")
                == [#"$.s - {"id":5,"metadata":{"lang":"ja"}}"#])
        #expect(try Self.elements(#"{"id": 5, "name": "x"}"#) == [#"$ - {"id":5,"name":"x"}"#])
    }

    /// JSON member order carries no meaning: a status whose first member is its user is one status.
    @Test func memberOrderDoesNotChangeTheReading() throws {
        let userFirst = #"{"user": {"id": 5, "name": "alice"}, "id": 1, "retweet_count": 3}"#
        let idFirst = #"{"id": 1, "retweet_count": 3, "user": {"id": 5, "name": "alice"}}"#
        let expected = [#"$ - {"id":1,"retweet_count":3,"user":{"id":5,"name":"alice"}}"#]
        #expect(try Self.elements(userFirst) == expected)
        #expect(try Self.elements(idFirst) == expected)
        #expect(
            try Self.elements(#"{"s": \#(userFirst)}"#, at: "s")
                == [#"$.s - {"id":1,"retweet_count":3,"user":{"id":5,"name":"alice"}}"#])
    }

    struct ScalarCase: Sendable, CustomTestStringConvertible {
        var text: String
        var at: String?
        var lines = false
        var message: String
        var testDescription: String { message }
    }

    static let scalarCases: [ScalarCase] = [
        ScalarCase(
            text: #"{"search_metadata": {"count": 100}}"#, at: "search_metadata.count",
            message: ": $.search_metadata.count: expected an array or object of Status objects, found a number"),
        ScalarCase(text: #"{"a": null}"#, at: "a", message: ": $.a: expected an array or object of Status objects, found null"),
        ScalarCase(text: #"{"a": "x"}"#, at: "a", message: ": $.a: expected an array or object of Status objects, found a string"),
        ScalarCase(text: #"{"a": [true]}"#, at: "a.0", message: #": $.a[0]: expected an array or object of Status objects, found a boolean"#),
        ScalarCase(text: "7", at: nil, message: ": $: expected an array or object of Status objects, found a number"),
        ScalarCase(
            text: "{\"a\": [1]}\n{\"a\": 2}\n", at: "a", lines: true,
            message: ":2: $[1].a: expected an array or object of Status objects, found a number"),
    ]

    @Test(arguments: scalarCases)
    func scalarOrNullAtTheKeyPathIsAnError(_ c: ScalarCase) throws {
        var message = ""
        do { _ = try Self.elements(c.text, at: c.at, lines: c.lines) } catch let error as CommandError { message = error.message }
        #expect(message.hasSuffix(".json" + c.message), "\(message)")
    }

    @Test func keyAttributeOrValueKeyMeanObjectOfObjects() throws {
        #expect(
            try Self.elements(#"{"names": {"205705993": "Arrière-scène", "7": "Balcon"}}"#, at: "names", valueKey: "name")
                == [#"$.names["205705993"] 205705993 {"name":"Arrière-scène"}"#, #"$.names["7"] 7 {"name":"Balcon"}"#])
        #expect(try Self.elements(#"{"t": {"1": {"x": 1}}}"#, at: "t", alwaysMembers: true) == [#"$.t["1"] 1 {"x":1}"#])
    }

    @Test func ndjsonRecordsWithKeyPath() throws {
        let text = "{\"docs\": [{\"id\": 1}]}\n\n{\"docs\": [{\"id\": 2}, {\"id\": 3}]}\n"
        #expect(
            try Self.elements(text, at: "docs", lines: true)
                == [#"$[0].docs[0] - {"id":1}"#, #"$[1].docs[0] - {"id":2}"#, #"$[1].docs[1] - {"id":3}"#])
        #expect(try Self.elements("{\"id\": 1}\n{\"id\": 2}\n", lines: true) == [#"$[0] - {"id":1}"#, #"$[1] - {"id":2}"#])
    }

    @Test func malformedJSONNamesFileLineAndColumn() throws {
        #expect { try Self.elements("[{\"id\": 1},\n {\"id\": 2,}]") } throws: { error in
            let message = (error as? CommandError)?.message ?? ""
            return message.hasSuffix(".json:2:11: expected a string key after ',' (trailing commas are not allowed)")
        }
    }

    @Test func missingKeyPathIsNamed() throws {
        #expect { try Self.elements(#"{"statuses": []}"#, at: "status") } throws: { error in
            let message = (error as? CommandError)?.message ?? ""
            return message.contains(".json: no value at 'status' (--at): ")
        }
    }
}
