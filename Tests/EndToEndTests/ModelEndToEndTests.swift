import Foundation
import Testing
import TrellisTestSupport

/// `trellis model` run as the built binary: Core Data → JSON → Core Data on disk.
@Suite struct ModelEndToEndTests {
    @Test func convertsAnXcodeBundleToJSONAndBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixtures = Fixtures.url("coredata")
        try FileManager.default.copyItem(
            at: fixtures.appendingPathComponent("Vehicles.xcdatamodeld"),
            to: directory.url.appendingPathComponent("Vehicles.xcdatamodeld"))
        try FileManager.default.copyItem(
            at: fixtures.appendingPathComponent("vehicles-bindings.json"),
            to: directory.url.appendingPathComponent("bindings.json"))

        let toJSON = try TrellisProcess.run(
            [
                "model", "convert", "Vehicles.xcdatamodeld", "--bindings", "bindings.json",
                "-o", "vehicles.json",
            ], in: directory.url)
        #expect(
            toJSON
                == TrellisProcess.Result(
                    status: 0, stdout: "wrote vehicles.json: 4 entities, 5 attributes, 2 relationships\n",
                    stderr: ""))
        let back = try TrellisProcess.run(["model", "convert", "vehicles.json", "-o", "Copy.xcdatamodeld"], in: directory.url)
        #expect(back.status == 0)
        #expect(back.stdout == "wrote Copy.xcdatamodeld: 4 entities, 5 attributes, 2 relationships\n")
        let original = try Data(contentsOf: fixtures.appendingPathComponent("Vehicles.xcdatamodeld/Vehicles.xcdatamodel/contents"))
        let copy = try Data(contentsOf: directory.url.appendingPathComponent("Copy.xcdatamodeld/Copy.xcdatamodel/contents"))
        #expect(String(decoding: copy, as: UTF8.self) == String(decoding: original, as: UTF8.self))

        let show = try TrellisProcess.run(["model", "show", "Copy.xcdatamodeld"], in: directory.url)
        #expect(show.status == 0)
        #expect(show.stdout.hasPrefix("model: Copy.xcdatamodeld (Core Data, version Copy)\n4 entities, 5 attributes, 2 relationships\n"))
        #expect(show.stdout.hasSuffix("names:\n  entity mapper VehicleMapper: not bound (entity Vehicle)\n"))
    }

    /// A conversion carries an unbound name over and warns (docs/CLI.md, `trellis model`).
    @Test func unboundNameIsConvertedWithAWarning() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try TrellisProcess.run(["model", "convert", Fixtures.url("coredata/Vehicles.xcdatamodeld").path], in: directory.url)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("{\n  \"format\": \"trellis-model\",\n"))
        #expect(result.stdout.contains("\"entityMapper\": \"VehicleMapper\""))
        #expect(result.stderr.hasPrefix("warning: "))
        #expect(result.stderr.contains("a name the model uses is not bound: entity mapper 'VehicleMapper' (entity Vehicle)."))
    }

    @Test func importsAndExportsThroughTheGrootCoreDataModel() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.copyItem(
            at: Fixtures.url("coredata/Characters.xcdatamodeld"),
            to: directory.url.appendingPathComponent("Characters.xcdatamodeld"))
        try FileManager.default.copyItem(
            at: Fixtures.url("coredata/characters-bindings.json"),
            to: directory.url.appendingPathComponent("bindings.json"))
        try Data(
            #"[{"id": "1699", "name": "Batman", "real_name": "Bruce Wayne", "powers": [{"id": "4", "name": "Agility"}], "publisher": {"id": "10", "name": "DC Comics"}}]"#
                .utf8
        ).write(to: directory.url.appendingPathComponent("batman.json"))
        let model = ["--model", "Characters.xcdatamodeld", "--bindings", "bindings.json"]

        let imported = try TrellisProcess.run(
            ["import", "batman.json", "--entity", "Character", "--report", "json"] + model,
            in: directory.url)
        #expect(imported.status == 0)
        #expect(imported.stderr == "")
        #expect(
            imported.stdout.hasPrefix(
                #"{"entities":{"Character":{"inserted":1,"updated":0,"unchanged":0,"deleted":0},"#
                    + #""Power":{"inserted":1,"updated":0,"unchanged":0,"deleted":0},"Publisher":{"inserted":1,"updated":0,"unchanged":0,"deleted":0}}"#))

        let exported = try TrellisProcess.run(["export", "--entity", "Character", "--relationships", "nested"] + model, in: directory.url)
        #expect(
            exported
                == TrellisProcess.Result(
                    status: 0,
                    stdout:
                        #"[{"id":"1699","name":"Batman","real_name":"Bruce Wayne","powers":[{"id":"4","name":"Agility"}],"publisher":{"id":"10","name":"DC Comics"}}]"#
                        + "\n",
                    stderr: ""))
    }
}
