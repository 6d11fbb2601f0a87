import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisCLI
@testable import TrellisModelFile

@Suite struct ModelCommandTests {
    static let fixtures = "Tests/Fixtures/coredata/"

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-model-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    // MARK: - show

    @Test func showSummarisesACoreDataModel() {
        let result = trellis("model", "show", Self.fixtures + "Characters.xcdatamodeld")
        #expect(
            result
                == CommandResult(
                    status: 0,
                    stdout: """
                        model: Tests/Fixtures/coredata/Characters.xcdatamodeld (Core Data, version Characters)
                        3 entities, 7 attributes, 4 relationships

                        entity Character
                          identity: identifier (uniquing)
                          attribute identifier: integer64, required, default 0, key path id, transformer GrootTests.Transformer
                          attribute name: string, key path name
                          attribute realName: string, key path real_name
                          relationship powers: to-many ordered Power, inverse characters, key path powers
                          relationship publisher: to-one Publisher, inverse characters, key path publisher

                        entity Power
                          identity: identifier (uniquing)
                          attribute identifier: integer64, required, default 0, key path id, transformer GrootTests.Transformer
                          attribute name: string, key path name
                          relationship characters: to-many Character, inverse powers, not mapped

                        entity Publisher
                          identity: identifier (uniquing)
                          attribute identifier: integer64, required, default 0, key path id, transformer GrootTests.Transformer
                          attribute name: string, key path name
                          relationship characters: to-many Character, inverse publisher, not mapped

                        names:
                          value transformer GrootTests.Transformer: not bound (entity Character, attribute identifier; entity Power, attribute identifier; entity Publisher, attribute identifier)

                        """, stderr: ""))
    }

    @Test func showMarksBoundNamesAndInheritance() {
        let result = trellis("model", "show", Self.fixtures + "Vehicles.xcdatamodeld", "--bindings", Self.fixtures + "vehicles-bindings.json")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("entity Bike (parent Vehicle)"))
        #expect(lines.contains("entity Vehicle (abstract; sub-entities Bike, Car)"))
        #expect(lines.contains("  entity mapper: VehicleMapper"))
        #expect(lines.contains("  attribute hasBell: boolean, required, default true, key path has_bell"))
        #expect(lines.contains("  relationship vehicles: to-many Vehicle, inverse garage, delete rule cascade, key path vehicles"))
        #expect(lines.last == "  entity mapper VehicleMapper: bound (entity Vehicle)")
    }

    @Test func showPrintsDatesFloatsAndWarnings() {
        let result = trellis("model", "show", Self.fixtures + "Everything.xcdatamodel")
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  attribute createdAt: date, default 2001-01-01T00:00:00Z, not mapped"))
        #expect(lines.contains("  attribute ratio: float, default 0.1, not mapped"))
        #expect(lines.contains("  attribute count64: integer64, default 9007199254740993, not mapped"))
        #expect(lines.contains("  relationship children: to-many Item, inverse parent, delete rule deny, at least 1, at most 10, not mapped"))
        #expect(
            lines.suffix(3) == [
                "warnings:",
                "  line 6: entity Item, property cache: attribute type 'Undefined' has no stored form; the attribute is skipped (kept for writing)",
                "  line 16: entity Item, property objectRef: attribute type 'Object ID' has no stored form; the attribute is skipped (kept for writing)",
            ])
    }

    @Test func showSummarisesAJSONModelAlike() {
        let result = trellis("model", "show", "Examples/twitter/model.json")
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            Array(lines.prefix(5)) == [
                "model: Examples/twitter/model.json (Trellis JSON model)", "version label: 1",
                "3 entities, 22 attributes, 8 relationships", "", "entity Status",
            ])
        #expect(lines.contains("  attribute createdAt: date, key path created_at, transformer TwitterDate"))
        #expect(
            lines.suffix(3) == [
                "names:",
                "  value transformer TwitterDate: bound (entity Status, attribute createdAt; "
                    + "entity User, attribute createdAt)", "",
            ])
    }

    @Test func showReadsAnExplicitVersion() {
        let result = trellis("model", "show", Self.fixtures + "Library.xcdatamodeld", "--version", "Library")
        #expect(result.status == 0)
        #expect(
            result.stdout.hasPrefix(
                "model: Tests/Fixtures/coredata/Library.xcdatamodeld (Core Data, version Library)\n"
                    + "1 entity, 2 attributes, 0 relationships\n"))
        let current = trellis("model", "show", Self.fixtures + "Library.xcdatamodeld")
        #expect(
            current.stdout.hasPrefix(
                "model: Tests/Fixtures/coredata/Library.xcdatamodeld (Core Data, version Library 2)\n"
                    + "version label: 2\n2 entities, 5 attributes, 2 relationships\n"))
    }

    // MARK: - convert

    @Test func convertsCoreDataToJSONOnStandardOutput() throws {
        let result = trellis("model", "convert", Self.fixtures + "Cards.xcdatamodeld")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let file = try ModelFile.read(data: Data(result.stdout.utf8))
        let original = try CoreDataModelReader.read(from: Fixtures.url("coredata/Cards.xcdatamodeld")).model
        #expect(file.model.entities == original.entities)
        #expect(result.stdout.hasPrefix("{\n  \"format\": \"trellis-model\",\n"))
    }

    @Test func convertsThroughJSONAndBackToABundle() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.url("coredata/Vehicles.xcdatamodeld").path
        let bindings = Fixtures.url("coredata/vehicles-bindings.json").path

        let toJSON = trellis(arguments: ["model", "convert", input, "--bindings", bindings, "-o", "vehicles.json"], in: directory)
        #expect(toJSON == CommandResult(status: 0, stdout: "wrote vehicles.json: 4 entities, 5 attributes, 2 relationships\n", stderr: ""))
        // The JSON model file carries the bindings, so it loads on its own.
        let json = try ModelLoader.load(url: directory.appendingPathComponent("vehicles.json"))
        #expect(json.bindingDeclarations.entityMappers["VehicleMapper"]?.keyPath == "type")

        let back = trellis(arguments: ["model", "convert", "vehicles.json", "-o", "Vehicles.xcdatamodeld"], in: directory)
        #expect(
            back
                == CommandResult(
                    status: 0, stdout: "wrote Vehicles.xcdatamodeld: 4 entities, 5 attributes, 2 relationships\n",
                    stderr:
                        "warning: a Core Data model has no bindings section; keep the bindings in a file and pass it with --bindings when using the converted model\n"
                ))
        let text = String(
            decoding: try Data(contentsOf: directory.appendingPathComponent("Vehicles.xcdatamodeld/Vehicles.xcdatamodel/contents")), as: UTF8.self)
        #expect(text == String(decoding: try Fixtures.data("coredata/Vehicles.xcdatamodeld/Vehicles.xcdatamodel/contents"), as: UTF8.self))
    }

    @Test func convertsJSONToCoreDataByDefaultNamedAfterTheInput() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(
            #"{"format": "trellis-model", "formatVersion": 1, "entities": [{"name": "Note", "attributes": [{"name": "text", "type": "string"}]}]}"#
                .utf8
        ).write(to: directory.appendingPathComponent("notes.json"))
        let result = trellis(arguments: ["model", "convert", "notes.json"], in: directory)
        #expect(result == CommandResult(status: 0, stdout: "wrote notes.xcdatamodeld: 1 entity, 1 attribute, 0 relationships\n", stderr: ""))
        let read = try CoreDataModelReader.read(from: directory.appendingPathComponent("notes.xcdatamodeld"))
        #expect(read.versionName == "notes")
        #expect(read.model.entities == [EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string)])])

        let xml = trellis(arguments: ["model", "convert", "notes.json", "--to", "xcdatamodel", "-o", "-"], in: directory)
        #expect(xml.status == 0)
        #expect(xml.stdout.contains(#"    <entity name="Note" representedClassName="Note" syncable="YES" codeGenerationType="class">"#))
    }

    /// A conversion carries unbound names over and says which they are; the converted
    /// model loads once a bindings file gives them.
    @Test func unboundNamesAreConvertedWithAWarning() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = trellis(
            arguments: ["model", "convert", Fixtures.url("coredata/Vehicles.xcdatamodeld").path, "-o", "v.json"],
            in: directory)
        #expect(result.status == 0)
        #expect(result.stdout == "wrote v.json: 4 entities, 5 attributes, 2 relationships\n")
        #expect(
            result.stderr == "warning: \(Fixtures.url("coredata/Vehicles.xcdatamodeld").path): a name the model uses is not bound: "
                + "entity mapper 'VehicleMapper' (entity Vehicle). The model uses value transformers: none; entity mappers: VehicleMapper; "
                + "dictionary transformers: none. Bound: none. Built-in value transformers: "
                + BindingDeclarations.listing(BindingDeclarations.builtInTransformerNames) + ". "
                + "The converted model names them too: give their bindings with --bindings wherever it is used.\n")

        let show = ["model", "show", "v.json"]
        #expect(
            trellis(arguments: show, in: directory).stderr
                == "error: v.json: $.entities[3].entityMapper: entity mapper 'VehicleMapper' is not bound; "
                + "the model uses entity mappers: VehicleMapper; bound in \"bindings.entityMappers\": none\n")
        let bound = trellis(arguments: show + ["--bindings", Fixtures.url("coredata/vehicles-bindings.json").path], in: directory)
        #expect(bound.status == 0)
        #expect(bound.stdout.contains("entity mapper VehicleMapper"))

        // With the bindings, the JSON model carries them and nothing is reported.
        let withBindings = trellis(
            arguments: [
                "model", "convert", Fixtures.url("coredata/Vehicles.xcdatamodeld").path, "-o", "b.json",
                "--bindings", Fixtures.url("coredata/vehicles-bindings.json").path,
            ], in: directory)
        #expect(withBindings.status == 0)
        #expect(withBindings.stderr == "")
        #expect(trellis(arguments: ["model", "show", "b.json"], in: directory).status == 0)
    }

    @Test func malformedCoreDataModelNamesFileLineAndColumn() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = directory.appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data("<model>\n  <entity name=\"A\">\n</model>\n".utf8).write(to: version.appendingPathComponent("contents"))
        let result = trellis(arguments: ["model", "show", "Broken.xcdatamodel"], in: directory)
        #expect(
            result
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: Broken.xcdatamodel/contents:3:9: Opening and ending tag mismatch: entity line 2 and model near '</model>'\n"))
    }

    @Test func badBindingsFileIsNamed() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"entityMappers": {"VehicleMapper": {"keyPath": "type"}}}"#.utf8).write(to: directory.appendingPathComponent("b.json"))
        let result = trellis(
            arguments: ["model", "show", Fixtures.url("coredata/Vehicles.xcdatamodeld").path, "--bindings", "b.json"],
            in: directory)
        #expect(result.status == 1)
        #expect(result.stderr == "error: b.json: $.entityMappers.VehicleMapper: an entity mapper needs \"entities\" (value → entity name)\n")
    }

    // MARK: - Other commands take Core Data models too

    @Test func schemaAcceptsACoreDataModel() throws {
        let result = trellis("schema", "--model", Self.fixtures + "Cards.xcdatamodeld")
        // The model loads (whatever the schema step says, it is not about the model file).
        #expect(!result.stderr.contains("Cards.xcdatamodeld"))
        #expect(!result.stderr.contains("JSON"))

        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = directory.appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data("<model>\n  <entity name=\"A\">\n</model>\n".utf8).write(to: version.appendingPathComponent("contents"))
        let broken = trellis(arguments: ["schema", "--model", "Broken.xcdatamodel"], in: directory)
        #expect(
            broken
                == CommandResult(
                    status: 1, stdout: "",
                    stderr: "error: Broken.xcdatamodel/contents:3:9: Opening and ending tag mismatch: entity line 2 and model near '</model>'\n"))
    }

    @Test func importAndExportTakeABindingsFile() {
        let model = Self.fixtures + "Vehicles.xcdatamodeld"
        let unbound =
            "error: Tests/Fixtures/coredata/Vehicles.xcdatamodeld: a name the model uses is not bound: "
            + "entity mapper 'VehicleMapper' (entity Vehicle)."
        for arguments in [
            ["export", "--model", model, "--entity", "Car"],
            ["import", Self.fixtures + "vehicles-bindings.json", "--model", model, "--entity", "Vehicle"],
        ] {
            let without = trellis(arguments: arguments)
            #expect(without.status == 1)
            #expect(without.stderr.hasPrefix(unbound), "\(arguments)")
            let with = trellis(arguments: arguments + ["--bindings", Self.fixtures + "vehicles-bindings.json"])
            #expect(!with.stderr.contains("Vehicles.xcdatamodeld"), "\(arguments): \(with.stderr)")
        }
    }

    /// The tables do not depend on what the names do: `schema` needs no bindings, and gives
    /// the same SQL with them.
    @Test func schemaNeedsNoBindings() {
        let model = Self.fixtures + "Vehicles.xcdatamodeld"
        let without = trellis("schema", "--model", model)
        #expect(without.status == 0)
        #expect(without.stderr == "")
        #expect(without.stdout.contains("CREATE TABLE \"Vehicle\" ("))
        #expect(trellis("schema", "--model", model, "--bindings", Self.fixtures + "vehicles-bindings.json") == without)
    }

    // MARK: - Usage

    struct UsageCase: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var stderr: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let convertUsage =
        "usage: trellis model convert <input> [--to <format>] [-o <output>] [--bindings <file>] [--version <name>]\n"
        + "  See 'trellis model convert --help' for more information.\n"

    static let usageCases = [
        UsageCase(
            arguments: ["model", "frob"],
            stderr: "error: unknown subcommand 'frob' of 'trellis model'; expected one of: convert, infer, show\n"
                + "usage: trellis model <subcommand> [options]\n  See 'trellis model --help' for more information.\n"),
        UsageCase(
            arguments: ["model", "shwo"],
            stderr: "error: unknown subcommand 'shwo' of 'trellis model'; did you mean 'show'?\n"
                + "usage: trellis model <subcommand> [options]\n  See 'trellis model --help' for more information.\n"),
        UsageCase(arguments: ["model", "convert"], stderr: "error: missing expected argument '<input>'\n" + convertUsage),
        UsageCase(
            arguments: ["model", "convert", "m.json", "--to", "yaml"],
            stderr: "error: invalid value 'yaml' for '--to'; expected one of: json, xcdatamodel\n" + convertUsage),
        UsageCase(
            arguments: ["model", "convert", Fixtures.url("coredata/Cards.xcdatamodeld").path, "--to", "xcdatamodel", "-o", "out.json"],
            stderr: "error: a Core Data model is written to a .xcdatamodeld or .xcdatamodel path, not 'out.json'\n" + convertUsage),
        UsageCase(
            arguments: ["model", "convert", Fixtures.url("coredata/Cards.xcdatamodeld").path, "-o", "out.txt"],
            stderr: "error: cannot tell the output format from 'out.txt': use a .json, .xcdatamodeld or .xcdatamodel path, or --to\n"
                + convertUsage),
    ]

    @Test(arguments: usageCases)
    func badUsageExits64(_ test: UsageCase) {
        #expect(trellis(arguments: test.arguments) == CommandResult(status: 64, stdout: "", stderr: test.stderr))
    }

    @Test func helpDescribesTheSubcommands() {
        let result = trellis("model", "convert", "--help")
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: Convert a model between the Trellis JSON format and a Core Data model.\n"))
        #expect(result.stdout.contains("USAGE: trellis model convert <input> [--to <format>] [-o <output>] [--bindings <file>] [--version <name>]\n"))
        #expect(
            trellis("help", "model").stdout.hasPrefix(
                "OVERVIEW: Convert a model between Trellis JSON and Core Data, infer one from\nsamples, or summarise it.\n"))
    }
}
