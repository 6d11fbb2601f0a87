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

func trellis(arguments: [String], in directory: URL? = nil) -> CommandResult {
    var out = ""
    var err = ""
    let environment = CommandEnvironment(currentDirectory: directory ?? Fixtures.repositoryRoot())
    let status = TrellisCommand.run(arguments: arguments, environment: environment, stdout: &out, stderr: &err)
    return CommandResult(status: status, stdout: out, stderr: err)
}

@Suite struct UsageTests {
    static let importUsage = "usage: trellis import <file>... --model <model> --entity <entity> [--store <path>] [--busy-timeout <seconds>] "
        + "[--at <key-path>] [--key-attribute <attribute>] [--value-key <key>] [--format <format>] [--report <format>] [--dry-run] [--bindings <file>]\n"
        + "  See 'trellis import --help' for more information.\n"

    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let stderr: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let badUsage: [Case] = [
        Case(arguments: [], stderr: "error: missing subcommand\nusage: trellis <subcommand> [options]\n"
                 + "  See 'trellis --help' for more information.\n"),
        Case(arguments: ["imprt"], stderr: "error: unknown subcommand 'imprt'\nusage: trellis <subcommand> [options]\n"
                 + "  See 'trellis --help' for more information.\n"),
        Case(arguments: ["--model", "m.json"], stderr: "error: unknown option '--model'; options follow the subcommand\n"
                 + "usage: trellis <subcommand> [options]\n  See 'trellis --help' for more information.\n"),
        Case(arguments: ["import", "--model", "m.json", "--entity", "E"],
             stderr: "error: missing expected argument '<file>'\n" + importUsage),
        Case(arguments: ["import", "a.json", "--entity", "E"],
             stderr: "error: missing required option '--model <model>'\n" + importUsage),
        Case(arguments: ["import", "a.json", "--model"], stderr: "error: missing value for '--model <model>'\n" + importUsage),
        Case(arguments: ["import", "a.json", "--model", "--entity", "E"],
             stderr: "error: missing value for '--model <model>'\n" + importUsage),
        Case(arguments: ["import", "a.json", "--modle", "m.json"],
             stderr: "error: unknown option '--modle'; did you mean '--model'?\n" + importUsage),
        Case(arguments: ["import", "a.json", "--model", "m.json", "--model", "n.json", "--entity", "E"],
             stderr: "error: option '--model' is given more than once\n" + importUsage),
        Case(arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--format", "xml"],
             stderr: "error: invalid value 'xml' for '--format'; expected one of: json, ndjson\n" + importUsage),
        Case(arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--report=yaml"],
             stderr: "error: invalid value 'yaml' for '--report'; expected one of: text, json\n" + importUsage),
        Case(arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--dry-run=yes"],
             stderr: "error: flag '--dry-run' does not take a value\n" + importUsage),
        Case(arguments: ["import", "-", "-", "--model", "m", "--entity", "E"],
             stderr: "error: '-' (standard input) can be given only once\n" + importUsage),
        Case(arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--at", "a..b"],
             stderr: "error: invalid value for '--at': invalid key path 'a..b' at character 3: empty component before '.'\n"
                 + importUsage),
        Case(arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--busy-timeout", "soon"],
             stderr: "error: invalid value 'soon' for '--busy-timeout'; expected a number of seconds (0 or more)\n" + importUsage),
        Case(arguments: ["import", "a.json", "--model", "m", "--entity", "E", "--busy-timeout=-1"],
             stderr: "error: invalid value '-1' for '--busy-timeout'; expected a number of seconds (0 or more)\n" + importUsage),
        Case(arguments: ["export", "--model", "m", "--entity", "E", "--busy-timeout", "inf"],
             stderr: "error: invalid value 'inf' for '--busy-timeout'; expected a number of seconds (0 or more)\n"
                 + "usage: trellis export --model <model> --entity <entity> [--store <path>] [--busy-timeout <seconds>] [--pretty] "
                 + "[--where <attribute=value>] [--relationships <mode>] [--bindings <file>]\n  See 'trellis export --help' for more information.\n"),
        Case(arguments: ["export", "--model", "m", "--entity", "E", "--where", "id"],
             stderr: "error: invalid value 'id' for '--where'; expected ATTRIBUTE=VALUE\n"
                 + "usage: trellis export --model <model> --entity <entity> [--store <path>] [--busy-timeout <seconds>] [--pretty] "
                 + "[--where <attribute=value>] [--relationships <mode>] [--bindings <file>]\n  See 'trellis export --help' for more information.\n"),
        Case(arguments: ["export", "--model", "m", "--entity", "E", "--relationships", "deep"],
             stderr: "error: invalid value 'deep' for '--relationships'; expected one of: ids, nested\n"
                 + "usage: trellis export --model <model> --entity <entity> [--store <path>] [--busy-timeout <seconds>] [--pretty] "
                 + "[--where <attribute=value>] [--relationships <mode>] [--bindings <file>]\n  See 'trellis export --help' for more information.\n"),
        Case(arguments: ["schema"], stderr: "error: missing required option '--model <model>'\n"
                 + "usage: trellis schema --model <model> [--bindings <file>]\n  See 'trellis schema --help' for more information.\n"),
        Case(arguments: ["schema", "--model", "m", "extra"], stderr: "error: unexpected argument 'extra'\n"
                 + "usage: trellis schema --model <model> [--bindings <file>]\n  See 'trellis schema --help' for more information.\n"),
        Case(arguments: ["help", "nope"], stderr: "error: unknown subcommand 'nope'\nusage: trellis <subcommand> [options]\n"
                 + "  See 'trellis --help' for more information.\n"),
    ]

    @Test(arguments: badUsage) func badUsageExits64WithUsageLine(_ testCase: Case) {
        let result = trellis(arguments: testCase.arguments)
        #expect(result == CommandResult(status: 64, stdout: "", stderr: testCase.stderr))
    }

    /// An empty value (`--model=`, an unset shell variable) is bad usage naming the option,
    /// for every option of every command that takes a value, given either way.
    @Test(arguments: [
        (ImportCommand.spec, ["import", "a.json", "--model", "m.json", "--entity", "E"]),
        (ExportCommand.spec, ["export", "--model", "m.json", "--entity", "E"]),
        (SchemaCommand.spec, ["schema", "--model", "m.json"]),
        (ModelCommand.convertSpec, ["model", "convert", "m.json"]),
        (ModelCommand.showSpec, ["model", "show", "m.json"]),
    ])
    func emptyOptionValueIsBadUsage(_ spec: CommandSpec, _ base: [String]) {
        let usage = "usage: \(spec.usageLine)\n  See 'trellis \(spec.name) --help' for more information.\n"
        for option in spec.options where option.valueName != nil && !option.allowsEmptyValue {
            let expected = CommandResult(status: 64, stdout: "",
                                         stderr: "error: empty value for '\(option.synopsis)'\n" + usage)
            let rest = Array(base.drop { $0 != option.name }.dropFirst(2))
            let without = Array(base.prefix { $0 != option.name }) + rest
            #expect(trellis(arguments: without + ["\(option.name)="]) == expected, "\(option.name)=")
            #expect(trellis(arguments: without + [option.name, ""]) == expected, "\(option.name) ''")
        }
    }

    @Test func emptyArgumentIsBadUsage() {
        #expect(trellis("schema", "--model=") == CommandResult(status: 64, stdout: "", stderr: "error: empty value for '--model <model>'\n"
            + "usage: trellis schema --model <model> [--bindings <file>]\n  See 'trellis schema --help' for more information.\n"))
        #expect(trellis("import", "a.json", "", "--model", "m", "--entity", "E")
                == CommandResult(status: 64, stdout: "", stderr: "error: empty value for '<file>'\n" + Self.importUsage))
        #expect(trellis("model", "show", "").stderr.hasPrefix("error: empty value for '<model>'\nusage: trellis model show "))
        #expect(trellis("json", "check", "a.json", "") == CommandResult(
            status: 64, stdout: "", stderr: "error: empty FILE argument\nusage: trellis json check FILE...\n"))
        #expect(trellis("json", "format", "") == CommandResult(
            status: 64, stdout: "", stderr: "error: empty FILE argument\nusage: trellis json format [--compact] [--sort-keys] FILE|-\n"))
        // A JSON key may be empty: --value-key takes "".
        #expect(!trellis("import", "a.json", "--model", "m", "--entity", "E", "--value-key=").stderr.contains("empty value"))
    }

    @Test func topLevelHelpListsSubcommands() {
        let result = trellis("--help")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == """
            OVERVIEW: Map JSON onto a persistent object graph in a SQLite store, and back.

            USAGE: trellis <subcommand> [options]

            SUBCOMMANDS:
              import                  Import JSON files into a store, merging objects by
                                      identity.
              export                  Export the objects of an entity as a JSON array.
              schema                  Print the SQL schema the SQLite store uses for a
                                      model.
              model                   Convert a model between Trellis JSON and Core Data, or
                                      summarise it.
              json                    Check or format JSON files.

              See 'trellis help <subcommand>' for detailed help.

            """)
        #expect(trellis("help") == result)
    }

    @Test(arguments: ["import", "export", "schema"]) func everySubcommandHasHelp(_ name: String) {
        let result = trellis(name, "--help")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout.hasPrefix("OVERVIEW: "))
        #expect(result.stdout.contains("\nUSAGE: trellis \(name) "))
        #expect(result.stdout.hasSuffix("  -h, --help              Show help information.\n"))
        // Every help line fits 80 columns, except the usage line.
        for line in result.stdout.split(separator: "\n") where !line.hasPrefix("USAGE:") {
            #expect(line.count <= 80, "\(line)")
        }
        #expect(trellis("help", name) == result)
        #expect(trellis(name, "-h").stdout == result.stdout)
    }

    @Test func schemaHelpIsExact() {
        #expect(trellis("schema", "--help").stdout == """
            OVERVIEW: Print the SQL schema the SQLite store uses for a model.

            The statements a new store runs to create its tables and indexes, one per line
            group.

            USAGE: trellis schema --model <model> [--bindings <file>]

            OPTIONS:
              --model <model>         The model: a Trellis JSON model file, a .xcdatamodeld
                                      or a .xcdatamodel.
              --bindings <file>       A JSON bindings section for the names the model uses
                                      (needed by Core Data models that name any).
              -h, --help              Show help information.

            """)
    }

    @Test func helpWinsOverOtherProblems() {
        #expect(trellis("import", "--bogus", "--help").status == 0)
        // After `--`, `--help` is a file name.
        #expect(trellis("import", "--model", "m", "--entity", "E", "--", "--help").stderr.hasPrefix("error: "))
    }
}
