import Foundation
import Trellis

/// `trellis json check|format`: the group (``spec``) and the input reading its subcommands
/// share; ``JSONCheckCommand`` and ``JSONFormatCommand`` run.
enum JSONCommand {
    static let spec = CommandSpec(name: "json", abstract: "Check or format JSON files.")

    /// What reading an input failed on (the message after `error: FILE: `).
    enum InputError: Error {
        case noSuchFile
        case unreadable(String)

        var message: String {
            switch self {
            case .noSuchFile: return "no such file"
            case .unreadable(let reason): return reason
            }
        }
    }

    /// `<stdin>` for `-`, else the path as given: how messages name an input.
    static func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// The bytes of `path` (`-`: all of standard input), relative paths resolved in `environment`.
    static func read(_ path: String, environment: CommandEnvironment) throws(InputError) -> Data {
        if path == "-" {
            do {
                return try environment.standardInput.readToEnd() ?? Data()
            } catch {
                throw .unreadable(error.localizedDescription)
            }
        }
        let url = try checkedURL(path, environment: environment)
        let isRegular = (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) ?? false
        if isRegular, let data = try? Data(contentsOf: url, options: .mappedIfSafe) { return data }
        // A FIFO, a device (`/dev/null`), or a file Foundation could not map: read(2) it to
        // the end, as `import` does, and give the system's reason when that fails.
        return try readStream(url.path)
    }

    /// The bytes of the file at `path`, read with read(2) until its end.
    /// - Throws: ``InputError/unreadable(_:)`` with the system's reason (`cannot read the file: Permission denied`).
    static func readStream(_ path: String) throws(InputError) -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable("cannot read the file: " + String(cString: strerror(errno))) }
        defer { close(fd) }
        guard let data = readToEnd(fd) else {
            throw .unreadable("cannot read the file: " + String(cString: strerror(errno)))
        }
        return data
    }

    /// The URL of `path`, a file that exists and is no directory.
    static func checkedURL(_ path: String, environment: CommandEnvironment) throws(InputError) -> URL {
        let url = environment.url(for: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { throw .noSuchFile }
        if isDirectory.boolValue { throw .unreadable("is a directory") }
        return url
    }

    /// The values of the file at `path`: its one JSON value, or with `format` `.ndjson`
    /// (given, or implied by a `.ndjson`/`.jsonl` name) one per line.
    /// - Throws: ``InputError``, or ``JSONParseError`` located in the file.
    static func values(of path: String, format: InputFormat?, environment: CommandEnvironment) throws -> [JSONValue] {
        let data = try read(path, environment: environment)
        switch InputFormat.inferred(for: path, given: format) {
        case .json:
            do {
                return [try JSONReader.parse(data)]
            } catch {
                throw ParseFailure(error: error, hint: InputFormat.ndjsonHint(for: error) ?? "")
            }
        case .ndjson:
            return try JSONLinesReader.parse(data)
        }
    }

    /// Checks the file at `path` holds one JSON value (or, as NDJSON, one per line, read
    /// as a stream: memory stays bounded by the longest line).
    /// - Throws: as ``values(of:format:environment:)``.
    static func validate(_ path: String, format: InputFormat?, environment: CommandEnvironment) throws {
        switch InputFormat.inferred(for: path, given: format) {
        case .json:
            let data = try read(path, environment: environment)
            do {
                try JSONReader.validate(data)
            } catch {
                throw ParseFailure(error: error, hint: InputFormat.ndjsonHint(for: error) ?? "")
            }
        case .ndjson:
            let reader: JSONLinesReader
            if path == "-" {
                reader = JSONLinesReader(fileHandle: environment.standardInput)
            } else {
                _ = try checkedURL(path, environment: environment)
                reader = try JSONLinesReader(contentsOf: environment.url(for: path))
            }
            while try reader.next() != nil {}
        }
    }

    /// A parse error of a file read as one JSON value, with the hint to read it as NDJSON.
    struct ParseFailure: Error {
        let error: JSONParseError
        let hint: String
    }

    /// `error: FILE:LINE:COLUMN: message` for a parse error, `error: FILE: message` otherwise.
    static func message(for error: any Error, file: String) -> String {
        let name = displayName(file)
        switch error {
        case let failure as ParseFailure:
            return "error: \(name):\(failure.error.line):\(failure.error.column): \(failure.error.message)\(failure.hint)\n"
        case let error as JSONParseError: return "error: \(name):\(error.line):\(error.column): \(error.message)\n"
        case let error as InputError: return "error: \(name): \(error.message)\n"
        default: return "error: \(name): \(error)\n"
        }
    }
}

/// `trellis json check <file>...`: whether each file holds exactly one valid JSON text.
enum JSONCheckCommand: LeafCommand {
    static let files = ArgumentKey<[String]>(repeating: "file", help: "A file to check; '-' reads standard input.")

    static let spec = CommandSpec(
        name: "json check",
        abstract: "Check that each file holds exactly one valid JSON text (RFC 8259).",
        discussion: """
            Prints nothing and exits 0 when all are valid; otherwise prints one line per \
            problem on standard error and exits 1: 'error: FILE:LINE:COLUMN: MESSAGE' (lines \
            and columns start at 1; columns count Unicode scalars), or 'error: FILE: no such \
            file'. Standard input is named <stdin>. A .ndjson or .jsonl file (or any, with \
            --format ndjson) must hold one JSON text per line; blank lines are skipped.
            """,
        arguments: [files],
        options: [InputFormat.option])

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        var failed = false
        for file in arguments[files] {
            do {
                try JSONCommand.validate(file, format: arguments[InputFormat.option], environment: context.environment)
            } catch {
                context.stderr.write(JSONCommand.message(for: error, file: file))
                failed = true
            }
        }
        if failed { throw ReportedFailure() }
    }
}

/// `trellis json format [--compact] [--sort-keys] [--format json|ndjson] <file>`: one JSON
/// text (or each of an NDJSON file's), reformatted.
enum JSONFormatCommand: LeafCommand {
    static let file = ArgumentKey<String>("file", help: "The file to format; '-' reads standard input.")
    static let compact = OptionKey<Bool>(flag: "--compact", help: "No whitespace at all.")
    static let sortKeys = OptionKey<Bool>(flag: "--sort-keys", help: "Members of every object sorted by key.")

    static let spec = CommandSpec(
        name: "json format",
        abstract: "Write a JSON file as pretty or compact JSON.",
        discussion: """
            Reads one JSON text and writes it to standard output, followed by a newline: \
            pretty (two-space indent, "key": value) by default. Numbers are written exactly as \
            read; keys keep their order unless sorted. NDJSON (a .ndjson or .jsonl file, or \
            --format ndjson) is written one value after the other, each followed by a newline: \
            with --compact, NDJSON again.
            """,
        arguments: [file],
        options: [compact, sortKeys, InputFormat.option])

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        let path = arguments[file]
        var options = JSONWriter.Options(format: arguments[compact] ? .compact : .pretty)
        options.sortedKeys = arguments[sortKeys]
        var text = ""
        do {
            for value in try JSONCommand.values(of: path, format: arguments[InputFormat.option], environment: context.environment) {
                text += try JSONWriter.string(for: value, options: options) + "\n"
            }
        } catch {
            context.stderr.write(JSONCommand.message(for: error, file: path))
            throw ReportedFailure()
        }
        context.stdout.write(text)
    }
}

/// The bytes read(2) gives from `fd` until its end; nil on an error (the reason in `errno`).
/// At file scope, where `read` is the system call (inside ``JSONCommand`` it is the input reader).
private func readToEnd(_ fd: Int32) -> Data? {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count == 0 { return data }
        if count < 0 {
            if errno == EINTR { continue }
            return nil
        }
        data.append(contentsOf: buffer[0..<count])
    }
}
