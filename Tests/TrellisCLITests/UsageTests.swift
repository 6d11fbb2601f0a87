import Foundation
import Testing
import TrellisTestSupport

@testable import TrellisCLI

/// The result of one in-process run of `trellis`.
struct CommandResult: Equatable {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `trellis arguments…` in-process with `directory` as the current directory.
func trellis(_ arguments: String..., in directory: URL? = nil) -> CommandResult {
    trellis(arguments: arguments, in: directory)
}

/// Runs `trellis arguments…` in-process with `directory` as the current directory and
/// `stdin` as standard input (nil: an empty one).
func trellis(arguments: [String], in directory: URL? = nil, stdin: String? = nil) -> CommandResult {
    var out = ""
    var err = ""
    let pipe = Pipe()
    pipe.fileHandleForWriting.write(Data((stdin ?? "").utf8))
    try? pipe.fileHandleForWriting.close()
    let environment = CommandEnvironment(
        currentDirectory: directory ?? Fixtures.repositoryRoot(),
        standardInput: pipe.fileHandleForReading)
    let status = TrellisCommand.run(arguments: arguments, environment: environment, stdout: &out, stderr: &err)
    return CommandResult(status: status, stdout: out, stderr: err)
}

@Suite struct UsageTests {
    static let importUsage =
        "usage: trellis import <file>... --entity <entity> [--model <model>] [--store <path>] [--busy-timeout <seconds>] "
        + "[--at <key-path>] [--key-attribute <attribute>] [--value-key <key>] [--format <format>] [--report <format>] [--dry-run] [--local] [--bindings <file>]\n"
        + "  See 'trellis import --help' for more information.\n"

    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let stderr: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let rootUsage = "usage: trellis <subcommand> [options]\n  See 'trellis --help' for more information.\n"
    static let helpUsage = "usage: trellis help [<subcommand>...]\n  See 'trellis help --help' for more information.\n"

    static let badUsage: [Case] = [
        Case(arguments: ["imprt"], stderr: "error: unknown subcommand 'imprt'; did you mean 'import'?\n" + rootUsage),
        Case(arguments: ["frobnicate"], stderr: "error: unknown subcommand 'frobnicate'\n" + rootUsage),
        Case(arguments: ["--verison"], stderr: "error: unknown option '--verison'; did you mean '--version'?\n" + rootUsage),
        Case(arguments: ["--version", "import"], stderr: "error: unexpected argument 'import' after '--version'\n" + rootUsage),
        Case(
            arguments: ["json", "lint"],
            stderr: "error: unknown subcommand 'lint' of 'trellis json'; expected one of: check, format\n"
                + "usage: trellis json <subcommand> [options]\n  See 'trellis json --help' for more information.\n"),
        Case(
            arguments: ["model", "--bindings", "b.json"],
            stderr: "error: unknown option '--bindings'; options follow the subcommand\n"
                + "usage: trellis model <subcommand> [options]\n  See 'trellis model --help' for more information.\n"),
        Case(
            arguments: ["--model", "m.json"],
            stderr: "error: unknown option '--model'; options follow the subcommand\n"
                + "usage: trellis <subcommand> [options]\n  See 'trellis --help' for more information.\n"),
        Case(
            arguments: ["import", "--model", "m.json", "--entity", "E"],
            stderr: "error: missing expected argument '<file>'\n" + importUsage),
        Case(
            arguments: ["import", "a.json", "--model", "m.json"],
            stderr: "error: missing required option '--entity <entity>'\n" + importUsage),
        Case(arguments: ["import", "a.json", "--model"], stderr: "error: missing value for '--model <model>'\n" + importUsage),
        Case(
            arguments: ["import", "a.json", "--model", "--entity", "E"],
            stderr: "error: missing value for '--model <model>'\n" + importUsage),
        Case(
            arguments: ["import", "a.json", "--modle", "m.json"],
            stderr: "error: unknown option '--modle'; did you mean '--model'?\n" + importUsage),
        Case(
            arguments: ["import", "a.json", "--model", "m.json", "--model", "n.json", "--entity", "E"],
            stderr: "error: option '--model' is given more than once\n" + importUsage),
        Case(
            arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--format", "xml"],
            stderr: "error: invalid value 'xml' for '--format'; expected one of: json, ndjson\n" + importUsage),
        Case(
            arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--report=yaml"],
            stderr: "error: invalid value 'yaml' for '--report'; expected one of: text, json\n" + importUsage),
        Case(
            arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--dry-run=yes"],
            stderr: "error: flag '--dry-run' does not take a value\n" + importUsage),
        Case(
            arguments: ["import", "-", "-", "--model", "m", "--entity", "E"],
            stderr: "error: '-' (standard input) can be given only once\n" + importUsage),
        Case(
            arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--at", "a..b"],
            stderr: "error: invalid value for '--at': invalid key path 'a..b' at character 3: empty component before '.'\n"
                + importUsage),
        Case(
            arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--busy-timeout", "soon"],
            stderr: "error: invalid value 'soon' for '--busy-timeout'; expected a number of seconds (0 or more)\n" + importUsage),
        Case(
            arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--busy-timeout=-1"],
            stderr: "error: invalid value '-1' for '--busy-timeout'; expected a number of seconds (0 or more)\n" + importUsage),
        Case(
            arguments: ["export", "--model", "m", "--entity", "E", "--busy-timeout", "inf"],
            stderr: "error: invalid value 'inf' for '--busy-timeout'; expected a number of seconds (0 or more)\n"
                + "usage: trellis export --entity <entity> [--model <model>] [--store <path>] [--busy-timeout <seconds>] [--format <format>] [-o <file>] [--pretty] "
                + "[--where <predicate>]... [--sort <keys>] [--limit <n>] [--offset <n>] [--relationships <mode>] [--placeholders <mode>] [--bindings <file>]\n  See 'trellis export --help' for more information.\n"
        ),
        Case(
            arguments: ["export", "--model", "m", "--entity", "E", "--limit", "ten"],
            stderr: "error: invalid value 'ten' for '--limit'; expected an integer\n"
                + "usage: trellis export --entity <entity> [--model <model>] [--store <path>] [--busy-timeout <seconds>] [--format <format>] [-o <file>] [--pretty] "
                + "[--where <predicate>]... [--sort <keys>] [--limit <n>] [--offset <n>] [--relationships <mode>] [--placeholders <mode>] [--bindings <file>]\n  See 'trellis export --help' for more information.\n"
        ),
        Case(
            arguments: ["export", "--model", "m", "--entity", "E", "--relationships", "deep"],
            stderr: "error: invalid value 'deep' for '--relationships'; expected one of: ids, nested\n"
                + "usage: trellis export --entity <entity> [--model <model>] [--store <path>] [--busy-timeout <seconds>] [--format <format>] [-o <file>] [--pretty] "
                + "[--where <predicate>]... [--sort <keys>] [--limit <n>] [--offset <n>] [--relationships <mode>] [--placeholders <mode>] [--bindings <file>]\n  See 'trellis export --help' for more information.\n"
        ),
        Case(
            arguments: ["schema"],
            stderr: "error: missing required option '--model <model>'\n"
                + "usage: trellis schema --model <model> [--dialect <dialect>] [--store <path>] [--bindings <file>]\n  See 'trellis schema --help' for more information.\n"
        ),
        Case(
            arguments: ["schema", "--model", "m", "extra"],
            stderr: "error: unexpected argument 'extra'\n"
                + "usage: trellis schema --model <model> [--dialect <dialect>] [--store <path>] [--bindings <file>]\n  See 'trellis schema --help' for more information.\n"
        ),
        // Unknown help topics are errors, not the parent's help.
        Case(arguments: ["help", "nope"], stderr: "error: unknown subcommand 'nope'\n" + helpUsage),
        Case(
            arguments: ["help", "model", "frob"],
            stderr: "error: unknown subcommand 'frob' of 'trellis model'; expected one of: convert, infer, show\n" + helpUsage),
        Case(arguments: ["help", "import", "files"], stderr: "error: 'trellis import' has no subcommands; no help for 'files'\n" + helpUsage),
        Case(arguments: ["help", "--all"], stderr: "error: unknown option '--all'\n" + helpUsage),
    ]

    @Test(arguments: badUsage) func badUsageExits64WithUsageLine(_ testCase: Case) {
        let result = trellis(arguments: testCase.arguments)
        #expect(result == CommandResult(status: 64, stdout: "", stderr: testCase.stderr))
    }

    /// An empty value (`--model=`, an unset shell variable) is bad usage naming the option,
    /// for every option of every command that takes a value, given either way.
    @Test(arguments: [
        ["import", "a.json", "--model", "m.json", "--entity", "E"],
        ["export", "--model", "m.json", "--entity", "E"],
        ["schema", "--model", "m.json"],
        ["model", "convert", "m.json"],
        ["model", "show", "m.json"],
    ])
    func emptyOptionValueIsBadUsage(_ base: [String]) throws {
        var node = TrellisCommand.root
        for word in base.prefix(while: { !$0.contains(".") && !$0.hasPrefix("-") }) { node = try #require(node.subcommand(word)) }
        let spec = node.spec
        let usage = "usage: \(spec.usageLine)\n  See 'trellis \(spec.name) --help' for more information.\n"
        for option in spec.options where option.valueName != nil && !option.allowsEmptyValue {
            let expected = CommandResult(
                status: 64, stdout: "",
                stderr: "error: empty value for '\(option.synopsis)'\n" + usage)
            let rest = Array(base.drop { $0 != option.name }.dropFirst(2))
            let without = Array(base.prefix { $0 != option.name }) + rest
            #expect(trellis(arguments: without + ["\(option.name)="]) == expected, "\(option.name)=")
            #expect(trellis(arguments: without + [option.name, ""]) == expected, "\(option.name) ''")
        }
    }

    @Test func emptyArgumentIsBadUsage() {
        #expect(
            trellis("schema", "--model=")
                == CommandResult(
                    status: 64, stdout: "",
                    stderr: "error: empty value for '--model <model>'\n"
                        + "usage: trellis schema --model <model> [--dialect <dialect>] [--store <path>] [--bindings <file>]\n  See 'trellis schema --help' for more information.\n"
                ))
        #expect(
            trellis("import", "a.json", "", "--model", "m", "--entity", "E")
                == CommandResult(status: 64, stdout: "", stderr: "error: empty value for '<file>'\n" + Self.importUsage))
        #expect(trellis("model", "show", "").stderr.hasPrefix("error: empty value for '<model>'\nusage: trellis model show "))
        #expect(
            trellis("json", "check", "a.json", "")
                == CommandResult(
                    status: 64, stdout: "",
                    stderr: "error: empty value for '<file>'\nusage: trellis json check <file>... [--format <format>]\n"
                        + "  See 'trellis json check --help' for more information.\n"))
        #expect(
            trellis("json", "format", "")
                == CommandResult(
                    status: 64, stdout: "",
                    stderr: "error: empty value for '<file>'\nusage: trellis json format <file> [--compact] [--sort-keys] [--format <format>]\n"
                        + "  See 'trellis json format --help' for more information.\n"))
        // A JSON key may be empty: --value-key takes "".
        #expect(!trellis("import", "a.json", "--model", "m", "--entity", "E", "--value-key=").stderr.contains("empty value"))
    }

    /// `trellis` alone prints the overview, as `--help` does; `--version` the version.
    @Test func noArgumentsPrintsTheOverviewAndVersionTheVersion() throws {
        let overview = try String(contentsOf: Fixtures.url("help/trellis.txt"), encoding: .utf8)
        #expect(trellis(arguments: []) == CommandResult(status: 0, stdout: overview, stderr: ""))
        #expect(trellis("--version") == CommandResult(status: 0, stdout: "trellis \(TrellisCommand.version)\n", stderr: ""))
        #expect(TrellisCommand.version.split(separator: ".").map { Int($0) != nil } == [true, true, true])
    }

    @Test func helpWinsOverOtherProblems() {
        #expect(trellis("import", "--bogus", "--help").status == 0)
        // After `--`, `--help` is a file name.
        #expect(trellis("import", "--model", "m", "--entity", "E", "--", "--help").stderr.hasPrefix("error: "))
    }
}
