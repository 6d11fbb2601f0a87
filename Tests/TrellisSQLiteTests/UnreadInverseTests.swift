import Foundation
import Testing

@testable import Trellis
@testable import TrellisSQLite

/// An import leaves unrecorded the inverse changes of its own objects in relationships no
/// mapping reads (a power's characters, a publisher's characters: `InverseBookkeeping`);
/// the stores must still hold both sides of every link.
@Suite struct UnreadInverseTests {
    @Test(arguments: [false, true])
    func bothSidesOfEveryLinkAreStored(powersOrdered: Bool) throws {
        // Character (powers ↔ Power.characters, publisher ↔ Publisher.characters); the inverses are not mapped.
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Character",
                attributes: [
                    Scenario.attr("id", .integer64, key: "id"), Scenario.attr("name", .string, key: "name"),
                    Scenario.attr("realName", .string, key: "real_name"),
                ],
                relationships: [
                    Scenario.rel("powers", "Power", inverse: "characters", toMany: true, ordered: powersOrdered, key: "powers"),
                    Scenario.rel("publisher", "Publisher", inverse: "characters", key: "publisher"),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Power", attributes: [Scenario.attr("id", .integer64, key: "id"), Scenario.attr("name", .string, key: "name")],
                relationships: [Scenario.rel("characters", "Character", inverse: "powers", toMany: true)],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Publisher", attributes: [Scenario.attr("id", .integer64, key: "id"), Scenario.attr("name", .string, key: "name")],
                relationships: [Scenario.rel("characters", "Character", inverse: "publisher", toMany: true)],
                userInfo: ["identityAttributes": "id"]),
        ])
        for (kind, store, directory) in try Scenario.stores(model) {
            defer { withExtendedLifetime(directory) {} }
            let context = ObjectContext(store: store)
            var small = ImportOptions()
            small.batchSize = 1
            _ = try context.importObjects(
                from: [
                    ["id": 1, "powers": [["id": 4], ["id": 9]], "publisher": ["id": 10]],
                    ["id": 2, "powers": [["id": 4]], "publisher": ["id": 10]],
                ], entity: "Character")
            _ = try context.importObjects(from: [["id": 3, "powers": [["id": 9]], "publisher": ["id": 10]]], entity: "Character", options: small)
            _ = try context.importObjects(from: [["id": 1, "powers": [["id": 4], ["id": 77]], "publisher": ["id": 11]]], entity: "Character")
            _ = try context.importObjects(
                from: [
                    ["id": 2, "powers": [["id": 78]], "publisher": ["id": 10]],
                    ["id": 5, "powers": [["id": 78], ["id": 4]]],
                ], entity: "Character", options: small)
            #expect(
                try Scenario.dump(store) == [
                    "Character:1 id=1 name=nil realName=nil powers=[Power:4,Power:77] publisher=[Publisher:11]",
                    "Character:2 id=2 name=nil realName=nil powers=[Power:78] publisher=[Publisher:10]",
                    "Character:3 id=3 name=nil realName=nil powers=[Power:9] publisher=[Publisher:10]",
                    "Character:5 id=5 name=nil realName=nil powers=[\(powersOrdered ? "Power:78,Power:4" : "Power:4,Power:78")] publisher=[]",
                    "Power:4 id=4 name=nil characters=[Character:1,Character:5]",
                    "Power:77 id=77 name=nil characters=[Character:1]",
                    "Power:78 id=78 name=nil characters=[Character:2,Character:5]",
                    "Power:9 id=9 name=nil characters=[Character:3]",
                    "Publisher:10 id=10 name=nil characters=[Character:2,Character:3]",
                    "Publisher:11 id=11 name=nil characters=[Character:1]",
                ], "\(kind)")
        }
    }
}
