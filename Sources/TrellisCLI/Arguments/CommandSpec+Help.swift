extension CommandSpec {
    /// `trellis import <file>... --model <model> …`: arguments, required options, then
    /// optional ones in brackets.
    var usageLine: String {
        var parts = ["trellis", name]
        for argument in arguments {
            let text = "<\(argument.valueName)>" + (argument.isRepeating ? "..." : "")
            parts.append(argument.isRequired ? text : "[\(text)]")
        }
        for option in options where option.isRequired { parts.append(option.synopsis) }
        for option in options where !option.isRequired { parts.append("[\(option.synopsis)]" + (option.append != nil ? "..." : "")) }
        return parts.joined(separator: " ")
    }

    /// The full `--help` text of a command that runs (not a group; see ``CommandNode``).
    var helpText: String {
        var text = overviewText + "\nUSAGE: \(usageLine)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in arguments {
                text += CommandSpec.row("<\(argument.valueName)>" + (argument.isRepeating ? "..." : ""), argument.help)
            }
        }
        text += "\nOPTIONS:\n" + optionRows
        return text
    }

    /// `OVERVIEW: …` and the discussion.
    var overviewText: String {
        var text = CommandSpec.wrapped("OVERVIEW: \(abstract)", width: 80) + "\n"
        if !discussion.isEmpty { text += "\n" + CommandSpec.wrapped(discussion, width: 80) + "\n" }
        return text
    }

    /// One help row per option, then `-h, --help`.
    var optionRows: String {
        var text = ""
        for option in options {
            var help = option.help
            if let values = option.allowedValues { help += " (values: \(values.joined(separator: ", ")))" }
            if let defaultText = option.defaultText ?? option.defaultDescription { help += " (default: \(defaultText))" }
            text += CommandSpec.row(option.synopsis, help)
        }
        return text + CommandSpec.row("-h, --help", "Show help information.")
    }

    // MARK: - Layout

    /// `text` with lines broken at spaces so none exceeds `width` columns (paragraphs kept).
    static func wrapped(_ text: String, width: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { paragraph in
            lines(of: paragraph, width: width).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// A help row: the label padded to a column, the help wrapped at 80 columns.
    static func row(_ label: String, _ help: String) -> String {
        let column = 26
        var text = "  " + label
        if text.count + 2 > column {
            text += "\n" + String(repeating: " ", count: column)
        } else {
            text += String(repeating: " ", count: column - text.count)
        }
        text += lines(of: Substring(help), width: 80 - column).joined(separator: "\n" + String(repeating: " ", count: column))
        return text + "\n"
    }

    /// The words of `paragraph` in lines of at most `width` columns (a longer word alone on its line).
    private static func lines(of paragraph: Substring, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in paragraph.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
