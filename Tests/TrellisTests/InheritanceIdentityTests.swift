import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Identity resolution across an inheritance hierarchy (issue 13, point 2), on every store:
/// an abstract Animal with an entity mapper choosing Cat or Dog, the identity declared either
/// on each sub-entity (cats and dogs numbered apart) or on Animal; imports through Animal or a
/// sub-entity; top-level, nested and bare identifiers. The rules are in docs/ModelFormat.md
/// ("Identity across sub-entities").
@Suite struct InheritanceIdentityTests {
    /// Where the identity attribute `id` is declared.
    enum IdentityOn: String, CaseIterable, CustomStringConvertible {
        case subEntities
        case parent
        var description: String { rawValue }
    }

    static func model(_ identityOn: IdentityOn, abstract: Bool = true) throws -> ObjectModel {
        func attribute(_ name: String, _ type: AttributeType, key: String? = nil, optional: Bool = true) -> AttributeDescription {
            AttributeDescription(name: name, type: type, isOptional: optional, userInfo: ["JSONKeyPath": key ?? name])
        }
        let identity = ["identityAttributes": "id"]
        return try ObjectModel(entities: [
            EntityDescription(
                name: "Owner", attributes: [attribute("id", .integer64, optional: false)],
                relationships: [
                    RelationshipDescription(
                        name: "animals", destinationEntity: "Animal", inverseName: "owner", isToMany: true,
                        userInfo: ["JSONKeyPath": "animals"]),
                    RelationshipDescription(name: "favorite", destinationEntity: "Cat", inverseName: "fan", userInfo: ["JSONKeyPath": "favorite_id"]),
                    RelationshipDescription(name: "pet", destinationEntity: "Animal", inverseName: "keeper", userInfo: ["JSONKeyPath": "pet_id"]),
                ], userInfo: identity),
            EntityDescription(
                name: "Animal", isAbstract: abstract,
                attributes: [attribute("id", .integer64, optional: false), attribute("name", .string), attribute("kind", .string)],
                relationships: [
                    RelationshipDescription(
                        name: "owner", destinationEntity: "Owner", inverseName: "animals",
                        userInfo: ["JSONKeyPath": "owner_id"]),
                    RelationshipDescription(name: "keeper", destinationEntity: "Owner", inverseName: "pet"),
                ],
                userInfo: (identityOn == .parent ? identity : [:]).merging(["entityMapperName": "AnimalKind"]) { a, _ in a }),
            EntityDescription(
                name: "Cat", parentName: "Animal", attributes: [attribute("age", .integer64)],
                relationships: [
                    RelationshipDescription(name: "fan", destinationEntity: "Owner", inverseName: "favorite")
                ], userInfo: identityOn == .subEntities ? identity : [:]),
            EntityDescription(name: "Dog", parentName: "Animal", userInfo: identityOn == .subEntities ? identity : [:]),
        ])
    }

    static let bindings = MappingBindings(entityMappers: [
        EntityMapper(name: "AnimalKind", keyPath: "kind", table: ["cat": "Cat", "dog": "Dog"])
    ])

    static func json(_ text: String) throws -> JSONValue { try JSONReader.parse(Data(text.utf8)) }

    struct Fixture {
        let store: TestStore
        let context: ObjectContext

        init(_ kind: StoreKind, _ identityOn: IdentityOn, abstract: Bool = true) throws {
            store = try kind.makeStore(model: try InheritanceIdentityTests.model(identityOn, abstract: abstract))
            context = ObjectContext(store: store.store, bindings: InheritanceIdentityTests.bindings)
        }

        @discardableResult
        func load(_ text: String, as entity: String) throws -> ImportReport {
            try context.importObjects(from: try InheritanceIdentityTests.json(text), entity: entity)
        }

        /// Owner 1, Cat 1 (Tom, 3, owned by Owner 1) and Dog 2 (Rex).
        func seed() throws {
            try load(#"[{"id":1}]"#, as: "Owner")
            try load(#"[{"kind":"cat","id":1,"name":"Tom","age":3,"owner_id":1},{"kind":"dog","id":2,"name":"Rex"}]"#, as: "Animal")
        }
    }

    static let combinations: [(StoreKind, IdentityOn)] = StoreKind.allCases.flatMap { k in IdentityOn.allCases.map { (k, $0) } }

    /// A partial payload through the parent finds the stored Cat and merges into it
    /// (unchanged), exactly as through the sub-entity; nothing is lost.
    @Test(arguments: combinations, ["Animal", "Cat"])
    func aPartialTopLevelObjectFindsTheStoredSubEntityObject(combination: (StoreKind, IdentityOn), entity: String) throws {
        let f = try Fixture(combination.0, combination.1)
        try f.seed()
        let before = try f.store.dump()
        let report = try f.load(#"[{"kind":"cat","id":1}]"#, as: entity)
        #expect(report.counts(for: "Cat") == .init(inserted: 0, updated: 0, unchanged: 1, deleted: 0))
        #expect(try f.store.dump() == before)
        #expect(before.contains(#"name: "Tom""#) && before.contains("age: 3"))

        let renamed = try f.load(#"[{"kind":"cat","id":1,"name":"Tommy"}]"#, as: entity)
        #expect(renamed.counts(for: "Cat") == .init(inserted: 0, updated: 1, unchanged: 0, deleted: 0))
        let cat = try #require(try f.context.fetch("Cat", id: .integer(1)))
        #expect(cat["name"] == .string("Tommy"))
        #expect(cat["age"] == .integer(3))
        #expect(try cat.destination(forKey: "owner")?["id"] == .integer(1))
    }

    /// Nested sub-entity objects in a to-many, imported three times: inserted once, then
    /// unchanged, the links kept.
    @Test(arguments: combinations)
    func nestedSubEntityObjectsAreFoundAgain(combination: (StoreKind, IdentityOn)) throws {
        let f = try Fixture(combination.0, combination.1)
        // Cats and dogs numbered apart need the identity on each sub-entity; on the parent
        // they must differ.
        let dogID = combination.1 == .subEntities ? 1 : 2
        let payload = #"{"id":1,"animals":[{"kind":"cat","id":1,"name":"Tom"},{"kind":"dog","id":\#(dogID),"name":"Rex"}]}"#
        let first = try f.load(payload, as: "Owner")
        #expect(first.counts(for: "Cat").inserted == 1)
        #expect(first.counts(for: "Dog").inserted == 1)
        let afterFirst = try f.store.dump()
        for _ in 0..<2 {
            let again = try f.load(payload, as: "Owner")
            #expect(again.counts(for: "Cat") == .init(inserted: 0, updated: 0, unchanged: 1, deleted: 0))
            #expect(again.counts(for: "Dog") == .init(inserted: 0, updated: 0, unchanged: 1, deleted: 0))
            #expect(again.counts(for: "Owner") == .init(inserted: 0, updated: 0, unchanged: 1, deleted: 0))
            #expect(try f.store.dump() == afterFirst)
        }
        let owner = try #require(try f.context.fetch("Owner", id: .integer(1)))
        #expect(try owner.destinations(forKey: "animals").map(\.objectID.entityName).sorted() == ["Cat", "Dog"])
    }

    /// A bare identifier to a sub-entity resolves in that sub-entity's namespace: it finds the
    /// stored Cat, or makes a Cat placeholder that a later Cat (through Animal or Cat) completes.
    @Test(arguments: combinations, ["Animal", "Cat"])
    func aBareIdentifierToASubEntityFindsOrCompletes(combination: (StoreKind, IdentityOn), entity: String) throws {
        let f = try Fixture(combination.0, combination.1)
        try f.seed()
        try f.load(#"[{"id":2,"favorite_id":1},{"id":3,"favorite_id":7}]"#, as: "Owner")
        #expect(try f.context.fetch("Owner", id: .integer(2))?.destination(forKey: "favorite")?["name"] == .string("Tom"))
        let placeholder = try #require(try f.store.snapshots(of: "Cat").first { $0.attributes.contains(.integer(7)) })
        #expect(placeholder.isPlaceholder)

        let report = try f.load(#"[{"kind":"cat","id":7,"name":"Felix","age":1}]"#, as: entity)
        #expect(report.counts(for: "Cat") == .init(inserted: 0, updated: 1, unchanged: 0, deleted: 0))
        let felix = try #require(try f.context.fetch("Cat", id: .integer(7)))
        #expect(!felix.isPlaceholder && felix["name"] == .string("Felix") && felix["age"] == .integer(1))
        #expect(try felix.destination(forKey: "fan")?["id"] == .integer(3))
    }

    /// A bare identifier to the parent, whose identity it declares, makes a placeholder of
    /// the parent (abstract or not); the object imported later as a Cat completes it: Cat 12
    /// with its values, still the owner's pet, on every store.
    @Test(arguments: StoreKind.allCases.flatMap { k in [true, false].map { (k, $0) } }, ["Animal", "Cat"])
    func aPlaceholderOfTheParentIsCompletedAsASubEntity(store: (kind: StoreKind, abstract: Bool), entity: String) throws {
        let f = try Fixture(store.kind, .parent, abstract: store.abstract)
        try f.load(#"[{"id":5,"pet_id":12}]"#, as: "Owner")
        let placeholder = try #require(try f.store.snapshots(of: "Animal").first)
        #expect(placeholder.isPlaceholder && placeholder.attributes.first == .integer(12))

        let report = try f.load(#"[{"kind":"cat","id":12,"name":"Felix","age":2}]"#, as: entity)
        #expect(report.counts(for: "Cat") == .init(inserted: 0, updated: 1, unchanged: 0, deleted: 0))
        #expect(try f.store.snapshots(of: "Animal").isEmpty)
        let cat = try #require(try f.context.fetch("Cat", id: .integer(12)))
        #expect(!cat.isPlaceholder && cat["name"] == .string("Felix") && cat["age"] == .integer(2))
        #expect(cat.objectID.primaryKey == placeholder.id.primaryKey)
        #expect(try cat.destination(forKey: "keeper")?["id"] == .integer(5))
        let owner = try #require(try f.context.fetch("Owner", id: .integer(5)))
        #expect(try owner.destination(forKey: "pet")?.objectID == cat.objectID)

        let after = try f.store.dump()
        let again = try f.load(#"[{"kind":"cat","id":12,"name":"Felix","age":2}]"#, as: entity)
        #expect(again.counts(for: "Cat") == .init(inserted: 0, updated: 0, unchanged: 1, deleted: 0))
        #expect(try f.store.dump() == after)
    }

    /// The same within one element: the bare identifier makes the placeholder, a nested Cat
    /// later in the element completes it before anything is written.
    @Test(arguments: StoreKind.allCases)
    func aPlaceholderIsCompletedAsASubEntityInTheSameBatch(kind: StoreKind) throws {
        let f = try Fixture(kind, .parent)
        let report = try f.load(#"[{"id":5,"pet_id":12,"animals":[{"kind":"cat","id":12,"name":"Felix"}]}]"#, as: "Owner")
        #expect(report.counts(for: "Cat").inserted == 1)
        #expect(report.counts(for: "Animal") == .init())
        #expect(try f.store.snapshots(of: "Animal").isEmpty)
        let owner = try #require(try f.context.fetch("Owner", id: .integer(5)))
        let cat = try #require(try owner.destination(forKey: "pet"))
        #expect(cat.objectID.entityName == "Cat" && cat["name"] == .string("Felix") && !cat.isPlaceholder)
        #expect(try owner.destinations(forKey: "animals").map(\.objectID) == [cat.objectID])
    }

    /// A placeholder of the parent completed as a sub-entity later in the same import, in the
    /// same batch (5000) or a later one (1): the report counts the object under the entity it
    /// became (`Dog inserted 1`, never `Animal`), and the top-level IDs name the Dog, on every
    /// store. Seeded: the placeholder is stored before the import (`Dog updated 1`). `pet`:
    /// the Owner whose `pet` the placeholder is.
    @Test(
        arguments: StoreKind.allCases.flatMap { k in [1, 5000].map { (k, $0) } },
        [
            (
                false, #"[{"id":5,"pet_id":12},{"id":6,"animals":[{"kind":"dog","id":12,"name":"Rex"}]}]"#, "Owner",
                ImportReport.Counts(inserted: 1), ImportReport.Counts(inserted: 2), ["Owner", "Owner"], 5
            ),
            (
                false, #"[12,{"kind":"dog","id":12,"name":"Rex"}]"#, "Animal",
                ImportReport.Counts(inserted: 1), ImportReport.Counts(), ["Dog", "Dog"], nil
            ),
            (
                true, #"[{"id":6,"pet_id":12},{"id":7,"animals":[{"kind":"dog","id":12,"name":"Rex"}]}]"#, "Owner",
                ImportReport.Counts(updated: 1), ImportReport.Counts(inserted: 2), ["Owner", "Owner"], 6
            ),
            (
                true, #"[12,{"kind":"dog","id":12,"name":"Rex"}]"#, "Animal",
                ImportReport.Counts(updated: 1), ImportReport.Counts(), ["Dog", "Dog"], 5
            ),
        ])
    func aPlaceholderCompletedLaterInTheImportIsCountedAsTheSubEntity(
        store: (kind: StoreKind, batchSize: Int),
        c: (
            seeded: Bool, payload: String, entity: String, dog: ImportReport.Counts, owner: ImportReport.Counts, ids: [String],
            pet: Int?
        )
    ) throws {
        let f = try Fixture(store.kind, .parent)
        if c.seeded { try f.load(#"[{"id":5,"pet_id":12}]"#, as: "Owner") }
        var options = ImportOptions()
        options.batchSize = store.batchSize
        let report = try f.context.importObjects(from: try Self.json(c.payload), entity: c.entity, options: options)
        #expect(report.counts(for: "Dog") == c.dog)
        #expect(report.counts(for: "Animal") == .init())
        #expect(report.counts(for: "Owner") == c.owner)
        #expect(report.objectIDs.map(\.entityName) == c.ids)
        let dog = try #require(try f.context.fetch("Dog", id: .integer(12)))
        #expect(!dog.isPlaceholder && dog["name"] == .string("Rex"))
        if c.entity == "Animal" { #expect(report.objectIDs == [dog.objectID, dog.objectID]) }
        #expect(try f.store.snapshots(of: "Animal").isEmpty)
        if let pet = c.pet {
            let owner = try #require(try f.context.fetch("Owner", id: .integer(Int64(pet))))
            #expect(try owner.destination(forKey: "pet")?.objectID == dog.objectID)
        }
    }

    /// The deletion scope keeps a top-level placeholder completed as a sub-entity in a later
    /// batch, by a nested object: the payload has it (its ID, recorded before the retype,
    /// names the Dog), on every store.
    @Test(arguments: StoreKind.allCases)
    func theDeletionScopeKeepsAPlaceholderCompletedInALaterBatch(kind: StoreKind) throws {
        let f = try Fixture(kind, .parent)
        try f.load(#"[{"id":5,"pet_id":12}]"#, as: "Owner")
        var options = ImportOptions()
        options.batchSize = 1
        options.deleteMissing = .allObjects
        let payload = #"[12,{"kind":"cat","id":13,"owner_id":{"id":5,"animals":[{"kind":"dog","id":12,"name":"Rex"}]}}]"#
        let report = try f.context.importObjects(from: try Self.json(payload), entity: "Animal", options: options)
        #expect(report.deletedObjectIDs.isEmpty)
        #expect(report.counts(for: "Dog") == .init(updated: 1))
        #expect(report.counts(for: "Cat") == .init(inserted: 1))
        let dog = try #require(try f.context.fetch("Dog", id: .integer(12)))
        #expect(dog["name"] == .string("Rex"))
        #expect(report.objectIDs.first == dog.objectID)
    }

    /// Refused, each with its path, entity and property, the store byte for byte as before:
    /// a bare identifier to a parent without identity (cats and dogs numbered apart: which
    /// one?); a bare identifier to a Cat whose identity a stored Dog has; a full Cat found
    /// where the mapper chose a Dog.
    @Test(
        arguments: StoreKind.allCases,
        [
            (IdentityOn.subEntities, #"[{"id":9,"pet_id":1}]"#, "Owner", ImportError.Code.noSingleIdentity, "$[0].pet_id", "Animal"),
            (IdentityOn.parent, #"[{"id":9,"favorite_id":2}]"#, "Owner", ImportError.Code.identityConflict, "$[0].favorite_id", "Cat"),
            (IdentityOn.parent, #"[{"kind":"dog","id":1}]"#, "Animal", ImportError.Code.invalidEntity, "$[0]", "Animal"),
        ])
    func refusedAcrossTheHierarchy(kind: StoreKind, refusal: (IdentityOn, String, String, ImportError.Code, String, String)) throws {
        let f = try Fixture(kind, refusal.0)
        try f.seed()
        let dump = try f.store.dump()
        let checksum = try f.store.fileChecksum()
        let error = try #require(throws: ImportError.self) { try f.load(refusal.1, as: refusal.2) }
        #expect(error.code == refusal.3)
        #expect(error.path.description == refusal.4)
        #expect(error.entity == refusal.5)
        #expect(try f.store.dump() == dump)
        #expect(try f.store.fileChecksum() == checksum)
    }
}
