/// Parses the arguments of one subcommand against its ``CommandSpec``.
///
/// Accepted forms: `--name value`, `--name=value`, flags (`--dry-run`), positionals, `-`
/// (a positional meaning standard input) and `--` (everything after it is positional).
/// `-h` / `--help` anywhere asks for help. Every problem is a ``UsageError`` (exit 64),
/// an empty value among them (`--model=`, `--store ''`, a positional `''`): no path,
/// name or number is empty, so it is a slip of the shell (an unset variable), reported
/// naming the option (`empty value for '--model <model>'`) rather than as a file that
/// "cannot be read". Options declared with ``OptionSpec/allowsEmptyValue`` take it.
struct ArgumentParser {
    let spec: CommandSpec

    /// The parsed arguments, or `.help` when `-h` / `--help` was given.
    enum Outcome {
        case help
        case parsed(ParsedArguments)
    }

    func parse(_ arguments: [String]) throws(UsageError) -> Outcome {
        if arguments.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) { return .help }
        var parsed = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                if argument.isEmpty, let last = spec.arguments.indices.last {
                    let declared = spec.arguments[min(parsed.positionals.count, last)]
                    throw UsageError(spec: spec, message: "empty value for '<\(declared.valueName)>'")
                }
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = spec.option(name) else {
                throw UsageError(spec: spec, message: unknownOptionMessage(name))
            }
            guard parsed.values[name] == nil, !parsed.flags.contains(name) else {
                throw UsageError(spec: spec, message: "option '\(name)' is given more than once")
            }
            guard let valueName = option.valueName else {
                if inlineValue != nil { throw UsageError(spec: spec, message: "flag '\(name)' does not take a value") }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count, !(arguments[index].hasPrefix("--") && arguments[index].count > 2) else {
                    throw UsageError(spec: spec, message: "missing value for '\(name) <\(valueName)>'")
                }
                value = arguments[index]
                index += 1
            }
            if value.isEmpty, !option.allowsEmptyValue {
                throw UsageError(spec: spec, message: "empty value for '\(name) <\(valueName)>'")
            }
            if let allowed = option.allowedValues, !allowed.contains(value) {
                throw UsageError(spec: spec, message: "invalid value '\(value)' for '\(name)'; expected one of: \(allowed.joined(separator: ", "))")
            }
            parsed.values[name] = value
        }
        for option in spec.options where option.isRequired && parsed.values[option.name] == nil {
            throw UsageError(spec: spec, message: "missing required option '\(option.synopsis)'")
        }
        let maximum = spec.arguments.contains(where: \.isRepeating) ? Int.max : spec.arguments.count
        let minimum = spec.arguments.filter(\.isRequired).count
        if parsed.positionals.count < minimum, let missing = spec.arguments.first(where: \.isRequired) {
            throw UsageError(spec: spec, message: "missing expected argument '<\(missing.valueName)>'")
        }
        if parsed.positionals.count > maximum {
            throw UsageError(spec: spec, message: "unexpected argument '\(parsed.positionals[maximum])'")
        }
        return .parsed(parsed)
    }

    private func unknownOptionMessage(_ name: String) -> String {
        var message = "unknown option '\(name)'"
        let close = spec.options.map(\.name).filter { candidate in
            candidate.hasPrefix(name) || name.hasPrefix(candidate) || ArgumentParser.distance(name, candidate) <= 2
        }
        if let suggestion = close.first { message += "; did you mean '\(suggestion)'?" }
        return message
    }

    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// What ``ArgumentParser`` found.
struct ParsedArguments {
    /// Option name (`--model`) → value.
    var values: [String: String] = [:]
    /// Flags given (`--dry-run`).
    var flags: Set<String> = []
    /// Positional arguments, in order.
    var positionals: [String] = []

    func value(_ name: String) -> String? { values[name] }
    func flag(_ name: String) -> Bool { flags.contains(name) }
}

/// Bad usage: printed as `error: …`, the `usage:` line and a pointer to `--help`; exit 64.
struct UsageError: Error {
    /// The usage line to show (`trellis import <file>... --model <model> …`).
    let usage: String
    /// The command name for the help hint (`import`), or nil for `trellis` itself.
    let commandName: String?
    let message: String

    init(spec: CommandSpec, message: String) {
        self.usage = spec.usageLine
        self.commandName = spec.name
        self.message = message
    }

    init(usage: String, commandName: String?, message: String) {
        self.usage = usage
        self.commandName = commandName
        self.message = message
    }

    /// The three lines written to standard error.
    var text: String {
        let help = commandName.map { "trellis \($0) --help" } ?? "trellis --help"
        return "error: \(message)\nusage: \(usage)\n  See '\(help)' for more information.\n"
    }
}
