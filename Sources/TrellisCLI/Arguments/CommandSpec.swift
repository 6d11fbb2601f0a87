/// The command-line interface of one subcommand: its options, arguments and help text.
/// ``ArgumentParser`` parses against it; ``helpText`` and ``usageLine`` render it in the
/// style of swift-argument-parser (`OVERVIEW:`, `USAGE:`, `ARGUMENTS:`, `OPTIONS:`).
struct CommandSpec: Sendable {
    /// `import`.
    var name: String
    /// One sentence for `trellis --help` and the `OVERVIEW:` line.
    var abstract: String
    /// Paragraphs shown after the overview.
    var discussion: String = ""
    /// Positional arguments, in order.
    var arguments: [ArgumentSpec] = []
    /// Options, in help order.
    var options: [OptionSpec] = []

    /// `trellis import <file>... --model <model> …`: required options first, then optional ones in brackets.
    var usageLine: String {
        var parts = ["trellis", name]
        for argument in arguments {
            let text = "<\(argument.valueName)>" + (argument.isRepeating ? "..." : "")
            parts.append(argument.isRequired ? text : "[\(text)]")
        }
        for option in options where option.isRequired { parts.append(option.synopsis) }
        for option in options where !option.isRequired { parts.append("[\(option.synopsis)]") }
        return parts.joined(separator: " ")
    }

    /// The full `--help` text.
    var helpText: String {
        var text = "OVERVIEW: \(abstract)\n"
        if !discussion.isEmpty { text += "\n" + CommandSpec.wrapped(discussion, width: 80) + "\n" }
        text += "\nUSAGE: \(usageLine)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in arguments {
                text += CommandSpec.row("<\(argument.valueName)>", argument.help)
            }
        }
        text += "\nOPTIONS:\n"
        for option in options {
            var help = option.help
            if let values = option.allowedValues { help += " (values: \(values.joined(separator: ", ")))" }
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            text += CommandSpec.row(option.synopsis, help)
        }
        text += CommandSpec.row("-h, --help", "Show help information.")
        return text
    }

    /// The option named `name` (`--model`), if declared.
    func option(_ name: String) -> OptionSpec? { options.first { $0.name == name } }

    /// `text` with lines broken at spaces so none exceeds `width` columns (paragraphs kept).
    static func wrapped(_ text: String, width: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { paragraph in
            var lines: [String] = []
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            lines.append(line)
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// A help row: the label padded to a column, the help wrapped at 80 columns.
    static func row(_ label: String, _ help: String) -> String {
        let column = 26
        var text = "  " + label
        let words = help.split(separator: " ", omittingEmptySubsequences: true)
        var line = ""
        var lines: [String] = []
        for word in words {
            if !line.isEmpty, line.count + 1 + word.count > 80 - column {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        if text.count + 2 > column {
            text += "\n" + String(repeating: " ", count: column)
        } else {
            text += String(repeating: " ", count: column - text.count)
        }
        text += lines.joined(separator: "\n" + String(repeating: " ", count: column))
        return text + "\n"
    }
}

/// A positional argument.
struct ArgumentSpec: Sendable {
    /// `file` (shown as `<file>`).
    var valueName: String
    var help: String
    var isRequired: Bool = true
    /// Accepts one or more values (`<file>...`).
    var isRepeating: Bool = false
}

/// A long option (`--model <model>`) or flag (`--dry-run`).
struct OptionSpec: Sendable {
    /// `--model`.
    var name: String
    /// `model` (shown as `<model>`); nil for a flag.
    var valueName: String?
    var help: String
    var isRequired: Bool = false
    /// The only accepted values, when the option is an enumeration.
    var allowedValues: [String]?
    /// Shown in help; the command applies it.
    var defaultValue: String?
    /// Accepts the empty string (a JSON key may be `""`); otherwise an empty value is bad usage.
    var allowsEmptyValue = false

    /// `--model <model>` or `--dry-run`.
    var synopsis: String { valueName.map { "\(name) <\($0)>" } ?? name }
}
