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

        // --- from docs/README-draft.md ---
        let file = try ModelFile.read(from: root.appendingPathComponent("Examples/twitter/model.json"))
        let store = try SQLiteStore(path: directory.url.appendingPathComponent("tweets.sqlite").path, model: file.model)
        let context = ObjectContext(store: store, bindings: file.bindings)

        let payload = try JSONReader.parse(Data(contentsOf: root.appendingPathComponent("Examples/twitter/twitter.json")))
        let report = try context.importObjects(from: payload["statuses"] ?? [], entity: "Status")
        print(report.counts(for: "Status"))   // inserted 115, updated 0, unchanged 0, deleted 0

        let status = try context.fetch("Status", id: .integer(505874924095815681))
        print(status?["text"] ?? "none", try status?.destination(forKey: "user")?["screenName"] ?? "none")
        // ---

        #expect(printed.first == "inserted 115, updated 0, unchanged 0, deleted 0")
        #expect(printed.last?.hasSuffix(#" "ayuu0123""#) == true)
        #expect(printed.last?.hasPrefix(#""@aym0566x "#) == true)
    }
}
