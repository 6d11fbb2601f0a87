import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// The import contract, on every store (``StoreKind/allCases``): each test runs once per
/// store kind, on a fresh store of that kind (``use(_:)``).
@Suite final class ImportTests {
    let model: ObjectModel
    let stores = TestStores()
    private(set) var store: any PersistentStore
    private(set) var context: ObjectContext

    init() throws {
        model = try GraphFixture.grootModel()
        store = InMemoryStore(model: model)
        context = ObjectContext(store: store)
    }

    /// Makes the suite's store a fresh one of `kind` (with a context on it).
    func use(_ kind: StoreKind) throws {
        store = try stores.make(kind, model: model)
        context = ObjectContext(store: store)
    }

    func describeAll(_ entity: String, in store: (any PersistentStore)? = nil) throws -> [String] {
        let store = store ?? self.store
        return try GraphFixture.rows(store, entity).map { GraphFixture.describe($0, store.model) }
    }

    func everything() throws -> [ObjectSnapshot] {
        try GraphFixture.rows(store, "Character") + GraphFixture.rows(store, "Power") + GraphFixture.rows(store, "Publisher")
    }

    static func id(_ entity: String, _ key: Int64) -> ObjectID { ObjectID(entityName: entity, primaryKey: key) }

    // MARK: - Set-based lookups

    /// 600 characters, 300 powers, 100 publishers: 1,000 objects over 3 entities.
    static func nestedPayload(names: String = "") -> JSONValue {
        .array(
            (0..<600).map { (i: Int) -> JSONValue in
                let power: JSONValue = ["id": JSONValue(i % 300), "name": JSONValue("P\(i % 300)")]
                let powers: JSONValue = [power, JSONValue(String((i + 1) % 300))]
                let publisher: JSONValue = ["id": JSONValue(i % 100), "name": JSONValue("Pub\(i % 100)")]
                return ["id": JSONValue(String(i)), "name": JSONValue("C\(i)\(names)"), "powers": powers, "publisher": publisher]
            })
    }

    @Test(arguments: StoreKind.allCases)
    func oneStoreFetchPerEntityForANestedPayloadOfAThousandObjects(kind: StoreKind) throws {
        try use(kind)
        let counting = CountingStore(try stores.make(kind, model: model))
        let context = ObjectContext(store: counting)
        let report = try context.importObjects(from: Self.nestedPayload(), entity: "Character")
        #expect(report.counts(for: "Character") == .init(inserted: 600))
        #expect(report.counts(for: "Power") == .init(inserted: 300))
        #expect(report.counts(for: "Publisher") == .init(inserted: 100))
        #expect(counting.identityFetches.sorted() == ["Character", "Power", "Publisher"])
        #expect(
            Dictionary(uniqueKeysWithValues: zip(counting.identityFetches, counting.identityCounts))
                == ["Character": 600, "Power": 300, "Publisher": 100])
        #expect(counting.otherFetches == 0)
        #expect(counting.applies == 1)
        #expect(try counting.base.countObjects() == 1000)

        // Again, with everything stored: still one fetch per entity, and nothing to write.
        counting.identityFetches = []
        counting.changeSets = []
        let again = try context.importObjects(from: Self.nestedPayload(), entity: "Character")
        #expect(again.counts(for: "Character") == .init(unchanged: 600))
        #expect(again.counts(for: "Power") == .init(unchanged: 300))
        #expect(again.counts(for: "Publisher") == .init(unchanged: 100))
        #expect(counting.identityFetches.sorted() == ["Character", "Power", "Publisher"])
        #expect(counting.otherFetches == 0)
        #expect(counting.changeSets.allSatisfy { $0.isEmpty })

        // In batches of 200 elements: one fetch per entity per batch.
        counting.identityFetches = []
        var options = ImportOptions()
        options.batchSize = 200
        let batched = try context.importObjects(from: Self.nestedPayload(names: "!"), entity: "Character", options: options)
        #expect(batched.counts(for: "Character") == .init(updated: 600))
        #expect(batched.counts(for: "Power") == .init(unchanged: 300))
        #expect(counting.identityFetches.count == 9)
        #expect(counting.otherFetches == 0)
    }

    // MARK: - Atomicity

    @Test(arguments: StoreKind.allCases, [0, 2, 4])
    func aFailureAnywhereLeavesStoreAndContextAsTheyWere(kind: StoreKind, failingIndex: Int) throws {
        try use(kind)
        _ = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        // Unsaved local state that must survive the failed import untouched.
        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        try batman.setValue(.string("Local"), forKey: "name")
        let robin = try context.insert("Character")
        try robin.setValue(.integer(2), forKey: "id")
        let before = try everything()
        let registered = context.registeredObjectCount

        var elements: [JSONValue] = (0..<5).map { i in
            ["id": .number(JSONNumber(Int64(100 + i))), "name": "N", "powers": [["id": 4, "name": "Changed"]], "publisher": 10]
        }
        elements[failingIndex] = ["id": 1699, "name": "X", "publisher": ["id": "ten"]]
        var options = ImportOptions()
        options.batchSize = 2  // earlier batches are flushed into the transaction before the failure
        do {
            _ = try context.importObjects(from: .array(elements), entity: "Character", options: options)
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.path.description == "$[\(failingIndex)].publisher.id")
            #expect(error.description == "$[\(failingIndex)].publisher.id: cannot store \"ten\" in Publisher.id (integer64): not a decimal number")
        }
        #expect(try everything() == before)
        #expect(context.registeredObjectCount == registered)
        #expect(batman["name"] == .string("Local"))
        #expect(batman.isInserted == false && batman.context === context)
        #expect(robin.isInserted && robin.objectID.isTemporary)
        #expect(try context.fetch("Character", id: .integer(2)) === robin)
        #expect(try batman.destinations(forKey: "powers").map { $0["name"] } == [.string("Agility"), .string("Insanely Rich")])
        // The local changes are still there to save.
        try context.save()
        #expect(try describeAll("Character") == [#"id=1699 name="Local" realName="Bruce Wayne""#, "id=2 name=nil realName=nil"])
    }

    @Test(arguments: StoreKind.allCases)
    func anIdentityConflictRollsTheImportBack(kind: StoreKind) throws {
        try use(kind)
        var entities = try GraphFixture.grootModel().entities
        entities.append(
            EntityDescription(
                name: "Villain", parentName: "Character",
                attributes: [GraphFixture.attribute("lair", .string, key: "lair")]))
        let model = try ObjectModel(entities: entities)
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        _ = try context.importObjects(from: [["id": 1, "name": "Joker"]], entity: "Character")
        // Identity 1 is taken in the Character hierarchy by a plain Character, so a Villain 1
        // is refused (the store would refuse it too: "another Character already has identity
        // 1"); the earlier work of the import, Villain 5, is rolled back.
        do {
            _ = try context.importObjects(from: [["id": 5, "lair": "Tower"], ["id": 1, "lair": "Cave"]], entity: "Villain")
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.code == .identityConflict)
            #expect(
                error.description
                    == "$[1]: Villain 1 has the identity of Character 1: identities are unique across Character and its sub-entities, and an object cannot change its entity"
            )
        }
        #expect(try GraphFixture.rows(store, "Character").map { GraphFixture.describe($0, model) } == [#"id=1 name="Joker" realName=nil"#])
        #expect(context.registeredObjectCount == 0)
        #expect(context.hasChanges == false)
    }

    // MARK: - Null and missing

    struct NullCase: Sendable, CustomTestStringConvertible {
        let name: String
        let json: JSONValue
        let policy: ImportOptions.NullPolicy
        let character: String
        let powers: Int
        let publisher: Bool
        var testDescription: String { name }
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            NullCase(
                name: "missing keys", json: ["id": 1699], policy: .clear,
                character: #"id=1699 name="Batman" realName="Bruce Wayne""#, powers: 2, publisher: true),
            NullCase(
                name: "null attribute", json: ["id": 1699, "real_name": nil], policy: .clear,
                character: #"id=1699 name="Batman" realName=nil"#, powers: 2, publisher: true),
            NullCase(
                name: "null to-one", json: ["id": 1699, "publisher": nil], policy: .clear,
                character: #"id=1699 name="Batman" realName="Bruce Wayne""#, powers: 2, publisher: false),
            NullCase(
                name: "null to-many", json: ["id": 1699, "powers": nil], policy: .clear,
                character: #"id=1699 name="Batman" realName="Bruce Wayne""#, powers: 0, publisher: true),
            NullCase(
                name: "empty to-many", json: ["id": 1699, "powers": []], policy: .clear,
                character: #"id=1699 name="Batman" realName="Bruce Wayne""#, powers: 0, publisher: true),
            NullCase(
                name: "ignored nulls", json: ["id": 1699, "real_name": nil, "powers": nil, "publisher": nil], policy: .ignore,
                character: #"id=1699 name="Batman" realName="Bruce Wayne""#, powers: 2, publisher: true),
            NullCase(
                name: "ignored nulls, values still set", json: ["id": 1699, "real_name": "B.", "powers": []], policy: .ignore,
                character: #"id=1699 name="Batman" realName="B.""#, powers: 0, publisher: true),
        ])
    func nullClearsButAMissingKeyKeeps(kind: StoreKind, _ c: NullCase) throws {
        try use(kind)
        _ = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        var options = ImportOptions()
        options.nullPolicy = c.policy
        _ = try context.importObjects(from: [c.json], entity: "Character", options: options)
        let row = try #require(try GraphFixture.rows(store, "Character").first)
        #expect(GraphFixture.describe(row, model) == c.character)
        #expect(row.relationships[0].count == c.powers)
        #expect(row.relationships[1].isEmpty == !c.publisher)
        // Unlinked objects are not deleted, and their inverse no longer points back.
        #expect(try store.countObjects() == 4)
        #expect(try GraphFixture.rows(store, "Power").map { $0.relationships[0].count } == [c.powers / 2, c.powers / 2])
    }

    @Test(arguments: StoreKind.allCases)
    func newObjectsGetTheModelDefaultForMissingKeys(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("name", .string, key: "name"),
                    GraphFixture.attribute("rating", .double, key: "rating", default: .double(2.5)),
                    GraphFixture.attribute("active", .boolean, key: "active", default: .bool(true)),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        // (A key besides the identity: an object of the identity only is a reference, see
        // `TopLevelReferenceTests`, which gets no defaults.)
        _ = try context.importObjects(from: [["id": 1, "name": "one"], ["id": 2, "rating": nil, "active": "no"]], entity: "Item")
        #expect(try describeAll("Item", in: store) == [#"id=1 name="one" rating=2.5 active=true"#, "id=2 name=nil rating=nil active=false"])
    }

    // MARK: - To-many policies and order

    @Test(arguments: StoreKind.allCases)
    func replaceUnlinksWithoutDeletingAndAppendAddsLinks(kind: StoreKind) throws {
        try use(kind)
        _ = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        _ = try context.importObjects(from: [["id": 1699, "powers": [["id": 9], ["id": 12, "name": "Gadgets"]]]], entity: "Character")
        #expect(try GraphFixture.rows(store, "Character")[0].relationships[0] == [Self.id("Power", 2), Self.id("Power", 3)])
        #expect(try describeAll("Power") == [#"id=4 name="Agility""#, #"id=9 name="Insanely Rich""#, #"id=12 name="Gadgets""#])
        #expect(try GraphFixture.rows(store, "Power").map { $0.relationships[0].count } == [0, 1, 1])

        var options = ImportOptions()
        options.toManyPolicy = .append
        let report = try context.importObjects(from: [["id": 1699, "powers": [4, 9]]], entity: "Character", options: options)
        #expect(report.counts(for: "Character") == .init(updated: 1))
        #expect(
            try GraphFixture.rows(store, "Character")[0].relationships[0]
                == [Self.id("Power", 2), Self.id("Power", 3), Self.id("Power", 1)])
    }

    @Test(arguments: StoreKind.allCases)
    func theMergePolicyAnnotationWinsOverTheOption(kind: StoreKind) throws {
        try use(kind)
        var entities = try GraphFixture.grootModel().entities
        entities[0].relationships[0].userInfo["JSONMergePolicy"] = "append"
        let model = try ObjectModel(entities: entities)
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        _ = try context.importObjects(from: [["id": 1, "powers": [1, 2]]], entity: "Character")
        _ = try context.importObjects(from: [["id": 1, "powers": [3, 1]]], entity: "Character")
        let powers = try GraphFixture.rows(store, "Character")[0].relationships[0]
        #expect(powers.map(\.primaryKey) == [1, 2, 3])
    }

    @Test(arguments: StoreKind.allCases)
    func orderedRelationshipsKeepJSONOrderAndUnorderedOnesIgnoreIt(kind: StoreKind) throws {
        try use(kind)
        _ = try context.importObjects(from: [["id": 1, "powers": [9, 4, 7]]], entity: "Character")
        #expect(
            try #require(try context.fetch("Character", id: .integer(1))).destinations(forKey: "powers").map { $0["id"] }
                == [.integer(9), .integer(4), .integer(7)])
        let reordered = try context.importObjects(from: [["id": 1, "powers": [4, 9, 7]]], entity: "Character")
        #expect(reordered.counts(for: "Character") == .init(updated: 1))
        #expect(try GraphFixture.rows(store, "Character")[0].relationships[0].map(\.primaryKey) == [2, 1, 3])

        let unorderedModel = try GraphFixture.grootModel(powersOrdered: false)
        let store2 = try stores.make(kind, model: unorderedModel)
        let context2 = ObjectContext(store: store2)
        _ = try context2.importObjects(from: [["id": 1, "powers": [9, 4, 7]]], entity: "Character")
        let same = try context2.importObjects(from: [["id": 1, "powers": [4, 7, 9]]], entity: "Character")
        #expect(same.counts(for: "Character") == .init(unchanged: 1))
        #expect(try GraphFixture.rows(store2, "Character")[0].relationships[0].map(\.primaryKey) == [1, 2, 3])
    }

    // MARK: - Relationship values

    @Test(arguments: StoreKind.allCases)
    func aPartialNestedObjectUpdatesOnlyTheKeysItHas(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "User",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"), GraphFixture.attribute("name", .string, key: "name"),
                    GraphFixture.attribute("screenName", .string, key: "screen_name"),
                    GraphFixture.attribute("followers", .integer32, key: "followers_count"),
                    GraphFixture.attribute("location", .string, key: "location"),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Status", attributes: [GraphFixture.attribute("id", .integer64, key: "id_str")],
                relationships: [GraphFixture.relationship("mentions", "User", toMany: true, key: "entities.user_mentions")],
                userInfo: ["identityAttributes": "id"]),
        ])
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        _ = try context.importObjects(
            from: [
                [
                    "id": 6_253_282, "name": "Twitter API", "screen_name": "twitterapi",
                    "followers_count": 1000, "location": "San Francisco",
                ]
            ], entity: "User")
        let report = try context.importObjects(
            from: [
                [
                    "id_str": "505874924095815681",
                    "entities": [
                        "user_mentions": [
                            ["id": 6_253_282, "name": "Twitter API v2", "screen_name": "twitterapi"],
                            ["id": 99, "name": "New", "screen_name": "new"],
                        ]
                    ],
                ]
            ], entity: "Status")
        #expect(report.counts(for: "User") == .init(inserted: 1, updated: 1))
        #expect(
            try describeAll("User", in: store) == [
                #"id=6253282 name="Twitter API v2" screenName="twitterapi" followers=1000 location="San Francisco""#,
                #"id=99 name="New" screenName="new" followers=nil location=nil"#,
            ])
        #expect(try GraphFixture.rows(store, "Status").map { GraphFixture.describe($0, model) } == ["id=505874924095815681"])
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let json: JSONValue
        let entity: String
        let code: ImportError.Code
        let description: String
        var testDescription: String { description }
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            ErrorCase(
                json: [["id": 1, "publisher": [["id": 1]]]], entity: "Character", code: .arrayForToOne,
                description: #"$[0].publisher: Character.publisher is a to-one relationship; found an array [{"id":1}]"#),
            ErrorCase(
                json: [["id": 1, "powers": "4"]], entity: "Character", code: .notAnArray,
                description: #"$[0].powers: Character.powers is a to-many relationship; expected an array or null, found "4""#),
            ErrorCase(
                json: [["id": 1, "powers": [4, true]]], entity: "Character", code: .notAnObject,
                description: "$[0].powers[1]: Character.powers takes objects or identifiers; found true"),
            ErrorCase(
                json: [["id": 1, "publisher": false]], entity: "Character", code: .notAnObject,
                description: "$[0].publisher: Character.publisher takes an object or an identifier; found false"),
            ErrorCase(
                json: [["name": "Nobody"]], entity: "Character", code: .missingRequiredValue,
                description: "$[0].id: Character.id is required; the object has no value at 'id'"),
            ErrorCase(
                json: [["id": 1], true], entity: "Character", code: .notAnObject,
                description: "$[1]: expected a Character object or identifier, found true"),
            ErrorCase(
                json: [["id": 1, "powers": [["id": 1.5]]]], entity: "Character", code: .invalidValue,
                description: "$[0].powers[0].id: cannot store 1.5 in Power.id (integer64): not a whole number"),
            ErrorCase(
                json: [["id": 1, "name": ["first": "B"]]], entity: "Character", code: .invalidValue,
                description: #"$[0].name: cannot store {"first":"B"} in Character.name (string): expected a string, a number or a boolean"#),
            ErrorCase(
                json: [["id": 1, "name": "xxxxxxxxxx", "real_name": [true]]], entity: "Character", code: .invalidValue,
                description: "$[0].real_name: cannot store [true] in Character.realName (string): expected a string, a number or a boolean"),
            ErrorCase(
                json: [["id": 1, "powers": [["id": "40000000000000000000"]]]], entity: "Character", code: .invalidValue,
                description:
                    #"$[0].powers[0].id: cannot store "40000000000000000000" in Power.id (integer64): out of range -9223372036854775808...9223372036854775807"#),
        ])
    func badValuesAreErrorsNamingPathEntityAndValue(kind: StoreKind, _ c: ErrorCase) throws {
        try use(kind)
        do {
            _ = try context.importObjects(from: c.json, entity: c.entity)
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.code == c.code)
            #expect(error.description == c.description)
        }
        #expect(try store.countObjects() == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func longValuesAreShortenedInMessages(kind: StoreKind) throws {
        try use(kind)
        let long = String(repeating: "a", count: 100)
        do {
            _ = try context.importObjects(from: [["id": .string(long)]], entity: "Character")
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.value == .string(long))
            #expect(error.description == "$[0].id: cannot store \"\(String(repeating: "a", count: 39))… in Character.id (integer64): not a decimal number")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func bareIdentifiersNeedASingleIdentityAttribute(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Post", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [GraphFixture.relationship("tags", "Tag", toMany: true, key: "tags")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(name: "Tag", attributes: [GraphFixture.attribute("text", .string, key: "text")]),
        ])
        let context = ObjectContext(store: try stores.make(kind, model: model))
        do {
            _ = try context.importObjects(from: [["id": 1, "tags": [["text": "a"], "b"]]], entity: "Post")
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.code == .noSingleIdentity)
            #expect(error.description == #"$[0].tags[1]: "b" is a bare identifier, but Tag has 0 identity attributes; use an object"#)
        }
        // Without identity, each object is a new one, except that a post's tags are found
        // again among its current ones (Importer+OwnedObjects); another post's are its own.
        _ = try context.importObjects(from: [["id": 1, "tags": [["text": "a"], ["text": "a"]]]], entity: "Post")
        let again = try context.importObjects(from: [["id": 1, "tags": [["text": "a"]]]], entity: "Post")
        #expect(again.counts(for: "Tag") == .init(unchanged: 1))
        #expect(again.counts(for: "Post") == .init(updated: 1))
        let other = try context.importObjects(from: [["id": 2, "tags": [["text": "a"]]]], entity: "Post")
        #expect(other.counts(for: "Tag") == .init(inserted: 1))
        #expect(try context.fetch("Tag").count == 3)
        #expect(try context.fetch("Post", id: .integer(1))?.destinations(forKey: "tags").count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func valueTransformersAreAppliedAndUnknownNamesListTheRegisteredOnes(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("code", .integer32, key: "code", transformer: "Hex"),
                    GraphFixture.attribute("other", .string, key: "other", transformer: "Missing"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        var registry = JSONValueTransformerRegistry()
        registry.register(
            JSONValueTransformer(
                name: "Hex",
                forward: { json in
                    guard let s = json.stringValue else { return .string("not hex") }
                    return Int64(s, radix: 16).map(AttributeValue.integer)
                }, reverse: { value in .string(String(value.integerValue ?? 0, radix: 16)) }))
        registry.register(JSONValueTransformer(name: "Upper", forward: { _ in nil }, reverse: nil))
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store, bindings: MappingBindings(transformers: registry))
        _ = try context.importObjects(from: [["id": 1, "code": "ff"]], entity: "Item")
        #expect(try describeAll("Item", in: store) == ["id=1 code=255 other=nil"])
        let item = try #require(try context.fetch("Item", id: .integer(1)))
        #expect(try context.exportJSON(item) == ["id": 1, "code": "ff", "other": nil])
        do {
            _ = try context.importObjects(from: [["id": 2, "other": "x"]], entity: "Item")
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.code == .unknownName)
            #expect(error.description == "$[0].other: Item.other names value transformer 'Missing', which is not registered; registered: Hex, Upper")
        }
        do {
            _ = try context.importObjects(from: [["id": 2, "code": 12]], entity: "Item")
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.code == .invalidValue)
            #expect(error.description == #"$[0].code: value transformer 'Hex' turned 12 into "not hex", which is not an integer32 for Item.code"#)
        }
        #expect(try describeAll("Item", in: store) == ["id=1 code=255 other=nil"])
    }

    /// A value transformer's own error is the import error's cause, kept as thrown (issue 25.6).
    @Test(arguments: StoreKind.allCases)
    func aTransformerFailureKeepsItsCause(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("at", .date, key: "at", transformer: "iso8601"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        do {
            _ = try context.importObjects(from: [["id": 1, "at": "yesterday"]], entity: "Item")
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.code == .invalidValue)
            #expect(error.path.description == "$[0].at")
            let cause = try #require(error.cause as? TransformError, "\(String(describing: error.cause))")
            #expect(cause.code == .invalidValue && cause.transformerName == "iso8601" && cause.value == "yesterday")
            #expect(error.message.hasSuffix(cause.message), "\(error.message) / \(cause.message)")
        }
        #expect(try describeAll("Item", in: store) == [])
    }

    // MARK: - Deletion scopes

    func seedFive() throws {
        let elements: [JSONValue] = (1...5).map { (i: Int64) -> JSONValue in
            let name: JSONValue = i % 2 == 0 ? "even" : "odd"
            let publisher: JSONValue = i <= 3 ? 10 : 20
            return ["id": JSONValue(i), "name": name, "publisher": publisher]
        }
        _ = try context.importObjects(from: .array(elements), entity: "Character")
    }

    func storedIDs() throws -> [AttributeValue?] { try GraphFixture.rows(store, "Character").map { $0.attributes[0] } }

    @Test(arguments: StoreKind.allCases)
    func nothingIsDeletedWithoutAScope(kind: StoreKind) throws {
        try use(kind)
        try seedFive()
        let report = try context.importObjects(from: [["id": 1]], entity: "Character")
        #expect(report.counts(for: "Character") == .init(unchanged: 1))
        #expect(try storedIDs().count == 5)
    }

    @Test(arguments: StoreKind.allCases)
    func deletionScopeAllObjects(kind: StoreKind) throws {
        try use(kind)
        try seedFive()
        var options = ImportOptions()
        options.deleteMissing = ImportOptions.DeletionScope.allObjects.reportingOnly
        let dry = try context.importObjects(from: [["id": 1], ["id": 4, "name": "four"]], entity: "Character", options: options)
        #expect(dry.deletedObjectIDs.map(\.primaryKey) == [2, 3, 5])
        #expect(dry.counts(for: "Character") == .init(updated: 1, unchanged: 1))
        #expect(try storedIDs() == [.integer(1), .integer(2), .integer(3), .integer(4), .integer(5)])
        #expect(try context.fetch("Character", id: .integer(4))?["name"] == .string("four"))

        options.deleteMissing = .allObjects
        let report = try context.importObjects(from: [["id": 1], ["id": 4]], entity: "Character", options: options)
        #expect(report.deletedObjectIDs.map(\.primaryKey) == [2, 3, 5])
        #expect(report.counts(for: "Character") == .init(unchanged: 2, deleted: 3))
        #expect(try storedIDs() == [.integer(1), .integer(4)])
        // Nullify: the publishers no longer list the deleted characters.
        #expect(try GraphFixture.rows(store, "Publisher").map { $0.relationships[0].map(\.primaryKey) } == [[1], [4]])
    }

    @Test(arguments: StoreKind.allCases)
    func deletionScopeMatchingAPredicate(kind: StoreKind) throws {
        try use(kind)
        try seedFive()
        var options = ImportOptions()
        options.deleteMissing = .matching(.equals(attribute: "name", value: .string("odd")))
        let report = try context.importObjects(from: [["id": 3]], entity: "Character", options: options)
        #expect(report.deletedObjectIDs.map(\.primaryKey) == [1, 5])
        #expect(try storedIDs() == [.integer(2), .integer(3), .integer(4)])
    }

    @Test(arguments: StoreKind.allCases)
    func deletionScopeAParentsRelationship(kind: StoreKind) throws {
        try use(kind)
        try seedFive()
        let publisher = try #require(try context.fetch("Publisher", id: .integer(10)))
        var options = ImportOptions()
        options.deleteMissing = .relationship("characters", of: publisher.objectID)
        let report = try context.importObjects(
            from: [["id": 2, "publisher": 10], ["id": 6, "publisher": 10]], entity: "Character",
            options: options)
        #expect(report.deletedObjectIDs.map(\.primaryKey) == [1, 3])
        #expect(report.counts(for: "Character") == .init(inserted: 1, unchanged: 1, deleted: 2))
        #expect(try storedIDs() == [.integer(2), .integer(4), .integer(5), .integer(6)])
        options.deleteMissing = .relationship("characters", of: ObjectID(entityName: "Publisher", primaryKey: 99))
        #expect(throws: ImportError.self) { _ = try context.importObjects(from: [], entity: "Character", options: options) }
    }

    // MARK: - Reports, dry runs, unchanged detection

    @Test(arguments: StoreKind.allCases)
    func unchangedObjectsCauseNoWrite(kind: StoreKind) throws {
        try use(kind)
        let counting = CountingStore(try stores.make(kind, model: model))
        let context = ObjectContext(store: counting)
        _ = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        #expect(counting.changeSets.map(\.inserted.count) == [4])
        counting.changeSets = []
        let report = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        #expect(report.counts(for: "Character") == .init(unchanged: 1))
        #expect(report.counts(for: "Power") == .init(unchanged: 2))
        #expect(counting.changeSets.isEmpty)
        // A change to one power writes exactly that slot.
        _ = try context.importObjects(from: [["id": "1699", "powers": [["id": "4", "name": "Agile"], ["id": "9"]]]], entity: "Character")
        #expect(counting.changeSets.count == 1)
        #expect(counting.changeSets.first?.updated == [ObjectChange(id: Self.id("Power", 1), attributes: [AttributeChange(index: 1, value: .string("Agile"))])])
    }

    @Test(arguments: StoreKind.allCases)
    func aDryRunReportsAndKeepsNothing(kind: StoreKind) throws {
        try use(kind)
        _ = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        let before = try everything()
        var options = ImportOptions()
        options.dryRun = true
        options.batchSize = 1
        let report = try context.importObjects(
            from: [["id": 1699, "name": "B"], ["id": 2, "powers": [4, 5]]], entity: "Character",
            options: options)
        #expect(report.isDryRun)
        #expect(report.counts(for: "Character") == .init(inserted: 1, updated: 1))
        #expect(report.counts(for: "Power") == .init(inserted: 1))
        #expect(report.objectIDs.first == Self.id("Character", 1))
        #expect(report.objectIDs.last?.isTemporary == true)
        #expect(try everything() == before)
        #expect(context.hasChanges == false)
    }

    @Test(arguments: StoreKind.allCases)
    func streamingInBatchesCountsEachObjectOnceAndKeepsInputOrder(kind: StoreKind) throws {
        try use(kind)
        var source = JSONImportSource(array: [
            ["id": 3, "powers": [["id": 1, "name": "A"]]], ["id": 1, "powers": [1, 2]],
            ["id": 2, "powers": [["id": 2, "name": "B"]]], ["id": 3, "name": "Three"], ["id": 4, "powers": [1]],
        ])
        var options = ImportOptions()
        options.batchSize = 2
        let report = try context.importObjects(from: &source, entity: "Character", options: options)
        #expect(report.elementCount == 5)
        #expect(report.objectIDs.map(\.primaryKey) == [1, 2, 3, 1, 4])
        #expect(report.counts(for: "Character") == .init(inserted: 4))
        #expect(report.counts(for: "Power") == .init(inserted: 2))
        #expect(context.registeredObjectCount == 0)
        #expect(try describeAll("Power") == [#"id=1 name="A""#, #"id=2 name="B""#])
        #expect(try describeAll("Character").first == #"id=3 name="Three" realName=nil"#)
        #expect(try GraphFixture.rows(store, "Power").map { $0.relationships[0].map(\.primaryKey) } == [[1, 2, 4], [2, 3]])
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectKeyedByIdentifierStoresEachKey(kind: StoreKind) throws {
        try use(kind)
        var options = ImportOptions()
        options.keyAttribute = "id"
        let report = try context.importObjects(
            from: ["1699": ["name": "Batman"], "7": ["name": "Robin"]], entity: "Character",
            options: options)
        #expect(report.counts(for: "Character") == .init(inserted: 2))
        #expect(try describeAll("Character") == [#"id=1699 name="Batman" realName=nil"#, #"id=7 name="Robin" realName=nil"#])
        do {
            _ = try context.importObjects(from: ["x": ["name": "X"]], entity: "Character", options: options)
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.description == #"$.x.id: cannot store "x" in Character.id (integer64): not a decimal number"#)
        }
        options.keyAttribute = "nope"
        #expect(throws: ImportError.self) { _ = try context.importObjects(from: ["1": [:]], entity: "Character", options: options) }
    }

    @Test(arguments: StoreKind.allCases)
    func reportsObjectIDsCanBeTurnedOffAndASingleObjectIsImported(kind: StoreKind) throws {
        try use(kind)
        var options = ImportOptions()
        options.reportsObjectIDs = false
        let quiet = try context.importObjects(from: GraphFixture.batman, entity: "Character", options: options)
        #expect(quiet.objectIDs.isEmpty)
        let single = try context.importObjects(from: ["id": 5, "name": "Five"], entity: "Character")
        #expect(single.objectIDs == [Self.id("Character", 2)])
        let bare = try context.importObjects(from: "5", entity: "Character")
        #expect(bare.objectIDs == [Self.id("Character", 2)])
        #expect(bare.counts(for: "Character") == .init())
    }

    @Test(arguments: StoreKind.allCases)
    func unsavedChangesOfTheContextAreSavedWithTheImport(kind: StoreKind) throws {
        try use(kind)
        let local = try context.insert("Publisher")
        try local.setValue(.integer(77), forKey: "id")
        _ = try context.importObjects(from: [["id": 1, "publisher": 77]], entity: "Character")
        #expect(local.objectID == Self.id("Publisher", 1))
        #expect(local.isInserted == false)
        #expect(context.hasChanges == false)
        #expect(try GraphFixture.rows(store, "Publisher").map(\.relationships) == [[[Self.id("Character", 1)]]])
        #expect(try local.destinations(forKey: "characters").map { $0["id"] } == [.integer(1)])
    }

    /// Error paths show an attribute key path's array steps as indexes, and its object keys as keys.
    @Test(arguments: StoreKind.allCases)
    func errorPathsShowArrayIndexesOfKeyPaths(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("second", .integer64, key: "codes.1"),
                    GraphFixture.attribute("seven", .integer64, key: "byNumber.7"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        let context = ObjectContext(store: try stores.make(kind, model: model))
        for (json, expected) in [
            (["id": 1, "codes": [1, "x"]] as JSONValue, #"$[0].codes[1]: cannot store "x" in Item.second (integer64): not a decimal number"#),
            (["id": 1, "byNumber": ["7": "y"]] as JSONValue, #"$[0].byNumber["7"]: cannot store "y" in Item.seven (integer64): not a decimal number"#),
        ] {
            do {
                _ = try context.importObjects(from: [json], entity: "Item")
                Issue.record("expected an error")
            } catch let error as ImportError {
                #expect(error.description == expected)
            }
        }
    }

    /// An identity repeated among the top-level elements is diagnosed whatever the batch
    /// size: within a batch, and against the elements of earlier batches (found by a tester).
    @Test(arguments: StoreKind.allCases)
    func duplicateIdentitiesAreDiagnosedAcrossBatches(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Person",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("name", .string, key: "name"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        for batchSize in [5000, 2, 1] {
            let context = ObjectContext(store: try stores.make(kind, model: model))
            var options = ImportOptions()
            options.batchSize = batchSize
            let report = try context.importObjects(
                from: [
                    ["id": 1, "name": "a"], ["id": 1, "name": "b"], ["id": "1", "name": "b"],
                    ["id": 2, "name": "c"],
                ],
                entity: "Person", options: options)
            #expect(report.diagnostics.map(\.code) == [.duplicateIdentity, .duplicateIdentity], "batch size \(batchSize)")
            #expect(report.diagnostics.map { $0.path?.description ?? "-" } == ["$[1]", "$[2]"], "batch size \(batchSize)")
            #expect(report.counts(for: "Person") == .init(inserted: 2), "batch size \(batchSize)")
            // A later import meeting the same identities again is not a duplicate.
            let again = try context.importObjects(from: [["id": 1, "name": "b"], ["id": 2, "name": "c"]], entity: "Person", options: options)
            #expect(again.diagnostics.isEmpty, "batch size \(batchSize)")
        }
    }
}
