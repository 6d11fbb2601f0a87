import Foundation
import Trellis

extension JSONCommand {
    static let formatUsage = "usage: trellis json format [--compact] [--sort-keys] FILE|-"

    static let formatHelp = """
        \(formatUsage)

        Reads one JSON text from FILE ('-' for standard input) and writes it to standard
        output, followed by a newline: pretty (two-space indent, "key": value) by default.

        Options:
          --compact     no whitespace at all
          --sort-keys   members of every object sorted by key

        Numbers are written exactly as read; keys keep their order unless sorted.

        """

    /// `trellis json format [--compact] [--sort-keys] FILE|-`.
    static func format(
        arguments: [String], stdout: inout some TextOutputStream, stderr: inout some TextOutputStream,
        standardInput: FileHandle
    ) -> Int32 {
        var options = JSONWriter.Options(format: .pretty)
        var file: String?
        var optionsEnded = false
        for argument in arguments {
            if !optionsEnded, argument.hasPrefix("-"), argument != "-" {
                switch argument {
                case "--help", "-h":
                    stdout.write(formatHelp)
                    return 0
                case "--compact":
                    options.format = .compact
                case "--sort-keys":
                    options.sortedKeys = true
                case "--":
                    optionsEnded = true
                default:
                    stderr.write("error: unknown option '\(argument)'\n\(formatUsage)\n")
                    return 64
                }
                continue
            }
            guard file == nil else {
                stderr.write("error: unexpected argument '\(argument)' (format reads one FILE)\n\(formatUsage)\n")
                return 64
            }
            if argument.isEmpty {
                stderr.write("error: empty FILE argument\n\(formatUsage)\n")
                return 64
            }
            file = argument
        }
        guard let file else {
            stderr.write("error: missing FILE\n\(formatUsage)\n")
            return 64
        }
        do {
            let data = try read(file, standardInput: standardInput)
            let value = try JSONReader.parse(data)
            var text = try JSONWriter.string(for: value, options: options)
            text += "\n"
            stdout.write(text)
            return 0
        } catch let error as JSONParseError {
            stderr.write("error: \(file):\(error.line):\(error.column): \(error.message)\n")
        } catch InputError.noSuchFile {
            stderr.write("error: \(file): no such file\n")
        } catch InputError.unreadable(let reason) {
            stderr.write("error: \(file): \(reason)\n")
        } catch {
            stderr.write("error: \(file): \(error)\n")
        }
        return 1
    }
}
