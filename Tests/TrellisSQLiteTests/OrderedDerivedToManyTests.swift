import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis
@testable import TrellisSQLite

/// An ordered to-many whose inverse is a to-one (Team.members ↔ Person.team): every store
/// takes membership from the to-one and order from the to-many, and they agree.
@Suite struct OrderedDerivedToManyTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Team", attributes: [Scenario.attr("id", .integer64, key: "id")],
                relationships: [Scenario.rel("members", "Person", inverse: "team", toMany: true, ordered: true, key: "members")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Person", attributes: [Scenario.attr("id", .integer64, key: "id")],
                relationships: [Scenario.rel("team", "Team", inverse: "members", key: "team")],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    static func teams(_ store: any PersistentStore) throws -> [String] {
        try Scenario.dump(store).filter { $0.hasPrefix("Team:") }
    }

    /// Found by a tester: the in-memory store kept the first order when only the order changed.
    @Test func reorderingOnlyIsStored() throws {
        for (kind, store, directory) in try Scenario.stores(try Self.model()) {
            defer { withExtendedLifetime(directory) {} }
            let context = ObjectContext(store: store)
            _ = try context.importObjects(from: [["id": 1, "members": [["id": 1], ["id": 2], ["id": 3]]]], entity: "Team")
            _ = try context.importObjects(from: [["id": 1, "members": [3, 2, 1]]], entity: "Team")
            #expect(try Self.teams(store) == ["Team:1 id=1 members=[Person:3,Person:2,Person:1]"], "\(kind)")
            // Through the graph: a fresh context reads the order saved.
            let team = try #require(try context.fetch("Team", id: .integer(1)))
            try team.setDestinations(
                [
                    try #require(try context.fetch("Person", id: .integer(2))),
                    try #require(try context.fetch("Person", id: .integer(1))),
                    try #require(try context.fetch("Person", id: .integer(3))),
                ], forKey: "members")
            try context.save()
            let fresh = ObjectContext(store: store)
            let members = try #require(try fresh.fetch("Team", id: .integer(1))).destinations(forKey: "members").map { $0["id"] }
            #expect(members == [.integer(2), .integer(1), .integer(3)], "\(kind)")
        }
    }

    /// A member taken by another team in a later batch, and members joining or leaving
    /// through their to-one: every store gives the same orders.
    @Test func storesAgreeAcrossBatchesAndToOneMoves() throws {
        var results: [[String]] = []
        for (kind, store, directory) in try Scenario.stores(try Self.model()) {
            defer { withExtendedLifetime(directory) {} }
            let context = ObjectContext(store: store)
            var one = ImportOptions()
            one.batchSize = 1
            _ = try context.importObjects(
                from: [["id": 1, "members": [["id": 5]]], ["id": 2, "members": [["id": 5], ["id": 6]]]],
                entity: "Team", options: one)
            #expect(try Self.teams(store) == ["Team:1 id=1 members=[]", "Team:2 id=2 members=[Person:5,Person:6]"], "\(kind)")
            // Person 8 and 7 join team 2 through their to-one: after the listed members, by key
            // (8 was stored first).
            _ = try context.importObjects(from: [["id": 8, "team": 2], ["id": 7, "team": 2]], entity: "Person")
            // Person 5 leaves and comes back through its to-one: it loses its place and joins the
            // members the order does not list, by key.
            #expect(try Self.teams(store) == ["Team:1 id=1 members=[]", "Team:2 id=2 members=[Person:5,Person:6,Person:8,Person:7]"], "\(kind)")
            _ = try context.importObjects(from: [["id": 5, "team": 1]], entity: "Person")
            #expect(try Self.teams(store) == ["Team:1 id=1 members=[Person:5]", "Team:2 id=2 members=[Person:6,Person:8,Person:7]"], "\(kind)")
            _ = try context.importObjects(from: [["id": 5, "team": 2]], entity: "Person")
            let teams = try Self.teams(store)
            #expect(teams == ["Team:1 id=1 members=[]", "Team:2 id=2 members=[Person:6,Person:5,Person:8,Person:7]"], "\(kind)")
            results.append(teams)
        }
        #expect(results.count == StoreKind.allCases.count && results.allSatisfy { $0 == results[0] })
    }
}
