import Foundation
import Testing
import TrellisTestSupport

@testable import TrellisCLI

/// Every command's help, compared with the literal text in `Tests/Fixtures/help/NAME.txt`
/// (`trellis.txt`, `import.txt`, `model-convert.txt`, …), reached every way a user asks.
///
/// To record after changing a command: `TRELLIS_RECORD_HELP=1 swift test --filter
/// HelpGoldenTests` writes the files and fails (a recording run never passes); review the
/// diff, then run again without the variable.
@Suite struct HelpGoldenTests {
    /// A command of the tree, by its words below `trellis` (`[]` for `trellis` itself).
    struct Topic: Sendable, CustomTestStringConvertible {
        let words: [String]
        let isGroup: Bool
        var fileName: String { words.isEmpty ? "trellis.txt" : words.joined(separator: "-") + ".txt" }
        var testDescription: String { (["trellis"] + words).joined(separator: " ") }
    }

    /// Every node of ``TrellisCommand/root``, depth first.
    static let topics: [Topic] = {
        var topics: [Topic] = []
        func visit(_ node: CommandNode, _ words: [String]) {
            topics.append(Topic(words: words, isGroup: node.command == nil))
            for child in node.subcommands { visit(child, words + [child.spec.word]) }
        }
        visit(TrellisCommand.root, [])
        return topics
    }()

    static let directory = Fixtures.url("help")

    @Test(arguments: topics) func helpIsTheGoldenText(_ topic: Topic) throws {
        let result = trellis(arguments: topic.words + ["--help"])
        let file = Self.directory.appendingPathComponent(topic.fileName)
        if ProcessInfo.processInfo.environment["TRELLIS_RECORD_HELP"] != nil {
            try Data(result.stdout.utf8).write(to: file)
            Issue.record("recorded \(topic.fileName); review the diff and run again without TRELLIS_RECORD_HELP")
            return
        }
        let golden = try String(contentsOf: file, encoding: .utf8)
        #expect(result == CommandResult(status: 0, stdout: golden, stderr: ""))
        #expect(trellis(arguments: topic.words + ["-h"]) == result)
        #expect(trellis(arguments: ["help"] + topic.words) == result)
        if topic.isGroup {
            // A group given nothing to run prints its help, successfully.
            #expect(trellis(arguments: topic.words) == result)
        }
    }

    /// Every golden file belongs to a command (a removed or renamed command takes its file along).
    @Test func everyGoldenFileIsACommand() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".txt") }
        #expect(Set(files) == Set(Self.topics.map(\.fileName)))
        #expect(Self.topics.count == 16)
    }

    /// Help lines fit 80 columns, except a usage line, which is one line to copy.
    @Test(arguments: topics) func helpLinesFitEightyColumns(_ topic: Topic) {
        for line in trellis(arguments: topic.words + ["--help"]).stdout.split(separator: "\n") where !line.hasPrefix("USAGE:") {
            #expect(line.count <= 80, "\(line)")
        }
    }

    /// Each option is declared once per command, and each default is a value of the
    /// option's type (defaults are converted when a command runs without the option).
    @Test(arguments: topics) func optionsAreUniqueAndDefaultsConvert(_ topic: Topic) throws {
        var node = TrellisCommand.root
        for word in topic.words { node = try #require(node.subcommand(word)) }
        let names = node.spec.options.map(\.name)
        #expect(Set(names).count == names.count, "\(names)")
        #expect(!names.contains("--help") && !names.contains("-h"))
        for option in node.spec.options {
            if let text = option.defaultText { #expect(throws: Never.self) { _ = try option.convert(text) } }
            if option.valueName == nil { #expect(option.defaultText == nil && option.absentValue as? Bool == false) }
        }
    }
}
