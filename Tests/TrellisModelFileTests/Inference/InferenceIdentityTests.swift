import Foundation
import Testing
import Trellis
import TrellisModelFile

/// docs/ModelInference.md, "Identity".
@Suite struct InferenceIdentityTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var json: String
        var entity = "Item"
        var identity: [String]
        var summary: String?
        var testDescription: String { json }
    }

    static let cases: [Case] = [
        // The order: id, objectId, uuid, <entity>_id, <entity>Id.
        Case(json: #"[{"objectId": "a", "id": 1, "uuid": "u"}]"#, identity: ["id"]),
        // objectId is named itemObjectID: NSManagedObject has an objectID.
        Case(json: #"[{"objectId": "Ed1nuqPvcm", "uuid": "u"}]"#, identity: ["itemObjectID"]),
        Case(
            json: #"[{"uuid": "0b3c8f2e-7c1a-4b7e-9a51-2f4d6c8e0a11", "item_id": 3}]"#, identity: ["uuid"],
            summary: "uuid: string required @ uuid"),
        Case(json: #"[{"seat_category_id": 3, "name": "A"}]"#, entity: "SeatCategory", identity: ["seatCategoryID"]),
        Case(json: #"[{"seatCategoryId": 3, "name": "A"}]"#, entity: "SeatCategory", identity: ["seatCategoryID"]),
        // A candidate missing from one object, or null in one, does not qualify.
        Case(json: #"[{"id": 1, "objectId": "a"}, {"objectId": "b"}]"#, identity: ["itemObjectID"]),
        Case(json: #"[{"id": 1, "objectId": "a"}, {"id": null, "objectId": "b"}]"#, identity: ["itemObjectID"]),
        // Values that repeat with other values are not an identity (the composite of the scalars is).
        Case(json: #"[{"id": 1, "name": "a"}, {"id": 1, "name": "b"}]"#, identity: ["id", "name"]),
        // A value met twice with the same other values is the same object.
        Case(json: #"[{"id": 1, "name": "a", "indices": [0]}, {"id": 1, "name": "a", "indices": [5]}]"#, identity: ["id"]),
        // Booleans and fractions are not identities.
        Case(json: #"[{"id": true, "name": "a"}, {"id": false, "name": "b"}]"#, identity: ["id", "name"]),
        // Numeric strings: Integer 64 with integer-from-string (Groot's "id": "1699").
        Case(
            json: #"[{"id": "1699"}, {"id": "1700"}]"#, identity: ["id"],
            summary: "id: integer64 integer-from-string required @ id"),
        Case(json: #"[{"id": 1699}, {"id": "1700"}]"#, identity: ["id"], summary: "id: integer64 integer-from-string required @ id"),
        // A string that does not read back unchanged through Int64 keeps the identity a string.
        Case(json: #"[{"id": "007"}, {"id": "1700"}]"#, identity: ["id"], summary: "id: string required @ id"),
        Case(json: #"[{"id": "99999999999999999999"}]"#, identity: ["id"], summary: "id: string required @ id"),
        // Integers beyond 2^53 are exact Integer 64.
        Case(
            json: #"[{"id": 505874924095815681}, {"id": 505874922023837696}]"#, identity: ["id"],
            summary: "id: integer64 required @ id"),
        // Integers beyond 64 bits (with smaller ones) are an exact decimal identity, not a
        // composite with the other keys.
        Case(
            json: #"[{"id": 123456789012345678901234, "name": "a"}, {"id": 5, "name": "b"}]"#, identity: ["id"],
            summary: "id: decimal required @ id"),
        // ... and they repeat as the same number.
        Case(
            json: #"[{"id": 123456789012345678901234, "name": "a"}, {"id": 123456789012345678901234, "name": "b"}]"#,
            identity: ["id", "name"]),
    ]

    /// Every candidate whose values repeat, within one array, for objects that differ is not
    /// the identity; nor is a composite identity whose values repeat so. A value met again
    /// with an equal object is the same object; arrays are checked one by one.
    static let repeats: [Case] = [
        // Each single candidate, repeated at the root with another name: the composite of the scalars.
        Case(json: #"[{"id": 1, "name": "a"}, {"id": 1, "name": "b"}]"#, identity: ["id", "name"]),
        Case(json: #"[{"objectId": "x", "name": "a"}, {"objectId": "x", "name": "b"}]"#, identity: ["itemObjectID", "name"]),
        Case(json: #"[{"uuid": "u", "name": "a"}, {"uuid": "u", "name": "b"}]"#, identity: ["uuid", "name"]),
        Case(json: #"[{"item_id": 3, "name": "a"}, {"item_id": 3, "name": "b"}]"#, identity: ["itemID", "name"]),
        Case(json: #"[{"itemId": 3, "name": "a"}, {"itemId": 3, "name": "b"}]"#, identity: ["itemID", "name"]),
        // The next candidate qualifies when the first repeats.
        Case(json: #"[{"id": 1, "uuid": "u1", "name": "a"}, {"id": 1, "uuid": "u2", "name": "b"}]"#, identity: ["uuid"]),
        // A composite whose values repeat for objects that differ elsewhere: no identity.
        Case(json: #"[{"name": "a", "tags": [1]}, {"name": "a", "tags": [2]}]"#, identity: []),
        Case(json: #"[{"name": "a", "value": 1}, {"name": "a", "value": 1, "note": "x"}]"#, identity: []),
        Case(
            json: #"[{"id": 1, "name": "a", "tags": [1]}, {"id": 1, "name": "b", "tags": [1]}, {"id": 1, "name": "b", "tags": [2]}]"#,
            identity: []),
        // Equal objects met again are one object: the composite stands.
        Case(json: #"[{"name": "a", "tags": [1]}, {"name": "a", "tags": [1]}, {"name": "b", "tags": [1]}]"#, identity: ["name"]),
        // Member order does not make objects differ.
        Case(json: #"[{"name": "a", "rank": 1}, {"rank": 1, "name": "a"}]"#, identity: ["name", "rank"]),
    ]

    @Test(arguments: repeats)
    func repeatedValuesAreNoIdentity(_ c: Case) throws {
        let inferred = try InferenceSamples.infer(c.json, entity: c.entity)
        #expect(inferred.identity(c.entity) == c.identity)
    }

    /// Nested arrays are checked one by one: a hashtag repeated in one status, at other
    /// indices, makes the composite no identity; met in two statuses, it stands.
    @Test(arguments: [
        (#"[{"id": 1, "tags": [{"text": "a", "indices": [0]}, {"text": "a", "indices": [5]}]}]"#, [String]()),
        (#"[{"id": 1, "tags": [{"text": "a", "indices": [0]}]}, {"id": 2, "tags": [{"text": "a", "indices": [5]}]}]"#, ["text"]),
        (#"[{"id": 1, "tags": [{"text": "a", "indices": [0]}, {"text": "a", "indices": [0]}]}]"#, ["text"]),
    ])
    func nestedArraysAreCheckedOneByOne(json: String, identity: [String]) throws {
        let inferred = try InferenceSamples.infer(json, entity: "Status")
        #expect(inferred.identity("Tag") == identity)
    }

    /// An inferred model without identity imports what it read; imported again, nested objects
    /// are found among their owner's destinations, so the graph stays as it is.
    @Test func aCompositeThatRepeatsIsNotMerged() throws {
        let json = #"[{"name": "a", "tags": [1]}, {"name": "a", "tags": [2]}]"#
        let inferred = try InferenceSamples.infer(json, entity: "Item")
        let context = ObjectContext(store: InMemoryStore(model: inferred.model), bindings: inferred.file.bindings)
        let report = try context.importObjects(from: try JSONReader.parse(Data(json.utf8)), entity: "Item")
        #expect(report.counts(for: "Item").inserted == 2)
    }

    @Test(arguments: cases)
    func identity(_ c: Case) throws {
        let inferred = try InferenceSamples.infer(c.json, entity: c.entity)
        #expect(inferred.identity(c.entity) == c.identity)
        if let summary = c.summary {
            #expect(inferred.attributeSummary(c.entity).first == summary)
        }
    }

    @Test func aUserMentionedTwiceInOneTweetIsStillIdentifiedByID() throws {
        let inferred = try InferenceSamples.infer(
            #"""
            [{"id": 1, "mentions": [{"id": 7, "name": "a", "indices": [0, 2]}, {"id": 8, "name": "b", "indices": [3, 5]},
                                    {"id": 7, "name": "a", "indices": [9, 11]}]}]
            """#, entity: "Status")
        #expect(inferred.identity("Mention") == ["id"])
    }

    @Test func toOneObjectsRepeatByNature() throws {
        let inferred = try InferenceSamples.infer(
            #"[{"id": 1, "user": {"id": 9, "login": "a"}}, {"id": 2, "user": {"id": 9, "login": "b"}}]"#,
            entity: "Issue")
        #expect(inferred.identity("User") == ["id"])
    }

    /// Found by the `infer` fuzz target (Fuzz/regressions/infer): the media of a retweeted
    /// status join the media of statuses (one key of one entity), but lack `id`.
    @Test func objectsJoinedAtAnotherPlaceMayLackTheIdentity() throws {
        let json = #"""
            [{"id": 1, "text": "a", "media": [{"id": 7, "url": "u"}], "retweeted_status": {"id": 2, "text": "b", "media": [{"url": "v"}]}}]
            """#
        let inferred = try InferenceSamples.infer(json, entity: "Status")
        #expect(inferred.entityNames == ["Status", "Media"])
        let media = try #require(inferred.relationship("Status", "media")?.destinationEntity)
        #expect(inferred.identity(media) == ["id"])
        #expect(inferred.attribute(media, "id")?.isOptional == true)
        let context = ObjectContext(store: InMemoryStore(model: inferred.model), bindings: inferred.file.bindings)
        let report = try context.importObjects(from: try JSONReader.parse(Data(json.utf8)), entity: "Status")
        #expect(report.counts(for: media).inserted == 2)
    }

    @Test func aRootWithoutIdentityKeyIsIdentifiedByItsScalars() throws {
        let inferred = try InferenceSamples.infer(
            #"[{"name": "a", "age": 3, "tags": ["x"]}, {"name": "b", "age": 4, "tags": []}]"#,
            entity: "Person")
        #expect(inferred.identity("Person") == ["name", "age"])
    }
}
