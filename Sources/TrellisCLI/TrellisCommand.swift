import Foundation
import Trellis

/// The `trellis` command as a library: parses `arguments` (without the program name),
/// runs the subcommand, writes to `stdout` / `stderr` and returns the exit status
/// (0 success, 1 failure, 64 bad usage; see sysexits(3) `EX_USAGE`).
///
///     var out = "", err = ""
///     let status = TrellisCommand.run(arguments: ["schema", "--model", "model.json"], stdout: &out, stderr: &err)
///
/// Subcommands: `import`, `export`, `schema` (see docs/CLI.md); `trellis help <subcommand>`
/// and `trellis <subcommand> --help` print a subcommand's help.
public enum TrellisCommand {
    /// Runs the command for the process: standard output and error, the current
    /// directory, and a progress bar when standard error is a terminal.
    ///
    /// When standard output cannot be written (a full disk, `/dev/full`, a closed pipe
    /// while `SIGPIPE` is ignored or blocked), prints `error: cannot write standard output:
    /// REASON` on standard error and returns 1, whatever the command returned.
    public static func main(arguments: [String]) -> Int32 {
        run(arguments: arguments, environment: .process,
            standardOutput: .standardOutput, standardError: .standardError)
    }

    /// Runs the command in `environment`, writing to the descriptors of `standardOutput`
    /// and `standardError`; a failed write on standard output fails the command (see
    /// ``main(arguments:)``).
    public static func run(arguments: [String], environment: CommandEnvironment,
                           standardOutput: FileOutput, standardError: FileOutput) -> Int32 {
        var out = standardOutput
        var err = standardError
        let status = run(arguments: arguments, environment: environment, stdout: &out, stderr: &err)
        guard let failure = out.writeError else { return status }
        err.write("error: cannot write standard output: \(String(cString: strerror(failure)))\n")
        return ExitStatus.failure
    }

    /// Runs the command with the current directory and no progress bar.
    public static func run(arguments: [String], stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        run(arguments: arguments, environment: CommandEnvironment(), stdout: &stdout, stderr: &stderr)
    }

    /// Runs the command in `environment`.
    public static func run(arguments: [String], environment: CommandEnvironment,
                           stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        guard let first = arguments.first else {
            stderr.write(UsageError(usage: usageLine, commandName: nil, message: "missing subcommand").text)
            return ExitStatus.usage
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--help", "-h":
            stdout.write(helpText)
            return ExitStatus.success
        case "help":
            guard let name = rest.first else {
                stdout.write(helpText)
                return ExitStatus.success
            }
            if name == "json" {
                stdout.write(JSONCommand.help)
                return ExitStatus.success
            }
            guard let spec = subcommandSpecs.first(where: { $0.name == name }) else {
                stderr.write(UsageError(usage: usageLine, commandName: nil, message: "unknown subcommand '\(name)'").text)
                return ExitStatus.usage
            }
            stdout.write(spec.helpText)
            return ExitStatus.success
        case ImportCommand.spec.name:
            return ImportCommand.run(arguments: rest, environment: environment, stdout: &stdout, stderr: &stderr)
        case ExportCommand.spec.name:
            return ExportCommand.run(arguments: rest, environment: environment, stdout: &stdout, stderr: &stderr)
        case SchemaCommand.spec.name:
            return SchemaCommand.run(arguments: rest, environment: environment, stdout: &stdout, stderr: &stderr)
        case ModelCommand.spec.name: return ModelCommand.run(arguments: rest, environment: environment, stdout: &stdout, stderr: &stderr)
        case "json":
            return JSONCommand.run(arguments: rest, stdout: &stdout, stderr: &stderr)
        default:
            var message = "unknown subcommand '\(first)'"
            if first.hasPrefix("-") { message = "unknown option '\(first)'; options follow the subcommand" }
            stderr.write(UsageError(usage: usageLine, commandName: nil, message: message).text)
            return ExitStatus.usage
        }
    }

    // MARK: - Help

    /// The subcommands' specifications, in help order.
    static var subcommandSpecs: [CommandSpec] { [ImportCommand.spec, ExportCommand.spec, SchemaCommand.spec, ModelCommand.spec] }

    static let usageLine = "trellis <subcommand> [options]"

    /// `trellis --help`.
    static var helpText: String {
        var text = "OVERVIEW: Map JSON onto a persistent object graph in a SQLite store, and back.\n\n"
        text += "USAGE: \(usageLine)\n\nSUBCOMMANDS:\n"
        for spec in subcommandSpecs { text += CommandSpec.row(spec.name, spec.abstract) }
        text += CommandSpec.row("json", "Check or format JSON files.")
        text += "\n  See 'trellis help <subcommand>' for detailed help.\n"
        return text
    }
}

/// The exit statuses of `trellis` (sysexits(3) for bad usage).
public enum ExitStatus {
    /// The command did what was asked.
    public static let success: Int32 = 0
    /// The command failed (bad input, store error); the store is unchanged.
    public static let failure: Int32 = 1
    /// The command line is wrong (`EX_USAGE`); nothing was done.
    public static let usage: Int32 = 64
}

/// A `TextOutputStream` over a file descriptor (1 = standard output, 2 = standard error),
/// written with write(2) so nothing is buffered when the process exits (there is nothing
/// to flush: every failure is known when ``write(_:)`` returns).
///
/// A failed write (`ENOSPC`, `EPIPE`, `EIO`, …) is recorded in ``writeError`` and later
/// writes are dropped, so a cut-short output is never silently taken for a whole one:
/// ``TrellisCommand/main(arguments:)`` turns it into exit status 1.
public struct FileOutput: TextOutputStream, Sendable {
    /// The descriptor written to.
    public let fileDescriptor: Int32
    /// The `errno` of the first write that failed, nil while every write succeeded.
    public private(set) var writeError: Int32?
    /// Standard output (descriptor 1).
    public static var standardOutput: FileOutput { FileOutput(fileDescriptor: 1) }
    /// Standard error (descriptor 2).
    public static var standardError: FileOutput { FileOutput(fileDescriptor: 2) }

    /// An output writing to `fileDescriptor` (not closed).
    public init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// Writes all of `string` (UTF-8), retrying short writes and `EINTR`; on failure sets
    /// ``writeError`` (`EIO` for a write that took no bytes) and drops this and later text.
    public mutating func write(_ string: String) {
        guard writeError == nil else { return }
        var string = string
        let descriptor = fileDescriptor
        let failure: Int32? = string.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let n = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    return n < 0 ? errno : EIO
                }
            }
            return nil
        }
        if let failure { writeError = failure }
    }
}
