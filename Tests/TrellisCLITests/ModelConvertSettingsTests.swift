import Foundation
import Testing
import Trellis
import TrellisModelFile

@testable import TrellisCLI

/// Model-level settings of the Trellis JSON format that a Core Data model has no place
/// for: converting carries them (the key convention, as key paths) or says they are lost.
@Suite struct ModelConvertSettingsTests {
    static let snakeCase = """
        {"format":"trellis-model","formatVersion":1,"keyConvention":"snakeCase","entities":[
         {"name":"User","identityAttributes":["userID"],"attributes":[{"name":"userID","type":"integer64"},{"name":"screenName","type":"string"},
          {"name":"bio","type":"string","jsonKeyPath":"profile.bio"}],
          "relationships":[{"name":"bestFriend","destination":"User"}]}]}
        """

    @Test func keyConventionBecomesTheKeyPathOfEveryUnmappedProperty() throws {
        let directory = try ModelCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(Self.snakeCase.utf8).write(to: directory.appendingPathComponent("kc.json"))

        let result = trellis(arguments: ["model", "convert", "kc.json", "-o", "KC.xcdatamodeld"], in: directory)
        #expect(result == CommandResult(status: 0, stdout: "wrote KC.xcdatamodeld: 1 entity, 3 attributes, 1 relationship\n", stderr: ""))
        let converted = try ModelLoader.load(url: directory.appendingPathComponent("KC.xcdatamodeld"))
        let user = try converted.model.requireEntity("User")
        #expect(converted.model.keyConvention == KeyConvention.none)
        #expect(user.attributes.map(\.jsonKeyPathText) == ["user_id", "screen_name", "profile.bio"])
        #expect(user.relationships.map(\.jsonKeyPathText) == ["best_friend"])

        // The converted model imports the same payload the JSON model does.
        try Data(#"[{"user_id": 7, "screen_name": "ada", "profile": {"bio": "hi"}, "best_friend": 7}]"#.utf8)
            .write(to: directory.appendingPathComponent("users.json"))
        for model in ["kc.json", "KC.xcdatamodeld"] {
            let store = "\(model).sqlite"
            #expect(
                trellis(
                    arguments: [
                        "import", "users.json", "--model", model, "--entity", "User", "--store", store,
                        "--report", "json",
                    ], in: directory
                ).status == 0)
            let export = trellis(arguments: ["export", "--model", model, "--entity", "User", "--store", store], in: directory)
            #expect(
                export
                    == CommandResult(
                        status: 0, stdout: #"[{"user_id":7,"screen_name":"ada","profile":{"bio":"hi"},"best_friend":7}]"# + "\n", stderr: ""),
                "\(model)")
        }

        // Back to JSON: the key paths are explicit, the mapping the same.
        let back = trellis(arguments: ["model", "convert", "KC.xcdatamodeld", "-o", "back.json"], in: directory)
        #expect(back.status == 0)
        let json = try ModelLoader.load(url: directory.appendingPathComponent("back.json"))
        #expect(
            try json.model.requireEntity("User").attributeMappings.map(\.keyPath)
                == (try ModelLoader.load(url: directory.appendingPathComponent("kc.json")).model.requireEntity("User")
                    .attributeMappings.map(\.keyPath)))
    }

    @Test func versionLabelEqualToTheVersionNameIsReportedLost() throws {
        let directory = try ModelCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"format": "trellis-model", "formatVersion": 1, "version": "Notes", "entities": [{"name": "Note"}]}"#.utf8)
            .write(to: directory.appendingPathComponent("notes.json"))
        let result = trellis(arguments: ["model", "convert", "notes.json", "-o", "Notes.xcdatamodeld"], in: directory)
        #expect(
            result
                == CommandResult(
                    status: 0, stdout: "wrote Notes.xcdatamodeld: 1 entity, 0 attributes, 0 relationships\n",
                    stderr: "warning: the version label 'Notes' is lost: it equals the name of the version written, which a Core Data "
                        + "model records as its label only in a bundle with several versions\n"))
        #expect(try ModelLoader.load(url: directory.appendingPathComponent("Notes.xcdatamodeld")).model.versionLabel == nil)

        // Any other label is kept (as the user-defined version identifier), without a word.
        let other = trellis(arguments: ["model", "convert", "notes.json", "-o", "Other.xcdatamodeld"], in: directory)
        #expect(other.stderr == "")
        #expect(try ModelLoader.load(url: directory.appendingPathComponent("Other.xcdatamodeld")).model.versionLabel == "Notes")
    }
}
