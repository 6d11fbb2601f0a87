import Foundation

/// What a command runs against besides its arguments: the directory relative paths are
/// resolved against, standard input (read for a `-` argument), and whether standard error
/// is a terminal (for the progress bar).
public struct CommandEnvironment: Sendable {
    /// Relative paths (inputs, `--model`, `--store`) are resolved against this directory.
    public var currentDirectory: URL
    /// Shows a progress bar on standard error for large inputs.
    public var showsProgress: Bool
    /// Read where a command is given `-` as a file (named `<stdin>` in messages).
    public var standardInput: FileHandle
    /// The environment variables a source file's `${env:NAME}` reads (`trellis sync`).
    public var variables: [String: String]
    /// Notes a command's helpers leave for standard error (a store repaired on opening),
    /// written after the command ran (``CommandNode``), before its error if it failed.
    let notes = CommandNotes()

    /// The process's current directory, standard input and environment variables unless
    /// given; no progress bar unless asked.
    public init(
        currentDirectory: URL? = nil, showsProgress: Bool = false, standardInput: FileHandle = .standardInput,
        variables: [String: String]? = nil
    ) {
        self.currentDirectory =
            currentDirectory
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        self.showsProgress = showsProgress
        self.standardInput = standardInput
        self.variables = variables ?? ProcessInfo.processInfo.environment
    }

    /// The process's current directory; a progress bar when standard error is a terminal (isatty(2)).
    public static var process: CommandEnvironment {
        CommandEnvironment(showsProgress: isatty(2) == 1)
    }

    /// `path` resolved against ``currentDirectory`` (absolute paths are kept).
    func url(for path: String) -> URL {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: path, relativeTo: currentDirectory)
    }
}

/// The `note: …` lines of one command run (see ``CommandEnvironment/notes``).
final class CommandNotes: @unchecked Sendable {
    // SAFETY: `lines` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var lines: [String] = []

    /// Adds `note: <line>`.
    func add(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        lines.append(line)
    }

    /// The notes so far, each as `note: …\n`, emptied.
    func take() -> String {
        lock.lock()
        defer { lock.unlock() }
        defer { lines = [] }
        return lines.map { "note: \($0)\n" }.joined()
    }
}
