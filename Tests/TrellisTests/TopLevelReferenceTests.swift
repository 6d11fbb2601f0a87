import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// Top-level references (issue 28 point 1): an element of the imported array that holds
/// only the entity's identity attributes is read as a bare identifier is read (found and
/// left unchanged, counted unchanged; or a new placeholder without the model's defaults),
/// which is what the export writes for a top-level placeholder; any other mapped key, `null`
/// included, makes a full object; nested objects and keyed elements are always full objects.
/// On every store.
@Suite struct TopLevelReferenceTests {
    static func itemModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("name", .string, key: "name"),
                    GraphFixture.attribute("rating", .double, key: "rating", default: .double(2.5)),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
    }

    static func rows(_ store: TestStore, _ entity: String, _ model: ObjectModel) throws -> [String] {
        try GraphFixture.rows(store.store, entity).map { GraphFixture.describe($0, model) }
    }

    /// A stored placeholder and a stored full object are found and counted unchanged; a new
    /// identity becomes a placeholder (diagnosed), without the model's default rating; any
    /// other key beside the identity, even one no property maps, makes a full object.
    @Test(arguments: StoreKind.allCases)
    func identityOnlyObjectsAreReferences(kind: StoreKind) throws {
        let model = try Self.itemModel()
        let store = try kind.makeStore(model: model)
        _ = try ObjectContext(store: store.store).importObjects(from: [["id": 1, "name": "One"]], entity: "Item")
        _ = try ObjectContext(store: store.store).importObjects(from: [2], entity: "Item")
        let report = try ObjectContext(store: store.store).importObjects(
            from: [["id": 1], ["id": "2"], ["id": 3], ["id": 4, "note": "not mapped"]], entity: "Item")
        #expect(report.counts(for: "Item") == .init(inserted: 2, unchanged: 2))
        #expect(report.diagnostics.map(\.code) == [.placeholderCreated])
        #expect(report.diagnostics.map { $0.path?.description ?? "-" } == ["$[2]"])
        #expect(
            try Self.rows(store, "Item", model)
                == [
                    #"id=1 name="One" rating=2.5"#, "id=2 name=nil rating=nil placeholder", "id=3 name=nil rating=nil placeholder",
                    "id=4 name=nil rating=2.5",
                ])
    }

    /// An entity that maps no property but its identity: its identity-only objects are
    /// references too (placeholders when new), so that its exported placeholders import back
    /// as placeholders; a key no property maps makes a full object of it, as a nested object does.
    @Test(arguments: StoreKind.allCases)
    func anEntityOfOnlyItsIdentityIsFullWithAnUnmappedKey(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription(name: "Tag", attributes: [GraphFixture.attribute("name", .string, key: "name")], userInfo: ["identityAttributes": "name"])
        ])
        let store = try kind.makeStore(model: model)
        let report = try ObjectContext(store: store.store).importObjects(from: [["name": "swift"], ["name": "sql", "source": "api"]], entity: "Tag")
        #expect(report.counts(for: "Tag") == .init(inserted: 2))
        #expect(report.diagnostics.map(\.code) == [.placeholderCreated])
        #expect(try Self.rows(store, "Tag", model) == [#"name="swift" placeholder"#, #"name="sql""#])
    }

    /// Any other mapped key makes a full object, `null` included: it completes a placeholder
    /// (with the model's defaults for the keys it leaves out), or inserts a new object.
    @Test(arguments: StoreKind.allCases)
    func anyOtherMappedKeyMakesAFullObject(kind: StoreKind) throws {
        let model = try Self.itemModel()
        let store = try kind.makeStore(model: model)
        _ = try ObjectContext(store: store.store).importObjects(from: [1], entity: "Item")
        let report = try ObjectContext(store: store.store).importObjects(
            from: [["id": 1, "name": nil], ["id": 2, "rating": nil]],
            entity: "Item")
        #expect(report.counts(for: "Item") == .init(inserted: 1, updated: 1))
        #expect(try Self.rows(store, "Item", model) == ["id=1 name=nil rating=2.5", "id=2 name=nil rating=nil"])
    }

    /// Only the top level: a nested `{"id": 7}` is a full object (its name stays nil, it is
    /// no placeholder), and so is an element keyed by `keyAttribute` (`{"9": {}}`).
    @Test(arguments: StoreKind.allCases)
    func nestedObjectsAndKeyedElementsAreFullObjects(kind: StoreKind) throws {
        let model = try GraphFixture.grootModel()
        let store = try kind.makeStore(model: model)
        _ = try ObjectContext(store: store.store).importObjects(from: [["id": 1, "publisher": ["id": 7]]], entity: "Character")
        var options = ImportOptions()
        options.keyAttribute = "id"
        let keyed = try ObjectContext(store: store.store).importObjects(from: ["9": [:]], entity: "Publisher", options: options)
        #expect(keyed.counts(for: "Publisher") == .init(inserted: 1))
        #expect(keyed.diagnostics.isEmpty)
        #expect(try Self.rows(store, "Publisher", model) == ["id=7 name=nil", "id=9 name=nil"])
    }

    /// Top-level placeholders export as objects of their identity attributes: nested key
    /// paths rebuild nested objects (`{"account": {"login": "ada"}}`), a composite identity
    /// gives both attributes; exported into the same store every object is unchanged, into an
    /// empty one they are the same placeholders (`RoundTripRuleTests.roundTrip`).
    @Test(arguments: StoreKind.allCases)
    func placeholdersExportAsIdentityObjectsAndRoundTrip(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Repo", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [GraphFixture.relationship("owner", "Account", inverse: "repos", key: "owner")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Account",
                attributes: [
                    GraphFixture.attribute("login", .string, key: "account.login"),
                    GraphFixture.attribute("name", .string, key: "account.name"),
                ],
                relationships: [GraphFixture.relationship("repos", "Repo", inverse: "owner", toMany: true)],
                userInfo: ["identityAttributes": "login"]),
            EntityDescription(
                name: "Card",
                attributes: [
                    GraphFixture.attribute("suit", .string, key: "suit"),
                    GraphFixture.attribute("rank", .integer16, key: "rank"),
                    GraphFixture.attribute("face", .string, key: "face"),
                ],
                userInfo: ["identityAttributes": "suit,rank"]),
        ])
        let accounts = try RoundTripRuleTests.roundTrip(
            model, [["id": 1, "owner": "ada"], ["id": 2, "owner": ["account": ["login": "bob", "name": "Bob"]]]],
            entity: "Repo", exporting: ["Repo", "Account"], kind: kind)
        #expect(accounts["Account"] == [["account": ["login": "ada"]], ["account": ["login": "bob", "name": "Bob"]]])
        #expect(accounts["Repo"] == [["id": 1, "owner": "ada"], ["id": 2, "owner": ["account": ["login": "bob", "name": "Bob"]]]])
        let cards = try RoundTripRuleTests.roundTrip(
            model, [["suit": "hearts", "rank": 1], ["suit": "spades", "rank": 2, "face": "2"]],
            entity: "Card", exporting: ["Card"], kind: kind)
        #expect(cards["Card"] == [["suit": "hearts", "rank": 1], ["suit": "spades", "rank": 2, "face": "2"]])
        let store = try kind.makeStore(model: model)
        _ = try ObjectContext(store: store.store).importObjects(from: [["suit": "hearts", "rank": 1]], entity: "Card")
        #expect(try Self.rows(store, "Card", model) == [#"suit="hearts" rank=1 face=nil placeholder"#])
    }

    /// The streamed export writes a top-level placeholder as the same object, and
    /// `placeholders = .exclude` leaves it out.
    @Test(arguments: StoreKind.allCases)
    func streamedExportsWriteTheSameObjects(kind: StoreKind) throws {
        let model = try GraphFixture.grootModel()
        let store = try kind.makeStore(model: model)
        _ = try ObjectContext(store: store.store).importObjects(
            from: [["id": 1, "publisher": 7], ["id": 2, "publisher": ["id": 8, "name": "Eight"]]],
            entity: "Character")
        var text = Data()
        try ObjectExporter(context: ObjectContext(store: store.store)).write(ObjectFetchRequest(entity: "Publisher"), as: .lines) { text.append($0) }
        #expect(String(decoding: text, as: UTF8.self) == "{\"id\":7}\n{\"id\":8,\"name\":\"Eight\"}\n")
        var options = ExportOptions()
        options.placeholders = .exclude
        text = Data()
        try ObjectExporter(context: ObjectContext(store: store.store), options: options)
            .write(ObjectFetchRequest(entity: "Publisher"), as: .array(.compact)) { text.append($0) }
        #expect(String(decoding: text, as: UTF8.self) == "[{\"id\":8,\"name\":\"Eight\"}]\n")
    }
}
