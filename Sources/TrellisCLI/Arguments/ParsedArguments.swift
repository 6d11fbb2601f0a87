/// What ``ArgumentParser`` found, read through the keys that declared it:
/// `arguments[ImportCommand.files]` is `[String]`, `arguments[CommonOptions.store]` a
/// `String` (its default when not given), `arguments[ImportCommand.dryRun]` a `Bool`.
///
/// Every option of the spec has a value once parsing succeeded (given, default, `nil` or
/// `false`), so a read cannot fail; reading a key the command's spec does not declare is a
/// programming error and stops the program.
struct ParsedArguments {
    /// Option name (`--model`) → typed value, for every option of the spec.
    private(set) var values: [String: any Sendable] = [:]
    /// Argument value name (`file`) → `String` or `[String]`.
    private(set) var positionals: [String: any Sendable] = [:]
    /// The options given on the command line (not filled in from a default).
    private(set) var given: Set<String> = []

    /// The value of `key`.
    subscript<Value>(key: OptionKey<Value>) -> Value {
        guard let value = values[key.spec.name] else { preconditionFailure("option \(key.spec.name) is not declared by the command") }
        guard let typed = value as? Value else { preconditionFailure("option \(key.spec.name) read as \(Value.self)") }
        return typed
    }

    /// The value of `key`.
    subscript<Value>(key: ArgumentKey<Value>) -> Value {
        guard let value = positionals[key.spec.valueName] as? Value else {
            preconditionFailure("argument <\(key.spec.valueName)> is not declared by the command as \(Value.self)")
        }
        return value
    }

    /// Whether `key` was given on the command line (rather than taken from its default).
    func isGiven<Value>(_ key: OptionKey<Value>) -> Bool { given.contains(key.spec.name) }

    mutating func set(_ value: any Sendable, for option: OptionSpec, given isGiven: Bool) {
        values[option.name] = value
        if isGiven { given.insert(option.name) }
    }

    mutating func set(_ value: any Sendable, for argument: ArgumentSpec) {
        positionals[argument.valueName] = value
    }
}

/// Bad usage (exit 64): printed as `error: MESSAGE`, the command's `usage:` line and a
/// pointer to its `--help`. Thrown by the parser, and by a command for a value or a
/// combination of options it rejects; the command running adds its usage line.
struct UsageError: Error, Equatable {
    let message: String

    init(_ message: String) { self.message = message }

    /// The three lines written to standard error for `command` (`import`; nil: `trellis` itself).
    func text(usage: String, command: String?) -> String {
        let help = command.map { "trellis \($0) --help" } ?? "trellis --help"
        return "error: \(message)\nusage: \(usage)\n  See '\(help)' for more information.\n"
    }
}
