import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisModelFile

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
        #expect(model.versionLabel == nil)  // one version, no identifier: unversioned

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
        #expect(
            powers
                == RelationshipDescription(
                    name: "powers", destinationEntity: "Power", inverseName: "characters",
                    isToMany: true, isOrdered: true, deleteRule: .nullify, isOptional: true,
                    userInfo: ["JSONKeyPath": "powers"]))
        let publisher = try #require(character.relationship(named: "publisher"))
        #expect(
            publisher
                == RelationshipDescription(
                    name: "publisher", destinationEntity: "Publisher", inverseName: "characters",
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
        #expect(
            card.attribute(named: "rank")?.userInfo == [
                "JSONKeyPath": "rank", "coreData.minValueString": "1",
                "coreData.maxValueString": "13",
            ])
        #expect(card.attribute(named: "suit")?.defaultValue == .string("spades"))
        #expect(card.attribute(named: "numberOfPlays")?.type == .integer32)
        #expect(card.attribute(named: "numberOfPlays")?.jsonKeyPathText == "stats.plays")
        #expect(
            card.declaration.userInfo[CoreDataSettings.elementsKey]
                == #"<uniquenessConstraints><uniquenessConstraint><constraint value="suit"/><constraint value="rank"/></uniquenessConstraint></uniquenessConstraints>"#
        )

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
        #expect(
            read.model.entity(named: "Book")?.attribute(named: "isbn")?.userInfo
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
            try FileManager.default.copyItem(
                at: Fixtures.url("coredata/Library.xcdatamodeld/" + version),
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

@Suite struct CoreDataEverythingTests {
    static let read = Result { try CoreDataModelReader.read(from: Fixtures.url("coredata/Everything.xcdatamodel")) }

    @Test func mapsEveryAttributeTypeXcodeWrites() throws {
        let item = try #require(try Self.read.get().model.entity(named: "Item"))
        let types = Dictionary(uniqueKeysWithValues: item.attributes.map { ($0.name, $0.type) })
        #expect(
            types == [
                "amount": .decimal, "blob": .binary, "count16": .integer16, "count32": .integer32, "count64": .integer64,
                "createdAt": .date, "displayName": .string, "enabled": .boolean, "homepage": .uri, "identifier": .uuid,
                "location": .json, "ratio": .float, "score": .double, "tags": .json, "title": .string,
            ])
        #expect(item.attribute(named: "cache") == nil)
        #expect(item.attribute(named: "objectRef") == nil)
    }

    @Test func parsesDefaultValuesPerType() throws {
        let item = try #require(try Self.read.get().model.entity(named: "Item"))
        func value(_ name: String) -> AttributeValue? { item.attribute(named: name)?.defaultValue }
        #expect(value("amount") == .decimal(0))
        #expect(value("count16") == .integer(-7))
        #expect(value("count32") == .integer(2_147_483_647))
        #expect(value("count64") == .integer(9_007_199_254_740_993))  // exact, not through Double
        #expect(value("createdAt") == .date(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(value("enabled") == .bool(false))
        #expect(value("ratio") == .double(Double(Float(0.1))))
        #expect(value("score") == .double(0))
        #expect(value("blob") == nil)
        #expect(value("title") == nil)
    }

    @Test func keepsCoreDataSettingsAndElementsInUserInfo() throws {
        let model = try Self.read.get().model
        let item = try #require(model.entity(named: "Item"))
        #expect(item.userInfo["coreData.representedClassName"] == "CDItem")
        #expect(item.userInfo["coreData.codeGenerationType"] == "")
        #expect(item.userInfo["identityAttributes"] == "identifier")
        #expect(
            item.userInfo[CoreDataSettings.elementsKey] == #"<attribute attributeType="Undefined" name="cache" optional="YES" transient="YES"/>"#
                + #"<attribute attributeType="Object ID" name="objectRef" optional="YES" transient="YES"/>"#
                + #"<fetchedProperty name="expensiveSiblings" optional="YES"><fetchRequest entity="Item" name="fetchedPropertyFetchRequest" predicateString="amount &gt; 100"/></fetchedProperty>"#
                + #"<fetchIndex name="byTitleIndex"><fetchIndexElement order="ascending" property="title" type="Binary"/></fetchIndex>"#)
        #expect(item.userInfo[CoreDataSettings.modelElementsKey]?.hasPrefix(#"<composite name="Location"><attribute "#) == true)
        #expect(
            item.userInfo[CoreDataSettings.modelElementsKey]?.hasSuffix(
                #"<fetchRequest entity="Item" name="AllItems" predicateString="TRUEPREDICATE"/>"#
                    + #"<configuration name="Cloud" usedWithCloudKit="YES"><memberEntity name="Item"/><memberEntity name="Owner"/></configuration>"#) == true)

        #expect(item.attribute(named: "blob")?.userInfo == ["coreData.allowsExternalBinaryDataStorage": "YES"])
        #expect(item.attribute(named: "displayName")?.userInfo == ["coreData.transient": "YES"])
        #expect(item.attribute(named: "identifier")?.userInfo == ["coreData.usesScalarValueType": "NO"])
        #expect(item.attribute(named: "identifier")?.isOptional == false)
        #expect(item.attribute(named: "location")?.userInfo == ["coreData.attributeType": "Composite", "coreData.composite": "Location"])
        #expect(item.attribute(named: "score")?.userInfo == ["coreData.minValueString": "0", "coreData.maxValueString": "100"])
        #expect(
            item.attribute(named: "tags")?.userInfo == [
                "JSONKeyPath": "tags", "coreData.valueTransformerName": "NSSecureUnarchiveFromDataTransformer",
                "coreData.customClassName": "[String]",
            ])
        // `syncable` on a property is ignored; entity-escaped text is decoded.
        #expect(
            item.attribute(named: "title")?.userInfo == [
                "JSONKeyPath": "title", "note": "line one\nline two & \"quoted\" <ok>",
                "coreData.indexed": "YES", "coreData.spotlightIndexingEnabled": "YES",
            ])
        #expect(model.entity(named: "Owner")?.userInfo == ["coreData.codeGenerationType": "category"])
        #expect(model.entity(named: "Legacy")?.userInfo == ["coreData.representedClassName": "", "coreData.codeGenerationType": ""])
        #expect(model.entity(named: "Legacy")?.attribute(named: "value")?.userInfo == [:])
    }

    @Test func readsRelationshipSettings() throws {
        let item = try #require(try Self.read.get().model.entity(named: "Item"))
        #expect(
            item.relationship(named: "children")
                == RelationshipDescription(
                    name: "children", destinationEntity: "Item", inverseName: "parent", isToMany: true, deleteRule: .deny,
                    minCount: 1, maxCount: 10))
        #expect(
            item.relationship(named: "owner")
                == RelationshipDescription(
                    name: "owner", destinationEntity: "Owner", deleteRule: .noAction, isOptional: false))
        #expect(item.relationship(named: "parent")?.inverseName == "children")
    }

    @Test func warnsAboutSkippedAttributes() throws {
        #expect(
            try Self.read.get().warnings.map(\.description) == [
                "line 6: entity Item, property cache: attribute type 'Undefined' has no stored form; the attribute is skipped (kept for writing)",
                "line 16: entity Item, property objectRef: attribute type 'Object ID' has no stored form; the attribute is skipped (kept for writing)",
            ])
    }
}
