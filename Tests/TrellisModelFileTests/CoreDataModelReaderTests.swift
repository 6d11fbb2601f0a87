import Foundation
import Testing
import Trellis
@testable import TrellisModelFile
import TrellisTestSupport

@Suite struct CoreDataModelReaderTests {
    static func read(_ fixture: String, version: String? = nil) throws -> CoreDataModel {
        try CoreDataModelReader.read(from: Fixtures.url("coredata/" + fixture), version: version)
    }

    // MARK: - The Groot test model

    @Test func readsGrootCharacterModel() throws {
        let read = try Self.read("Characters.xcdatamodeld")
        let model = read.model
        #expect(model.entities.map(\.name) == ["Character", "Power", "Publisher"])
        #expect(read.warnings.isEmpty)
        #expect(read.versionName == "Characters")
        #expect(read.versionNames == ["Characters"])
        #expect(model.versionLabel == "Characters")

        let character = try #require(model.entity(named: "Character"))
        #expect(character.attributes.map(\.name) == ["identifier", "name", "realName"])
        #expect(character.identityAttributes.map(\.name) == ["identifier"])
        #expect(character.identityStrategy == .unique)
        let identifier = try #require(character.attribute(named: "identifier"))
        #expect(identifier.type == .integer64)
        #expect(identifier.isOptional == false)
        #expect(identifier.defaultValue == .integer(0))
        #expect(identifier.userInfo == ["JSONKeyPath": "id", "JSONTransformerName": "GrootTests.Transformer"])
        #expect(character.attribute(named: "realName")?.userInfo == ["JSONKeyPath": "real_name"])
        #expect(character.attribute(named: "realName")?.isOptional == true)

        let powers = try #require(character.relationship(named: "powers"))
        #expect(powers == RelationshipDescription(name: "powers", destinationEntity: "Power", inverseName: "characters",
                                                  isToMany: true, isOrdered: true, deleteRule: .nullify, isOptional: true,
                                                  userInfo: ["JSONKeyPath": "powers"]))
        let publisher = try #require(character.relationship(named: "publisher"))
        #expect(publisher == RelationshipDescription(name: "publisher", destinationEntity: "Publisher", inverseName: "characters",
                                                     userInfo: ["JSONKeyPath": "publisher"]))
        // Xcode's defaults (representedClassName = name, syncable, codeGenerationType class) leave no settings behind.
        #expect(character.userInfo == ["identityAttributes": "identifier"])
        #expect(model.entity(named: "Power")?.relationship(named: "characters")?.inverseName == "powers")
        #expect(model.entity(named: "Publisher")?.relationship(named: "characters")?.userInfo == [:])
    }

    @Test func readsCompositeIdentityAndDefaults() throws {
        let model = try Self.read("Cards.xcdatamodeld").model
        let card = try #require(model.entity(named: "Card"))
        #expect(card.identityAttributes.map(\.name) == ["suit", "rank"])
        #expect(card.identityStrategy == .composite)
        #expect(card.attribute(named: "rank")?.type == .integer16)
        #expect(card.attribute(named: "rank")?.defaultValue == .integer(1))
        #expect(card.attribute(named: "rank")?.userInfo == ["JSONKeyPath": "rank", "coreData.minValueString": "1",
                                                            "coreData.maxValueString": "13"])
        #expect(card.attribute(named: "suit")?.defaultValue == .string("spades"))
        #expect(card.attribute(named: "numberOfPlays")?.type == .integer32)
        #expect(card.attribute(named: "numberOfPlays")?.jsonKeyPathText == "stats.plays")
        #expect(card.declaration.userInfo[CoreDataSettings.elementsKey]
                == #"<uniquenessConstraints><uniquenessConstraint><constraint value="suit"/><constraint value="rank"/></uniquenessConstraint></uniquenessConstraints>"#)

        let deck = try #require(model.entity(named: "Deck"))
        #expect(deck.attribute(named: "createdAt")?.defaultValue == .date(Date(timeIntervalSince1970: 1_577_836_800)))
        #expect(deck.attribute(named: "price")?.defaultValue == .decimal(Decimal(string: "9.99")!))
        let cards = try #require(deck.relationship(named: "cards"))
        #expect(cards.isToMany && cards.isOrdered)
        #expect(cards.deleteRule == .cascade)
        #expect(cards.minCount == 0)
        #expect(cards.maxCount == 52)
        #expect(cards.userInfo == ["JSONKeyPath": "cards"])
    }

    @Test func readsAbstractParentWithEntityMapper() throws {
        let model = try Self.read("Vehicles.xcdatamodeld").model
        let vehicle = try #require(model.entity(named: "Vehicle"))
        #expect(vehicle.isAbstract)
        #expect(vehicle.subentityNames == ["Bike", "Car"])
        #expect(vehicle.entityMapperName == "VehicleMapper")
        let car = try #require(model.entity(named: "Car"))
        #expect(car.declaration.parentName == "Vehicle")
        #expect(car.isAbstract == false)
        #expect(car.attributes.map(\.name) == ["identifier", "wheels", "doors"])
        #expect(car.relationships.map(\.name) == ["garage"])
        #expect(car.identityAttributes.map(\.name) == ["identifier"])
        #expect(car.entityMapperName == "VehicleMapper")
        #expect(model.entity(named: "Bike")?.attribute(named: "hasBell")?.defaultValue == .bool(true))
        #expect(model.entity(named: "Garage")?.relationship(named: "vehicles")?.destinationEntity == "Vehicle")
        #expect(model.entity("Bike", isKindOf: "Vehicle"))
    }

    // MARK: - Versions

    @Test func readsCurrentVersionFromXCCurrentVersion() throws {
        let read = try Self.read("Library.xcdatamodeld")
        #expect(read.versionName == "Library 2")
        #expect(read.versionNames == ["Library", "Library 2"])
        #expect(read.model.versionLabel == "2")  // userDefinedModelVersionIdentifier wins over the version name
        #expect(read.model.entities.map(\.name) == ["Author", "Book"])
        #expect(read.model.entity(named: "Book")?.attribute(named: "isbn")?.userInfo
                == ["JSONKeyPath": "isbn", "coreData.elementID": "isbn13"])
    }

    @Test(arguments: ["Library", "Library.xcdatamodel"])
    func readsAnExplicitVersion(version: String) throws {
        let read = try Self.read("Library.xcdatamodeld", version: version)
        #expect(read.versionName == "Library")
        #expect(read.model.versionLabel == "Library")
        #expect(read.model.entities.map(\.name) == ["Book"])
        #expect(read.model.entity(named: "Book")?.attributes.map(\.name) == ["identifier", "title"])
    }

    @Test func readsASingleVersionDirectoryAndAContentsFile() throws {
        let fromDirectory = try Self.read("Library.xcdatamodeld/Library 2.xcdatamodel")
        #expect(fromDirectory.versionName == "Library 2")
        #expect(fromDirectory.model.entities.map(\.name) == ["Author", "Book"])
        let fromFile = try Self.read("Library.xcdatamodeld/Library.xcdatamodel/contents")
        #expect(fromFile.versionName == nil)
        #expect(fromFile.model.entities.map(\.name) == ["Book"])
    }

    @Test func unknownVersionListsTheVersions() throws {
        let error = try #require(throws: CoreDataModelError.self) { try Self.read("Library.xcdatamodeld", version: "Library 3") }
        #expect(error.code == .unknownVersion)
        #expect(error.message == "no version 'Library 3' in the bundle; versions: Library, Library 2")
    }

    @Test func severalVersionsWithoutCurrentVersionIsAnError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-cd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Library.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        for version in ["Library.xcdatamodel", "Library 2.xcdatamodel"] {
            try FileManager.default.copyItem(at: Fixtures.url("coredata/Library.xcdatamodeld/" + version),
                                             to: bundle.appendingPathComponent(version))
        }
        let error = try #require(throws: CoreDataModelError.self) { try CoreDataModelReader.read(from: bundle) }
        #expect(error.code == .missingCurrentVersion)
        #expect(error.message.hasSuffix("choose one of: Library, Library 2"))
        // An explicit version still works.
        #expect(try CoreDataModelReader.read(from: bundle, version: "Library 2").model.entities.count == 2)
    }

    @Test func missingFileIsReadFailed() throws {
        let error = try #require(throws: CoreDataModelError.self) { try Self.read("Nope.xcdatamodeld") }
        #expect(error.code == .readFailed)
        #expect(error.message == "no such file or directory")
    }
}
