import Foundation
import Testing
import Trellis
import TrellisModelFile

/// docs/ModelInference.md, "One shape, one entity".
@Suite struct InferenceGroupingTests {
    /// A tweet's `user`, `retweeted_status.user` and `entities.user_mentions` entries are Users;
    /// `retweeted_status` and `quoted_status` are Statuses.
    @Test func theSameShapeInSeveralPlacesIsOneEntity() throws {
        let user = #"{"id": 9, "id_str": "9", "name": "n", "screen_name": "s", "followers_count": 3}"#
        let mention = #"{"id": 8, "id_str": "8", "name": "m", "screen_name": "t", "indices": [0, 2]}"#
        let inner = #"{"id": 2, "id_str": "2", "text": "b", "lang": "en", "user": \#(user), "entities": {"user_mentions": []}}"#
        let inferred = try InferenceSamples.infer(
            #"""
            [{"id": 1, "id_str": "1", "text": "a", "lang": "ja", "user": \#(user), "entities": {"user_mentions": [\#(mention)]},
              "retweeted_status": \#(inner), "quoted_status": \#(inner)}]
            """#, entity: "Status")
        #expect(inferred.entityNames == ["Status", "User"])
        #expect(
            inferred.relationshipSummary("Status") == [
                "user -> User (one) inverse statuses @ user",
                "entitiesUserMentions -> User (many ordered) inverse statusesViaEntitiesUserMentions @ entities.user_mentions",
                "retweetedStatus -> Status (one) inverse statusesViaRetweetedStatus @ retweeted_status",
                "quotedStatus -> Status (one) inverse statusesViaQuotedStatus @ quoted_status",
                "statusesViaRetweetedStatus -> Status (many) inverse retweetedStatus @ -",
                "statusesViaQuotedStatus -> Status (many) inverse quotedStatus @ -",
            ])
        // A mention lacks followers_count: optional; every user place has name.
        #expect(inferred.attribute("User", "followersCount")?.isOptional == true)
        #expect(inferred.attribute("User", "name")?.isOptional == false)
        #expect(inferred.attribute("User", "indices")?.type == .json)
    }

    struct ApartCase: CustomTestStringConvertible, Sendable {
        var label: String
        var json: String
        var entities: [String]
        var testDescription: String { label }
    }

    static let apartCases: [ApartCase] = [
        ApartCase(
            label: "only a name in common besides the identity",
            json: #"[{"id": "1699", "name": "Batman", "powers": [{"id": "4", "name": "Agility"}], "publisher": {"id": "10", "name": "DC"}}]"#,
            entities: ["Item", "Power", "Publisher"]),
        ApartCase(
            label: "different identity keys",
            json: #"[{"id": 1, "owner": {"id": 2, "login": "a", "url": "u"}, "team": {"uuid": "x", "login": "b", "url": "v"}}]"#,
            entities: ["Item", "Owner", "Team"]),
        ApartCase(
            label: "identities of different kinds",
            json: #"[{"id": 1, "owner": {"id": 2, "login": "a", "url": "u"}, "team": {"id": "x", "login": "b", "url": "v"}}]"#,
            entities: ["Item", "Owner", "Team"]),
        ApartCase(
            label: "under half of the smaller key set in common",
            json:
                #"[{"id": 1, "owner": {"id": 2, "login": "a", "url": "u", "x": 1, "y": 2, "z": 3}, "team": {"id": 3, "login": "b", "url": "v", "p": 1, "q": 2, "r": 3}}]"#,
            entities: ["Item", "Owner", "Team"]),
        ApartCase(
            label: "two keys in common, half of the smaller set",
            json: #"[{"id": 1, "owner": {"id": 2, "login": "a", "url": "u", "x": 1}, "team": {"id": 3, "login": "b", "url": "v", "p": 1, "q": 2}}]"#,
            entities: ["Item", "Owner"]),
    ]

    @Test(arguments: apartCases)
    func lookAlikes(_ c: ApartCase) throws {
        #expect(try InferenceSamples.infer(c.json).entityNames == c.entities)
    }
}
