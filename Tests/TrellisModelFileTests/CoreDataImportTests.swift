import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisTestSupport

/// Core Data models drive imports exactly as models built in code do: Groot's scenarios on
/// the Xcode fixtures, with the names bound by bindings files.
@Suite struct CoreDataImportTests {
    static func context(_ fixture: String, bindings: String? = nil) throws -> (ObjectContext, LoadedModel) {
        let loaded = try ModelLoader.load(
            url: Fixtures.url("coredata/" + fixture),
            bindingsURL: bindings.map { Fixtures.url("coredata/" + $0) })
        return (ObjectContext(store: InMemoryStore(model: loaded.model), bindings: loaded.bindings), loaded)
    }

    @Test func grootCharactersWithStringIdentifiersIntoInteger64() throws {
        let (context, _) = try Self.context("Characters.xcdatamodeld", bindings: "characters-bindings.json")
        let report = try context.importObjects(
            from: [
                [
                    "id": "1699", "name": "Batman", "real_name": "Bruce Wayne",
                    "powers": [["id": "4", "name": "Agility"], ["id": "9", "name": "Insanely Rich"]],
                    "publisher": ["id": "10", "name": "DC Comics"],
                ]
            ], entity: "Character")
        #expect(report.counts(for: "Character") == .init(inserted: 1))
        #expect(report.counts(for: "Power") == .init(inserted: 2))
        #expect(report.counts(for: "Publisher") == .init(inserted: 1))

        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        #expect(batman["name"] == .string("Batman"))
        #expect(batman["realName"] == .string("Bruce Wayne"))
        #expect(try batman.destinations(forKey: "powers").map { $0["identifier"] } == [.integer(4), .integer(9)])
        #expect(try batman.destination(forKey: "publisher")?["name"] == .string("DC Comics"))

        // A second payload merges by identity: "1699" and 1699 are the same Integer 64.
        let update = try context.importObjects(from: [["id": 1699, "real_name": "Bruce Thomas Wayne"]], entity: "Character")
        #expect(update.counts(for: "Character") == .init(updated: 1))
        #expect(try context.fetch("Character", id: .integer(1699))?["realName"] == .string("Bruce Thomas Wayne"))
    }

    @Test func entityMapperFromABindingsFilePicksTheSubEntity() throws {
        let (context, _) = try Self.context("Vehicles.xcdatamodeld", bindings: "vehicles-bindings.json")
        let report = try context.importObjects(
            from: [
                [
                    "name": "Home",
                    "vehicles": [["id": 1, "type": "car", "wheels": 4], ["id": 2, "type": "bike", "wheels": 2, "has_bell": false]],
                ]
            ], entity: "Garage")
        #expect(report.counts(for: "Car") == .init(inserted: 1))
        #expect(report.counts(for: "Bike") == .init(inserted: 1))
        let garage = try #require(try context.fetch("Garage", id: .string("Home")))
        let vehicles = try garage.destinations(forKey: "vehicles")
        #expect(vehicles.map(\.entity.name).sorted() == ["Bike", "Car"])
        let car = try #require(vehicles.first { $0.entity.name == "Car" })
        #expect(car["doors"] == .integer(4))  // the Core Data default (defaultValueString="4")
        #expect(car["wheels"] == .integer(4))
        #expect(vehicles.first { $0.entity.name == "Bike" }?["hasBell"] == .bool(false))
    }

    @Test func compositeIdentityAndDefaultsFromTheCardsModel() throws {
        let (context, _) = try Self.context("Cards.xcdatamodeld")
        _ = try context.importObjects(from: [["id": "classic", "cards": [["suit": "hearts", "rank": 1]]]], entity: "Deck")
        let second = try context.importObjects(
            from: [
                ["suit": "hearts", "rank": 1, "stats": ["plays": 3]],
                // (`deck_id: null` beside the identity: an object of the identity only is a
                // reference, a placeholder without the model's defaults; docs/Semantics.md.)
                ["suit": "clubs", "rank": 12, "deck_id": nil],
            ], entity: "Card")
        #expect(second.counts(for: "Card") == .init(inserted: 1, updated: 1))
        let ace = try #require(try context.fetch("Card", identity: [.string("hearts"), .integer(1)]))
        #expect(ace["numberOfPlays"] == .integer(3))
        #expect(try ace.destination(forKey: "deck")?["identifier"] == .string("classic"))
        #expect(try context.fetch("Card", identity: [.string("clubs"), .integer(12)])?["numberOfPlays"] == .integer(0))
        let deck = try #require(try context.fetch("Deck", id: .string("classic")))
        #expect(deck["createdAt"] == .date(Date(timeIntervalSince1970: 1_577_836_800)))  // 599529600 s after 2001
        #expect(deck["price"] == .decimal(Decimal(string: "9.99")!))
    }

    /// Xcode gives every new Integer attribute `defaultValueString="0"`, so Core Data models
    /// have defaults on their identity attributes. A new object must be indexed under the
    /// payload's identity only, never under its default one: otherwise a later object of the
    /// same payload whose identity equals the defaults merges into the first (a regression
    /// test for a bug the Core Data fixtures found in the importer).
    @Test func newObjectsWithDefaultedIdentityStayDistinct() throws {
        let (cards, _) = try Self.context("Cards.xcdatamodeld")  // suit default "spades", rank default 1
        let cardReport = try cards.importObjects(from: [["suit": "hearts", "rank": 1], ["suit": "spades", "rank": 1]], entity: "Card")
        #expect(cardReport.counts(for: "Card") == .init(inserted: 2))
        #expect(
            try cards.fetch("Card").map { $0["suit"] }.sorted { $0?.description ?? "" < $1?.description ?? "" }
                == [.string("hearts"), .string("spades")])

        let (powers, _) = try Self.context("Characters.xcdatamodeld", bindings: "characters-bindings.json")  // identifier default 0
        let powerReport = try powers.importObjects(from: [["id": "5", "name": "Flight"], ["id": "0", "name": "Zero"]], entity: "Power")
        #expect(powerReport.counts(for: "Power") == .init(inserted: 2))
        #expect(try powers.fetch("Power", id: .integer(0))?["name"] == .string("Zero"))
        #expect(try powers.fetch("Power", id: .integer(5))?["name"] == .string("Flight"))
    }
}
