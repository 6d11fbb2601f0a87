import Foundation
import Trellis

/// The `trellis` command as a library: parses `arguments` (without the program name),
/// runs the subcommand, writes to `stdout` / `stderr` and returns the exit status
/// (0 success, 1 failure, 64 bad usage; see sysexits(3) `EX_USAGE`).
///
///     var out = "", err = ""
///     let status = TrellisCommand.run(arguments: ["schema", "--model", "model.json"], stdout: &out, stderr: &err)
///
/// Subcommands (``root``, in help order; see docs/CLI.md): `import`, `export`, `count`, `delete`,
/// `watch`, `schema`, `sync`, `model convert|infer|show`, `json check|format`, and `help`.
/// `trellis` alone and `trellis --help` print the overview, `trellis help <subcommand>…` and `trellis <subcommand>… --help` a subcommand's help,
/// `trellis --version` the version.
public enum TrellisCommand {
    /// The version `trellis --version` prints (semantic versioning).
    public static let version = "0.1.0"

    /// Runs the command for the process: standard input, output and error, the current
    /// directory, and a progress bar when standard error is a terminal.
    ///
    /// When standard output cannot be written (a full disk, `/dev/full`, a closed pipe
    /// while `SIGPIPE` is ignored or blocked), prints `error: cannot write standard output:
    /// REASON` on standard error and returns 1, whatever the command returned.
    ///
    /// Installs the handlers of `SIGINT` and `SIGTERM`: an import they interrupt prints
    /// `interrupted: nothing was imported` and exits 130 (143), leaving no store behind.
    public static func main(arguments: [String]) -> Int32 {
        Interruption.installForProcess()
        return run(
            arguments: arguments, environment: .process,
            standardOutput: .standardOutput, standardError: .standardError)
    }

    /// Runs the command in `environment`, writing to the descriptors of `standardOutput`
    /// and `standardError`; a failed write on standard output fails the command (see
    /// ``main(arguments:)``).
    public static func run(
        arguments: [String], environment: CommandEnvironment,
        standardOutput: FileOutput, standardError: FileOutput
    ) -> Int32 {
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
    public static func run<Out: TextOutputStream, Err: TextOutputStream>(
        arguments: [String], environment: CommandEnvironment, stdout: inout Out, stderr: inout Err
    ) -> Int32 {
        var context = CommandContext(environment: environment, stdout: stdout, stderr: stderr)
        defer {
            // The context holds the streams it was given, of these very types.
            stdout = context.stdout as! Out
            stderr = context.stderr as! Err
        }
        if arguments.first == versionFlag.spec.name {
            guard arguments.count == 1 else {
                context.stderr.write(
                    UsageError("unexpected argument '\(arguments[1])' after '--version'")
                        .text(usage: root.usageLine, command: nil))
                return ExitStatus.usage
            }
            context.stdout.write("trellis \(version)\n")
            return ExitStatus.success
        }
        return root.run(arguments[...], &context)
    }

    // MARK: - The command tree

    /// `trellis --version`.
    static let versionFlag = OptionKey<Bool>(flag: "--version", help: "Show the version.")

    /// Every command, in help order. Add a command here (see CommandSpec.swift).
    static var root: CommandNode {
        .group(
            CommandSpec(
                name: "", abstract: "Map JSON onto an object graph in SQLite or PostgreSQL, and back.",
                options: [versionFlag]),
            [
                .command(ImportCommand.self),
                .command(ExportCommand.self),
                .command(CountCommand.self),
                .command(DeleteCommand.self),
                .command(WatchCommand.self),
                .command(SchemaCommand.self),
                .command(SyncCommand.self),
                .group(
                    ModelCommand.spec,
                    [
                        .command(ModelConvertCommand.self), .command(ModelInferCommand.self),
                        .command(ModelShowCommand.self),
                    ]),
                .group(JSONCommand.spec, [.command(JSONCheckCommand.self), .command(JSONFormatCommand.self)]),
                .command(HelpCommand.self),
            ])
    }
}

/// `trellis help [<subcommand>...]`: the help of `trellis` or of the (sub)command named;
/// a name that is not a subcommand is bad usage (exit 64).
enum HelpCommand: LeafCommand {
    static let topic = ArgumentKey<[String]>(
        repeating: "subcommand", help: "The subcommand, e.g. 'model convert'.",
        isRequired: false)

    static let spec = CommandSpec(name: "help", abstract: "Show the help of a subcommand.", arguments: [topic])

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        context.stdout.write(try TrellisCommand.root.helpText(for: arguments[topic][...]))
    }
}
