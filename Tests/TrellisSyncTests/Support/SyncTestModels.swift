import Foundation
import Trellis

/// The models the sync tests import into.
enum SyncTestModels {
    static func attribute(_ name: String, _ type: AttributeType, _ keyPath: String, transformer: String? = nil) -> AttributeDescription {
        var info = ["JSONKeyPath": keyPath]
        if let transformer { info["JSONTransformerName"] = transformer }
        return AttributeDescription(name: name, type: type, userInfo: info)
    }

    /// Parse: Hero (objectId, name, power, updatedAt, born, avatar, location, latitude, sigil,
    /// mystery, team → Team, friends → Hero) and Team (objectId, name, heroes).
    static func parse() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Hero",
                attributes: [
                    attribute("objectId", .string, "objectId"), attribute("name", .string, "name"),
                    attribute("power", .integer64, "power"), attribute("updatedAt", .date, "updatedAt"),
                    attribute("born", .date, "born"), attribute("avatar", .uri, "avatar"),
                    attribute("location", .json, "location"), attribute("latitude", .double, "location.latitude"),
                    attribute("sigil", .binary, "sigil"), attribute("mystery", .json, "mystery"),
                ],
                relationships: [
                    RelationshipDescription(name: "team", destinationEntity: "Team", inverseName: "heroes", userInfo: ["JSONKeyPath": "team"]),
                    RelationshipDescription(name: "friends", destinationEntity: "Hero", isToMany: true, userInfo: ["JSONKeyPath": "friends"]),
                ],
                userInfo: ["identityAttributes": "objectId"]),
            EntityDescription(
                name: "Team", attributes: [attribute("objectId", .string, "objectId"), attribute("name", .string, "name")],
                relationships: [RelationshipDescription(name: "heroes", destinationEntity: "Hero", inverseName: "team", isToMany: true)],
                userInfo: ["identityAttributes": "objectId"]),
        ])
    }

    /// GitHub issues (id, number, title, state, updatedAt) and their users.
    static func github() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Issue",
                attributes: [
                    attribute("id", .integer64, "id"), attribute("number", .integer64, "number"),
                    attribute("title", .string, "title"), attribute("state", .string, "state"),
                    attribute("updatedAt", .date, "updated_at"),
                ],
                relationships: [RelationshipDescription(name: "user", destinationEntity: "User", inverseName: "issues", userInfo: ["JSONKeyPath": "user"])],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "User", attributes: [attribute("id", .integer64, "id"), attribute("login", .string, "login")],
                relationships: [RelationshipDescription(name: "issues", destinationEntity: "Issue", inverseName: "user", isToMany: true)],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    /// The positional list: Item (id, name, updatedAt).
    static func items() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [attribute("id", .integer64, "id"), attribute("name", .string, "name"), attribute("updatedAt", .date, "updated_at")],
                userInfo: ["identityAttributes": "id"])
        ])
    }
}
