import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// A ``StorePredicate`` runs as a fetch request on every store (``StoreKind/allCases``):
/// values convert to the attribute's type as a fetch request's do, a value SQL cannot carry
/// (U+0000 on PostgreSQL) gives the same rows, and a name or value that does not fit the
/// entity is the same error on every store (docs/Queries.md, "StorePredicate").
///
/// Items: 1 `name "x", score 1, rank 10, owner Ann`; 2 `name nil, score nil, rank nil`;
/// 3 `name "", score 2.5, rank 30, owner Bob`; 4 `name "y", score 2, rank 40, owner Ann`.
@Suite final class StorePredicateTableTests {
    let model: ObjectModel
    let stores = TestStores()

    init() throws {
        model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id", optional: false),
                    GraphFixture.attribute("name", .string, key: "name"),
                    GraphFixture.attribute("score", .double, key: "score"),
                    GraphFixture.attribute("rank", .integer32, key: "rank"),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "owner", destinationEntity: "Owner", inverseName: "items",
                        userInfo: ["JSONKeyPath": "owner"])
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Owner",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id", optional: false),
                    GraphFixture.attribute("name", .string, key: "name"),
                ],
                relationships: [RelationshipDescription(name: "items", destinationEntity: "Item", inverseName: "owner", isToMany: true)],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    func seeded(_ kind: StoreKind) throws -> any PersistentStore {
        let store = try stores.make(kind, model: model)
        _ = try ObjectContext(store: store).importObjects(
            from: [
                ["id": 1, "name": "x", "score": 1, "rank": 10, "owner": ["id": 1, "name": "Ann"]],
                ["id": 2, "name": nil, "score": nil, "rank": nil],
                ["id": 3, "name": "", "score": 2.5, "rank": 30, "owner": ["id": 2, "name": "Bob"]],
                ["id": 4, "name": "y", "score": 2, "rank": 40, "owner": 1],
            ], entity: "Item")
        return store
    }

    static func owner(_ key: Int64) -> ObjectID { ObjectID(entityName: "Owner", primaryKey: key) }

    /// Predicates and the IDs of the items each keeps, the same on every store.
    static let cases: [(StorePredicate, [Int64])] = [
        // An integer for a double attribute is that number; a double for an integer attribute
        // is the integer it equals, and a fraction equals no integer.
        (.equals(attribute: "score", value: .integer(2)), [4]),
        (.oneOf(attribute: "score", values: [.integer(1), .double(2.5)]), [1, 3]),
        (.equals(attribute: "rank", value: .double(30)), [3]),
        (.equals(attribute: "rank", value: .double(30.5)), []),
        (.not(.equals(attribute: "rank", value: .double(30.5))), [1, 2, 3, 4]),
        (.oneOf(attribute: "rank", values: [.decimal(Decimal(40)), .double(10.5)]), [4]),
        (.oneOf(attribute: "id", values: []), []),
        (.not(.oneOf(attribute: "id", values: [])), [1, 2, 3, 4]),
        // Text with U+0000, which PostgreSQL's text cannot carry: no stored name holds it.
        (.equals(attribute: "name", value: .string("x\u{0}")), []),
        (.not(.equals(attribute: "name", value: .string("x\u{0}"))), [1, 2, 3, 4]),
        (.oneOf(attribute: "name", values: [.string("\u{0}"), .string("y")]), [4]),
        // A to-one compares with object IDs (Ann is Owner/1); nil is no destination.
        (.relatedTo(relationship: "owner", destination: owner(1)), [1, 4]),
        (.relatedTo(relationship: "owner", destination: nil), [2]),
        (.not(.relatedTo(relationship: "owner", destination: owner(1))), [2, 3]),
        // `relatedTo` an attribute with nil is `attribute == nil`.
        (.relatedTo(relationship: "name", destination: nil), [2]),
        (.and([]), [1, 2, 3, 4]),
        (.or([]), []),
    ]

    @Test(arguments: StoreKind.allCases)
    func valuesConvertToTheAttributesTypeOnEveryStore(kind: StoreKind) throws {
        let store = try seeded(kind)
        let context = ObjectContext(store: store)
        #expect(try context.fetch("Owner", id: .integer(1))?.objectID == Self.owner(1))
        for (predicate, expected) in Self.cases {
            let fetched = try store.read { try $0.fetch(entity: "Item", matching: predicate) }
            #expect(fetched.compactMap { $0.attributes[0]?.integerValue } == expected, "\(predicate)")
            #expect(try store.read { try $0.count(entity: "Item", matching: predicate) } == expected.count, "\(predicate)")
            #expect(try context.fetch("Item", matching: predicate).compactMap { $0["id"]?.integerValue } == expected, "\(predicate)")
        }
    }

    /// Predicates that do not fit Item, and the store error each is, the same on every store.
    static let errors: [(StorePredicate, StoreError.Code, String)] = [
        (
            .equals(attribute: "nope", value: nil), .unknownObject,
            "Item has no attribute or relationship 'nope'; its attributes: id, name, score, rank; its relationships: owner"
        ),
        (
            .not(.oneOf(attribute: "nope", values: [.integer(1)])), .unknownObject,
            "Item has no attribute or relationship 'nope'; its attributes: id, name, score, rank; its relationships: owner"
        ),
        (
            .equals(attribute: "name", value: .integer(3)), .unsupportedValue,
            "Item.name (string) cannot be compared with a number (3); quote it to compare text: \"3\""
        ),
        (.equals(attribute: "score", value: .double(.nan)), .unsupportedValue, "Item.score (double) cannot be compared with NaN"),
        (
            .equals(attribute: "rank", value: .integer(1 << 40)), .unsupportedValue,
            "Item.rank (integer32) cannot be compared with a number (1099511627776); it is outside integer32's range -2147483648...2147483647"
        ),
        (
            .relatedTo(relationship: "name", destination: owner(1)), .unsupportedValue,
            "Item.name (string) cannot be compared with an object ID (Owner/1); object IDs compare with relationships"
        ),
    ]

    @Test(arguments: StoreKind.allCases)
    func aNameOrValueThatDoesNotFitIsTheSameErrorOnEveryStore(kind: StoreKind) throws {
        let store = try seeded(kind)
        for (predicate, code, message) in Self.errors {
            for run in [
                { try store.read { _ = try $0.fetch(entity: "Item", matching: predicate) } },
                { try store.read { _ = try $0.count(entity: "Item", matching: predicate) } },
            ] {
                do {
                    try run()
                    Issue.record("expected an error for \(predicate)")
                } catch let error as StoreError {
                    #expect(error.code == code, "\(predicate)")
                    #expect(error.message == message, "\(predicate)")
                }
            }
        }
        #expect { try store.read { try $0.fetch(entity: "Nope", matching: nil) } } throws: {
            ($0 as? StoreError)?.code == .unknownObject && ($0 as? StoreError)?.message == "unknown entity 'Nope'"
        }
    }

    /// The context and the deletion scope say the same in their own error types.
    @Test(arguments: StoreKind.allCases)
    func theContextAndTheDeletionScopeReportTheSameProblem(kind: StoreKind) throws {
        let store = try seeded(kind)
        let context = ObjectContext(store: store)
        #expect { try context.fetch("Item", matching: .equals(attribute: "nope", value: nil)) } throws: {
            guard let error = $0 as? ContextError else { return false }
            return error.code == .unknownProperty && error.property == "nope"
                && error.message == "Item has no attribute or relationship 'nope'; its attributes: id, name, score, rank; its relationships: owner"
        }
        #expect { try context.fetch("Item", matching: .equals(attribute: "name", value: .integer(3))) } throws: {
            ($0 as? ContextError)?.code == .typeMismatch && ($0 as? ContextError)?.property == "name"
        }
        var options = ImportOptions()
        options.deleteMissing = .matching(.equals(attribute: "nope", value: nil))
        #expect { try context.importObjects(from: [["id": 4, "name": "y"]], entity: "Item", options: options) } throws: {
            guard let error = $0 as? ImportError else { return false }
            return error.code == .invalidOption && error.property == "nope"
                && error.message.hasPrefix("the deletion scope's predicate does not fit Item: Item has no attribute or relationship 'nope'")
        }
        #expect(try GraphFixture.rows(store, "Item").count == 4)
    }

    /// A context's unsaved values decide for its changed objects, with the same conversion.
    @Test(arguments: StoreKind.allCases)
    func unsavedValuesAreEvaluatedWithTheSameRules(kind: StoreKind) throws {
        let store = try seeded(kind)
        let context = ObjectContext(store: store)
        let first = try #require(try context.fetch("Item", id: .integer(1)))
        try first.setValue(nil, forKey: "name")
        try first.setValue(.double(2), forKey: "score")
        let added = try context.insert("Item")
        try added.setValue(.integer(5), forKey: "id")
        try added.setValue(.double(2), forKey: "score")
        #expect(
            try context.fetch("Item", matching: .equals(attribute: "score", value: .integer(2))).compactMap { $0["id"]?.integerValue }
                == [5, 1, 4])
        #expect(
            try context.fetch("Item", matching: .not(.equals(attribute: "name", value: .string("x"))))
                .compactMap { $0["id"]?.integerValue } == [5, 1, 2, 3, 4])
    }
}
