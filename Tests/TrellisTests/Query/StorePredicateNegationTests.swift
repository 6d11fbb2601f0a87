import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// `NOT` in a ``StorePredicate`` is two-valued on every store (``StoreKind/allCases``): a
/// comparison with a missing value is false, so its negation holds, as in fetch-request
/// queries (docs/Queries.md). Items: 1 `name "x", score 1`; 2 `name nil, score nil`;
/// 3 `name "", score NaN`; 4 `name "y", score 2`.
@Suite final class StorePredicateNegationTests {
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
                ],
                userInfo: ["identityAttributes": "id"])
        ])
    }

    func seeded(_ kind: StoreKind) throws -> (any PersistentStore, ObjectContext) {
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        let rows: [(Int64, AttributeValue?, AttributeValue?)] = [
            (1, .string("x"), .double(1)), (2, nil, nil), (3, .string(""), .double(.nan)), (4, .string("y"), .double(2)),
        ]
        for (id, name, score) in rows {
            let item = try context.insert("Item")
            try item.setValue(.integer(id), forKey: "id")
            try item.setValue(name, forKey: "name")
            try item.setValue(score, forKey: "score")
        }
        try context.save()
        return (store, ObjectContext(store: store))
    }

    /// Predicates and the IDs of the items each keeps, the same on every store.
    static let cases: [(StorePredicate, [Int64])] = [
        (.not(.equals(attribute: "name", value: .string("x"))), [2, 3, 4]),
        (.not(.equals(attribute: "name", value: .string(""))), [1, 2, 4]),
        (.not(.equals(attribute: "score", value: .double(1))), [2, 3, 4]),
        (.not(.oneOf(attribute: "name", values: [.string("x"), .string("")])), [2, 4]),
        (.not(.not(.equals(attribute: "name", value: .string("x")))), [1]),
        (.not(.and([.equals(attribute: "name", value: .string("y")), .equals(attribute: "score", value: .double(2))])), [1, 2, 3]),
        (.not(.or([.equals(attribute: "name", value: .string("x")), .equals(attribute: "score", value: .double(2))])), [2, 3]),
        (.not(.equals(attribute: "name", value: nil)), [1, 3, 4]),
    ]

    @Test(arguments: StoreKind.allCases)
    func notOverAMissingValueHoldsInFetchAndCount(kind: StoreKind) throws {
        let (store, context) = try seeded(kind)
        for (predicate, expected) in Self.cases {
            let fetched = try store.read { try $0.fetch(entity: "Item", matching: predicate) }
            #expect(fetched.compactMap { $0.attributes[0]?.integerValue }.sorted() == expected, "\(predicate)")
            #expect(try store.read { try $0.count(entity: "Item", matching: predicate) } == expected.count, "\(predicate)")
            let objects = try context.fetch("Item", matching: predicate)
            #expect(objects.compactMap { $0["id"]?.integerValue } == expected, "\(predicate)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deletionScopeNotOverAMissingValueDeletesTheObjectsWithoutIt(kind: StoreKind) throws {
        let (store, context) = try seeded(kind)
        var options = ImportOptions()
        options.deleteMissing = .matching(.not(.equals(attribute: "name", value: .string("x"))))
        let report = try context.importObjects(from: [["id": 4, "name": "y"]], entity: "Item", options: options)
        #expect(report.deletedObjectIDs.count == 2)
        #expect(try GraphFixture.rows(store, "Item").compactMap { $0.attributes[0]?.integerValue }.sorted() == [1, 4])
    }
}
