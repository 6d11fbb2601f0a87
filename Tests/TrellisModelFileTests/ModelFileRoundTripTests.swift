import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisModelFile

@Suite struct ModelFileRoundTripTests {
    /// A model using every key of the format.
    static let full = #"""
        {
          "format": "trellis-model",
          "formatVersion": 1,
          "version": "7",
          "keyConvention": "snakeCase",
          "entities": [
            {
              "name": "Vehicle",
              "abstract": true,
              "identityAttributes": "id",
              "entityMapper": "VehicleMapper",
              "dictionaryTransformer": "LegacyID",
              "userInfo": {"note": "kept verbatim"},
              "attributes": [
                {"name": "id", "type": "integer64", "optional": false, "jsonKeyPath": "id"},
                {"name": "label", "type": "string", "default": "unnamed", "userInfo": {"JSONKeyPath": "meta.label"}},
                {"name": "small", "type": "integer16", "default": -3},
                {"name": "medium", "type": "integer32", "default": 70000},
                {"name": "price", "type": "decimal", "default": 19.99},
                {"name": "ratio", "type": "double", "default": 0.1},
                {"name": "weight", "type": "float", "default": 1.5},
                {"name": "active", "type": "boolean", "default": true},
                {"name": "built", "type": "date", "default": "2014-08-31T00:29:15Z", "transformer": "TwitterDate"},
                {"name": "blob", "type": "binary", "default": "AAEC"},
                {"name": "uuid", "type": "uuid", "default": "6ba7b810-9dad-11d1-80b4-00c04fd430c8"},
                {"name": "link", "type": "uri", "default": "https://example.com/a"},
                {"name": "extra", "type": "json", "default": {"a": [1, null]}},
                {"name": "count", "type": "integer64", "transformer": "StringToInteger"}
              ],
              "relationships": [
                {"name": "owner", "destination": "Person", "inverse": "vehicles", "deleteRule": "deny", "optional": false,
                 "jsonKeyPath": "owner_id"},
                {"name": "parts", "destination": "Part", "toMany": true, "ordered": true, "deleteRule": "cascade",
                 "minCount": 1, "maxCount": 9, "jsonKeyPath": "parts", "mergePolicy": "append", "userInfo": {"x": "y"}}
              ]
            },
            {"name": "Car", "parent": "Vehicle", "attributes": [{"name": "doors", "type": "integer16"}]},
            {"name": "Bike", "parent": "Vehicle"},
            {
              "name": "Person",
              "identityAttributes": ["name", "born"],
              "attributes": [{"name": "name", "type": "string"}, {"name": "born", "type": "integer32"}],
              "relationships": [{"name": "vehicles", "destination": "Vehicle", "inverse": "owner", "toMany": true,
                                 "deleteRule": "noAction"}]
            },
            {"name": "Part", "attributes": [{"name": "serial", "type": "string"}]}
          ],
          "bindings": {
            "transformers": {
              "TwitterDate": {"dateFormat": "EEE MMM dd HH:mm:ss Z yyyy"},
              "StringToInteger": "integer-from-string"
            },
            "entityMappers": {"VehicleMapper": {"keyPath": "type", "entities": {"car": "Car", "bike": "Bike"}, "default": "Car"}},
            "dictionaryTransformers": {
              "LegacyID": {"copy": {"id_str": "identifier"}, "rename": {"legacy_id": "id"}, "set": {"kind": "vehicle"},
                           "remove": ["debug", "meta.secret"]}
            }
          }
        }
        """#

    static func read(_ text: String) throws -> ModelFile {
        try ModelFile.read(data: Data(text.utf8))
    }

    @Test func fullModelRoundTripsThroughTheWriter() throws {
        let first = try Self.read(Self.full)
        let written = first.data()
        let second = try ModelFile.read(data: written)
        #expect(second.model.entities == first.model.entities)
        #expect(second.model.keyConvention == .snakeCase)
        #expect(second.model.versionLabel == "7")
        #expect(second.bindingDeclarations == first.bindingDeclarations)
        // Writing again gives the same bytes (the writer is deterministic).
        #expect(second.data() == written)
    }

    @Test func convenienceKeysBecomeGrootAnnotations() throws {
        let file = try Self.read(Self.full)
        let vehicle = try #require(file.model.entities.first)
        #expect(
            vehicle.userInfo == [
                "identityAttributes": "id", "entityMapperName": "VehicleMapper",
                "JSONDictionaryTransformerName": "LegacyID", "note": "kept verbatim",
            ])
        #expect(vehicle.attributes[0].userInfo == ["JSONKeyPath": "id"])
        #expect(vehicle.attributes[1].userInfo == ["JSONKeyPath": "meta.label"])
        #expect(vehicle.attributes[8].userInfo == ["JSONTransformerName": "TwitterDate"])
        #expect(vehicle.relationships[1].userInfo == ["JSONKeyPath": "parts", "JSONMergePolicy": "append", "x": "y"])
        #expect(file.model.entities[3].userInfo == ["identityAttributes": "name,born"])
        let person = try file.model.requireEntity("Person")
        #expect(person.identityAttributes.map(\.name) == ["name", "born"])
    }

    @Test func propertiesAndDefaultsAreDecoded() throws {
        let file = try Self.read(Self.full)
        let vehicle = try #require(file.model.entities.first)
        #expect(vehicle.isAbstract)
        #expect(file.model.entities[1].parentName == "Vehicle")
        let defaults = vehicle.attributes.map(\.defaultValue)
        #expect(defaults[1] == .string("unnamed"))
        #expect(defaults[2] == .integer(-3))
        #expect(defaults[3] == .integer(70000))
        #expect(defaults[4] == .decimal(Decimal(string: "19.99")!))
        #expect(defaults[5] == .double(0.1))
        #expect(defaults[6] == .double(1.5))
        #expect(defaults[7] == .bool(true))
        #expect(defaults[8] == .date(Date(timeIntervalSince1970: 1_409_444_955)))
        #expect(defaults[9] == .binary(Data([0, 1, 2])))
        #expect(defaults[10] == .uuid(UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!))
        #expect(defaults[11] == .uri(URL(string: "https://example.com/a")!))
        #expect(defaults[12] == .json(["a": [1, nil]]))
        #expect(vehicle.attributes[0].isOptional == false)
        let parts = vehicle.relationships[1]
        #expect(parts.isToMany && parts.isOrdered)
        #expect(parts.deleteRule == .cascade)
        #expect(parts.minCount == 1 && parts.maxCount == 9)
        #expect(parts.mergePolicy == .append)
        #expect(vehicle.relationships[0].isOptional == false)
        #expect(vehicle.relationships[0].deleteRule == .deny)
        #expect(vehicle.relationships[0].inverseName == "vehicles")
    }

    @Test func writerUsesConvenienceKeysAndOmitsDefaults() throws {
        let file = try Self.read(
            #"""
            {"format": "trellis-model", "formatVersion": 1, "entities": [
              {"name": "Tag", "userInfo": {"identityAttributes": "text"},
               "attributes": [{"name": "text", "type": "string", "optional": true, "userInfo": {"JSONKeyPath": "text"}}]}]}
            """#)
        let text = String(decoding: file.data(), as: UTF8.self)
        #expect(
            text == """
                {
                  "format": "trellis-model",
                  "formatVersion": 1,
                  "entities": [
                    {
                      "name": "Tag",
                      "identityAttributes": ["text"],
                      "attributes": [
                        {
                          "name": "text",
                          "type": "string",
                          "jsonKeyPath": "text"
                        }
                      ]
                    }
                  ]
                }

                """)
    }

    @Test func bindingsGiveNamesMeaning() throws {
        let file = try Self.read(Self.full)
        let date = try file.bindings.transformers.transformer(named: "TwitterDate")
        #expect(try date.forward("Sun Aug 31 00:29:15 +0000 2014") == .date(Date(timeIntervalSince1970: 1_409_444_955)))
        #expect(try date.reverse?(.date(Date(timeIntervalSince1970: 1_409_444_955))) == "Sun Aug 31 00:29:15 +0000 2014")
        let error = try #require(throws: TransformError.self) { try date.forward("2014-08-31") }
        #expect(error.code == .invalidValue)
        #expect(error.transformerName == "TwitterDate")
        #expect(error.value == "2014-08-31")
        #expect(error.message == "not a date in the format EEE MMM dd HH:mm:ss Z yyyy")

        let mapper = try #require(file.bindings.entityMappers["VehicleMapper"])
        #expect(try mapper.map(["type": "bike"]) == "Bike")
        #expect(try mapper.map(["type": "boat"]) == "Car")
        #expect(try mapper.map([:]) == "Car")

        let legacy = try #require(file.bindings.dictionaryTransformers["LegacyID"])
        let out = try legacy.transform(["legacy_id": 7, "id_str": "7", "debug": true, "meta": ["secret": 1, "keep": 2]])
        #expect(JSONValue.object(out) == ["id": 7, "id_str": "7", "identifier": "7", "kind": "vehicle", "meta": ["keep": 2]])
    }

    @Test func removeDeletesArrayElementsAndMembersInsideThem() throws {
        let file = try Self.read(
            #"""
            {"format": "trellis-model", "formatVersion": 1, "entities": [{"name": "Item", "dictionaryTransformer": "Trim"}],
             "bindings": {"dictionaryTransformers": {"Trim": {"remove": ["tags.0", "items.1.secret", "items.9", "name.0"]}}}}
            """#)
        let trim = try #require(file.bindings.dictionaryTransformers["Trim"])
        let out = try trim.transform(["tags": ["a", "b"], "items": [["secret": 1], ["secret": 2, "keep": 3]], "name": "x"])
        #expect(JSONValue.object(out) == ["tags": ["b"], "items": [["secret": 1], ["keep": 3]], "name": "x"])
    }

    @Test func writeNamesTheFileAndSaysWhyItFailed() throws {
        let file = try Self.read(#"{"format": "trellis-model", "formatVersion": 1, "entities": []}"#)
        let directory = FileManager.default.temporaryDirectory
        let error = try #require(throws: ModelFileError.self) { try file.write(to: directory) }
        #expect(error.code == .writeFailed)
        #expect(error.description == "\(directory.relativePath): cannot write: it is a directory")
    }

    @Test func exampleModelsRead() throws {
        for example in ["twitter", "citm"] {
            let url = Fixtures.repositoryRoot().appendingPathComponent("Examples/\(example)/model.json")
            let file = try ModelFile.read(from: url)
            let again = try ModelFile.read(data: file.data())
            #expect(again.model.entities == file.model.entities)
        }
        let twitter = try ModelFile.read(from: Fixtures.repositoryRoot().appendingPathComponent("Examples/twitter/model.json"))
        #expect(twitter.model.entities.map(\.name) == ["Status", "User", "Hashtag"])
    }
}
