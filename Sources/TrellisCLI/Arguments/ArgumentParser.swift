/// Parses the arguments of one command against its ``CommandSpec``.
///
/// Accepted forms: `--name value`, `--name=value`, flags (`--dry-run`), positionals, `-`
/// (a positional meaning standard input) and `--` (everything after it is positional).
/// `-h` / `--help` anywhere before `--` asks for help. Values are converted to their
/// declared types here (``OptionKey``), defaults included, so a command reads typed values
/// only. Every problem is a ``UsageError`` (exit 64), an empty value among them (`--model=`,
/// `--store ''`, a positional `''`): no path, name or number is empty, so it is a slip of the
/// shell (an unset variable), reported naming the option (`empty value for '--model
/// <model>'`) rather than as a file that "cannot be read". Options declared with
/// `allowsEmptyValue` take it.
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
        var positionals: [String] = []
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                if argument.isEmpty, let last = spec.arguments.indices.last {
                    let declared = spec.arguments[min(positionals.count, last)]
                    throw UsageError("empty value for '<\(declared.valueName)>'")
                }
                positionals.append(argument)
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
            guard let option = spec.option(name) else { throw UsageError(unknownOptionMessage(name)) }
            guard !parsed.given.contains(name) || option.append != nil else {
                throw UsageError("option '\(name)' is given more than once")
            }
            guard let valueName = option.valueName else {
                if inlineValue != nil { throw UsageError("flag '\(name)' does not take a value") }
                parsed.set(true, for: option, given: true)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count, !(arguments[index].hasPrefix("--") && arguments[index].count > 2) else {
                    throw UsageError("missing value for '\(name) <\(valueName)>'")
                }
                value = arguments[index]
                index += 1
            }
            if value.isEmpty, !option.allowsEmptyValue { throw UsageError("empty value for '\(name) <\(valueName)>'") }
            if let append = option.append, parsed.given.contains(name) {
                do {
                    parsed.set(try append(parsed.values[name] ?? [String](), value), for: option, given: true)
                } catch {
                    throw UsageError(error.message(text: value, name: option.name))
                }
                continue
            }
            parsed.set(try Self.convert(value, for: option), for: option, given: true)
        }
        for option in spec.options where !parsed.given.contains(option.name) {
            if let defaultText = option.defaultText {
                parsed.set(try Self.convert(defaultText, for: option), for: option, given: false)
            } else if let absent = option.absentValue {
                parsed.set(absent, for: option, given: false)
            } else {
                throw UsageError("missing required option '\(option.synopsis)'")
            }
        }
        try assign(positionals, to: &parsed)
        return .parsed(parsed)
    }

    /// Gives each declared argument its positionals in order; a repeating one takes the rest.
    private func assign(_ positionals: [String], to parsed: inout ParsedArguments) throws(UsageError) {
        var remaining = positionals[...]
        for argument in spec.arguments {
            if argument.isRepeating {
                if remaining.isEmpty, argument.isRequired { throw UsageError("missing expected argument '<\(argument.valueName)>'") }
                parsed.set(Array(remaining), for: argument)
                remaining = []
            } else if let value = remaining.popFirst() {
                parsed.set(value, for: argument)
            } else if argument.isRequired {
                throw UsageError("missing expected argument '<\(argument.valueName)>'")
            }
        }
        if let extra = remaining.first { throw UsageError("unexpected argument '\(extra)'") }
    }

    private static func convert(_ text: String, for option: OptionSpec) throws(UsageError) -> any Sendable {
        do {
            return try option.convert(text)
        } catch let error as OptionValueError {
            throw UsageError(error.message(text: text, name: option.name))
        } catch {
            throw UsageError("invalid value '\(text)' for '\(option.name)': \(error)")
        }
    }

    private func unknownOptionMessage(_ name: String) -> String {
        var message = "unknown option '\(name)'"
        if let suggestion = Suggestion.closest(to: name, among: spec.options.map(\.name)) {
            message += "; did you mean '\(suggestion)'?"
        }
        return message
    }
}
