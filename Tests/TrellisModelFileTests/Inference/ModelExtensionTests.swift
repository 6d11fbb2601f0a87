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
        #expect(
            extended.changes == [
                .attribute(entity: "Issue", name: "body"), .entity("Label"), .relationship(entity: "Issue", name: "labels"),
                .attribute(entity: "User", name: "siteAdmin"),
            ])
        #expect(
            extended.changes.map(\.description) == [
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
        let extended = try ModelExtension.extend(
            try Self.recorded(),
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
        ConflictCase(
            json: #"[{"id": 2, "title": "b", "user": [{"id": 9, "login": "x"}]}]"#, path: "$[0].user", property: "user",
            message: "entity Issue, property user (key user): the recorded model has a to-one relationship to User, "
                + "but the payload has an array of objects here; the store was not changed"),
        ConflictCase(
            json: #"[{"id": "a-1", "title": "b"}]"#, path: "$[0].id", property: "id",
            message: "entity Issue, property id (key id): the recorded model has type integer64, but the payload has a string here "
                + "(their type would be string); the store was not changed"),
        ConflictCase(
            json: #"[{"id": 2, "title": {"id": 5, "text": "b"}}]"#, path: "$[0].title", property: "title",
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
        let extended = try ModelExtension.extend(
            try Self.recorded(),
            with: try InferenceSamples.infer(#"[{"id": 2, "title": 7, "user": {"id": 9, "login": "x"}}]"#, entity: "Issue"))
        #expect(extended.changes == [])
    }

    struct FitCase: CustomTestStringConvertible, Sendable {
        /// The recorded value of `v`, and a later one.
        var recorded: String
        var later: String
        /// The recorded type (checked, so the case tests what it says).
        var type: AttributeType
        /// nil: the later value fits (and imports); else the class the conflict names.
        var conflict: String? = nil
        var testDescription: String { "\(recorded) then \(later)" }
    }

    /// What the import's coercions accept fits the recorded attribute (docs/ModelInference.md,
    /// "Imports without a model"): no false conflicts; what never fits stays a conflict.
    static let fits: [FitCase] = [
        FitCase(recorded: "true", later: "1", type: .boolean),
        FitCase(recorded: "true", later: "0", type: .boolean),
        FitCase(recorded: "true", later: #""yes""#, type: .boolean),
        FitCase(recorded: "true", later: #""FALSE""#, type: .boolean),
        FitCase(recorded: "true", later: "2", type: .boolean, conflict: "an integer"),
        FitCase(recorded: "true", later: #""maybe""#, type: .boolean, conflict: "a string"),
        FitCase(recorded: #""0b3c8f2e-7c1a-4b7e-9a51-2f4d6c8e0a11""#, later: #""0B3C8F2E-7C1A-4B7E-9A51-2F4D6C8E0A11""#, type: .uuid),
        FitCase(recorded: #""0b3c8f2e-7c1a-4b7e-9a51-2f4d6c8e0a11""#, later: #""abc""#, type: .uuid, conflict: "a string"),
        FitCase(recorded: #""https://a.org/x""#, later: #""/relative/path""#, type: .uri),
        FitCase(recorded: #""https://a.org/x""#, later: "5", type: .uri, conflict: "an integer"),
        FitCase(recorded: "1.5", later: #""2.5""#, type: .double),
        FitCase(recorded: "1.5", later: #""-1e3""#, type: .double),
        FitCase(recorded: "1", later: #""+5""#, type: .integer64),
        FitCase(recorded: "1", later: #""007""#, type: .integer64),
        FitCase(recorded: "1", later: #""five""#, type: .integer64, conflict: "a string"),
        FitCase(recorded: "3.14159265358979323846", later: #""2.5""#, type: .decimal),
    ]

    @Test(arguments: fits)
    func whatTheCoercionsAcceptFits(_ c: FitCase) throws {
        let recorded = try Self.recorded(#"[{"id": 1, "v": \#(c.recorded)}]"#, entity: "Item")
        #expect(recorded.model.entity(named: "Item")?.attribute(named: "v")?.type == c.type)
        let payload = #"[{"id": 2, "v": \#(c.later)}]"#
        let inferred = try InferenceSamples.infer(payload, entity: "Item")
        guard let conflict = c.conflict else {
            let extended = try ModelExtension.extend(recorded, with: inferred)
            #expect(extended.changes == [])
            let context = ObjectContext(store: InMemoryStore(model: extended.file.model), bindings: extended.file.bindings)
            #expect(try context.importObjects(from: try JSONReader.parse(Data(payload.utf8)), entity: "Item").counts(for: "Item").inserted == 1)
            return
        }
        let error = try #require(throws: ModelInferenceError.self) { try ModelExtension.extend(recorded, with: inferred) }
        #expect(error.code == .typeConflict)
        #expect(error.path?.description == "$[0].v")
        #expect(error.message.hasPrefix("entity Item, property v (key v): the recorded model has type \(c.type), but the payload has \(conflict) here"))
    }

    /// An object where the recorded model has a scalar, and a scalar where it flattened an
    /// object, are conflicts at the value's path: extending would otherwise add `nA` at
    /// `n.a` beside the recorded `nAB` at `n.a.b`, and the first payload would no longer import.
    static let overlapConflicts: [ConflictCase] = [
        ConflictCase(
            json: #"[{"id": 2, "n": {"a": 2}}]"#, path: "$[0].n.a", property: "nAB",
            message: "entity Item, property nAB (key n.a.b): the recorded model has an object at n.a, "
                + "but the payload has an integer here (their type would be integer64); the store was not changed"),
        ConflictCase(
            json: #"[{"id": 2, "n": {"a": "x"}}]"#, path: "$[0].n.a", property: "nAB",
            message: "entity Item, property nAB (key n.a.b): the recorded model has an object at n.a, "
                + "but the payload has a string here (their type would be string); the store was not changed"),
        ConflictCase(
            json: #"[{"id": 2, "m": {"a": 1}}]"#, path: "$[0].m", property: "m",
            message: "entity Item, property m (key m): the recorded model has type integer64, "
                + "but the payload has an object here; the store was not changed"),
        ConflictCase(
            json: #"[{"id": 2, "m": {"a": {"id": 4}}}]"#, path: "$[0].m", property: "m",
            message: "entity Item, property m (key m): the recorded model has type integer64, "
                + "but the payload has an object here; the store was not changed"),
    ]

    @Test(arguments: overlapConflicts)
    func anObjectWhereTheRecordedModelHasAScalarOrTheReverseConflicts(_ c: ConflictCase) throws {
        let recorded = try Self.recorded(#"[{"id": 1, "n": {"a": {"b": 1}}, "m": 5}]"#, entity: "Item")
        #expect(recorded.model.entity(named: "Item")?.attribute(named: "nAB")?.jsonKeyPathText == "n.a.b")
        let error = try #require(throws: ModelInferenceError.self) {
            try ModelExtension.extend(recorded, with: try InferenceSamples.infer(c.json, entity: "Item"))
        }
        #expect(error.code == .typeConflict)
        #expect(error.path?.description == c.path)
        #expect(error.property == c.property)
        #expect(error.message == c.message)
    }

    /// A `json` attribute holds an object: nothing is added at the keys inside it, nothing
    /// made optional, and both payloads import with the model.
    @Test func anObjectAtARecordedJSONAttributeAddsNothing() throws {
        let first = #"[{"id": 1, "n": [1, 2]}]"#
        let later = #"[{"id": 2, "n": {"a": 1, "b": {"id": 3}}}]"#
        let recorded = try Self.recorded(first, entity: "Item")
        let extended = try ModelExtension.extend(recorded, with: try InferenceSamples.infer(later, entity: "Item"))
        #expect(extended.changes == [])
        let context = ObjectContext(store: InMemoryStore(model: extended.file.model), bindings: extended.file.bindings)
        for payload in [first, later, first] {
            _ = try context.importObjects(from: try JSONReader.parse(Data(payload.utf8)), entity: "Item")
        }
        #expect(try context.fetch("Item", id: .integer(2))?["n"] == .json(try JSONReader.parse(Data(#"{"a": 1, "b": {"id": 3}}"#.utf8))))
    }

    /// Keys inside an object at a recorded relationship belong to its destination, not to
    /// the entity holding it (`Issue.userLogin` is not added).
    @Test func keysInsideARecordedRelationshipAreNotAddedToItsSource() throws {
        let extended = try ModelExtension.extend(
            try Self.recorded(),
            with: try InferenceSamples.infer(#"[{"id": 2, "title": "b", "user": {"login": "x"}}]"#, entity: "Issue"))
        #expect(extended.changes == [])
        #expect(extended.file.model.entity(named: "Issue")?.attributes.map(\.name) == ["id", "title"])
    }

    @Test func integersBeyondARecordedWidthConflict() throws {
        let recorded = try ModelFile(
            model: try ObjectModel(entities: [
                EntityDescription(
                    name: "Issue",
                    attributes: [
                        AttributeDescription(name: "id", type: .integer64, isOptional: false, userInfo: [GrootAnnotation.jsonKeyPath: "id"]),
                        AttributeDescription(name: "comments", type: .integer16, userInfo: [GrootAnnotation.jsonKeyPath: "comments"]),
                    ], userInfo: [GrootAnnotation.identityAttributes: "id"])
            ]))
        let error = try #require(throws: ModelInferenceError.self) {
            try ModelExtension.extend(
                recorded,
                with: try InferenceSamples.infer(
                    #"[{"id": 1, "comments": 5}, {"id": 2, "comments": 70000}]"#,
                    entity: "Issue"))
        }
        #expect(error.path?.description == "$[0].comments")
        #expect(
            error.message == "entity Issue, property comments (key comments): the recorded model has type integer16, "
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
