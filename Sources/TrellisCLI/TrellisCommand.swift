import Foundation
import Trellis

/// The `trellis` command as a library: parses `arguments` (without the program name),
/// runs the subcommand, writes to `stdout` / `stderr` and returns the exit status
/// (0 success, 1 failure, 64 bad usage; see sysexits(3) `EX_USAGE`).
public enum TrellisCommand {
    public static func main(arguments: [String]) -> Int32 {
        var out = FileOutput.standardOutput
        var err = FileOutput.standardError
        return run(arguments: arguments, stdout: &out, stderr: &err)
    }

    public static func run(arguments: [String], stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        guard let first = arguments.first else {
            stderr.write("usage: trellis <command> [options]\n")
            return 64
        }
        switch first {
        case "--help", "-h", "help":
            stdout.write("usage: trellis <command> [options]\n")
            return 0
        case "json":
            return JSONCommand.run(arguments: Array(arguments.dropFirst()), stdout: &stdout, stderr: &stderr)
        default:
            stderr.write("error: unknown command '\(first)'\nusage: trellis <command> [options]\n")
            return 64
        }
    }
}

/// A `TextOutputStream` over a file descriptor (1 = standard output, 2 = standard error),
/// written with write(2) so nothing is buffered when the process exits.
public struct FileOutput: TextOutputStream, Sendable {
    public let fileDescriptor: Int32
    public static var standardOutput: FileOutput { FileOutput(fileDescriptor: 1) }
    public static var standardError: FileOutput { FileOutput(fileDescriptor: 2) }

    public init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    public mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Foundation.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }
}
