import Foundation
import Testing
import TrellisTestSupport

@testable import TrellisCLI
@testable import TrellisModelFile

/// Errors in a `--bindings` file name that file and the path inside it, whatever the
/// model's format and whichever command loads it.
@Suite struct BindingsFileTests {
    static let characters = Fixtures.url("coredata/Characters.xcdatamodeld").path
    static let vehicles = Fixtures.url("coredata/Vehicles.xcdatamodeld").path

    /// A scratch directory with `b.json` holding `bindings`.
    static func directory(bindings: String) throws -> URL {
        let directory = try ModelCommandTests.temporaryDirectory()
        try Data(bindings.utf8).write(to: directory.appendingPathComponent("b.json"))
        return directory
    }

    @Test func aTransformerAliasThatIsNotABuiltInNamesTheBindingsFile() throws {
        let directory = try Self.directory(bindings: #"{"transformers":{"GrootTests.Transformer":"nope"}}"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = trellis(arguments: ["schema", "--model", Self.characters, "--bindings", "b.json"], in: directory)
        #expect(
            result
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: #"error: b.json: $.transformers["GrootTests.Transformer"]: "#
                        + "'nope' is not a built-in value transformer; built-ins: "
                        + BindingDeclarations.listing(BindingDeclarations.builtInTransformerNames) + "\n"))

        // With a JSON model file too: the entry is the bindings file's, not the model's.
        let json = trellis(
            arguments: [
                "schema", "--model", Fixtures.repositoryRoot().appendingPathComponent("Examples/twitter/model.json").path,
                "--bindings", "b.json",
            ], in: directory)
        #expect(json.stderr == result.stderr)
    }

    @Test func anEntityMapperNamingAnUnknownEntityNamesTheBindingsFile() throws {
        let directory = try Self.directory(bindings: #"{"entityMappers":{"X":{"keyPath":"t","entities":{"a":"Nope"}}}}"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = trellis(arguments: ["schema", "--model", Self.characters, "--bindings", "b.json"], in: directory)
        #expect(
            result
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: b.json: $.entityMappers.X.entities.a: "
                        + "unknown entity 'Nope'; the model has: Character, Power, Publisher\n"))
    }

    /// Garage is an entity of the model, but not a Vehicle: the importer would refuse it
    /// at the first car; loading the model already does, in every command.
    @Test(arguments: [
        ["schema", "--model", vehicles],
        ["model", "show", vehicles],
        ["model", "convert", vehicles],
        ["export", "--model", vehicles, "--entity", "Car"],
        ["import", "cars.json", "--model", vehicles, "--entity", "Vehicle"],
    ])
    func anEntityMapperPickingAnEntityOutsideTheMappedOneIsReportedOnLoad(_ arguments: [String]) throws {
        let directory = try Self.directory(bindings: #"{"entityMappers":{"VehicleMapper":{"keyPath":"type","entities":{"car":"Garage","bike":"Bike"}}}}"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"[{"id": 1, "type": "bike"}]"#.utf8).write(to: directory.appendingPathComponent("cars.json"))
        let result = trellis(arguments: arguments + ["--bindings", "b.json"], in: directory)
        #expect(
            result
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: b.json: $.entityMappers.VehicleMapper.entities.car: "
                        + "'Garage' is not Vehicle or one of its sub-entities (entity Vehicle uses entity mapper 'VehicleMapper'); "
                        + "allowed: Bike, Car, Vehicle\n"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("trellis.sqlite").path))
    }

    /// A JSON model file's own section is reported in the model file; a bindings file that
    /// overrides the faulty mapper replaces it.
    @Test func aModelFilesOwnMapperIsReportedInTheModelFileUnlessOverridden() throws {
        let directory = try ModelCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(
            """
            {"format": "trellis-model", "formatVersion": 1, "entities": [
              {"name": "Vehicle", "abstract": true, "entityMapper": "M", "attributes": [{"name": "id", "type": "integer64"}]},
              {"name": "Car", "parent": "Vehicle"}, {"name": "Garage"}],
             "bindings": {"entityMappers": {"M": {"keyPath": "type", "entities": {"car": "Car"}, "default": "Garage"}}}}
            """.utf8
        ).write(to: directory.appendingPathComponent("model.json"))
        try Data(#"{"entityMappers": {"M": {"keyPath": "type", "entities": {"car": "Car"}}}}"#.utf8)
            .write(to: directory.appendingPathComponent("b.json"))
        let own = trellis(arguments: ["schema", "--model", "model.json"], in: directory)
        #expect(
            own
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: model.json: $.bindings.entityMappers.M.default: "
                        + "'Garage' is not Vehicle or one of its sub-entities (entity Vehicle uses entity mapper 'M'); allowed: Car, Vehicle\n"))
        let overridden = trellis(arguments: ["schema", "--model", "model.json", "--bindings", "b.json"], in: directory)
        #expect(overridden.status == 0)
        #expect(overridden.stderr == "")
    }
}
