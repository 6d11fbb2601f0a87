import Foundation
import Trellis

/// `trellis json <subcommand>`: check and format JSON files.
///
///     trellis json check FILE…                               # exit 0 when all are valid
///     trellis json format [--compact] [--sort-keys] FILE|-   # pretty (2 spaces) by default
///
/// Exit status: 0 success, 1 failure (invalid JSON, unreadable file), 64 bad usage
/// (with a `usage:` line on standard error).
public enum JSONCommand {
    static let usage = "usage: trellis json <check|format> [options]"

    static let help = """
        \(usage)

        Subcommands:
          check FILE...                              check that each FILE is valid JSON (RFC 8259)
          format [--compact] [--sort-keys] FILE|-    write FILE (or standard input) as pretty or compact JSON

        Run 'trellis json <subcommand> --help' for details.

        """

    /// Runs `trellis json` with `arguments` (after `json`).
    /// - Parameters:
    ///   - standardInput: read when a file argument is `-`.
    /// - Returns: the exit status.
    public static func run(
        arguments: [String], stdout: inout some TextOutputStream, stderr: inout some TextOutputStream,
        standardInput: FileHandle = .standardInput
    ) -> Int32 {
        guard let subcommand = arguments.first else {
            stderr.write("error: missing subcommand\n\(usage)\n")
            return 64
        }
        let rest = Array(arguments.dropFirst())
        switch subcommand {
        case "--help", "-h", "help":
            stdout.write(help)
            return 0
        case "check":
            return check(arguments: rest, stdout: &stdout, stderr: &stderr, standardInput: standardInput)
        case "format":
            return format(arguments: rest, stdout: &stdout, stderr: &stderr, standardInput: standardInput)
        default:
            stderr.write("error: unknown subcommand '\(subcommand)'\n\(usage)\n")
            return 64
        }
    }

    // MARK: - Input

    enum InputError: Error {
        case noSuchFile
        case unreadable(String)
    }

    /// The bytes of `path` (`-`: all of standard input).
    static func read(_ path: String, standardInput: FileHandle) throws(InputError) -> Data {
        if path == "-" {
            do {
                return try standardInput.readToEnd() ?? Data()
            } catch {
                throw .unreadable(error.localizedDescription)
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .noSuchFile }
        if isDirectory.boolValue { throw .unreadable("is a directory") }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw .unreadable("cannot read the file")
        }
    }
}
