import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisTestSupport

/// docs/ModelInference.md, "Imports without a model": extending a recorded model.
@Suite struct ModelExtensionTests {
    static let page1 = #"[{"id": 1, "title": "a", "user": {"id": 9, "login": "octocat"}}]"#

    static func recorded(_ json: String = page1, entity: String = "Issue") throws -> ModelFile {
        try InferenceSamples.infer(json, entity: entity).file
    }

    @Test func theSamePayloadChangesNothing() throws {
        let recorded = try Self.recorded()
        let extended = try ModelExtension.extend(recorded, with: try InferenceSamples.infer(Self.page1, entity: "Issue"))
        #expect(extended.changes == [])
        #expect(extended.file.data() == recorded.data())
    }

    @Test func newKeysAddOptionalAttributesEntitiesAndRelationships() throws {
        let page2 = #"""
            [{"id": 2, "title": "b", "body": "text", "user": {"id": 9, "login": "octocat", "site_admin": false},
              "labels": [{"id": 208045946, "name": "bug", "color": "f29513"}]}]
            """#
        let extended = try ModelExtension.extend(try Self.recorded(), with: try InferenceSamples.infer(page2, entity: "Issue"))
        #expect(extended.changes == [
            .attribute(entity: "Issue", name: "body"), .entity("Label"), .relationship(entity: "Issue", name: "labels"),
            .attribute(entity: "User", name: "siteAdmin"),
        ])
        #expect(extended.changes.map(\.description) == [
            "new attribute Issue.body", "new entity Label", "new relationship Issue.labels", "new attribute User.siteAdmin",
        ])
        let model = extended.file.model
        #expect(model.entities.map(\.name) == ["Issue", "User", "Label"])
        #expect(model.entity(named: "Issue")?.attribute(named: "body")?.isOptional == true)
        #expect(model.entity(named: "User")?.attribute(named: "siteAdmin")?.isOptional == true)
        let labels = try #require(model.entity(named: "Issue")?.relationship(named: "labels"))
        #expect(labels.destinationEntity == "Label" && labels.isToMany && labels.isOrdered && labels.inverseName == "issues")
        #expect(model.entity(named: "Label")?.identityAttributes.map(\.name) == ["id"])
    }

    @Test func aRecordedAttributeThePayloadLeavesOutBecomesOptional() throws {
        let extended = try ModelExtension.extend(try Self.recorded(),
                                                 with: try InferenceSamples.infer(#"[{"id": 3, "user": {"id": 9, "login": "x"}}]"#, entity: "Issue"))
        #expect(extended.changes == [.madeOptional(entity: "Issue", attribute: "title")])
        #expect(extended.file.model.entity(named: "Issue")?.attribute(named: "title")?.isOptional == true)
    }

    struct ConflictCase: CustomTestStringConvertible, Sendable {
        var json: String
        var path: String
        var property: String
        var message: String
        var testDescription: String { json }
    }

    static let conflicts: [ConflictCase] = [
        ConflictCase(json: #"[{"id": 2, "title": "b", "user": [{"id": 9, "login": "x"}]}]"#, path: "$[0].user", property: "user",
                     message: "entity Issue, property user (key user): the recorded model has a to-one relationship to User, "
                         + "but the payload has an array of objects here; the store was not changed"),
        ConflictCase(json: #"[{"id": "a-1", "title": "b"}]"#, path: "$[0].id", property: "id",
                     message: "entity Issue, property id (key id): the recorded model has type integer64, but the payload has a string here "
                         + "(their type would be string); the store was not changed"),
        ConflictCase(json: #"[{"id": 2, "title": {"id": 5, "text": "b"}}]"#, path: "$[0].title", property: "title",
                     message: "entity Issue, property title (key title): the recorded model has a string attribute, "
                         + "but the payload has an object here; the store was not changed"),
    ]

    @Test(arguments: conflicts)
    func aValueThatDoesNotFitIsALocatedErrorNamingBothTypes(_ c: ConflictCase) throws {
        let inferred = try InferenceSamples.infer(c.json, entity: "Issue")
        let error = try #require(throws: ModelInferenceError.self) { try ModelExtension.extend(try Self.recorded(), with: inferred) }
        #expect(error.code == .typeConflict)
        #expect(error.source == "sample.json")
        #expect(error.path?.description == c.path)
        #expect(error.entity == "Issue")
        #expect(error.property == c.property)
        #expect(error.message == c.message)
    }

    @Test func numbersIntoAStringAttributeFit() throws {
        let extended = try ModelExtension.extend(try Self.recorded(),
                                                 with: try InferenceSamples.infer(#"[{"id": 2, "title": 7, "user": {"id": 9, "login": "x"}}]"#, entity: "Issue"))
        #expect(extended.changes == [])
    }

    @Test func integersBeyondARecordedWidthConflict() throws {
        let recorded = try ModelFile(model: try ObjectModel(entities: [
            EntityDescription(name: "Issue", attributes: [
                AttributeDescription(name: "id", type: .integer64, isOptional: false, userInfo: [GrootAnnotation.jsonKeyPath: "id"]),
                AttributeDescription(name: "comments", type: .integer16, userInfo: [GrootAnnotation.jsonKeyPath: "comments"]),
            ], userInfo: [GrootAnnotation.identityAttributes: "id"]),
        ]))
        let error = try #require(throws: ModelInferenceError.self) {
            try ModelExtension.extend(recorded, with: try InferenceSamples.infer(#"[{"id": 1, "comments": 5}, {"id": 2, "comments": 70000}]"#,
                                                                                  entity: "Issue"))
        }
        #expect(error.path?.description == "$[0].comments")
        #expect(error.message == "entity Issue, property comments (key comments): the recorded model has type integer16, "
                    + "but the payload has integers from 5 to 70000 (the first here); the store was not changed")
    }

    /// A hand-written recorded model (other names) is matched by key path: mentions stay
    /// the recorded `mentionedUsers` → `User`, nothing is added twice.
    @Test func aHandWrittenModelIsExtendedByKeyPath() throws {
        let recorded = try ModelFile.read(from: InferenceSamples.repositoryFile("Examples/twitter/model.json"))
        let inference = ModelInference(rootEntity: "Status")
        try inference.add(contentsOf: Fixtures.url("corpus/twitter.json"), at: "statuses")
        let extended = try ModelExtension.extend(recorded, with: try inference.inferredModel())
        let names = extended.file.model.entities.map(\.name)
        #expect(names == ["Status", "User", "Hashtag", "URL", "Media"])
        #expect(extended.changes.contains(.attribute(entity: "Status", name: "idStr")))
        #expect(extended.changes.contains(.attribute(entity: "User", name: "indices")))
        // profile_image_url_https is the recorded profileImageURL: not added again; profile_image_url is new.
        #expect(!extended.changes.contains(.attribute(entity: "User", name: "profileImageURLHTTPS")))
        #expect(extended.changes.contains(.attribute(entity: "User", name: "profileImageURL2")))
        #expect(extended.file.model.entity(named: "User")?.attribute(named: "profileImageURL2")?.jsonKeyPathText == "profile_image_url")
        #expect(extended.changes.count == 45)
        #expect(extended.file.model.entity(named: "User")?.attribute(named: "screenName")?.jsonKeyPathText == "screen_name")
        #expect(extended.file.model.entity(named: "Status")?.relationship(named: "mentionedUsers")?.destinationEntity == "User")
        // Extending again with the same payload changes nothing.
        let again = try ModelExtension.extend(extended.file, with: try inference.inferredModel())
        #expect(again.changes == [])
    }

    /// `eventId` refers to the recorded `Event`: a relationship, and `Event` gets its inverse.
    @Test func aReferenceToARecordedEntityIsARelationship() throws {
        let recorded = try Self.recorded(#"{"138586341": {"id": 138586341, "name": "Bach"}}"#, entity: "Event")
        let inference = ModelInference(rootEntity: "Performance")
        inference.knownEntities = KnownEntity.entities(of: recorded.model)
        try inference.add(collection: try JSONReader.parse(Data(#"[{"id": 339887544, "eventId": 138586341}]"#.utf8)), at: .root)
        let extended = try ModelExtension.extend(recorded, with: try inference.inferredModel())
        #expect(extended.changes == [.entity("Performance"), .relationship(entity: "Event", name: "performances")])
        let event = try #require(extended.file.model.entity(named: "Performance")?.relationship(named: "event"))
        #expect(event.destinationEntity == "Event" && event.jsonKeyPathText == "eventId" && event.inverseName == "performances")
    }
}
