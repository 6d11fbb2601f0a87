import Foundation
import Trellis
import TrellisTestSupport

/// Items, owners and tags for the value and Unicode query tests (`ValueQueryTableTests`):
/// every attribute type, values at the edges of their types, and text that folds in
/// surprising ways. The items, in object ID order (`ids`):
///
/// | id | label | price (decimal) | other values | owner | tags |
/// |---|---|---|---|---|---|
/// | 1 | Straße | 1.50 | weight 0.1, score 2.5, flag true, at 2020-01-01T00:00Z, uid, link, small 5 | Ann (boss Bob) | red, blue |
/// | 2 | STRASSE | "0.1" | weight 1.0, score -0.0, flag false, at 2019-12-31T23:00-01:00 (= 1's), small -5 | Bob | none |
/// | 3 | İstanbul (U+0130) | 12345678901234567.89 | score 1e300, at 2020-01-01T00:00:00.5Z | nil | blue |
/// | 4 | istanbul | 12345678901234567.88 | at 2015-11-13T09:36:13.184968Z | Cid (boss Ann) | — |
/// | 5 | ΣΟΦΟΣ | -0.5 | at 1969-12-31T23:59:59.999Z | Cid | — |
/// | 6 | σοφός (final sigma, tonos) | 100 | at 2020-01-01 (= 1's) | nil | — |
/// | 7 | a NUL b | 1e-20 | | nil | — |
/// | 8 | 👍🏽 (two scalars) | nil | | | |
/// | 9 | Å as U+212B ANGSTROM SIGN | | | | |
/// | 10 | Å as U+00C5 | | | | |
/// | 11 | 100%_done | | | | |
/// | 12 | it's "quoted"; -- | | | | |
/// | 13 | nil | nil | | | |
/// | 9007199254740993 (2^53 + 1) | big1 | | score 9007199254740993 (a double: 2^53) | | |
/// | 9007199254740992 (2^53) | big0 | | score 9007199254740992 | | |
/// | Int64.min | min | | | | |
/// | 17 | i + U+0307 + stanbul | | | | |
/// | 18 | ab | | | | |
/// | 19 | a newline b | | | | |
/// | 20 | ǅungla (U+01C5, title case) | | | | |
/// | 21 | "" (empty) | | | | |
enum ValueQueryFixture {
    static func model() throws -> ObjectModel {
        func attribute(_ name: String, _ type: AttributeType) -> AttributeDescription {
            AttributeDescription(name: name, type: type, userInfo: ["JSONKeyPath": name])
        }
        return try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    attribute("id", .integer64), attribute("label", .string), attribute("price", .decimal),
                    attribute("weight", .float), attribute("score", .double), attribute("flag", .boolean),
                    attribute("at", .date), attribute("uid", .uuid), attribute("link", .uri), attribute("small", .integer16),
                ],
                relationships: [
                    RelationshipDescription(name: "owner", destinationEntity: "Owner", inverseName: "items", userInfo: ["JSONKeyPath": "owner"]),
                    RelationshipDescription(
                        name: "tags", destinationEntity: "Tag", inverseName: "items", isToMany: true,
                        userInfo: ["JSONKeyPath": "tags"]),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Owner", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [
                    RelationshipDescription(name: "items", destinationEntity: "Item", inverseName: "owner", isToMany: true),
                    RelationshipDescription(name: "boss", destinationEntity: "Owner", inverseName: "reports", userInfo: ["JSONKeyPath": "boss"]),
                    RelationshipDescription(name: "reports", destinationEntity: "Owner", inverseName: "boss", isToMany: true),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Tag", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [RelationshipDescription(name: "items", destinationEntity: "Item", inverseName: "tags", isToMany: true)],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    static let items = """
        [
         {"id":1,"label":"Straße","price":1.50,"weight":0.1,"score":2.5,"flag":true,"at":"2020-01-01T00:00:00Z",
          "uid":"6F9619FF-8B86-D011-B42D-00C04FC964FF","link":"https://example.org/a","owner":{"id":1,"name":"Ann","boss":2},"tags":[1,2],"small":5},
         {"id":2,"label":"STRASSE","price":"0.1","weight":1.0,"score":-0.0,"flag":false,"at":"2019-12-31T23:00:00-01:00",
          "owner":{"id":2,"name":"Bob"},"tags":[],"small":-5},
         {"id":3,"label":"İstanbul","price":12345678901234567.89,"score":1e300,"flag":null,"at":"2020-01-01T00:00:00.5Z","owner":null,"tags":[2]},
         {"id":4,"label":"istanbul","price":12345678901234567.88,"at":"2015-11-13T09:36:13.184968Z","owner":{"id":3,"name":"Cid","boss":1}},
         {"id":5,"label":"ΣΟΦΟΣ","price":-0.5,"at":"1969-12-31T23:59:59.999Z","owner":3},
         {"id":6,"label":"σοφός","price":100,"at":"2020-01-01"},
         {"id":7,"label":"a\\u0000b","price":1e-20},
         {"id":8,"label":"👍🏽"},
         {"id":9,"label":"\\u212B"},
         {"id":10,"label":"\\u00C5"},
         {"id":11,"label":"100%_done"},
         {"id":12,"label":"it's \\"quoted\\"; --"},
         {"id":13,"label":null,"price":null},
         {"id":9007199254740993,"label":"big1","score":9007199254740993},
         {"id":9007199254740992,"label":"big0","score":9007199254740992},
         {"id":-9223372036854775808,"label":"min"},
         {"id":17,"label":"i\\u0307stanbul"},
         {"id":18,"label":"ab"},
         {"id":19,"label":"a\\nb"},
         {"id":20,"label":"ǅungla"},
         {"id":21,"label":""}
        ]
        """

    /// Every item's `id`, in object ID (import) order: the order of unsorted results.
    static let ids: [Int64] = [
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 9_007_199_254_740_993, 9_007_199_254_740_992, .min,
        17, 18, 19, 20, 21,
    ]

    /// The ids a case expects on `kind`: none on PostgreSQL for a predicate looking for U+0000.
    static func expected(_ ids: [Int64], predicate: String?, on kind: StoreKind) -> [Int64] {
        kind == .postgres && (predicate?.contains("\\u0000") ?? false) ? [] : ids
    }

    /// `ids` without `excluded`, in the same order.
    static func ids(except excluded: Set<Int64>) -> [Int64] { ids.filter { !excluded.contains($0) } }

    /// A store of `kind` holding the items (and a tag no item has). PostgreSQL's `text`
    /// cannot hold U+0000 (the store refuses it, docs/PostgresStore.md): there item 7's
    /// label is `a U+0001 b`, which sorts and matches `LIKE 'a?b'`, `MATCHES 'a.b'` alike,
    /// and the predicates that look for U+0000 find nothing (``expected(_:on:)``).
    static func store(_ kind: StoreKind) throws -> TestStore {
        let store = try kind.makeStore(model: try model())
        let context = ObjectContext(store: store.store)
        let items = kind == .postgres ? items.replacingOccurrences(of: "a\\u0000b", with: "a\\u0001b") : items
        _ = try context.importObjects(from: try JSONReader.parse(Array(items.utf8)), entity: "Item")
        _ = try context.importObjects(
            from: [["id": 3, "name": "unused"], ["id": 1, "name": "red"], ["id": 2, "name": "blue"]],
            entity: "Tag")
        return store
    }
}
