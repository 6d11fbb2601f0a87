// The command-line grammar of `trellis`: every command is a `CommandSpec` (name, help,
// positional arguments, options), every option an `OptionKey<Value>` declared once with its
// type, default and help, and the commands form one tree (`TrellisCommand.root`,
// TrellisCommand.swift) that dispatches, parses and prints help for all of them alike.
//
// To add an option to a command:
//   1. declare it once, in the command's type (or in `CommonOptions` if several commands take it):
//        static let limit = OptionKey<Int?>("--limit", valueName: "count", help: "At most this many objects.")
//      (`Value` is an `OptionValue`: String, a String-backed CaseIterable enum, JSONKeyPath,
//      Seconds, Int…; conform a new type by giving `init(optionText:) throws(OptionValueError)`.
//      No `default:` and a non-Optional `Value` make it required; `OptionKey<Bool>(flag:help:)`
//      is a flag);
//   2. list it in the command's `spec.options` (help order);
//   3. read it typed in `run`: `let limit = arguments[Self.limit]`. Cross-option rules go in
//      the command's options struct and throw `UsageError("…")` (exit 64, with the usage line);
//   4. record its help: `TRELLIS_RECORD_HELP=1 swift test --filter HelpGoldenTests` rewrites
//      `Tests/Fixtures/help/*.txt` (and fails, so the run is never taken for a pass); review the
//      diff, run again, and document the option in docs/CLI.md.
//
// To add a command:
//   1. write `enum CountCommand: LeafCommand` with `static let spec = CommandSpec(name: "count",
//      abstract: "…", options: [CommonOptions.model, …])` and
//      `static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws`
//      (write to `context.stdout`; throw `CommandError` for a failure, exit 1);
//   2. add `.command(CountCommand.self)` to `TrellisCommand.root` (or to a group's list,
//      e.g. `model`; a subcommand's spec name is its full path, `"model infer"`);
//   3. record its help golden file as above (the test fails for a command without one).

/// The command-line interface of one command: its options, arguments and help text.
/// ``ArgumentParser`` parses against it; ``helpText`` and ``usageLine``
/// (CommandSpec+Help.swift) render it in the style of swift-argument-parser
/// (`OVERVIEW:`, `USAGE:`, `ARGUMENTS:`, `OPTIONS:`).
struct CommandSpec: Sendable {
    /// The command's path below `trellis`: `import`, `model convert`.
    var name: String
    /// One sentence for the parent's list of subcommands and the `OVERVIEW:` line.
    var abstract: String
    /// Paragraphs shown after the overview.
    var discussion: String
    /// Positional arguments, in order (at most one repeating, last).
    var arguments: [ArgumentSpec]
    /// Options, in help order.
    var options: [OptionSpec]

    init(
        name: String, abstract: String, discussion: String = "", arguments: [any ArgumentDeclaration] = [],
        options: [any OptionDeclaration] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments.map(\.spec)
        self.options = options.map(\.spec)
    }

    /// The last word of ``name``: what is typed to choose this command in its group (`convert`).
    var word: String { String(name.split(separator: " ").last ?? "") }

    /// The option named `name` (`--model`), if declared.
    func option(_ name: String) -> OptionSpec? { options.first { $0.name == name } }
}

/// A positional argument (untyped; declared through ``ArgumentKey``).
struct ArgumentSpec: Sendable {
    /// `file` (shown as `<file>`).
    var valueName: String
    var help: String
    var isRequired: Bool
    /// Accepts one or more values (`<file>...`).
    var isRepeating: Bool
}

/// A long option (`--model <model>`) or flag (`--dry-run`) (untyped; declared through
/// ``OptionKey``).
struct OptionSpec: Sendable {
    /// `--model`.
    var name: String
    /// `model` (shown as `<model>`); nil for a flag.
    var valueName: String?
    var help: String
    /// The only accepted values, when the option is an enumeration.
    var allowedValues: [String]?
    /// The value when not given, as command-line text (shown in help as `(default: …)`).
    var defaultText: String?
    /// What not giving the option means, when that is not one value (shown as `(default: …)`).
    var defaultDescription: String?
    /// Accepts the empty string (a JSON key may be `""`); otherwise an empty value is bad usage.
    var allowsEmptyValue: Bool
    /// The typed value of a given text (or of ``defaultText``); throws ``OptionValueError``.
    /// (Untyped `throws`: function types with typed throws can need the Swift 6 runtime on
    /// Apple platforms, SE-0413, newer than the package's platforms; the parser checks the type.)
    let convert: @Sendable (String) throws -> any Sendable
    /// The value when not given and without a default: `false` for a flag, `nil` for an
    /// optional value; nil (no value at all) when the option is required.
    let absentValue: (any Sendable)?
    /// For an option that may be given several times (``OptionKey/init(repeating:valueName:help:)``):
    /// adds a given text's value to the values so far. Nil: given at most once.
    var append: (@Sendable (any Sendable, String) throws(OptionValueError) -> any Sendable)? = nil

    /// Must be given: no default and no absent value.
    var isRequired: Bool { defaultText == nil && absentValue == nil }

    /// `--model <model>` or `--dry-run`.
    var synopsis: String { valueName.map { "\(name) <\($0)>" } ?? name }
}
