import Foundation
import Trellis
import TrellisTestSupport

/// Characters, powers and publishers for the query tests: ASCII and non-ASCII names
/// (precomposed and decomposed é, ß, upper case), missing values, a character without a
/// publisher, one without powers, and text with quotes, semicolons, `--`, `%`, `_`, `*`, `?`.
enum QueryFixture {
    static func model() throws -> ObjectModel {
        func attribute(_ name: String, _ type: AttributeType, transformer: String? = nil) -> AttributeDescription {
            var info = ["JSONKeyPath": name]
            if let transformer { info["JSONTransformerName"] = transformer }
            return AttributeDescription(name: name, type: type, userInfo: info)
        }
        return try ObjectModel(entities: [
            EntityDescription(
                name: "Character",
                attributes: [
                    attribute("id", .integer64), attribute("name", .string), attribute("realName", .string),
                    attribute("rating", .double), attribute("active", .boolean),
                    attribute("createdAt", .date, transformer: "iso8601"),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "powers", destinationEntity: "Power", inverseName: "characters", isToMany: true,
                        userInfo: ["JSONKeyPath": "powers"]),
                    RelationshipDescription(
                        name: "publisher", destinationEntity: "Publisher", inverseName: "characters",
                        userInfo: ["JSONKeyPath": "publisher"]),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Power", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "powers", isToMany: true)],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Publisher", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "publisher", isToMany: true)],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    static let dc: JSONValue = ["id": 1, "name": "DC Comics"]
    static let marvel: JSONValue = ["id": 2, "name": "Marvel"]
    static func power(_ id: Int64) -> JSONValue {
        let names = ["Intelligence", "Stealth", "Flight", "Strength", "Speed"]
        return ["id": .number(JSONNumber(id)), "name": .string(names[Int(id) - 1])]
    }

    static let injection = "O'Brien; DROP TABLE \"Character\" --"

    /// 8 characters; see the comments in `QueryTableTests` for what each case selects.
    static func characters() -> JSONValue {
        func character(
            _ id: Int64, _ name: String?, _ realName: String?, _ rating: Double?, _ active: Bool, _ createdAt: String?,
            _ publisher: JSONValue, _ powers: [Int64]
        ) -> JSONValue {
            .object(
                JSONObject([
                    ("id", .number(JSONNumber(id))), ("name", name.map(JSONValue.string) ?? .null),
                    ("realName", realName.map(JSONValue.string) ?? .null),
                    ("rating", rating.map { .number(JSONNumber($0)) } ?? .null), ("active", .bool(active)),
                    ("createdAt", createdAt.map(JSONValue.string) ?? .null), ("publisher", publisher),
                    ("powers", .array(powers.map(power))),
                ]))
        }
        return .array([
            character(1, "Batman", "Bruce Wayne", 4.5, true, "2011-08-21T18:02:52.000Z", dc, [1, 2]),
            character(2, "batgirl", "Barbara Gordon", 3.5, true, "2012-01-01T00:00:00.000Z", dc, [2]),
            character(3, "Superman", "Clark Kent", 5.0, true, "2010-05-05T00:00:00.000Z", dc, [3, 4, 5]),
            character(4, "Straße", nil, 2.0, false, "2015-03-01T00:00:00.000Z", marvel, []),
            character(5, "Caf\u{E9}", "Élodie", 3.0, false, nil, marvel, [3]),
            character(6, "CAFE\u{301}", injection, nil, true, "2020-01-01T00:00:00.000Z", .null, [3, 4, 5, 2]),
            character(7, nil, "Nobody", 1.0, false, "2019-06-15T12:00:00.000Z", marvel, [4]),
            character(8, "STRASSE", "Big 50% off_*?", 4.5, true, "2018-01-01T00:00:00.000Z", dc, [5]),
        ])
    }

    /// A store of `kind` holding the fixture (and a publisher without characters).
    static func store(_ kind: StoreKind) throws -> TestStore {
        let store = try kind.makeStore(model: try model())
        let context = ObjectContext(store: store.store)
        _ = try context.importObjects(from: characters(), entity: "Character")
        _ = try context.importObjects(from: [["id": 3, "name": "Image"]], entity: "Publisher")
        return store
    }

    /// The `id` attribute of each snapshot, in order.
    static func ids(_ snapshots: [ObjectSnapshot]) -> [Int64] {
        snapshots.map { $0.attributes[0]?.integerValue ?? -1 }
    }
}
