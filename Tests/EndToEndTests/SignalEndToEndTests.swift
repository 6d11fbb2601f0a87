import Foundation
import Testing
import TrellisModelFile
import TrellisSQLite
import TrellisTestSupport

/// Ctrl-C and `SIGTERM` during an import, and an import waiting for another writer, with
/// the built binary.
@Suite struct SignalEndToEndTests {
    static let model =
        #"{"format": "trellis-model", "formatVersion": 1, "entities": [{"name": "Post", "identityAttributes": ["id"], "#
        + #""attributes": [{"name": "id", "type": "integer64", "jsonKeyPath": "id"}]}]}"#

    static func workspace() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try Data(model.utf8).write(to: directory.url.appendingPathComponent("model.json"))
        return directory
    }

    static let importArguments = ["import", "-", "--model", "model.json", "--entity", "Post"]

    /// The files process `pid` has open (Linux: `/proc/PID/fd`), by name.
    static func openFiles(of pid: Int32) -> [String] {
        let directory = "/proc/\(pid)/fd"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0) }
            .map { URL(fileURLWithPath: $0).lastPathComponent }
    }

    /// Starts `trellis import -` reading from a pipe that stays open, writes `input` into
    /// it, waits until the process has a file open whose name `ready` accepts (it opens the
    /// store only once it handles signals), sends `signal`, and returns what the process did.
    static func interruptedImport(
        in directory: TemporaryDirectory, input: String, signal: Int32,
        ready: (String) -> Bool
    ) throws -> TrellisProcess.Result {
        _ = TrellisProcess.ignoringBrokenPipes
        let process = Process()
        process.executableURL = TrellisProcess.binary
        process.arguments = importArguments
        process.currentDirectoryURL = directory.url
        let inputPipe = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = inputPipe
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        inputPipe.fileHandleForWriting.write(Data(input.utf8))
        // The process is reading standard input (which stays open): wait until it shows.
        var waited = 0
        while !openFiles(of: process.processIdentifier).contains(where: ready), process.isRunning, waited < 600 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 1
        }
        #expect(process.isRunning, "the import ended before it was signalled")
        kill(process.processIdentifier, signal)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? inputPipe.fileHandleForWriting.close()
        return TrellisProcess.Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    static func files(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    /// Ctrl-C while a first import builds a new store: the message on its own line, status
    /// 130, and neither a store nor its hidden staging files.
    @Test func interruptingAFirstImportLeavesNothing() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let result = try Self.interruptedImport(in: directory, input: #"[{"id": 1}, {"id": 2},"#, signal: SIGINT) { name in
            name.hasPrefix(".trellis.sqlite.creating-")
        }
        #expect(result == TrellisProcess.Result(status: 130, stdout: "", stderr: "interrupted: nothing was imported\n"))
        #expect(try Self.files(in: directory) == ["model.json"])
    }

    /// `SIGTERM` while importing into an existing store: status 143 and the store as it was.
    @Test func terminatingAnImportLeavesTheStoreAsItWas() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try TrellisProcess.run(Self.importArguments, in: directory.url, input: Data(#"[{"id": 1}]"#.utf8)).status == 0)
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        let before = try SQLiteShell.state(of: store)
        let result = try Self.interruptedImport(in: directory, input: #"[{"id": 2}, {"id": 3},"#, signal: SIGTERM) { name in
            name == "trellis.sqlite"
        }
        #expect(result == TrellisProcess.Result(status: 143, stdout: "", stderr: "terminated: nothing was imported\n"))
        #expect(try SQLiteShell.state(of: store) == before)
        #expect(try SQLiteShell.query(store, "SELECT id FROM Post") == "1")
    }

    /// A command that writes nothing ends by the signal's default action, as any program:
    /// the parent sees the signal (a shell: status 130).
    @Test func aCommandThatWritesNothingEndsByTheSignal() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        _ = TrellisProcess.ignoringBrokenPipes
        let process = Process()
        process.executableURL = TrellisProcess.binary
        process.arguments = ["json", "check", "-"]
        process.currentDirectoryURL = directory.url
        let inputPipe = Pipe()
        let errors = Pipe()
        process.standardInput = inputPipe
        process.standardError = errors
        try process.run()
        inputPipe.fileHandleForWriting.write(Data("[1, 2,".utf8))
        kill(process.processIdentifier, SIGINT)
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? inputPipe.fileHandleForWriting.close()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT)
        #expect(err.isEmpty)
    }

    /// An import that waits for another writer's lock says so after a second, then imports.
    @Test func aWaitingImportSaysSo() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try TrellisProcess.run(Self.importArguments, in: directory.url, input: Data(#"[{"id": 1}]"#.utf8)).status == 0)
        try Data(#"[{"id": 2}]"#.utf8).write(to: directory.url.appendingPathComponent("two.json"))
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        let model = try ModelFile.read(from: directory.url.appendingPathComponent("model.json")).model
        let holder = try SQLiteStore(path: store.path, model: model)
        let child = try holder.write { _ in
            let child = try TrellisProcess.start(
                ["import", "two.json", "--model", "model.json", "--entity", "Post", "--report", "json"],
                in: directory.url)
            // Hold the lock until the child said it waits (or, failing that, 30 s).
            var waited = 0
            while child.isRunning, waited < 300, !child.standardErrorSoFar.contains("waiting") {
                Thread.sleep(forTimeInterval: 0.1)
                waited += 1
            }
            return child
        }
        let result = child.wait()
        #expect(result.status == 0 && result.stderr == "waiting for another import to finish…\n", "\(result)")
        #expect(result.stdout.hasPrefix(#"{"entities":{"Post":{"inserted":1,"updated":0,"unchanged":0,"deleted":0}},"#))
    }
}
