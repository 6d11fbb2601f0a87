import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Relationship validation at the end of each batch (issue 13, point 3), as Core Data
/// validates: a required to-one needs a destination, a to-many's count stays within
/// `minCount`…`maxCount`; a placeholder counts as a destination. Each refusal names the JSON
/// path, the entity and the relationship, and leaves the store byte for byte as it was.
@Suite struct RelationshipValidationTests {
    static func model() throws -> ObjectModel {
        func attribute(_ name: String) -> AttributeDescription {
            AttributeDescription(name: name, type: .integer64, userInfo: ["JSONKeyPath": name])
        }
        let identity = ["identityAttributes": "id"]
        return try ObjectModel(entities: [
            EntityDescription(
                name: "League", attributes: [attribute("id")],
                relationships: [
                    RelationshipDescription(
                        name: "teams", destinationEntity: "Team", inverseName: "league", isToMany: true,
                        userInfo: ["JSONKeyPath": "teams"])
                ], userInfo: identity),
            EntityDescription(
                name: "Team", attributes: [attribute("id")],
                relationships: [
                    RelationshipDescription(
                        name: "players", destinationEntity: "Player", inverseName: "team", isToMany: true,
                        minCount: 2, maxCount: 3, userInfo: ["JSONKeyPath": "players"]),
                    RelationshipDescription(
                        name: "captain", destinationEntity: "Player", inverseName: "captainOf", isOptional: false,
                        userInfo: ["JSONKeyPath": "captain"]),
                    RelationshipDescription(
                        name: "coaches", destinationEntity: "Coach", inverseName: "team", isToMany: true, isOptional: false,
                        userInfo: ["JSONKeyPath": "coaches"]),
                    RelationshipDescription(name: "league", destinationEntity: "League", inverseName: "teams"),
                ], userInfo: identity),
            EntityDescription(
                name: "Player", attributes: [attribute("id")],
                relationships: [
                    RelationshipDescription(name: "team", destinationEntity: "Team", inverseName: "players"),
                    RelationshipDescription(name: "captainOf", destinationEntity: "Team", inverseName: "captain", isToMany: true),
                ], userInfo: identity),
            EntityDescription(
                name: "Coach", attributes: [attribute("id")],
                relationships: [
                    RelationshipDescription(name: "team", destinationEntity: "Team", inverseName: "coaches")
                ], userInfo: identity),
        ])
    }

    static func json(_ text: String) throws -> JSONValue { try JSONReader.parse(Data(text.utf8)) }

    /// Team 1 with players 1 and 2 (placeholders), captain 1, coach 7.
    static let valid = #"[{"id":1,"players":[1,2],"captain":1,"coaches":[7]}]"#

    @Test(arguments: StoreKind.allCases)
    func placeholdersCountAsDestinations(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let report = try ObjectContext(store: store.store).importObjects(from: try Self.json(Self.valid), entity: "Team")
        #expect(report.counts(for: "Team").inserted == 1)
        #expect(report.counts(for: "Player").inserted == 2)
        #expect(try store.snapshots(of: "Player").allSatisfy(\.isPlaceholder))
    }

    /// (payload, entity imported, path, entity, relationship, code): over maxCount, under
    /// minCount, a non-optional to-many empty, a required to-one missing on a new object, a
    /// required to-one cleared by null on a stored one, the same for a nested object, and a
    /// stored team losing its only coach to another team (through the coach's to-one).
    static let refusals: [(String, String, String, String, String, ImportError.Code)] = [
        (#"[{"id":1,"players":[1,2,3,4],"captain":1,"coaches":[7]}]"#, "Team", "$[0].players", "Team", "players", .relationshipCount),
        (#"[{"id":1,"players":[1],"captain":1,"coaches":[7]}]"#, "Team", "$[0].players", "Team", "players", .relationshipCount),
        (#"[{"id":1,"players":[1,2],"captain":1,"coaches":[]}]"#, "Team", "$[0].coaches", "Team", "coaches", .relationshipCount),
        (#"[{"id":2,"players":[1,2],"coaches":[7]}]"#, "Team", "$[0].captain", "Team", "captain", .missingRequiredValue),
        (#"[{"id":1,"captain":null}]"#, "Team", "$[0].captain", "Team", "captain", .missingRequiredValue),
        (
            #"[{"id":1,"teams":[{"id":1},{"id":3,"players":[5,6,7,8],"captain":5,"coaches":[8]}]}]"#, "League", "$[0].teams[1].players",
            "Team", "players", .relationshipCount
        ),
        (
            #"[{"id":1,"teams":[{"id":1},{"id":3,"players":[5,6],"captain":5,"coaches":[7]}]}]"#, "League", "$[0].teams[0].coaches",
            "Team", "coaches", .relationshipCount
        ),
    ]

    @Test(arguments: StoreKind.allCases, refusals)
    func refusedWithItsPathAndTheStoreUnchanged(kind: StoreKind, refusal: (String, String, String, String, String, ImportError.Code)) throws {
        let store = try kind.makeStore(model: try Self.model())
        let context = ObjectContext(store: store.store)
        _ = try context.importObjects(from: try Self.json(Self.valid), entity: "Team")
        let dump = try store.dump()
        let checksum = try store.fileChecksum()
        let error = try #require(throws: ImportError.self) {
            try context.importObjects(from: try Self.json(refusal.0), entity: refusal.1)
        }
        #expect(error.code == refusal.5)
        #expect(error.path.description == refusal.2)
        #expect(error.entity == refusal.3)
        #expect(error.property == refusal.4)
        #expect(try store.dump() == dump)
        #expect(try store.fileChecksum() == checksum)
    }

    /// Within the bounds: appending up to maxCount, an optional to-many emptied (players may be
    /// empty: optional), a stored team imported with only its id (its links unchanged).
    @Test(arguments: StoreKind.allCases)
    func withinTheBoundsIsAccepted(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try Self.model())
        let context = ObjectContext(store: store.store)
        _ = try context.importObjects(from: try Self.json(Self.valid), entity: "Team")
        _ = try context.importObjects(from: try Self.json(#"[{"id":1,"players":[1,2,3]}]"#), entity: "Team")
        _ = try context.importObjects(from: try Self.json(#"[{"id":1}]"#), entity: "Team")
        let emptied = try context.importObjects(from: try Self.json(#"[{"id":1,"players":[]}]"#), entity: "Team")
        #expect(emptied.counts(for: "Team").updated == 1)
        let team = try #require(try context.fetch("Team", id: .integer(1)))
        #expect(try team.destinations(forKey: "players").isEmpty)
        #expect(try team.destination(forKey: "captain")?["id"] == .integer(1))
    }
}
