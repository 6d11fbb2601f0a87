import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisModelFile

@Suite struct CoreDataModelLoaderTests {
    static func fixture(_ path: String) -> URL { Fixtures.url("coredata/" + path) }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-cd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `true` once the standard value transformers (the `transform` branch) are in the registry.
    static let hasStandardTransformers = BindingDeclarations.builtInTransformerNames.contains("integer-from-string")

    // MARK: - Dispatch

    @Test(arguments: [
        ("Model.xcdatamodeld", ModelFileFormat.xcdatamodel),
        ("dir/Model 2.xcdatamodel", .xcdatamodel),
        ("Model.xcdatamodeld/Model.xcdatamodel/contents", .xcdatamodel),
        ("model.json", .json),
        ("Examples/twitter/model", .json),
        ("contents", .json),
    ])
    func formatFollowsThePath(path: String, format: ModelFileFormat) {
        #expect(ModelLoader.format(of: URL(fileURLWithPath: path)) == format)
    }

    // MARK: - Core Data with a bindings file

    @Test func coreDataModelTakesItsBindingsFromABindingsFile() throws {
        let loaded = try ModelLoader.load(
            url: Self.fixture("Vehicles.xcdatamodeld"),
            bindingsURL: Self.fixture("vehicles-bindings.json"))
        #expect(loaded.format == .xcdatamodel)
        #expect(loaded.versionName == "Vehicles")
        #expect(loaded.warnings.isEmpty)
        #expect(loaded.model.entities.map(\.name) == ["Bike", "Car", "Garage", "Vehicle"])
        #expect(
            loaded.bindingDeclarations.entityMappers["VehicleMapper"]
                == EntityMapperDeclaration(keyPath: "type", entities: ["car": "Car", "bike": "Bike"]))
        let mapper = try #require(loaded.bindings.entityMappers["VehicleMapper"])
        #expect(try mapper.map(["type": "bike", "wheels": 2]) == "Bike")
        #expect(try mapper.map(["type": "boat"]) == nil)
    }

    @Test func unboundNamesAreListedWithWhereTheModelUsesThem() throws {
        let error = try #require(throws: ModelFileError.self) {
            try ModelLoader.load(url: Self.fixture("Vehicles.xcdatamodeld"))
        }
        #expect(error.code == .unboundName)
        #expect(error.file == Self.fixture("Vehicles.xcdatamodeld").relativePath)
        #expect(
            error.message == "a name the model uses is not bound: entity mapper 'VehicleMapper' (entity Vehicle). "
                + "The model uses value transformers: none; entity mappers: VehicleMapper; dictionary transformers: none. "
                + "Bound: none. Built-in value transformers: \(BindingDeclarations.listing(BindingDeclarations.builtInTransformerNames)).")
    }

    @Test func everyUnboundTransformerUseIsNamed() throws {
        let error = try #require(throws: ModelFileError.self) {
            try ModelLoader.load(
                url: Self.fixture("Characters.xcdatamodeld"),
                bindings: BindingDeclarations(entityMappers: ["Unused": EntityMapperDeclaration(keyPath: "t", entities: [:])]))
        }
        #expect(error.code == .unboundName)
        #expect(
            error.message == "names the model uses are not bound: "
                + "value transformer 'GrootTests.Transformer' (entity Character, attribute identifier), "
                + "value transformer 'GrootTests.Transformer' (entity Power, attribute identifier), "
                + "value transformer 'GrootTests.Transformer' (entity Publisher, attribute identifier). "
                + "The model uses value transformers: GrootTests.Transformer; entity mappers: none; dictionary transformers: none. "
                + "Bound: Unused. Built-in value transformers: \(BindingDeclarations.listing(BindingDeclarations.builtInTransformerNames)).")
    }

    @Test func entityMapperNamingAnUnknownEntityIsAnError() throws {
        let bindings = BindingDeclarations(entityMappers: [
            "VehicleMapper": EntityMapperDeclaration(keyPath: "type", entities: ["boat": "Boat"])
        ])
        let error = try #require(throws: ModelFileError.self) {
            try ModelLoader.load(url: Self.fixture("Vehicles.xcdatamodeld"), bindings: bindings)
        }
        #expect(error.code == .invalidValue)
        #expect(error.path?.description == "$.entityMappers.VehicleMapper.entities.boat")
        #expect(error.message == "unknown entity 'Boat'; the model has: Bike, Car, Garage, Vehicle")
    }

    @Test func entityMapperPickingAnEntityThatIsNotASubEntityIsAnError() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bindings.json")
        try Data(#"{"entityMappers": {"VehicleMapper": {"keyPath": "type", "entities": {"car": "Car"}, "default": "Garage"}}}"#.utf8)
            .write(to: file)
        let error = try #require(throws: ModelFileError.self) {
            try ModelLoader.load(url: Self.fixture("Vehicles.xcdatamodeld"), bindingsURL: file)
        }
        #expect(error.code == .invalidValue)
        #expect(error.file == file.relativePath)
        #expect(error.path?.description == "$.entityMappers.VehicleMapper.default")
        #expect(
            error.message == "'Garage' is not Vehicle or one of its sub-entities (entity Vehicle uses entity mapper "
                + "'VehicleMapper'); allowed: Bike, Car, Vehicle")
        // Without the name check too (as `trellis schema` and `model show` load).
        let bindings = try ModelLoader.readBindings(from: file)
        #expect(throws: ModelFileError.self) {
            try ModelLoader.load(url: Self.fixture("Vehicles.xcdatamodeld"), bindings: bindings, requiringBoundNames: false)
        }
    }

    @Test func bindingsFileDeclarationsAreCheckedWhenRead() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bindings.json")
        try Data(#"{"dictionaryTransformers": {"D": {"remove": ["a..b"]}}}"#.utf8).write(to: file)
        let error = try #require(throws: ModelFileError.self) { try ModelLoader.readBindings(from: file) }
        #expect(error.code == .invalidValue)
        #expect(error.file == file.relativePath)
        #expect(error.path?.description == "$.dictionaryTransformers.D.remove[0]")
    }

    @Test func bindingsFileErrorsNameTheFileAndPath() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bindings.json")
        try Data(#"{"entityMapper": {}}"#.utf8).write(to: file)
        let error = try #require(throws: ModelFileError.self) { try ModelLoader.readBindings(from: file) }
        #expect(error.code == .unknownKey)
        #expect(error.file == file.relativePath)
        #expect(error.path?.description == "$.entityMapper")

        let missing = try #require(throws: ModelFileError.self) {
            try ModelLoader.readBindings(from: directory.appendingPathComponent("nope.json"))
        }
        #expect(missing.code == .readFailed)
        #expect(missing.message == "no such file")
    }

    @Test func aVersionOfAJSONModelIsAnError() throws {
        let url = Fixtures.repositoryRoot().appendingPathComponent("Examples/twitter/model.json")
        let error = try #require(throws: ModelFileError.self) { try ModelLoader.load(url: url, version: "2") }
        #expect(error.code == .invalidValue)
        #expect(error.message == "version '2' asked for, but only a .xcdatamodeld bundle has versions")
    }

    @Test func currentVersionMissingFromTheBundleIsAnError() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Library.xcdatamodeld")
        try FileManager.default.copyItem(at: Self.fixture("Library.xcdatamodeld"), to: bundle)
        try FileManager.default.removeItem(at: bundle.appendingPathComponent("Library 2.xcdatamodel"))
        let error = try #require(throws: CoreDataModelError.self) { try ModelLoader.load(url: bundle) }
        #expect(error.code == .unknownVersion)
        #expect(error.message == ".xccurrentversion names 'Library 2', which is not in the bundle; versions: Library")
    }

    @Test func coreDataErrorsPassThrough() throws {
        let error = try #require(throws: CoreDataModelError.self) {
            try ModelLoader.load(url: Self.fixture("Library.xcdatamodeld"), version: "Library 9")
        }
        #expect(error.code == .unknownVersion)
        #expect(try ModelLoader.load(url: Self.fixture("Library.xcdatamodeld"), version: "Library").model.entities.count == 1)
    }

    // MARK: - Core Data → Trellis JSON → Core Data

    struct RoundTrip: Sendable, CustomTestStringConvertible {
        var fixture: String
        var bindings: String?
        var testDescription: String { fixture }
    }

    static let roundTrips = [
        RoundTrip(fixture: "Cards.xcdatamodeld"),
        RoundTrip(fixture: "Vehicles.xcdatamodeld", bindings: "vehicles-bindings.json"),
        RoundTrip(fixture: "Library.xcdatamodeld"),
        RoundTrip(fixture: "Everything.xcdatamodel"),
    ]

    @Test(arguments: roundTrips)
    func coreDataThroughJSONAndBackKeepsEverything(_ test: RoundTrip) throws {
        try Self.checkRoundTrip(test)
    }

    @Test(.enabled(if: hasStandardTransformers, "binds GrootTests.Transformer to the built-in integer-from-string"))
    func grootModelThroughJSONAndBackKeepsEverything() throws {
        try Self.checkRoundTrip(RoundTrip(fixture: "Characters.xcdatamodeld", bindings: "characters-bindings.json"))
    }

    /// The Groot model's entities through the JSON format's entity encoder and decoder
    /// (no name checks, so no built-in transformer is needed).
    @Test func grootEntitiesThroughTheJSONEntityFormat() throws {
        let model = try CoreDataModelReader.read(from: Self.fixture("Characters.xcdatamodeld")).model
        for (i, entity) in model.entities.enumerated() {
            let path = JSONPath.root.appending(key: "entities").appending(index: i)
            #expect(try ModelFileDecoder.decodeEntity(ModelFileEncoder.entity(entity), at: path) == entity)
        }
        #expect(ModelFileEncoder.entity(model.entities[0])["identityAttributes"] == ["identifier"])
    }

    static func checkRoundTrip(_ test: RoundTrip) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try ModelLoader.load(url: fixture(test.fixture), bindingsURL: test.bindings.map(fixture))

        // Core Data → Trellis JSON model file.
        let json = directory.appendingPathComponent("model.json")
        try original.modelFile.write(to: json)
        let fromJSON = try ModelLoader.load(url: json)
        #expect(fromJSON.format == .json)
        #expect(fromJSON.model.entities == original.model.entities)  // every entity, property, setting, user-info entry
        #expect(fromJSON.model.versionLabel == original.model.versionLabel)
        #expect(fromJSON.bindingDeclarations == original.bindingDeclarations)

        // → Core Data again: the same model, and the same XML.
        let bundle = directory.appendingPathComponent("Out.xcdatamodeld")
        try CoreDataModelWriter().write(fromJSON.model, to: bundle, versionName: original.versionName)
        let back = try ModelLoader.load(url: bundle, bindings: original.bindingDeclarations)
        #expect(back.model.entities == original.model.entities)
        #expect(back.model.versionLabel == original.model.versionLabel)
        #expect(
            try CoreDataModelWriter().contents(for: back.model, versionName: original.versionName)
                == CoreDataModelWriter().contents(for: original.model, versionName: original.versionName))
    }

    @Test(arguments: ["suit rank", "suit, rank", "suit,rank"])
    func identitySpellingSurvivesJSON(_ spelling: String) throws {
        let xml = """
            <model>
                <entity name="Card" representedClassName="Card" syncable="YES" codeGenerationType="class">
                    <attribute name="rank" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
                    <attribute name="suit" optional="YES" attributeType="String"/>
                    <userInfo>
                        <entry key="identityAttributes" value="\(spelling)"/>
                    </userInfo>
                </entity>
            </model>
            """
        let model = try CoreDataModelReader.read(contents: Data(xml.utf8)).model
        let file = try ModelFile(model: model)
        let back = try ModelFile.read(data: file.data()).model
        #expect(back.entities == model.entities)
        #expect(back.entities[0].userInfo == ["identityAttributes": spelling])
        #expect(back.entity(named: "Card")?.identityAttributes.map(\.name) == ["suit", "rank"])
    }

    @Test func settingsTravelAsUserInfoInTheJSONModelFile() throws {
        let loaded = try ModelLoader.load(url: Self.fixture("Cards.xcdatamodeld"))
        let json = loaded.modelFile.jsonValue
        let card = try #require(json["entities"]?[0])
        #expect(card["name"] == "Card")
        #expect(card["identityAttributes"] == ["suit", "rank"])
        let rank = try #require(card["attributes"]?.arrayValue?.first { $0["name"] == "rank" })
        #expect(rank["type"] == "integer16")
        #expect(rank["default"] == 1)
        #expect(rank["jsonKeyPath"] == "rank")
        #expect(rank["userInfo"] == ["coreData.maxValueString": "13", "coreData.minValueString": "1"])
        #expect(card["userInfo"]?["coreData.elements"]?.stringValue?.hasPrefix("<uniquenessConstraints>") == true)
    }

    // MARK: - Trellis JSON → Core Data

    @Test(arguments: ["twitter", "citm"])
    func exampleModelsThroughCoreDataAndBackAreTheSameJSON(example: String) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = Fixtures.repositoryRoot().appendingPathComponent("Examples/\(example)/model.json")
        let original = try ModelLoader.load(url: url)
        let bundle = directory.appendingPathComponent("\(example).xcdatamodeld")
        try CoreDataModelWriter().write(original.model, to: bundle)
        let back = try ModelLoader.load(url: bundle, bindings: original.bindingDeclarations)
        #expect(back.model.entities == original.model.entities)
        #expect(back.model.versionLabel == original.model.versionLabel)
        #expect(back.modelFile.jsonValue == original.modelFile.jsonValue)
    }

    @Test func jsonModelBecomesACoreDataModelXcodeOpens() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("shop.json")
        try Data(
            """
            {"format": "trellis-model", "formatVersion": 1, "version": "3",
             "entities": [
               {"name": "Order", "identityAttributes": ["id"],
                "attributes": [{"name": "id", "type": "integer64", "optional": false, "jsonKeyPath": "id"},
                               {"name": "placedAt", "type": "date", "default": "2020-01-01T00:00:00Z", "jsonKeyPath": "placed_at"},
                               {"name": "extra", "type": "json", "jsonKeyPath": "extra"}],
                "relationships": [{"name": "lines", "destination": "Line", "inverse": "order", "toMany": true,
                                   "ordered": true, "deleteRule": "cascade", "jsonKeyPath": "lines", "mergePolicy": "append"}]},
               {"name": "Line", "attributes": [{"name": "quantity", "type": "integer32", "default": 1}],
                "relationships": [{"name": "order", "destination": "Order", "inverse": "lines"}]}
             ]}
            """.utf8
        ).write(to: json)
        let loaded = try ModelLoader.load(url: json)
        let bundle = directory.appendingPathComponent("Shop.xcdatamodeld")
        try CoreDataModelWriter().write(loaded.model, to: bundle)
        let text = String(decoding: try Data(contentsOf: bundle.appendingPathComponent("Shop.xcdatamodel/contents")), as: UTF8.self)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains(#"<attribute name="placedAt" optional="YES" attributeType="Date" defaultValueString="599529600" usesScalarValueType="NO">"#))
        #expect(lines.contains(#"<attribute name="extra" optional="YES" attributeType="Transformable">"#))
        #expect(lines.contains(#"<entry key="JSONMergePolicy" value="append"/>"#))
        #expect(lines.contains(#"<entity name="Line" representedClassName="Line" syncable="YES" codeGenerationType="class">"#))
        let back = try ModelLoader.load(url: bundle)
        #expect(back.model.entities == loaded.model.entities)
        #expect(back.model.versionLabel == "3")
    }
}
