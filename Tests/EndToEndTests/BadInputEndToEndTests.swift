import Foundation
import Testing
import Trellis
import TrellisTestSupport

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
        try TrellisProcess.run(
            ["import"] + files + ["--model", model, "--entity", "Status", "--at", "statuses"] + extra,
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
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: "error: broken.json:3:12: expected a string key after ',' (trailing commas are not allowed)\n"))
        #expect(!Self.exists("trellis.sqlite", in: directory))
    }

    @Test func malformedModelNamesFileLineAndColumn() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        try Data("{\"format\": \"trellis-model\" \"formatVersion\": 1}".utf8).write(to: directory.url.appendingPathComponent("bad-model.json"))
        let result = try TrellisProcess.run(
            [
                "import", "Examples/twitter/twitter.json", "--model", "bad-model.json",
                "--entity", "Status",
            ], in: directory.url)
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "", stderr: "error: bad-model.json:1:28: expected ',' or '}' after object member\n"))
        #expect(!Self.exists("trellis.sqlite", in: directory))
    }

    /// `--store` paths that cannot be a store file; `$DIR` stands for the workspace's absolute path.
    static let impossibleStores: [(store: String, message: String)] = [
        ("missing/trellis.sqlite", "missing/trellis.sqlite: cannot create the store: directory 'missing' does not exist"),
        ("missing/deeper/trellis.sqlite", "missing/deeper/trellis.sqlite: cannot create the store: directory 'missing/deeper' does not exist"),
        ("$DIR/missing/trellis.sqlite", "$DIR/missing/trellis.sqlite: cannot create the store: directory '$DIR/missing' does not exist"),
        (
            "Examples/twitter/twitter.json/trellis.sqlite",
            "Examples/twitter/twitter.json/trellis.sqlite: cannot create the store: 'Examples/twitter/twitter.json' is not a directory"
        ),
        // Without the check, SQLite created a file named 'missing'.
        ("missing/", "missing/: not a store file: the path ends with '/'"),
        ("Examples/", "Examples/: not a store file: the path ends with '/'"),
    ]

    @Test(arguments: impossibleStores)
    func storeThatCannotBeCreatedIsAnErrorAndNothingIsCreated(_ store: String, _ message: String) throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let path = directory.url.path
        let result = try Self.importing(
            ["Examples/twitter/twitter.json"], ["--store", store.replacingOccurrences(of: "$DIR", with: path)],
            in: directory)
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "", stderr: "error: \(message.replacingOccurrences(of: "$DIR", with: path))\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["Examples"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/Examples").sorted() == ["twitter"])
    }

    /// A `--store` that is a symbolic link to nothing: the import, from a file or standard
    /// input, names the link (it said another process had created the store); nothing is created.
    @Test(arguments: ["nowhere/trellis.sqlite", "target.sqlite", "loop.sqlite"])
    func storeThatIsADanglingSymbolicLink(destination: String) throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        try FileManager.default.createSymbolicLink(
            atPath: directory.url.appendingPathComponent("loop.sqlite").path,
            withDestinationPath: "link.sqlite")
        try FileManager.default.createSymbolicLink(
            atPath: directory.url.appendingPathComponent("link.sqlite").path,
            withDestinationPath: destination)
        let message = "link.sqlite: cannot create the store: it is a symbolic link to '\(destination)', which does not exist"
        // Standard input from the file: the command fails before reading it, and a pipe
        // written to by this process would raise SIGPIPE here.
        let fromFile = ["/bin/sh", "-c", "exec \"$0\" \"$@\" < Examples/twitter/twitter.json"]
        for input in ["-", "Examples/twitter/twitter.json"] {
            let result = try TrellisProcess.run(
                [
                    "import", input, "--model", Self.model, "--entity", "Status", "--at", "statuses",
                    "--store", "link.sqlite",
                ], in: directory.url, launcher: fromFile)
            #expect(result == TrellisProcess.Result(status: 1, stdout: "", stderr: "error: \(message)\n"), "\(input)")
        }
        let export = try TrellisProcess.run(
            ["export", "--model", Self.model, "--entity", "Status", "--store", "link.sqlite"],
            in: directory.url)
        #expect(
            export
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: """
                        error: link.sqlite: no such store: it is a symbolic link to '\(destination)', which does not exist

                        """))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["Examples", "link.sqlite", "loop.sqlite"])
    }

    @Test func exportFromAStoreInADirectoryThatDoesNotExist() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let result = try TrellisProcess.run(
            ["export", "--model", Self.model, "--entity", "Status", "--store", "missing/trellis.sqlite"],
            in: directory.url)
        #expect(result == TrellisProcess.Result(status: 1, stdout: "", stderr: "error: missing/trellis.sqlite: no such store\n"))
        let slash = try TrellisProcess.run(["export", "--model", Self.model, "--entity", "Status", "--store", "Examples/"], in: directory.url)
        #expect(slash == TrellisProcess.Result(status: 1, stdout: "", stderr: "error: Examples/: not a store file: the path ends with '/'\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["Examples"])
    }

    @Test func storeThatIsNotASQLiteDatabase() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let notes = directory.url.appendingPathComponent("notes.txt")
        let text = Data(String(repeating: "not a database\n", count: 100).utf8)
        try text.write(to: notes)
        let result = try Self.importing(["Examples/twitter/twitter.json"], ["--store", "notes.txt"], in: directory)
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "", stderr: "error: notes.txt: not a Trellis store: \(notes.path) is not an SQLite database\n"))
        #expect(try Data(contentsOf: notes) == text)
    }

    /// `twitter.json` with every status's text made 16 kB long: about 1.6 MB to write.
    static func writeLongTexts(to name: String, in directory: TemporaryDirectory) throws {
        var payload = try JSONReader.parse(Data(contentsOf: directory.url.appendingPathComponent("Examples/twitter/twitter.json")))
        let count = try #require(payload["statuses"]?.arrayValue?.count)
        for i in 0..<count {
            try JSONKeyPath(parsing: "statuses.\(i).text").set(.string(String(repeating: "changed ", count: 2000) + "\(i)"), in: &payload)
        }
        try Data(JSONWriter.bytes(for: payload)).write(to: directory.url.appendingPathComponent(name))
    }

    @Test func readOnlyStore() throws {
        let ways = ReadOnlyStore.available()
        #expect(!ways.isEmpty, "no way to make a file read-only for this user here")
        for way in ways {
            let directory = try Self.workspace()
            defer { directory.remove() }
            #expect(try Self.importing(["Examples/twitter/twitter.json"], in: directory).status == 0)
            let store = directory.url.appendingPathComponent("trellis.sqlite")
            let exported = try TrellisProcess.run(["export", "--model", Self.model, "--entity", "Status"], in: directory.url)
            try Self.writeLongTexts(to: "changed.json", in: directory)
            let before = try Data(contentsOf: store)
            try way.protect(store)
            defer { way.release(store) }
            let result = try TrellisProcess.run(
                ["import", "changed.json", "--model", Self.model, "--entity", "Status", "--at", "statuses"],
                in: directory.url, launcher: way.launcher)
            #expect(
                result == TrellisProcess.Result(status: 1, stdout: "", stderr: "error: trellis.sqlite: the store is read-only\n"),
                "\(way)")
            #expect(try Data(contentsOf: store) == before, "\(way)")
            #expect(try SQLiteShell.query(store, "PRAGMA integrity_check") == "ok", "\(way)")
            // Reading a read-only store works.
            let again = try TrellisProcess.run(["export", "--model", Self.model, "--entity", "Status"], in: directory.url, launcher: way.launcher)
            #expect(again == exported, "\(way)")
        }
    }

    /// A store shipped read-only (an app bundle, a read-only mount): a WAL-mode store, in a
    /// directory the reader cannot write, with no `-wal` or `-shm` beside it. SQLite cannot
    /// create its `-shm` there, so the store is opened immutable: export and count read it as
    /// before, no file appears, and an import is refused as read-only (it said "the store is
    /// read-only" to the export, too).
    @Test func aStoreInAReadOnlyDirectoryWithoutItsWALFilesIsRead() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let shipped = directory.url.appendingPathComponent("shipped")
        try FileManager.default.createDirectory(at: shipped, withIntermediateDirectories: true)
        #expect(try Self.importing(["Examples/twitter/twitter.json"], ["--store", "shipped/s.sqlite"], in: directory).status == 0)
        let export = ["export", "--model", Self.model, "--entity", "Status", "--store", "shipped/s.sqlite", "--sort", "id"]
        let exported = try TrellisProcess.run(export, in: directory.url)
        #expect(exported.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: shipped.path) == ["s.sqlite"])
        #expect(try SQLiteShell.query(shipped.appendingPathComponent("s.sqlite"), "PRAGMA journal_mode") == "wal")
        try? FileManager.default.removeItem(atPath: shipped.appendingPathComponent("s.sqlite").path + "-wal")
        try? FileManager.default.removeItem(atPath: shipped.appendingPathComponent("s.sqlite").path + "-shm")
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: shipped.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: shipped.path) }
        // Root writes any directory: the child runs as nobody then.
        let launcher = getuid() == 0 ? ReadOnlyStore.otherUser.launcher : []

        let again = try TrellisProcess.run(export, in: directory.url, launcher: launcher)
        #expect(again == exported)
        let count = try TrellisProcess.run(
            ["count", "--model", Self.model, "--entity", "Status", "--store", "shipped/s.sqlite"], in: directory.url, launcher: launcher)
        #expect(count == TrellisProcess.Result(status: 0, stdout: "115\n", stderr: ""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: shipped.path) == ["s.sqlite"])
        let write = try TrellisProcess.run(
            ["import", "Examples/twitter/twitter.json", "--model", Self.model, "--entity", "Status", "--at", "statuses", "--store", "shipped/s.sqlite"],
            in: directory.url, launcher: launcher)
        #expect(write == TrellisProcess.Result(status: 1, stdout: "", stderr: "error: shipped/s.sqlite: the store is read-only\n"))
    }

    /// A file size limit (`ulimit -f`) makes SQLite's writes fail with `EFBIG` as a full disk
    /// fails them with `ENOSPC` (`trellis` ignores `SIGXFSZ`, which would otherwise kill it
    /// with no message): the import fails, the store keeps exactly its content.
    @Test func diskFullLeavesTheStoreAsItWas() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try Self.importing(["Examples/twitter/twitter.json"], in: directory).status == 0)
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        try Self.writeLongTexts(to: "changed.json", in: directory)
        let before = try Data(contentsOf: store)
        // 100 KiB: the store's WAL cannot take the 1.6 MB of new text.
        let result = try TrellisProcess.run(
            ["import", "changed.json", "--model", Self.model, "--entity", "Status", "--at", "statuses"],
            in: directory.url, launcher: TrellisProcess.fileSizeLimit(blocks: 200))
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "", stderr: "error: trellis.sqlite: cannot write the store: disk I/O error: File too large\n"))
        #expect(try SQLiteShell.query(store, "PRAGMA integrity_check") == "ok")
        #expect(try Data(contentsOf: store) == before)
        #expect(try SQLiteShell.query(store, "SELECT count(*), sum(length(text)) FROM Status") == "115|13308")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
                .filter { $0.hasPrefix(".trellis.sqlite.creating-") } == [])
        // Without the limit the same import works.
        #expect(try Self.importing(["changed.json"], in: directory).status == 0)
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Status WHERE text LIKE 'changed changed %'") == "100")
    }

    @Test func diskFullWhileCreatingTheStoreCreatesNothing() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        try Self.writeLongTexts(to: "changed.json", in: directory)
        let result = try TrellisProcess.run(
            ["import", "changed.json", "--model", Self.model, "--entity", "Status", "--at", "statuses"],
            in: directory.url, launcher: TrellisProcess.fileSizeLimit(blocks: 200))
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "", stderr: "error: trellis.sqlite: cannot write the store: disk I/O error: File too large\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["Examples", "changed.json"])
    }

    /// Each input is opened when its turn comes and closed when read: 200 files import
    /// under a limit of 64 open files (`ulimit -n`), still in one transaction.
    @Test func manyInputFilesUnderALowOpenFileLimit() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let files = (1...200).map { "status-\($0).json" }
        for (i, name) in files.enumerated() {
            try Data(#"{"id": \#(i + 1), "text": "status \#(i + 1)"}"#.utf8).write(to: directory.url.appendingPathComponent(name))
        }
        let lowLimit = ["/bin/sh", "-c", "ulimit -n 64 && exec \"$0\" \"$@\""]
        var result = try TrellisProcess.run(
            ["import"] + files + ["--model", Self.model, "--entity", "Status"],
            in: directory.url, launcher: lowLimit)
        result.stdout = result.stdout.replacingOccurrences(of: #"in \d+\.\d\d s\n"#, with: "in T s\n", options: .regularExpression)
        #expect(
            result
                == TrellisProcess.Result(
                    status: 0,
                    stdout: """
                        entity  inserted   updated  unchanged   deleted
                        Status       200         0          0         0
                        imported 200 elements from 200 files into trellis.sqlite in T s

                        """, stderr: ""))
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        #expect(try SQLiteShell.query(store, "SELECT count(*), sum(id), min(text), max(text) FROM Status") == "200|20100|status 1|status 99")
        // A bad value in the last file still rolls back all 200.
        try Data(#"{"id": "two hundred and one"}"#.utf8).write(to: directory.url.appendingPathComponent("bad.json"))
        let failed = try TrellisProcess.run(
            ["import"] + files + ["bad.json", "--model", Self.model, "--entity", "Status", "--store", "other.sqlite"],
            in: directory.url, launcher: lowLimit)
        #expect(
            failed
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: """
                        error: bad.json: $.id: cannot store "two hundred and one" in Status.id (integer64): not a decimal number

                        """))
        #expect(!Self.exists("other.sqlite", in: directory))
    }

    @Test func allFilesOfOneCommandAreOneTransaction() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        var payload = try JSONReader.parse(Data(contentsOf: directory.url.appendingPathComponent("Examples/twitter/twitter.json")))
        try JSONKeyPath(parsing: "statuses.7.retweet_count").set("many", in: &payload)
        try Data(JSONWriter.bytes(for: payload)).write(to: directory.url.appendingPathComponent("second.json"))
        let result = try Self.importing(["Examples/twitter/twitter.json", "second.json"], in: directory)
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("error: second.json: $.statuses[7].retweet_count: cannot store \"many\" in Status.retweetCount (integer32)"),
            "\(result.stderr)")
        #expect(!Self.exists("trellis.sqlite", in: directory))
    }

    @Test func standardInputAndDryRun() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let payload = try Data(contentsOf: directory.url.appendingPathComponent("Examples/twitter/twitter.json"))
        let dry = try TrellisProcess.run(
            [
                "import", "-", "--model", Self.model, "--entity", "Status", "--at", "statuses",
                "--dry-run", "--report", "json",
            ], in: directory.url, input: payload)
        #expect(dry.status == 0, "\(dry)")
        #expect(try JSONReader.parse(dry.stdout)["entities"]?["Status"]?["inserted"] == 115)
        #expect(!Self.exists("trellis.sqlite", in: directory))
        let real = try TrellisProcess.run(
            ["import", "-", "--model", Self.model, "--entity", "Status", "--at", "statuses"],
            in: directory.url, input: payload)
        #expect(real.status == 0, "\(real)")
        #expect(try SQLiteShell.query(directory.url.appendingPathComponent("trellis.sqlite"), "SELECT count(*) FROM Status") == "115")
    }
}

/// A way to make a store file read-only for the `trellis` child process.
enum ReadOnlyStore: CustomStringConvertible {
    /// `chmod 0444`: enough for anyone but root, who ignores permissions.
    case permissions
    /// The immutable attribute (`chattr +i`; root, on file systems that have it).
    case immutable
    /// Run the child as `nobody` (`setpriv`; root), who cannot write the root-owned file
    /// or its directory.
    case otherUser

    var description: String {
        switch self {
        case .permissions: "permissions 0444"
        case .immutable: "chattr +i"
        case .otherUser: "setpriv to nobody"
        }
    }

    /// The ways that work for this user on this machine (probed on a scratch file).
    static func available() -> [ReadOnlyStore] {
        guard getuid() == 0 else { return [.permissions] }
        var ways: [ReadOnlyStore] = []
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-probe-\(UUID().uuidString)")
        if FileManager.default.createFile(atPath: probe.path, contents: Data()) {
            if run("chattr", ["+i", probe.path]) {
                ways.append(.immutable)
                _ = run("chattr", ["-i", probe.path])
            }
            try? FileManager.default.removeItem(at: probe)
        }
        if FileManager.default.isExecutableFile(atPath: setpriv) { ways.append(.otherUser) }
        return ways
    }

    static let setpriv = "/usr/bin/setpriv"

    /// How to launch the child (see ``TrellisProcess/run(_:in:input:launcher:standardOutput:standardOutputHandle:)``).
    var launcher: [String] {
        self == .otherUser ? [ReadOnlyStore.setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] : []
    }

    func protect(_ file: URL) throws {
        switch self {
        case .permissions: try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: file.path)
        case .immutable: try #require(ReadOnlyStore.run("chattr", ["+i", file.path]))
        case .otherUser: break
        }
    }

    func release(_ file: URL) {
        switch self {
        case .permissions: try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        case .immutable: _ = ReadOnlyStore.run("chattr", ["-i", file.path])
        case .otherUser: break
        }
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// A Car carrying a Bike's identity (identities are unique across Vehicle and its
/// sub-entities) is refused; before, the store's upsert turned the Bike's row into a half
/// Car and unlinked it from its garage, and the import reported "Car inserted 1".
@Suite struct IdentityConflictEndToEndTests {
    @Test func aCarWithABikesIdentityIsRefusedAndTheBikeKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixtures = Fixtures.repositoryRoot().appendingPathComponent("Tests/Fixtures/coredata")
        let model = [
            "--model", fixtures.appendingPathComponent("Vehicles.xcdatamodeld").path,
            "--bindings", fixtures.appendingPathComponent("vehicles-bindings.json").path,
        ]
        try Data(#"{"name":"G","vehicles":[{"id":1,"type":"bike","wheels":2,"has_bell":false},{"id":2,"type":"car","doors":2}]}"#.utf8)
            .write(to: directory.url.appendingPathComponent("garage.json"))
        #expect(try TrellisProcess.run(["import", "garage.json", "--entity", "Garage"] + model, in: directory.url).status == 0)
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        let query = #"SELECT "_entity", "identifier", "wheels", "doors", "garage" IS NOT NULL FROM "Vehicle" ORDER BY "identifier""#
        let before = try SQLiteShell.query(store, query)
        #expect(before == "Bike|1|2||1\nCar|2|0|2|1")

        let result = try TrellisProcess.run(
            ["import", "-", "--entity", "Car"] + model, in: directory.url,
            input: Data(#"[{"id":1,"doors":5}]"#.utf8))
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: """
                        error: <stdin>: $[0]: Car 1 has the identity of Bike 1: identities are unique across Vehicle and its sub-entities, and an object cannot change its entity

                        """))
        #expect(try SQLiteShell.query(store, query) == before)
    }
}
