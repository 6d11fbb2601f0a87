import Foundation
import Testing
import TrellisTestSupport

@testable import TrellisCLI

/// Where `trellis model convert -o PATH` writes: through symbolic links, into FIFOs and
/// devices in place, never over a directory.
@Suite struct ModelConvertOutputTests {
    static let model = #"{"format": "trellis-model", "formatVersion": 1, "entities": [{"name": "Note"}]}"#
    /// What `model convert model.json --to json` writes.
    static let converted = """
        {
          "format": "trellis-model",
          "formatVersion": 1,
          "entities": [
            {
              "name": "Note"
            }
          ]
        }

        """
    static let wrote = ": 1 entity, 0 attributes, 0 relationships\n"

    /// A scratch directory holding `model.json`.
    static func directory() throws -> URL {
        let url = try ModelCommandTests.temporaryDirectory()
        try Data(model.utf8).write(to: url.appendingPathComponent("model.json"))
        return url
    }

    @Test func symbolicLinkIsWrittenThroughAndKept() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("target.json")
        try Data("old\n".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("link.json").path,
            withDestinationPath: "target.json")

        let result = trellis(arguments: ["model", "convert", "model.json", "--to", "json", "-o", "link.json"], in: directory)
        #expect(result == CommandResult(status: 0, stdout: "wrote link.json" + Self.wrote, stderr: ""))
        let link = directory.appendingPathComponent("link.json").path
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.json")
        #expect(String(decoding: try Data(contentsOf: target), as: UTF8.self) == Self.converted)
        // Nothing else was left in the directory (no temporary file).
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                == ["link.json", "model.json", "target.json"])
    }

    @Test func symbolicLinkToNothingCreatesItsTarget() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("link.json").path,
            withDestinationPath: "new.json")
        let result = trellis(arguments: ["model", "convert", "model.json", "--to", "json", "-o", "link.json"], in: directory)
        #expect(result.status == 0)
        #expect(String(decoding: try Data(contentsOf: directory.appendingPathComponent("new.json")), as: UTF8.self) == Self.converted)
    }

    @Test func replacedFileKeepsItsPermissions() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out.json")
        try Data("old\n".utf8).write(to: out)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: out.path)
        #expect(trellis(arguments: ["model", "convert", "model.json", "-o", "out.json"], in: directory).status == 0)
        #expect(String(decoding: try Data(contentsOf: out), as: UTF8.self) == Self.converted)
        #expect(try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int == 0o640)
    }

    struct DirectoryCase: Sendable, CustomTestStringConvertible {
        var output: String
        var stderr: String
        var testDescription: String { output }
    }

    static let directoryCases = [
        DirectoryCase(output: "folder", stderr: "error: folder: cannot write: it is a directory\n"),
        DirectoryCase(output: "folder/", stderr: "error: folder/: cannot write: it is a directory\n"),
        DirectoryCase(output: "new.json/", stderr: "error: new.json/: cannot write: the path ends with '/'\n"),
        DirectoryCase(output: "missing/new.json", stderr: "error: missing/new.json: cannot write: No such file or directory\n"),
    ]

    @Test(arguments: directoryCases)
    func directoryOrTrailingSlashIsAnError(_ test: DirectoryCase) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("folder"), withIntermediateDirectories: false)
        let result = trellis(arguments: ["model", "convert", "model.json", "--to", "json", "-o", test.output], in: directory)
        #expect(result == CommandResult(status: 1, stdout: "", stderr: test.stderr))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["folder", "model.json"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("folder").path) == [])
    }

    @Test func characterDeviceIsWrittenInPlace() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = trellis(arguments: ["model", "convert", "model.json", "--to", "json", "-o", "/dev/null"], in: directory)
        #expect(result == CommandResult(status: 0, stdout: "wrote /dev/null" + Self.wrote, stderr: ""))
        #expect(try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType == .typeCharacterSpecial)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs Linux's /dev/full"))
    func fullDeviceFailsAndStaysADevice() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = trellis(arguments: ["model", "convert", "model.json", "--to", "json", "-o", "/dev/full"], in: directory)
        #expect(result == CommandResult(status: 1, stdout: "", stderr: "error: /dev/full: cannot write: No space left on device\n"))
        #expect(try FileManager.default.attributesOfItem(atPath: "/dev/full")[.type] as? FileAttributeType == .typeCharacterSpecial)
    }

    /// The reader opens the FIFO without blocking first, so the command's open succeeds at
    /// once and the converted model waits in the pipe; a FIFO replaced by a regular file
    /// would leave the reader with nothing (and the test fails instead of hanging).
    @Test func fifoIsWrittenInPlace() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("pipe.json").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(reader >= 0)
        defer { close(reader) }

        let result = trellis(arguments: ["model", "convert", "model.json", "--to", "json", "-o", "pipe.json"], in: directory)
        #expect(result == CommandResult(status: 0, stdout: "wrote pipe.json" + Self.wrote, stderr: ""))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(reader, &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == Self.converted)
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }
}
