import Foundation
import Testing
import TrellisTestSupport

/// Importing objects of an entity without identity attributes into a store that holds some
/// already inserts them all again (docs/ModelFormat.md, "Objects without identity
/// attributes"); `trellis import` says so on standard error, once per import.
@Suite struct IdentityWarningEndToEndTests {
    static let model = """
        {"format": "trellis-model", "formatVersion": 1, "entities": [
          {"name": "Reading", "attributes": [
             {"name": "sensor", "type": "string", "jsonKeyPath": "sensor"},
             {"name": "value", "type": "double", "jsonKeyPath": "value"}]}]}
        """
    static let payload = #"[{"sensor":"a","value":1.5},{"sensor":"b","value":2},null,{"sensor":"a","value":3}]"#

    static func workspace() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try Data(model.utf8).write(to: directory.url.appendingPathComponent("model.json"))
        try Data(payload.utf8).write(to: directory.url.appendingPathComponent("readings.json"))
        return directory
    }

    @Test func aSecondImportWithoutIdentityWarnsOnce() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let arguments = ["import", "readings.json", "--model", "model.json", "--entity", "Reading"]
        let first = try TrellisProcess.run(arguments, in: directory.url)
        #expect(first.status == 0, "\(first)")
        #expect(first.stderr == "")  // a new store: nothing was there to find

        let second = try TrellisProcess.run(arguments, in: directory.url)
        #expect(second.status == 0)
        #expect(
            second.stderr == "warning: Reading has no identity attributes; 3 objects were inserted again (the store already held "
                + "3 Readings) — add \"identityAttributes\" to Reading in the model to merge them by identity "
                + "(docs/ModelFormat.md, \"Objects without identity attributes\")\n")
        #expect(second.stdout.contains("Reading         3         0          0         0\n"))
        #expect(try SQLiteShell.query(directory.url.appendingPathComponent("trellis.sqlite"), "select count(*) from Reading") == "6")

        let dryRun = try TrellisProcess.run(arguments + ["--dry-run"], in: directory.url)
        #expect(dryRun.status == 0)
        #expect(
            dryRun.stderr.hasPrefix(
                "warning: Reading has no identity attributes; 3 objects would be inserted again "
                    + "(the store already held 6 Readings)"))
    }

    /// Without --model the fix goes through the recorded model.
    @Test func withoutAModelTheWarningSaysHowToAddAnIdentity() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        // (Inference refuses the payload's null element: this one has none.)
        try Data(#"[{"sensor":"a","value":1.5},{"sensor":"b","value":2},{"sensor":"a","value":3}]"#.utf8)
            .write(to: directory.url.appendingPathComponent("readings.json"))
        let seeded = try TrellisProcess.run(["import", "readings.json", "--model", "model.json", "--entity", "Reading"], in: directory.url)
        #expect(seeded.status == 0)
        let again = try TrellisProcess.run(["import", "readings.json", "--entity", "Reading"], in: directory.url)
        #expect(again.status == 0, "\(again)")
        #expect(
            again.stderr == "warning: Reading has no identity attributes; 3 objects were inserted again (the store already held "
                + "3 Readings) — write the recorded model out with 'trellis model convert trellis.sqlite -o model.json', add "
                + "\"identityAttributes\" to Reading there, and import with --model model.json to merge them by identity "
                + "(docs/ModelFormat.md, \"Objects without identity attributes\")\n")
    }

    /// An entity with identity attributes never warns.
    @Test func anEntityWithIdentityDoesNotWarn() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let identified = Self.model.replacingOccurrences(of: #"{"name": "Reading", "#, with: #"{"name": "Reading", "identityAttributes": ["sensor"], "#)
        try Data(identified.utf8).write(to: directory.url.appendingPathComponent("model.json"))
        for _ in 0..<2 {
            let result = try TrellisProcess.run(["import", "readings.json", "--model", "model.json", "--entity", "Reading"], in: directory.url)
            #expect(result.status == 0)
            #expect(result.stderr == "")
        }
    }
}
