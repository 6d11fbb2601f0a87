/// A command that runs: its spec, and what it does with the parsed arguments.
///
/// ``CommandNode`` parses the arguments against ``spec`` (`--help` prints ``CommandSpec/helpText``),
/// then calls ``run(_:_:)``. A thrown ``UsageError`` prints `error: …` with the usage line
/// (exit 64); any other error `error: MESSAGE` (``CommandFailure/message(for:)``, exit 1);
/// ``ReportedFailure`` exits 1 after the command wrote its own messages.
protocol LeafCommand {
    static var spec: CommandSpec { get }
    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws
}

/// What a command runs with besides its arguments.
struct CommandContext {
    /// The current directory, standard input, whether to show progress.
    let environment: CommandEnvironment
    var stdout: any TextOutputStream
    var stderr: any TextOutputStream
}

/// Thrown by a command that already wrote its `error: …` lines (one per bad file, for
/// `json check`): exit status 1, nothing more written.
struct ReportedFailure: Error {}

/// One node of the command tree: a command that runs, or a group of subcommands
/// (`trellis`, `trellis model`, `trellis json`) that dispatches on its first argument.
///
/// A group given no argument, `-h` or `--help` prints its help (exit 0); an unknown
/// subcommand or an option before the subcommand is bad usage (exit 64).
struct CommandNode {
    let spec: CommandSpec
    let subcommands: [CommandNode]
    let command: (any LeafCommand.Type)?

    /// A command that runs.
    static func command(_ command: any LeafCommand.Type) -> CommandNode {
        CommandNode(spec: command.spec, subcommands: [], command: command)
    }

    /// A group of subcommands; `spec` gives its name and help (its options, if any, are the
    /// group's own: `trellis --version`).
    static func group(_ spec: CommandSpec, _ subcommands: [CommandNode]) -> CommandNode {
        CommandNode(spec: spec, subcommands: subcommands, command: nil)
    }

    /// `trellis model`, `trellis` for the root.
    var path: String { spec.name.isEmpty ? "trellis" : "trellis \(spec.name)" }

    /// The subcommand typed as `word`.
    func subcommand(_ word: String) -> CommandNode? { subcommands.first { $0.spec.word == word } }

    // MARK: - Running

    /// Runs the command `arguments` name below this node; returns the exit status.
    func run(_ arguments: ArraySlice<String>, _ context: inout CommandContext) -> Int32 {
        if let command { return run(command, arguments, &context) }
        guard let first = arguments.first, first != "-h", first != "--help" else {
            context.stdout.write(helpText)
            return ExitStatus.success
        }
        guard let node = subcommand(first) else {
            let message: String
            if first.hasPrefix("-") {
                let suggestion = Suggestion.closest(to: first, among: spec.options.map(\.name))
                message = "unknown option '\(first)'; " + (suggestion.map { "did you mean '\($0)'?" } ?? "options follow the subcommand")
            } else {
                message = unknownSubcommandMessage(first)
            }
            context.stderr.write(UsageError(message).text(usage: usageLine, command: spec.name.isEmpty ? nil : spec.name))
            return ExitStatus.usage
        }
        return node.run(arguments.dropFirst(), &context)
    }

    private func run(
        _ command: any LeafCommand.Type, _ arguments: ArraySlice<String>,
        _ context: inout CommandContext
    ) -> Int32 {
        do {
            switch try ArgumentParser(spec: spec).parse(Array(arguments)) {
            case .help:
                context.stdout.write(spec.helpText)
            case .parsed(let parsed):
                try command.run(parsed, &context)
            }
            context.stderr.write(context.environment.notes.take())
            return ExitStatus.success
        } catch let error as UsageError {
            context.stderr.write(context.environment.notes.take())
            context.stderr.write(error.text(usage: spec.usageLine, command: spec.name))
            return ExitStatus.usage
        } catch is ReportedFailure {
            context.stderr.write(context.environment.notes.take())
            return ExitStatus.failure
        } catch {
            context.stderr.write(context.environment.notes.take())
            context.stderr.write("error: \(CommandFailure.message(for: error))\n")
            return ExitStatus.failure
        }
    }

    /// `unknown subcommand 'imprt'; did you mean 'import'?` (`… of 'trellis model'; expected
    /// one of: convert, infer, show` below the root).
    func unknownSubcommandMessage(_ word: String) -> String {
        let words = subcommands.map(\.spec.word)
        var message = "unknown subcommand '\(word)'"
        if !spec.name.isEmpty { message += " of '\(path)'" }
        if let suggestion = Suggestion.closest(to: word, among: words) {
            message += "; did you mean '\(suggestion)'?"
        } else if !spec.name.isEmpty {
            message += "; expected one of: " + words.joined(separator: ", ")
        }
        return message
    }

    // MARK: - Help

    /// The help of the command or group `words` names below this node (`["model", "convert"]`).
    /// - Throws: ``UsageError`` for a word that names no subcommand.
    func helpText(for words: ArraySlice<String>) throws(UsageError) -> String {
        guard let word = words.first else { return command == nil ? helpText : spec.helpText }
        guard command == nil else { throw UsageError("'\(path)' has no subcommands; no help for '\(word)'") }
        guard let node = subcommand(word) else { throw UsageError(unknownSubcommandMessage(word)) }
        return try node.helpText(for: words.dropFirst())
    }

    /// `trellis <subcommand> [options]`, `trellis model <subcommand> [options]`.
    var usageLine: String { "\(path) <subcommand> [options]" }

    /// A group's help: overview, usage, its own options, the subcommands.
    var helpText: String {
        var text = spec.overviewText + "\nUSAGE: \(usageLine)\n"
        text += "\nOPTIONS:\n" + spec.optionRows
        text += "\nSUBCOMMANDS:\n"
        for node in subcommands { text += CommandSpec.row(node.spec.word, node.spec.abstract) }
        let helpPath = spec.name.isEmpty ? "" : " \(spec.name)"
        text += "\n  See 'trellis help\(helpPath) <subcommand>' for detailed help.\n"
        return text
    }
}
