import Foundation
import Testing

@testable import Trellis
@testable import TrellisSQLite

/// Under the append merge policy, an array adds to a to-many, a missing key leaves it, and
/// `null` still empties it (``NullPolicy/clear``), on every store.
@Suite struct AppendPolicyNullTests {
    @Test func nullEmptiesAnAppendingToMany() throws {
        for (kind, store, directory) in try Scenario.stores(try Scenario.teamModel()) {
            defer { withExtendedLifetime(directory) {} }
            let context = ObjectContext(store: store)
            var append = ImportOptions()
            append.toManyPolicy = .append
            _ = try context.importObjects(from: [["id": 1, "members": [["id": 1], ["id": 2]]]], entity: "Team")
            let added = try context.importObjects(
                from: [["id": 1, "members": [["id": 3]]], ["id": 2, "members": []]],
                entity: "Team", options: append)
            #expect(added.counts(for: "Team") == .init(inserted: 1, updated: 1), "\(kind)")
            _ = try context.importObjects(from: [["id": 1, "name": "kept"]], entity: "Team", options: append)
            #expect(
                try Scenario.dump(store).filter { $0.hasPrefix("Team:1") }
                    == [#"Team:1 id=1 name="kept" members=[Person:1,Person:2,Person:3]"#], "\(kind)")
            let cleared = try context.importObjects(from: [["id": 1, "members": .null]], entity: "Team", options: append)
            #expect(cleared.counts(for: "Team") == .init(updated: 1), "\(kind)")
            #expect(try Scenario.dump(store).filter { $0.hasPrefix("Team:1") } == [#"Team:1 id=1 name="kept" members=[]"#], "\(kind)")
        }
    }
}
