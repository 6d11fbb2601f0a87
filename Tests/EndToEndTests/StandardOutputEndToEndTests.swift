import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// A command whose standard output cannot be written fails: exit status 1 and
/// `error: cannot write standard output: …` on standard error, never a silently cut-short
/// result with status 0. A reader that goes away (`trellis export | head -1`) ends the
/// command quietly by `SIGPIPE`.
@Suite struct StandardOutputEndToEndTests {
    static let model = "Examples/twitter/model.json"
    static let importArguments = ["import", "Examples/twitter/twitter.json", "--model", model, "--entity", "Status", "--at", "statuses"]
    static let full = TrellisProcess.Result(status: 1, stdout: "", stderr: "error: cannot write standard output: No space left on device\n")

    static func workspace() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try directory.copyExample("twitter/model.json")
        try directory.copyExample("twitter/twitter.json")
        return directory
    }

    /// Runs `arguments` with standard output on `/dev/full` (every write fails with `ENOSPC`).
    static func runWithFullOutput(_ arguments: [String], in directory: TemporaryDirectory) throws -> TrellisProcess.Result {
        let devFull = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        defer { try? devFull.close() }
        return try TrellisProcess.run(arguments, in: directory.url, standardOutputHandle: devFull)
    }

    static let commandsWritingStandardOutput: [[String]] = [
        ["export", "--model", model, "--entity", "Status"],
        ["export", "--model", model, "--entity", "User", "--relationships", "nested", "--pretty"],
        ["schema", "--model", model],
        ["model", "show", model],
        ["json", "format", "Examples/twitter/twitter.json"],
        ["help", "export"],
        ["--help"],
    ]

    @Test(arguments: commandsWritingStandardOutput)
    func fullStandardOutputFailsTheCommand(arguments: [String]) throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try TrellisProcess.run(Self.importArguments, in: directory.url).status == 0)
        #expect(try Self.runWithFullOutput(arguments, in: directory) == Self.full)
    }

    /// Warnings still reach standard error; the failure comes after them.
    @Test func fullStandardOutputFailsAModelConversion() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let result = try Self.runWithFullOutput(["model", "convert", Self.model, "--to", "xcdatamodel", "-o", "-"], in: directory)
        #expect(
            result
                == TrellisProcess.Result(
                    status: 1, stdout: "",
                    stderr: """
                        warning: a Core Data model has no bindings section; keep the bindings in a file and pass it with --bindings \
                        when using the converted model
                        error: cannot write standard output: No space left on device

                        """))
    }

    /// The import itself commits; only its summary is lost, and the status says so.
    @Test(arguments: [[], ["--report", "json"], ["--dry-run"]])
    func fullStandardOutputFailsAnImportAfterItCommitted(extra: [String]) throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try Self.runWithFullOutput(Self.importArguments + extra, in: directory) == Self.full)
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        if extra == ["--dry-run"] {
            #expect(!FileManager.default.fileExists(atPath: store.path))
        } else {
            #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Status") == "115")
        }
    }

    /// `trellis json format … | head -c 1`: the reader closes the pipe; `trellis` ends by
    /// `SIGPIPE` with nothing on standard error, even when its parent ignores `SIGPIPE`.
    @Test func closedPipeEndsTheCommandQuietlyBySIGPIPE() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let binary = try #require(TrellisProcess.binary)
        let process = Process()
        // The shell ignores SIGPIPE, and a child inherits an ignored signal.
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "trap '' PIPE; exec \"$0\" \"$@\"", binary.path,
            "json", "format", "--sort-keys", "Examples/twitter/twitter.json",
        ]
        process.currentDirectoryURL = directory.url
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The output (about 700 KB) cannot fit the pipe: the child is writing when the reader goes away.
        try out.fileHandleForReading.close()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGPIPE)
        #expect(String(decoding: stderr, as: UTF8.self) == "")
    }
}
