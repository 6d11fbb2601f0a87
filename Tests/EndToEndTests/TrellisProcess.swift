import Foundation
import Testing
import TrellisTestSupport

/// Runs the built `trellis` executable as a child process.
///
/// The binary is found, in order: `$TRELLIS_BINARY`; next to the test bundle's executable
/// (SwiftPM puts every product of a build in one directory, e.g. `.build/debug/`, and the
/// test target depends on `trellis`, so `swift test` builds it first); then
/// `<repository>/.build/debug/trellis`.
enum TrellisProcess {
    struct Result: Equatable, CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String
        var description: String { "status \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
    }

    static let binary: URL? = locate()

    /// SIGPIPE ignored in the test process, once: writing to a child that has exited is then an error, not the end of the run.
    static let ignoringBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    private static func locate() -> URL? {
        let fileManager = FileManager.default
        if let path = ProcessInfo.processInfo.environment["TRELLIS_BINARY"], fileManager.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        if var directory = Bundle.main.executableURL?.deletingLastPathComponent() {
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("trellis")
                if fileManager.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        let fallback = Fixtures.repositoryRoot().appendingPathComponent(".build/debug/trellis")
        return fileManager.isExecutableFile(atPath: fallback.path) ? fallback : nil
    }

    /// Runs `trellis arguments…` in `directory`, feeding `input` on standard input.
    ///
    /// `launcher`, when not empty, is a command that runs the binary: its first element is
    /// the executable, the rest its arguments, followed by the binary's path and
    /// `arguments` (`["/usr/bin/setpriv", "--reuid=65534", …]`, or ``fileSizeLimit(blocks:)``).
    /// With `standardOutput`, the child writes its standard output to that file (for
    /// outputs too large to hold in the test process) and `stdout` is empty; with
    /// `standardOutputHandle` (`/dev/full` opened for writing), it writes to that handle.
    static func run(
        _ arguments: [String], in directory: URL, input: Data? = nil, launcher: [String] = [],
        standardOutput: URL? = nil, standardOutputHandle: FileHandle? = nil
    ) throws -> Result {
        let binary = try #require(binary, "the trellis binary was not found; run `swift build` first")
        let process = Process()
        if let first = launcher.first {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments = launcher.dropFirst() + [binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory
        let out = Pipe()
        let err = Pipe()
        let inPipe = Pipe()
        var outFile: FileHandle?
        if let standardOutput {
            _ = FileManager.default.createFile(atPath: standardOutput.path, contents: nil)
            outFile = try FileHandle(forWritingTo: standardOutput)
            process.standardOutput = outFile
        } else if let standardOutputHandle {
            process.standardOutput = standardOutputHandle
        } else {
            process.standardOutput = out
        }
        defer { try? outFile?.close() }
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if outFile != nil || standardOutputHandle != nil { try out.fileHandleForWriting.close() }
        // Read both pipes concurrently so a full pipe never blocks the child.
        let group = DispatchGroup()
        let stderrBox = DataBox()
        group.enter()
        DispatchQueue.global().async {
            stderrBox.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        // Standard input is written concurrently too (a child writing a lot before reading
        // all of it must not block), and a child that stops reading makes the write fail
        // with EPIPE instead of killing the test process with SIGPIPE.
        _ = TrellisProcess.ignoringBrokenPipes
        let writer = inPipe.fileHandleForWriting
        group.enter()
        DispatchQueue.global().async {
            if let input { try? writer.write(contentsOf: input) }
            try? writer.close()
            group.leave()
        }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrBox.data, as: UTF8.self))
    }

    /// A launcher (see ``run(_:in:input:launcher:standardOutput:standardOutputHandle:)``)
    /// that runs the binary with a file size limit of `blocks` × 512 bytes (`ulimit -f`, POSIX `sh`). `SIGXFSZ` keeps its default
    /// action (ending the process) here: `trellis` itself ignores it, so a write past the
    /// limit fails with `EFBIG` as on a full disk. Needs no privileges.
    static func fileSizeLimit(blocks: Int) -> [String] {
        ["/bin/sh", "-c", "trap - XFSZ; ulimit -f \(blocks) && exec \"$0\" \"$@\""]
    }

    /// Starts `trellis arguments…` in `directory` without waiting for it; standard output
    /// and standard error go to temporary files (read by ``Running/wait()``), standard
    /// input is empty.
    static func start(_ arguments: [String], in directory: URL) throws -> Running {
        let binary = try #require(binary, "the trellis binary was not found; run `swift build` first")
        return try Running(binary: binary, arguments: arguments, directory: directory)
    }

    /// A `trellis` child process started by ``start(_:in:)``.
    final class Running {
        let process = Process()
        private let stdoutURL: URL
        private let stderrURL: URL

        fileprivate init(binary: URL, arguments: [String], directory: URL) throws {
            let name = "trellis-e2e-output-\(UUID().uuidString)"
            stdoutURL = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).stdout")
            stderrURL = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).stderr")
            _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
            process.executableURL = binary
            process.arguments = arguments
            process.currentDirectoryURL = directory
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
            process.standardError = try FileHandle(forWritingTo: stderrURL)
            try process.run()
        }

        var processIdentifier: Int32 { process.processIdentifier }

        /// What the process has written on standard error so far.
        var standardErrorSoFar: String {
            String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self)
        }
        var isRunning: Bool { process.isRunning }

        /// Sends SIGKILL: the process ends at once, without running any code of its own.
        func kill() {
            _ = Foundation.kill(process.processIdentifier, SIGKILL)
        }

        /// Bytes the process has passed to `write(2)` and its kin so far (`wchar` in
        /// `/proc/PID/io`, Linux); nil once it has exited or where there is no such file.
        var bytesWritten: Int? {
            guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/io", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") })
            else { return nil }
            return Int(line.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces))
        }

        /// What the process has written to standard output so far.
        var standardOutputSoFar: String {
            String(decoding: (try? Data(contentsOf: stdoutURL)) ?? Data(), as: UTF8.self)
        }

        /// Waits for the process to exit and returns its status and output; the output files are removed.
        func wait() -> Result {
            process.waitUntilExit()
            defer {
                try? FileManager.default.removeItem(at: stdoutURL)
                try? FileManager.default.removeItem(at: stderrURL)
            }
            let stdout = (try? Data(contentsOf: stdoutURL)) ?? Data()
            let stderr = (try? Data(contentsOf: stderrURL)) ?? Data()
            return Result(
                status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                stderr: String(decoding: stderr, as: UTF8.self))
        }

        /// `true` when the process was ended by SIGKILL (after ``wait()``).
        var wasKilled: Bool {
            process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        }
    }

    // SAFETY: written once by the reader thread before `group.leave()`, read after `group.wait()`.
    private final class DataBox: @unchecked Sendable {
        var data = Data()
    }
}

/// A fresh temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-e2e-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    /// Copies `Examples/<relative>` (a file) into the directory under the same relative path.
    @discardableResult
    func copyExample(_ relative: String) throws -> URL {
        let source = Fixtures.repositoryRoot().appendingPathComponent("Examples").appendingPathComponent(relative)
        let destination = url.appendingPathComponent("Examples").appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: destination)
        return destination
    }
}
