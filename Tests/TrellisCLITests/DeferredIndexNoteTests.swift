import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisSQLite
import TrellisTestSupport

@testable import TrellisCLI

/// A store left with deferred indexes by a sync run whose process is gone (here forged: the
/// index dropped and the mark written, as a killed run leaves them): a dry run leaves it as it
/// is, the next command that opens it rebuilds the index and says so on stderr, once.
@Suite struct DeferredIndexNoteTests {
    static let model = #"""
        {"format": "trellis-model", "formatVersion": 1, "entities": [
          {"name": "Character", "identityAttributes": "id", "attributes": [
            {"name": "id", "type": "integer64", "jsonKeyPath": "id"}, {"name": "name", "type": "string", "jsonKeyPath": "name"}],
           "relationships": [{"name": "publisher", "destination": "Publisher", "inverse": "characters", "jsonKeyPath": "publisher"}]},
          {"name": "Publisher", "identityAttributes": "id", "attributes": [{"name": "id", "type": "integer64", "jsonKeyPath": "id"}],
           "relationships": [{"name": "characters", "destination": "Character", "inverse": "publisher", "toMany": true}]}]}
        """#

    @Test func theNextCommandRepairsAndSaysSoButADryRunDoesNot() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-note-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.model.write(to: directory.appendingPathComponent("model.json"), atomically: true, encoding: .utf8)
        let characters = (1...30).map { #"{"id": \#($0), "name": "C\#($0)", "publisher": {"id": \#($0 % 3 + 1)}}"# }
        try ("[" + characters.joined(separator: ",") + "]").write(to: directory.appendingPathComponent("characters.json"), atomically: true, encoding: .utf8)
        try #"[{"id": 31, "publisher": {"id": 1}}]"#.write(to: directory.appendingPathComponent("more.json"), atomically: true, encoding: .utf8)
        let imported = trellis("import", "characters.json", "--model", "model.json", "--entity", "Character", "--store", "s.sqlite", in: directory)
        #expect(imported.status == 0 && imported.stderr == "", "\(imported)")

        let storeURL = directory.appendingPathComponent("s.sqlite")
        do {
            let store = try SQLiteStore(path: storeURL.path, model: try ModelFile.read(from: directory.appendingPathComponent("model.json")).model)
            _ = try store.textRows(#"DROP INDEX "Character(publisher)""#)
            _ = try store.textRows(
                #"INSERT INTO trellis_metadata(key, value) VALUES ('deferredIndexes', '[{"name":"Character(publisher)","sql":"CREATE INDEX \"Character(publisher)\" ON \"Character\"(\"publisher\")"}]')"#
            )
        }
        let indexes = "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
        #expect(try SQLiteShell.query(storeURL, indexes) == "Character identity\nPublisher identity")

        let dryRun = trellis("import", "more.json", "--model", "model.json", "--entity", "Character", "--store", "s.sqlite", "--dry-run", in: directory)
        #expect(dryRun.status == 0 && dryRun.stderr == "", "\(dryRun)")
        #expect(try SQLiteShell.query(storeURL, "SELECT count(*) FROM trellis_metadata WHERE key = 'deferredIndexes'") == "1")

        let count = ["count", "--model", "model.json", "--store", "s.sqlite", "--entity", "Character", "--where", "publisher.id == 2"]
        #expect(
            trellis(arguments: count, in: directory)
                == CommandResult(
                    status: 0, stdout: "10\n", stderr: "note: s.sqlite: rebuilt 1 index a sync run left deferred (it was interrupted)\n"))
        #expect(trellis(arguments: count, in: directory) == CommandResult(status: 0, stdout: "10\n", stderr: ""))
        #expect(try SQLiteShell.query(storeURL, indexes) == "Character identity\nCharacter(publisher)\nPublisher identity")
        #expect(try SQLiteShell.query(storeURL, "SELECT count(*) FROM trellis_metadata WHERE key = 'deferredIndexes'") == "0")
    }
}
