import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// Groot's documented scenarios, and the defects its users reported.
/// On every store (``StoreKind/allCases``): each test runs once per store kind, on a fresh
/// store of that kind (``use(_:)``).
@Suite final class GrootTests {
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

    func describeAll(_ entity: String) throws -> [String] {
        try GraphFixture.rows(store, entity).map { GraphFixture.describe($0, model) }
    }

    static func id(_ entity: String, _ key: Int64) -> ObjectID { ObjectID(entityName: entity, primaryKey: key) }

    // MARK: - Documented scenarios

    @Test(arguments: StoreKind.allCases)
    func importsBatmanWithStringIDsIntoInteger64(kind: StoreKind) throws {
        try use(kind)
        let report = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        #expect(report.counts(for: "Character") == .init(inserted: 1))
        #expect(report.counts(for: "Power") == .init(inserted: 2))
        #expect(report.counts(for: "Publisher") == .init(inserted: 1))
        #expect(report.objectIDs == [Self.id("Character", 1)])
        #expect(report.isDryRun == false)
        let characters = try GraphFixture.rows(store, "Character")
        #expect(characters.map { GraphFixture.describe($0, model) } == [#"id=1699 name="Batman" realName="Bruce Wayne""#])
        #expect(characters[0].relationships == [[Self.id("Power", 1), Self.id("Power", 2)], [Self.id("Publisher", 1)]])
        #expect(try describeAll("Power") == [#"id=4 name="Agility""#, #"id=9 name="Insanely Rich""#])
        #expect(try GraphFixture.rows(store, "Power").map(\.relationships) == [[[Self.id("Character", 1)]], [[Self.id("Character", 1)]]])
        #expect(try describeAll("Publisher") == [#"id=10 name="DC Comics""#])
        #expect(try GraphFixture.rows(store, "Publisher").map(\.relationships) == [[[Self.id("Character", 1)]]])

        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        #expect(batman["realName"] == .string("Bruce Wayne"))
        #expect(try batman.destinations(forKey: "powers").map { $0["name"] } == [.string("Agility"), .string("Insanely Rich")])
        #expect(try batman.destination(forKey: "publisher")?["name"] == .string("DC Comics"))
        #expect(try batman.destination(forKey: "publisher")?.destinations(forKey: "characters").map(\.objectID) == [batman.objectID])
    }

    @Test(arguments: StoreKind.allCases)
    func mergeUpdatesRealNameAndKeepsTheRest(kind: StoreKind) throws {
        try use(kind)
        _ = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        let report = try context.importObjects(from: [["id": 1699, "real_name": "Bruce Thomas Wayne"]], entity: "Character")
        #expect(report.counts(for: "Character") == .init(updated: 1))
        #expect(report.objectIDs == [Self.id("Character", 1)])
        let rows = try GraphFixture.rows(store, "Character")
        #expect(rows.map { GraphFixture.describe($0, model) } == [#"id=1699 name="Batman" realName="Bruce Thomas Wayne""#])
        #expect(rows[0].relationships == [[Self.id("Power", 1), Self.id("Power", 2)], [Self.id("Publisher", 1)]])
        #expect(try store.countObjects() == 4)
    }

    @Test(arguments: StoreKind.allCases)
    func identifiersBecomePlaceholdersThatALaterImportCompletes(kind: StoreKind) throws {
        try use(kind)
        let first = try context.importObjects(
            from: [["id": "1699", "name": "Batman", "powers": ["4", 9], "publisher": "10"]], entity: "Character")
        #expect(first.counts(for: "Power") == .init(inserted: 2))
        #expect(first.diagnostics.map(\.code) == [.placeholderCreated, .placeholderCreated, .placeholderCreated])
        #expect(first.diagnostics.first?.description == "$[0].powers[0]: no Power with identity 4: created a placeholder")
        #expect(try describeAll("Power") == ["id=4 name=nil placeholder", "id=9 name=nil placeholder"])
        #expect(try describeAll("Publisher") == ["id=10 name=nil placeholder"])

        let powers = try context.importObjects(
            from: [["id": "4", "name": "Agility"], ["id": "9", "name": "Insanely Rich"]],
            entity: "Power")
        #expect(powers.counts(for: "Power") == .init(updated: 2))
        _ = try context.importObjects(from: [["id": 10, "name": "DC Comics"]], entity: "Publisher")
        #expect(try describeAll("Power") == [#"id=4 name="Agility""#, #"id=9 name="Insanely Rich""#])
        #expect(try describeAll("Publisher") == [#"id=10 name="DC Comics""#])
        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        #expect(try batman.destinations(forKey: "powers").map(\.isPlaceholder) == [false, false])
        #expect(try batman.destination(forKey: "publisher")?["name"] == .string("DC Comics"))
        #expect(try GraphFixture.rows(store, "Power").map(\.relationships) == [[[Self.id("Character", 1)]], [[Self.id("Character", 1)]]])
    }

    @Test(arguments: StoreKind.allCases)
    func cardsWithACompositeIdentity(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Card",
                attributes: [
                    GraphFixture.attribute("suit", .string, key: "suit"), GraphFixture.attribute("value", .string, key: "value"),
                    GraphFixture.attribute("numberOfPeople", .integer16, key: "numberOfPeople"),
                ],
                userInfo: ["identityAttributes": "suit,value"])
        ])
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        let first = try context.importObjects(
            from: [
                ["suit": "Hearts", "value": "A", "numberOfPeople": 1], ["suit": "Spades", "value": "A", "numberOfPeople": 1],
                ["suit": "Hearts", "value": "K", "numberOfPeople": 1],
            ], entity: "Card")
        #expect(first.counts(for: "Card") == .init(inserted: 3))
        let second = try context.importObjects(
            from: [
                ["suit": "Hearts", "value": "K", "numberOfPeople": 2], ["suit": "Hearts", "value": "A", "numberOfPeople": 1],
                ["suit": "Clubs", "value": "A", "numberOfPeople": 1],
            ], entity: "Card")
        #expect(second.counts(for: "Card") == .init(inserted: 1, updated: 1, unchanged: 1))
        #expect(second.objectIDs.map(\.primaryKey) == [3, 1, 4])
        #expect(
            try GraphFixture.rows(store, "Card").map { GraphFixture.describe($0, model) } == [
                #"suit="Hearts" value="A" numberOfPeople=1"#, #"suit="Spades" value="A" numberOfPeople=1"#,
                #"suit="Hearts" value="K" numberOfPeople=2"#, #"suit="Clubs" value="A" numberOfPeople=1"#,
            ])
        #expect(try context.fetch("Card", identity: [.string("Hearts"), .string("K")])?["numberOfPeople"] == .integer(2))
        // A bare identifier cannot name a composite identity.
        #expect(throws: ImportError.self) { try context.importObjects(from: ["Hearts"], entity: "Card") }
    }

    static func shapesModel(mapper: Bool = true) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Container", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [GraphFixture.relationship("shapes", "Shape", inverse: "container", toMany: true, ordered: true, key: "shapes")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Shape", isAbstract: true, attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [GraphFixture.relationship("container", "Container", inverse: "shapes")],
                userInfo: mapper ? ["identityAttributes": "id", "entityMapperName": "ShapeMapper"] : ["identityAttributes": "id"]),
            EntityDescription(name: "Circle", parentName: "Shape", attributes: [GraphFixture.attribute("radius", .integer32, key: "radius")]),
            EntityDescription(name: "Triangle", parentName: "Shape", attributes: [GraphFixture.attribute("sides", .integer32, key: "sides")]),
        ])
    }

    static let shapeBindings = MappingBindings(entityMappers: [
        EntityMapper(name: "ShapeMapper", keyPath: "type", table: ["circle": "Circle", "triangle": "Triangle", "box": "Container"])
    ])

    @Test(arguments: StoreKind.allCases)
    func entityMapperPicksTheSubEntityInsideAContainer(kind: StoreKind) throws {
        try use(kind)
        let model = try Self.shapesModel()
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store, bindings: Self.shapeBindings)
        let report = try context.importObjects(
            from: [
                [
                    "id": 1,
                    "shapes": [["id": 1, "type": "triangle", "sides": 3], ["id": 2, "type": "circle", "radius": 10]],
                ]
            ], entity: "Container")
        #expect(report.counts(for: "Triangle") == .init(inserted: 1))
        #expect(report.counts(for: "Circle") == .init(inserted: 1))
        let shapes = try GraphFixture.rows(store, "Shape")
        #expect(shapes.map(\.id.entityName) == ["Circle", "Triangle"])
        #expect(shapes.map { GraphFixture.describe($0, model) } == ["id=2 radius=10", "id=1 sides=3"])
        let container = try #require(try context.fetch("Container", id: .integer(1)))
        #expect(try container.destinations(forKey: "shapes").map(\.entity.name) == ["Triangle", "Circle"])
        // Existing shapes are found through the abstract entity and keep their sub-entity.
        let again = try context.importObjects(
            from: [["id": 1, "shapes": [["id": 2, "type": "circle", "radius": 11]]]],
            entity: "Container")
        #expect(again.counts(for: "Circle") == .init(updated: 1))
        #expect(try context.fetch("Shape", id: .integer(2))?["radius"] == .integer(11))
    }

    @Test(arguments: StoreKind.allCases)
    func entityMapperErrorsNameTheEntity(kind: StoreKind) throws {
        try use(kind)
        let context = ObjectContext(store: try stores.make(kind, model: try Self.shapesModel()), bindings: Self.shapeBindings)
        do {
            _ = try context.importObjects(from: [["id": 1, "shapes": [["id": 5, "type": "box"]]]], entity: "Container")
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.code == .invalidEntity)
            #expect(error.description == "$[0].shapes[0]: entity mapper 'ShapeMapper' chose 'Container', which is not Shape or one of its sub-entities")
        }
        do {
            _ = try context.importObjects(from: [["id": 1, "shapes": [["id": 5, "type": "hexagon"]]]], entity: "Container")
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.code == .abstractEntity)
            #expect(error.description == "$[0].shapes[0]: Shape is abstract, and its entity mapper 'ShapeMapper' chose no sub-entity for this object")
        }
        let noMapper = ObjectContext(store: try stores.make(kind, model: try Self.shapesModel(mapper: false)))
        do {
            _ = try noMapper.importObjects(from: [["id": 1, "type": "circle"]], entity: "Shape")
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.code == .abstractEntity)
            #expect(error.description == "$[0]: Shape is abstract and has no entity mapper choosing a sub-entity for this object")
        }
    }

    /// Objects are named by entity and identity in messages, never by a temporary object ID,
    /// so the message does not depend on the batch size (found by a tester).
    @Test(arguments: StoreKind.allCases)
    func mapperConflictMessageIsTheSameForEveryBatchSize(kind: StoreKind) throws {
        try use(kind)
        for batchSize in [5000, 1] {
            let context = ObjectContext(store: try stores.make(kind, model: try Self.shapesModel()), bindings: Self.shapeBindings)
            var options = ImportOptions()
            options.batchSize = batchSize
            do {
                _ = try context.importObjects(
                    from: [["id": 1, "type": "circle"], ["id": 1, "type": "triangle"]], entity: "Shape",
                    options: options)
                Issue.record("expected an error")
            } catch let error as ImportError {
                #expect(
                    error.description == "$[1]: Circle 1 exists, but the entity mapper chose Triangle for it, "
                        + "and an object cannot change its entity", "batch size \(batchSize)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func dictionaryTransformerDerivesIDFromLegacyID(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Character",
                attributes: [GraphFixture.attribute("id", .integer64, key: "id"), GraphFixture.attribute("name", .string, key: "name")],
                userInfo: ["identityAttributes": "id", "JSONDictionaryTransformerName": "LegacyIDs"])
        ])
        let bindings = MappingBindings(dictionaryTransformers: [
            DictionaryTransformer(name: "LegacyIDs") { object in
                var copy = object
                if case .string(let legacy)? = object["legacy_id"], let number = legacy.split(separator: "-").last {
                    copy["id"] = .string(String(number))
                    copy["legacy_id"] = nil
                }
                return copy
            }
        ])
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store, bindings: bindings)
        _ = try context.importObjects(from: [["legacy_id": "CHR-1699", "name": "Batman"]], entity: "Character")
        let report = try context.importObjects(
            from: [["legacy_id": "CHR-1699", "name": "The Batman"], ["id": 2, "name": "Robin"]],
            entity: "Character")
        #expect(report.counts(for: "Character") == .init(inserted: 1, updated: 1))
        #expect(
            try GraphFixture.rows(store, "Character").map { GraphFixture.describe($0, model) }
                == [#"id=1699 name="The Batman""#, #"id=2 name="Robin""#])
    }

    @Test(arguments: StoreKind.allCases)
    func exportsTheBatmanGraph(kind: StoreKind) throws {
        try use(kind)
        _ = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        #expect(
            try context.exportJSON(batman) == [
                "id": 1699, "name": "Batman", "real_name": "Bruce Wayne",
                "powers": [["id": 4, "name": "Agility"], ["id": 9, "name": "Insanely Rich"]],
                "publisher": ["id": 10, "name": "DC Comics"],
            ])
        var options = ExportOptions()
        options.relationshipStyle = .identifiers
        #expect(
            try context.exportJSON([batman], options: options) == [
                [
                    "id": 1699, "name": "Batman", "real_name": "Bruce Wayne", "powers": [4, 9], "publisher": 10,
                ]
            ])
    }

    @Test(arguments: StoreKind.allCases)
    func exportsANestedKeyPath(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Character",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("realName", .string, key: "real_name.foo.bar.name"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        let context = ObjectContext(store: try stores.make(kind, model: model))
        _ = try context.importObjects(from: [["id": 1699, "real_name": ["foo": ["bar": ["name": "Bruce Wayne"]]]]], entity: "Character")
        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        #expect(batman["realName"] == .string("Bruce Wayne"))
        #expect(try context.exportJSON(batman) == ["id": 1699, "real_name": ["foo": ["bar": ["name": "Bruce Wayne"]]]])
    }

    // MARK: - Defects Groot's users hit

    @Test(arguments: StoreKind.allCases)
    func theSameIDTwiceInOneArrayMergesLastValueWins(kind: StoreKind) throws {
        try use(kind)
        let report = try context.importObjects(from: [["id": "7", "name": "Robin"], ["id": 7, "name": "Nightwing"]], entity: "Character")
        #expect(report.counts(for: "Character") == .init(inserted: 1))
        #expect(report.objectIDs == [Self.id("Character", 1), Self.id("Character", 1)])
        #expect(report.diagnostics.map(\.description) == [#"$[1]: Character 7 appears more than once; merged, last value wins"#])
        #expect(try describeAll("Character") == [#"id=7 name="Nightwing" realName=nil"#])
    }

    @Test(arguments: StoreKind.allCases)
    func aNullInTheMiddleOfAKeyPathLeavesTheValueAlone(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "User",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("city", .string, key: "address.city"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        _ = try context.importObjects(from: [["id": 1, "address": ["city": "Gotham"]]], entity: "User")
        let report = try context.importObjects(from: [["id": 1, "address": nil], ["id": 2, "address": nil]], entity: "User")
        #expect(report.counts(for: "User") == .init(inserted: 1, unchanged: 1))
        #expect(try GraphFixture.rows(store, "User").map { GraphFixture.describe($0, model) } == [#"id=1 city="Gotham""#, "id=2 city=nil"])
        _ = try context.importObjects(from: [["id": 1, "address": ["city": nil]]], entity: "User")
        #expect(try GraphFixture.rows(store, "User").map { GraphFixture.describe($0, model) } == ["id=1 city=nil", "id=2 city=nil"])
    }

    @Test(arguments: StoreKind.allCases)
    func aStringIdentityFindsTheIntegerObjectAndSixtyFourBitIDsStayExact(kind: StoreKind) throws {
        try use(kind)
        _ = try context.importObjects(from: [["id": 505_874_924_095_815_681, "name": "Big"]], entity: "Character")
        let report = try context.importObjects(from: [["id": "505874924095815681", "real_name": "Exact"]], entity: "Character")
        #expect(report.counts(for: "Character") == .init(updated: 1))
        #expect(try describeAll("Character") == [#"id=505874924095815681 name="Big" realName="Exact""#])
        do {
            _ = try context.importObjects(from: [["id": "abc"]], entity: "Character")
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.description == #"$[0].id: cannot store "abc" in Character.id (integer64): not a decimal number"#)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func exportCutsCyclesWithoutInverseRelationships(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Status",
                attributes: [GraphFixture.attribute("id", .integer64, key: "id"), GraphFixture.attribute("text", .string, key: "text")],
                relationships: [GraphFixture.relationship("retweetedStatus", "Status", key: "retweeted_status")],
                userInfo: ["identityAttributes": "id"])
        ])
        let context = ObjectContext(store: try stores.make(kind, model: model))
        // 1 → 2 → 1 (a two-object cycle), and 3 → 3 (self-reference).
        _ = try context.importObjects(
            from: [
                ["id": 1, "text": "one", "retweeted_status": ["id": 2, "text": "two", "retweeted_status": 1]],
                ["id": 3, "text": "three", "retweeted_status": 3],
            ], entity: "Status")
        let one = try #require(try context.fetch("Status", id: .integer(1)))
        let three = try #require(try context.fetch("Status", id: .integer(3)))
        #expect(
            try context.exportJSON([one, three]) == [
                ["id": 1, "text": "one", "retweeted_status": ["id": 2, "text": "two", "retweeted_status": 1]],
                ["id": 3, "text": "three", "retweeted_status": 3],
            ])
    }

    @Test(arguments: StoreKind.allCases)
    func aReverseTransformerReturningNilExportsNull(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Character",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("name", .string, key: "name", transformer: "Secret"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        var transformers = JSONValueTransformerRegistry()
        transformers.register(
            JSONValueTransformer(
                name: "Secret", forward: { json in json.stringValue.map(AttributeValue.string) },
                reverse: { _ in .null }))
        let context = ObjectContext(store: try stores.make(kind, model: model), bindings: MappingBindings(transformers: transformers))
        _ = try context.importObjects(from: [["id": 1, "name": "Batman"]], entity: "Character")
        let batman = try #require(try context.fetch("Character", id: .integer(1)))
        #expect(batman["name"] == .string("Batman"))
        #expect(try context.exportJSON(batman) == ["id": 1, "name": nil])
        var options = ExportOptions()
        options.nilPolicy = .omit
        let omitted = try context.exportJSON(batman, options: options)
        #expect(omitted == ["id": 1], "\(omitted)")
    }

    @Test(arguments: StoreKind.allCases)
    func aFailureInTheMiddleOfAnArrayChangesNothing(kind: StoreKind) throws {
        try use(kind)
        _ = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        let before = try GraphFixture.rows(store, "Character") + GraphFixture.rows(store, "Power") + GraphFixture.rows(store, "Publisher")
        let payload: JSONValue = [
            ["id": 1, "name": "A", "powers": [["id": 4, "name": "Renamed"]]],
            ["id": 2, "name": "B"],
            ["id": 1699, "name": "Changed"],
            ["id": 3, "powers": [["id": 1], ["id": "abc"]]],
            ["id": 4],
        ]
        do {
            _ = try context.importObjects(from: payload, entity: "Character")
            Issue.record("expected an error")
        } catch let error as ImportError {
            #expect(error.code == .invalidValue)
            #expect(error.path.description == "$[3].powers[1].id")
            #expect(error.entity == "Power")
            #expect(error.property == "id")
            #expect(error.value == "abc")
            #expect(error.description == #"$[3].powers[1].id: cannot store "abc" in Power.id (integer64): not a decimal number"#)
        }
        let after = try GraphFixture.rows(store, "Character") + GraphFixture.rows(store, "Power") + GraphFixture.rows(store, "Publisher")
        #expect(after == before)
        #expect(context.hasChanges == false)
        #expect(context.registeredObjectCount == 0)
    }
}

extension GrootTests {
    /// Xcode gives attributes defaults; a new object must not stay indexed under its default
    /// identity once the payload's values are set (two cards collapsed into one). A card
    /// without a suit in its JSON has no identity: it is inserted anew, its suit left empty
    /// rather than defaulted (a default identity would make it the stored spades card).
    @Test(arguments: StoreKind.allCases)
    func newObjectsWithDefaultedIdentityAttributesStayDistinct(kind: StoreKind) throws {
        try use(kind)
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Card",
                attributes: [
                    GraphFixture.attribute("suit", .string, key: "suit", default: .string("spades")),
                    GraphFixture.attribute("rank", .integer16, key: "rank", default: .integer(1)),
                    GraphFixture.attribute("face", .string, key: "face"),
                ],
                userInfo: ["identityAttributes": "suit,rank"])
        ])
        let store = try stores.make(kind, model: model)
        let context = ObjectContext(store: store)
        // (Each card with a key besides its identity: an object of the identity only is a
        // reference, which makes a placeholder, see `TopLevelReferenceTests`.)
        let report = try context.importObjects(
            from: [
                ["suit": "hearts", "rank": 1, "face": "A"], ["suit": "spades", "rank": 1, "face": "A"],
                ["rank": 2, "face": "2"],
            ],
            entity: "Card")
        #expect(report.counts(for: "Card") == .init(inserted: 3))
        #expect(
            try GraphFixture.rows(store, "Card").map { GraphFixture.describe($0, model) }
                == [#"suit="hearts" rank=1 face="A""#, #"suit="spades" rank=1 face="A""#, #"suit=nil rank=2 face="2""#])
    }
}

extension GrootTests {
    /// The Batman fixture read from `Tests/Fixtures/groot/`, then an update mixing identifiers and objects.
    @Test(arguments: StoreKind.allCases)
    func importsTheFixtureFilesAndExportsTheResult(kind: StoreKind) throws {
        try use(kind)
        let first = try JSONReader.parse(try Fixtures.data("groot/characters.json"))
        #expect(first == GraphFixture.batman)
        _ = try context.importObjects(from: first, entity: "Character")
        let update = try JSONReader.parse(try Fixtures.data("groot/characters-update.json"))
        let report = try context.importObjects(from: update, entity: "Character")
        #expect(report.counts(for: "Character") == .init(inserted: 1, updated: 1))
        #expect(report.counts(for: "Power") == .init(inserted: 1))
        let characters = try context.fetch("Character")
        var options = ExportOptions()
        options.nilPolicy = .omit
        #expect(
            try context.exportJSON(characters, options: options) == [
                [
                    "id": 1699, "name": "Batman", "real_name": "Bruce Thomas Wayne",
                    "powers": [["id": 4, "name": "Agility"], ["id": 9, "name": "Insanely Rich"], ["id": 12, "name": "Gadgets"]],
                    "publisher": ["id": 10, "name": "DC Comics"],
                ],
                ["id": 1700, "name": "Robin", "powers": [], "publisher": ["id": 10, "name": "DC Comics"]],
            ])
    }
}
