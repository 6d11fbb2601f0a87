import Foundation
import Trellis

/// `--format`: how an input file holds its JSON, for `import`, `json check` and `json format`.
///
/// Without `--format`, a file named `*.ndjson` or `*.jsonl` is NDJSON and any other file
/// (and standard input) one JSON document (``inferred(for:)``).
enum InputFormat: String, CaseIterable, OptionValue {
    /// One JSON document per file (RFC 8259).
    case json
    /// One JSON document per line (NDJSON, JSON Lines: <https://jsonlines.org>).
    case ndjson

    /// The file extensions read as NDJSON when `--format` is not given.
    static let lineExtensions: Set<String> = ["ndjson", "jsonl"]

    /// `--format <format>`; nil when not given (then ``inferred(for:)`` decides per file).
    static let option = OptionKey<InputFormat?>(
        "--format", valueName: "format",
        help: "The input format: one JSON document, or one per line.",
        defaultDescription: "ndjson for .ndjson and .jsonl files, json otherwise")

    /// `given`, or the format the name of `path` implies (`-`, standard input: `json`).
    static func inferred(for path: String, given: InputFormat?) -> InputFormat {
        if let given { return given }
        guard path != "-" else { return .json }
        return lineExtensions.contains(URL(fileURLWithPath: path).pathExtension.lowercased()) ? .ndjson : .json
    }

    /// `; one JSON value per line is NDJSON: did you mean --format ndjson?` for a parse error
    /// of a document read as one JSON value where a second value starts on a later line
    /// than the first; nil otherwise.
    static func ndjsonHint(for error: JSONParseError) -> String? {
        guard error.code == .trailingData, error.line > 1 else { return nil }
        return "; one JSON value per line is NDJSON: did you mean --format ndjson?"
    }
}
