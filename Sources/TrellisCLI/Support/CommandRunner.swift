/// The frame every subcommand runs in, so they all answer the same way:
///
/// - the arguments are parsed against the command's ``CommandSpec``; `--help` prints the
///   help on standard output (exit 0);
/// - a ``UsageError``, from the parser or thrown by the command (an option value it
///   rejects), prints `error: MESSAGE` and the usage line on standard error (exit 64);
/// - any other error prints `error: MESSAGE` (``CommandFailure/message(for:)``) on
///   standard error (exit 1); otherwise the exit status is 0.
enum CommandRunner {
    static func run<Out: TextOutputStream, Err: TextOutputStream>(
        _ spec: CommandSpec, _ arguments: [String], stdout: inout Out, stderr: inout Err,
        _ body: (ParsedArguments, inout Out, inout Err) throws -> Void
    ) -> Int32 {
        do {
            switch try ArgumentParser(spec: spec).parse(arguments) {
            case .help:
                stdout.write(spec.helpText)
            case .parsed(let parsed):
                try body(parsed, &stdout, &stderr)
            }
            return ExitStatus.success
        } catch let error as UsageError {
            stderr.write(error.text)
            return ExitStatus.usage
        } catch {
            stderr.write("error: \(CommandFailure.message(for: error))\n")
            return ExitStatus.failure
        }
    }
}
