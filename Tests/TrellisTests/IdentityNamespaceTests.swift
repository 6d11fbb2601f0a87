import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// Identities are unique across the entity that declares them and its sub-entities (the
/// store holds one unique index per namespace). An object of one entity that carries the
/// identity of an object of another entity in the namespace — a sibling, or the declaring
/// entity's own instance — is an error, never a silent overwrite of the other object.
/// (Found by a tester: importing Car 1 over Bike 1 turned the Bike's row into a half Car.)
@Suite struct IdentityNamespaceTests {
    /// Shape (concrete, identity `id`) with sub-entities Circle and Triangle, and a Holder
    /// with a to-one to each sub-entity.
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Shape",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("name", .string, key: "name"),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(name: "Circle", parentName: "Shape", attributes: [GraphFixture.attribute("radius", .integer32, key: "radius")]),
            EntityDescription(name: "Triangle", parentName: "Shape", attributes: [GraphFixture.attribute("sides", .integer32, key: "sides")]),
            EntityDescription(
                name: "Holder", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [
                    GraphFixture.relationship("circle", "Circle", key: "circle"),
                    GraphFixture.relationship("triangle", "Triangle", key: "triangle"),
                ],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    /// A store holding Circle 1 (radius 10) and the plain Shape 5.
    static func seeded(_ kind: StoreKind, _ stores: TestStores) throws -> (any PersistentStore, ObjectModel) {
        let model = try model()
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        _ = try context.importObjects(from: [["id": 1, "name": "round", "radius": 10]], entity: "Circle")
        _ = try context.importObjects(from: [["id": 5, "name": "plain"]], entity: "Shape")
        return (store, model)
    }

    static func shapes(_ store: any PersistentStore, _ model: ObjectModel) throws -> [String] {
        try GraphFixture.rows(store, "Shape").map { "\($0.id.entityName) " + GraphFixture.describe($0, model) }
    }

    static let before = [#"Circle id=1 name="round" radius=10"#, #"Shape id=5 name="plain""#]

    @Test(
        arguments: StoreKind.allCases,
        [
            (
                entity: "Triangle", json: ["id": 1, "sides": 3] as JSONValue,
                message:
                    "$[0]: Triangle 1 has the identity of Circle 1: identities are unique across Shape and its sub-entities, and an object cannot change its entity"
            ),
            (
                entity: "Circle", json: ["id": 5, "radius": 2] as JSONValue,
                message:
                    "$[0]: Circle 5 has the identity of Shape 5: identities are unique across Shape and its sub-entities, and an object cannot change its entity"
            ),
            (
                entity: "Holder", json: ["id": 9, "triangle": 1] as JSONValue,
                message:
                    "$[0].triangle: Triangle 1 has the identity of Circle 1: identities are unique across Shape and its sub-entities, and an object cannot change its entity"
            ),
            (
                entity: "Holder", json: ["id": 9, "triangle": ["id": 1, "sides": 4]] as JSONValue,
                message:
                    "$[0].triangle: Triangle 1 has the identity of Circle 1: identities are unique across Shape and its sub-entities, and an object cannot change its entity"
            ),
        ])
    func anotherEntitysIdentityIsAnErrorAndChangesNothing(kind: StoreKind, _ test: (entity: String, json: JSONValue, message: String)) throws {
        let stores = TestStores()
        let (store, model) = try Self.seeded(kind, stores)
        let context = ObjectContext(store: store)
        let error = try #require(throws: ImportError.self) { try context.importObjects(from: [test.json], entity: test.entity) }
        #expect(error.code == .identityConflict)
        #expect(error.description == test.message)
        #expect(try Self.shapes(store, model) == Self.before)
        #expect(try GraphFixture.rows(store, "Holder").isEmpty)
    }

    /// Two objects of sibling entities with one identity in one payload.
    @Test(arguments: StoreKind.allCases)
    func siblingsWithOneIdentityInOnePayload(kind: StoreKind) throws {
        let model = try Self.model()
        let stores = TestStores()
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        let error = try #require(throws: ImportError.self) {
            try context.importObjects(
                from: [["id": 1, "circle": ["id": 7, "name": "Rex"], "triangle": ["id": 7, "name": "Tom"]]],
                entity: "Holder")
        }
        #expect(error.code == .identityConflict)
        #expect(error.path.description == "$[0].triangle")
        #expect(try GraphFixture.rows(store, "Shape").isEmpty)
    }

    /// Through the declaring entity an existing object of any sub-entity is found and updated.
    @Test(arguments: StoreKind.allCases)
    func theDeclaringEntityUpdatesAnySubEntity(kind: StoreKind) throws {
        let stores = TestStores()
        let (store, model) = try Self.seeded(kind, stores)
        let context = ObjectContext(store: store)
        let report = try context.importObjects(from: [["id": 1, "name": "disc"]], entity: "Shape")
        #expect(report.counts(for: "Circle") == ImportReport.Counts(updated: 1))
        #expect(try Self.shapes(store, model) == [#"Circle id=1 name="disc" radius=10"#, #"Shape id=5 name="plain""#])
    }
}
