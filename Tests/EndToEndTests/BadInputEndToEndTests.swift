import Foundation
import Testing
import Trellis

/// Each bad input exits 1 with a precise message on standard error and leaves the store
/// as it was (a store that did not exist is not created).
@Suite struct BadInputEndToEndTests {
    static let model = "Examples/twitter/model.json"

    static func workspace() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try directory.copyExample("twitter/model.json")
        try directory.copyExample("twitter/twitter.json")
        return directory
    }

    static func importing(_ files: [String], _ extra: [String] = [], in directory: TemporaryDirectory) throws -> TrellisProcess.Result {
        try TrellisProcess.run(["import"] + files + ["--model", model, "--entity", "Status", "--at", "statuses"] + extra,
                               in: directory.url)
    }

    static func exists(_ name: String, in directory: TemporaryDirectory) -> Bool {
        FileManager.default.fileExists(atPath: directory.url.appendingPathComponent(name).path)
    }

    @Test func missingInputFile() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let result = try Self.importing(["nope.json"], in: directory)
        #expect(result == TrellisProcess.Result(status: 1, stdout: "", stderr: "error: nope.json: no such file\n"))
        #expect(!Self.exists("trellis.sqlite", in: directory))
    }

    @Test func malformedJSONNamesFileLineAndColumn() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        try Data("{\"statuses\": [\n  {\"id\": 1},\n  {\"id\": 2,}\n]}\n".utf8).write(to: directory.url.appendingPathComponent("broken.json"))
        let result = try Self.importing(["broken.json"], in: directory)
        #expect(result == TrellisProcess.Result(
            status: 1, stdout: "",
            stderr: "error: broken.json:3:12: expected a string key after ',' (trailing commas are not allowed)\n"))
        #expect(!Self.exists("trellis.sqlite", in: directory))
    }

    @Test func malformedModelNamesFileLineAndColumn() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        try Data("{\"format\": \"trellis-model\" \"formatVersion\": 1}".utf8).write(to: directory.url.appendingPathComponent("bad-model.json"))
        let result = try TrellisProcess.run(["import", "Examples/twitter/twitter.json", "--model", "bad-model.json",
                                             "--entity", "Status"], in: directory.url)
        #expect(result == TrellisProcess.Result(
            status: 1, stdout: "", stderr: "error: bad-model.json:1:28: expected ',' or '}' after object member\n"))
        #expect(!Self.exists("trellis.sqlite", in: directory))
    }

    @Test func storeInADirectoryThatDoesNotExist() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let result = try Self.importing(["Examples/twitter/twitter.json"], ["--store", "missing/trellis.sqlite"], in: directory)
        #expect(result == TrellisProcess.Result(
            status: 1, stdout: "",
            stderr: "error: missing/trellis.sqlite: cannot create the store: directory 'missing' does not exist\n"))
        #expect(!Self.exists("missing", in: directory))
    }

    @Test func storeThatIsNotASQLiteDatabase() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let notes = directory.url.appendingPathComponent("notes.txt")
        let text = Data(String(repeating: "not a database\n", count: 100).utf8)
        try text.write(to: notes)
        let result = try Self.importing(["Examples/twitter/twitter.json"], ["--store", "notes.txt"], in: directory)
        #expect(result == TrellisProcess.Result(
            status: 1, stdout: "", stderr: "error: notes.txt: not a Trellis store: \(notes.path) is not an SQLite database\n"))
        #expect(try Data(contentsOf: notes) == text)
    }

    @Test func readOnlyStore() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try Self.importing(["Examples/twitter/twitter.json"], in: directory).status == 0)
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store.path)
        // Root ignores permissions: make the file immutable instead when possible.
        var immutable = false
        if getuid() == 0 {
            immutable = (try? Self.chattr("+i", store)) == true
            guard immutable else { return }  // no way to make a read-only file here
        }
        defer { if immutable { _ = try? Self.chattr("-i", store) } }
        let before = try Data(contentsOf: store)
        var payload = try JSONReader.parse(Data(contentsOf: directory.url.appendingPathComponent("Examples/twitter/twitter.json")))
        try JSONKeyPath(parsing: "statuses.0.text").set("changed", in: &payload)
        try Data(JSONWriter.bytes(for: payload)).write(to: directory.url.appendingPathComponent("changed.json"))
        let result = try Self.importing(["changed.json"], in: directory)
        #expect(result == TrellisProcess.Result(status: 1, stdout: "", stderr: "error: trellis.sqlite: the store is read-only\n"))
        #expect(try Data(contentsOf: store) == before)
    }

    @Test func allFilesOfOneCommandAreOneTransaction() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        var payload = try JSONReader.parse(Data(contentsOf: directory.url.appendingPathComponent("Examples/twitter/twitter.json")))
        try JSONKeyPath(parsing: "statuses.7.retweet_count").set("many", in: &payload)
        try Data(JSONWriter.bytes(for: payload)).write(to: directory.url.appendingPathComponent("second.json"))
        let result = try Self.importing(["Examples/twitter/twitter.json", "second.json"], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: second.json: $.statuses[7].retweet_count: cannot store \"many\" in Status.retweetCount (integer32)"),
                "\(result.stderr)")
        #expect(!Self.exists("trellis.sqlite", in: directory))
    }

    @Test func standardInputAndDryRun() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let payload = try Data(contentsOf: directory.url.appendingPathComponent("Examples/twitter/twitter.json"))
        let dry = try TrellisProcess.run(["import", "-", "--model", Self.model, "--entity", "Status", "--at", "statuses",
                                          "--dry-run", "--report", "json"], in: directory.url, input: payload)
        #expect(dry.status == 0, "\(dry)")
        #expect(try JSONReader.parse(dry.stdout)["entities"]?["Status"]?["inserted"] == 115)
        #expect(!Self.exists("trellis.sqlite", in: directory))
        let real = try TrellisProcess.run(["import", "-", "--model", Self.model, "--entity", "Status", "--at", "statuses"],
                                          in: directory.url, input: payload)
        #expect(real.status == 0, "\(real)")
        #expect(try SQLite.query(directory.url.appendingPathComponent("trellis.sqlite"), "SELECT count(*) FROM Status") == "115")
    }

    static func chattr(_ flag: String, _ url: URL) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["chattr", flag, url.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
