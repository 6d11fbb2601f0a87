import Foundation
import Trellis

extension JSONCommand {
    static let checkUsage = "usage: trellis json check FILE..."

    static let checkHelp = """
        \(checkUsage)

        Checks that each FILE ('-' for standard input) holds exactly one valid JSON text
        (RFC 8259, UTF-8). Prints nothing and exits 0 when all are valid; otherwise prints
        one line per problem on standard error and exits 1:

          FILE:LINE:COLUMN: error: MESSAGE
          FILE: error: no such file

        Lines and columns start at 1; columns count Unicode scalars.

        """

    /// `trellis json check FILE…`.
    static func check(
        arguments: [String], stdout: inout some TextOutputStream, stderr: inout some TextOutputStream,
        standardInput: FileHandle
    ) -> Int32 {
        var files: [String] = []
        var optionsEnded = false
        for argument in arguments {
            if !optionsEnded, argument == "--help" || argument == "-h" {
                stdout.write(checkHelp)
                return 0
            }
            if !optionsEnded, argument == "--" {
                optionsEnded = true
                continue
            }
            if !optionsEnded, argument.hasPrefix("-"), argument != "-" {
                stderr.write("error: unknown option '\(argument)'\n\(checkUsage)\n")
                return 64
            }
            if argument.isEmpty {
                stderr.write("error: empty FILE argument\n\(checkUsage)\n")
                return 64
            }
            files.append(argument)
        }
        guard !files.isEmpty else {
            stderr.write("error: missing FILE\n\(checkUsage)\n")
            return 64
        }
        var status: Int32 = 0
        for file in files {
            do {
                let data = try read(file, standardInput: standardInput)
                try JSONReader.validate(data)
            } catch let error as JSONParseError {
                stderr.write("\(file):\(error.line):\(error.column): error: \(error.message)\n")
                status = 1
            } catch InputError.noSuchFile {
                stderr.write("\(file): error: no such file\n")
                status = 1
            } catch InputError.unreadable(let reason) {
                stderr.write("\(file): error: \(reason)\n")
                status = 1
            } catch {
                stderr.write("\(file): error: \(error)\n")
                status = 1
            }
        }
        return status
    }
}
