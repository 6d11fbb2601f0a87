import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisSQLite
import TrellisTestSupport

/// The README's "library in 15 lines", run as written (paths made absolute, output captured).
@Suite struct ReadmeLibraryTests {
    @Test func theLibraryExampleWorks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let root = Fixtures.repositoryRoot()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        // --- from README.md, "The library in 15 lines" ---
        let file = try ModelFile.read(from: root.appendingPathComponent("Examples/twitter/model.json"))
        let store = try SQLiteStore(path: directory.url.appendingPathComponent("tweets.sqlite").path, model: file.model)
        let context = ObjectContext(store: store, bindings: file.bindings)

        let payload = try JSONReader.parse(Data(contentsOf: root.appendingPathComponent("Examples/twitter/twitter.json")))
        let report = try context.importObjects(from: payload["statuses"] ?? [], entity: "Status")
        print(report.counts(for: "Status"))  // inserted 115, updated 0, unchanged 0, deleted 0

        let status = try context.fetch("Status", id: .integer(505_874_924_095_815_681))
        print(status?["text"] ?? "none", try status?.destination(forKey: "user")?["screenName"] ?? "none")
        // ---

        #expect(printed.first == "inserted 115, updated 0, unchanged 0, deleted 0")
        #expect(printed.last?.hasSuffix(#" "ayuu0123""#) == true)
        #expect(printed.last?.hasPrefix(#""@aym0566x "#) == true)
    }
}

// --- from README.md, "Typed models" ---
private struct ReadmeUser: JSONMappable, JSONRepresentable {
    let id: Int64
    let name: String
    let city: String?
    init(map: JSONMap) throws {
        id = try map.from("id")
        name = try map.from("name")
        city = try map.from("location.city")
    }
    func write(to map: inout JSONWriteMap) throws {
        try map.write(id, to: "id")
        try map.write(name, to: "name")
        try map.write(city, to: "location.city")
    }
}
// ---

@Suite struct ReadmeTypedModelTests {
    @Test func theTypedModelExampleReadsAndWrites() throws {
        let user = try ReadmeUser(jsonString: #"{"id": "42", "name": "Ada", "location": {"city": "London"}}"#)
        #expect(user.id == 42)
        #expect(user.name == "Ada")
        #expect(user.city == "London")
        #expect(try user.jsonString() == #"{"id":42,"name":"Ada","location":{"city":"London"}}"#)
    }
}
