import Foundation
import Testing
import Trellis
import TrellisModelFile

/// docs/ModelInference.md, "Entities and relationships" and "What is read".
@Suite struct InferenceStructureTests {
    @Test func nestedObjectsAreToOneEntitiesAndArraysOrderedToManyWithInverses() throws {
        let inferred = try InferenceSamples.infer(
            #"""
            [{"id": "1699", "name": "Batman", "powers": [{"id": "4", "name": "Agility"}, {"id": "9", "name": "Insanely Rich"}],
              "publisher": {"id": "10", "name": "DC Comics"}}]
            """#, entity: "Character")
        #expect(inferred.entityNames == ["Character", "Power", "Publisher"])
        #expect(
            inferred.relationshipSummary("Character") == [
                "powers -> Power (many ordered) inverse characters @ powers",
                "publisher -> Publisher (one) inverse characters @ publisher",
            ])
        #expect(inferred.relationshipSummary("Power") == ["characters -> Character (many) inverse powers @ -"])
        #expect(inferred.relationshipSummary("Publisher") == ["characters -> Character (many) inverse publisher @ -"])
    }

    @Test func nestedObjectsWithoutIdentityAreFlattenedAtDottedKeyPaths() throws {
        let inferred = try InferenceSamples.infer(
            #"""
            [{"id": 1, "metadata": {"result_type": "recent", "lang": {"code": "ja"}}, "entities": {"hashtags": [{"text": "a"}]}},
             {"id": 2, "metadata": {"result_type": "popular", "lang": {"code": "en"}}, "entities": {"hashtags": []}}]
            """#, entity: "Status")
        #expect(
            inferred.attributeSummary("Status") == [
                "id: integer64 required @ id",
                "metadataResultType: string required @ metadata.result_type",
                "metadataLangCode: string required @ metadata.lang.code",
            ])
        #expect(inferred.relationshipSummary("Status") == ["entitiesHashtags -> Hashtag (many ordered) inverse statuses @ entities.hashtags"])
    }

    @Test func arraysOfObjectsWithoutIdentityKeyAreIdentifiedByTheirScalars() throws {
        let inferred = try InferenceSamples.infer(
            #"""
            [{"id": 1, "tags": [{"text": "swift", "indices": [0, 5], "score": 1.5}]},
             {"id": 2, "tags": [{"text": "swift", "indices": [3, 8], "score": 1.5}, {"text": "json", "indices": [9, 13], "score": 2}]}]
            """#, entity: "Post")
        #expect(inferred.identity("Tag") == ["text", "score"])
        #expect(
            inferred.attributeSummary("Tag") == [
                "text: string required @ text", "score: double required @ score",
                "indices: json required @ indices",
            ])
    }

    @Test func anArrayOfObjectsWithNoScalarKeyIsJSON() throws {
        let inferred = try InferenceSamples.infer(#"[{"id": 1, "groups": [{"members": [1, 2]}, {"members": []}]}]"#)
        #expect(inferred.entityNames == ["Item"])
        #expect(inferred.attributeSummary("Item") == ["id: integer64 required @ id", "groups: json required @ groups"])
    }

    @Test func keysWithoutTypedValuesAreLeftOut() throws {
        let inferred = try InferenceSamples.infer(#"[{"id": 1, "place": null, "labels": [], "milestone": null}, {"id": 2, "labels": []}]"#)
        #expect(inferred.attributeSummary("Item") == ["id: integer64 required @ id"])
        #expect(inferred.relationshipSummary("Item") == [])
    }

    @Test func dictionariesAreJSONAttributes() throws {
        let inferred = try InferenceSamples.infer(
            #"""
            [{"id": 1, "names": {"138586341": "Salle Pleyel", "138586345": "Olympia"}, "subTopics": {"12": [1, 2]}}]
            """#)
        #expect(inferred.entityNames == ["Item"])
        #expect(
            inferred.attributeSummary("Item") == [
                "id: integer64 required @ id", "names: json required @ names",
                "subTopics: json required @ subTopics",
            ])
    }

    @Test func anObjectKeyedByItsMembersIdentitiesIsReadMemberByMember() throws {
        let inference = ModelInference(rootEntity: "Event")
        let count = try inference.add(
            collection: try JSONReader.parse(
                Data(
                    #"""
                    {"138586341": {"id": 138586341, "name": "30th Anniversary Tour"}, "138586345": {"id": 138586345, "name": "Bach"}}
                    """#.utf8)), at: JSONPath.root.appending(key: "events"))
        #expect(count == 2)
        #expect(inference.sawKeyedCollection)
        let inferred = try inference.inferredModel()
        #expect(inferred.isKeyedCollection)
        #expect(inferred.attributeSummary("Event") == ["id: integer64 required @ id", "name: string required @ name"])
    }

    @Test func anObjectNotKeyedByIdentityIsOneElement() throws {
        let inference = ModelInference(rootEntity: "Settings")
        let count = try inference.add(collection: try JSONReader.parse(Data(#"{"a": {"id": 2}, "theme": "dark"}"#.utf8)), at: .root)
        #expect(count == 1)
        #expect(!inference.sawKeyedCollection)
    }

    @Test func referencesByIdentifierToAnEntityOfThePayloadAreRelationships() throws {
        let inferred = try InferenceSamples.infer(
            #"""
            [{"id": 1, "author": {"id": 7, "name": "Ada"}, "reviewer_id": 7, "author_id": 7, "tagIds": [1, 2]}]
            """#, entity: "Post")
        // author_id names the entity Author; reviewer_id names none; tagIds names none.
        #expect(
            inferred.relationshipSummary("Post") == [
                "author -> Author (one) inverse posts @ author",
                "author2 -> Author (one) inverse postsViaAuthor2 @ author_id",
            ])
        #expect(inferred.attribute("Post", "reviewerID")?.type == .integer64)
        #expect(inferred.attribute("Post", "tagIDs")?.type == .json)
    }

    @Test func referencesByIdentifierToAKnownEntity() throws {
        let event = KnownEntity(
            name: "Event",
            identityAttribute: AttributeDescription(
                name: "id", type: .integer64, isOptional: false, userInfo: [GrootAnnotation.jsonKeyPath: "id"]))
        let inferred = try InferenceSamples.infer(
            #"[{"id": 339887544, "eventId": 138586341, "venueCode": "PLEYEL_PLEYEL"}]"#,
            entity: "Performance", known: [event])
        #expect(inferred.relationshipSummary("Performance") == ["event -> Event (one) inverse performances @ eventId"])
        #expect(inferred.attributeSummary("Event") == ["id: integer64 required @ id"])
        // A string identifier is not an integer identity's reference.
        let strings = try InferenceSamples.infer(#"[{"id": 1, "eventId": "abc"}]"#, entity: "Performance", known: [event])
        #expect(strings.attribute("Performance", "eventID")?.type == .string)
    }

    /// The collection's objects cannot be tables keyed by data: their values would have no
    /// attribute (before, an entity without attributes, or with one column per key, was
    /// inferred, and every import inserted its objects again). The error says where.
    @Test(arguments: [
        (#"[{\#((0...1000).map { "\"k\($0)\": \($0)" }.joined(separator: ", "))}]"#, "$[0]", "objects with more than 1,000 distinct keys"),
        (
            "[" + (0..<1100).map { #"{"id": \#($0), "k\#($0)": 1}"# }.joined(separator: ", ") + "]", "$[999]",
            "objects with more than 1,000 distinct keys"
        ),
        (#"{"205705993": "Arrière-scène central", "205705994": "1er balcon central"}"#, "$", "an object whose keys are all numbers"),
        (#"[{"1": {"id": 1}, "2": {"id": 2}}]"#, "$[0]", "an object whose keys are all numbers"),
        // A repeated "id" keeps its last value (8), which is not the member's key: not keyed by identity (a fuzz input).
        (#"{"7": {"id": 7, "name": "a", "id": 8}}"#, "$", "an object whose keys are all numbers"),
    ])
    func theCollectionsObjectsCannotBeTables(json: String, path: String, found: String) throws {
        let error = try #require(throws: ModelInferenceError.self) { try InferenceSamples.infer(json, entity: "Area") }
        #expect(error.code == .notRecords)
        #expect(error.source == "sample.json")
        #expect(error.path?.description == path)
        #expect(
            error.message == "no Area records to infer from: found \(found), a table keyed by data; read its members as records "
                + "with trellis import --key-attribute (and --value-key for values that are not objects)")
    }

    struct IdentifierListCase: CustomTestStringConvertible, Sendable {
        /// The tags' ids and the list of tag ids.
        var tagIDs: String
        var list: String
        /// Whether `tag_ids` becomes a to-many relationship to Tag (else a JSON attribute).
        var isRelationship: Bool
        var testDescription: String { "tags \(tagIDs), tag_ids \(list)" }
    }

    /// `<name>_ids` refers to `<Name>` only when every element is an identifier of the
    /// identity's kind: otherwise the inferred model could not import its own payload
    /// (`cannot store "a" in Tag.id (integer64)`, `found [1]`, `1.5 … not a whole number`).
    static let identifierLists: [IdentifierListCase] = [
        IdentifierListCase(tagIDs: "1", list: "[1, 2]", isRelationship: true),
        IdentifierListCase(tagIDs: "1", list: #"["1", 2]"#, isRelationship: true),
        IdentifierListCase(tagIDs: #""a""#, list: #"["a", "b"]"#, isRelationship: true),
        IdentifierListCase(tagIDs: "1", list: #"["a", "b"]"#, isRelationship: false),
        IdentifierListCase(tagIDs: "1", list: "[[1], [2]]", isRelationship: false),
        IdentifierListCase(tagIDs: "1", list: "[1.5, 2]", isRelationship: false),
        IdentifierListCase(tagIDs: "1", list: "[1, null]", isRelationship: false),
        IdentifierListCase(tagIDs: "1", list: "[true]", isRelationship: false),
        IdentifierListCase(tagIDs: #""a""#, list: "[1, 2]", isRelationship: false),
    ]

    @Test(arguments: identifierLists)
    func aListOfIdentifiersRefersToAnEntityOnlyWhenEveryElementIsOne(_ c: IdentifierListCase) throws {
        let payload = #"[{"id": 1, "tags": [{"id": \#(c.tagIDs), "name": "x"}], "tag_ids": \#(c.list)}]"#
        let inferred = try InferenceSamples.infer(payload, entity: "Post")
        if c.isRelationship {
            #expect(inferred.relationship("Post", "tags2")?.destinationEntity == "Tag")
            #expect(inferred.relationship("Post", "tags2")?.jsonKeyPathText == "tag_ids")
            #expect(inferred.attribute("Post", "tagIDs") == nil)
        } else {
            #expect(inferred.relationship("Post", "tags2") == nil)
            #expect(inferred.attribute("Post", "tagIDs")?.type == .json)
        }
        // Either way the inferred model imports its payload.
        let context = ObjectContext(store: InMemoryStore(model: inferred.model), bindings: inferred.file.bindings)
        let report = try context.importObjects(from: try JSONReader.parse(Data(payload.utf8)), entity: "Post")
        #expect(report.counts(for: "Post").inserted == 1)
    }

    @Test func severalFilesMakeOneModel() throws {
        let inferred = try InferenceSamples.infer(
            pages: [
                #"[{"id": 1, "title": "a", "body": "x"}]"#,
                #"[{"id": 2, "title": "b", "closed_at": "2017-10-10T16:00:00Z"}]"#,
            ], entity: "Issue")
        #expect(
            inferred.attributeSummary("Issue") == [
                "id: integer64 required @ id", "title: string required @ title", "body: string @ body",
                "closedAt: date iso8601 @ closed_at",
            ])
    }

    @Test func sampleReadsTheFirstElementsOfEachFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-infer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("items.json")
        try Data(#"{"items": [{"id": 1}, {"id": 2}, {"id": 3, "late": true}]}"#.utf8).write(to: url)
        let inference = ModelInference(rootEntity: "Item")
        #expect(try inference.add(contentsOf: url, at: "items", sample: 2) == 2)
        #expect(try inference.inferredModel().attributeSummary("Item") == ["id: integer64 required @ id"])
        let all = ModelInference(rootEntity: "Item")
        #expect(try all.add(contentsOf: url, at: "items") == 3)
        #expect(try all.inferredModel().attributeSummary("Item") == ["id: integer64 required @ id", "late: boolean @ late"])
    }
}
