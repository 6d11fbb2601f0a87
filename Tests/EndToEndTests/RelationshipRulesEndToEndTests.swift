import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// `trellis import` refuses payloads that break a relationship rule of the model (issue 13,
/// point 3) or resolve an identity across a hierarchy wrongly (point 2): exit 1, the path,
/// entity and relationship on standard error, the store file byte for byte as it was.
@Suite struct RelationshipRulesEndToEndTests {
    static let model = """
        {"format": "trellis-model", "formatVersion": 1, "version": "1", "entities": [
          {"name": "Team", "identityAttributes": ["id"],
           "attributes": [{"name": "id", "type": "integer64", "optional": false, "jsonKeyPath": "id"}],
           "relationships": [
             {"name": "players", "destination": "Player", "inverse": "team", "toMany": true, "maxCount": 2, "jsonKeyPath": "players"},
             {"name": "captain", "destination": "Player", "inverse": "captainOf", "optional": false, "jsonKeyPath": "captain"}]},
          {"name": "Player", "identityAttributes": ["id"],
           "attributes": [{"name": "id", "type": "integer64", "optional": false, "jsonKeyPath": "id"}],
           "relationships": [
             {"name": "team", "destination": "Team", "inverse": "players"},
             {"name": "captainOf", "destination": "Team", "inverse": "captain", "toMany": true}]}]}
        """

    static let refusals: [(payload: String, stderr: String)] = [
        (
            #"[{"id":1,"players":[1,2,3],"captain":1}]"#,
            "error: payload.json: $[0].players: Team.players has 3 destinations; at most 2 allowed (maxCount)\n"
        ),
        (
            #"[{"id":2,"players":[1]}]"#,
            "error: payload.json: $[0].captain: Team.captain is required; the object has no destination at 'captain'\n"
        ),
        (
            #"[{"id":1,"captain":null}]"#,
            "error: payload.json: $[0].captain: Team.captain is required; the object has no destination at 'captain'\n"
        ),
    ]

    @Test(arguments: refusals)
    func aBrokenRuleExitsOneAndLeavesTheStore(payload: String, stderr: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(Self.model.utf8).write(to: directory.url.appendingPathComponent("model.json"))
        try Data(#"[{"id":1,"players":[1,2],"captain":1}]"#.utf8).write(to: directory.url.appendingPathComponent("valid.json"))
        try Data(payload.utf8).write(to: directory.url.appendingPathComponent("payload.json"))
        let arguments = ["--model", "model.json", "--entity", "Team", "--store", "teams.sqlite"]
        let seeded = try TrellisProcess.run(["import", "valid.json"] + arguments, in: directory.url)
        #expect(seeded.status == 0)
        let store = directory.url.appendingPathComponent("teams.sqlite")
        let before = try Data(contentsOf: store)
        let result = try TrellisProcess.run(["import", "payload.json"] + arguments, in: directory.url)
        #expect(result == TrellisProcess.Result(status: 1, stdout: "", stderr: stderr))
        #expect(try Data(contentsOf: store) == before)
        let wal = store.path + "-wal"
        let walBytes = FileManager.default.fileExists(atPath: wal) ? try Data(contentsOf: URL(fileURLWithPath: wal)) : Data()
        #expect(walBytes.isEmpty)
    }
}
