import Foundation
import Testing
import TrellisTestSupport

@testable import TrellisCLI

/// `trellis model show --format mermaid|dot`, compared with the literal texts in
/// `Tests/Fixtures/diagrams/NAME.mmd` and `NAME.dot`; the DOT texts rendered by Graphviz.
///
/// To record after changing the diagrams: `TRELLIS_RECORD_DIAGRAMS=1 swift test --filter
/// ModelDiagramTests` writes the files and fails; review the diff, then run again without it.
@Suite struct ModelDiagramTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let model: String
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "characters", model: "Examples/characters/Characters.xcdatamodeld"),
        Case(name: "twitter", model: "Examples/twitter/model.json"),
        // Inheritance (an abstract parent, two sub-entities), a cascade delete rule.
        Case(name: "vehicles", model: "Tests/Fixtures/coredata/Vehicles.xcdatamodeld"),
        // Names with quotes, %, \, &, <, >, spaces and a leading digit; a composite identity;
        // a required to-one, a to-many with a minimum, a relationship without an inverse.
        Case(name: "names", model: "Tests/Fixtures/diagrams/names.json"),
    ]

    static let formats = ["mermaid", "dot"]

    static func golden(_ testCase: Case, _ format: String) -> URL {
        Fixtures.url("diagrams/\(testCase.name).\(format == "mermaid" ? "mmd" : "dot")")
    }

    @Test(arguments: cases, formats) func diagramIsTheGoldenText(_ testCase: Case, _ format: String) throws {
        let result = trellis("model", "show", testCase.model, "--format", format)
        let file = Self.golden(testCase, format)
        if ProcessInfo.processInfo.environment["TRELLIS_RECORD_DIAGRAMS"] != nil {
            try Data(result.stdout.utf8).write(to: file)
            Issue.record("recorded \(file.lastPathComponent); review the diff and run again without TRELLIS_RECORD_DIAGRAMS")
            return
        }
        #expect(result == CommandResult(status: 0, stdout: try String(contentsOf: file, encoding: .utf8), stderr: ""))
    }

    /// Concrete lines of the Vehicles diagrams: identity, cardinality, inverse, delete rule, inheritance.
    @Test func vehiclesDiagramsSayWhatTheModelSays() {
        let model = "Tests/Fixtures/coredata/Vehicles.xcdatamodeld"
        let mermaid = trellis("model", "show", model, "--format", "mermaid").stdout.split(separator: "\n").map(String.init)
        #expect(mermaid.first == "erDiagram")
        #expect(mermaid.contains("        integer64 identifier PK \"key path id, required\""))
        #expect(mermaid.contains("    Garage |o--o{ Vehicle : \"vehicles (cascade) / garage\""))
        #expect(mermaid.contains("    Vehicle ||..o| Bike : \"sub-entity\""))
        #expect(mermaid.contains("    Vehicle ||..o| Car : \"sub-entity\""))
        let dot = trellis("model", "show", model, "--format", "dot").stdout
        #expect(dot.contains("<tr><td align=\"left\"><u>identifier</u>: integer64, identity, required, key path id</td></tr>"))
        #expect(dot.contains("<b><i>Vehicle</i></b> (abstract)"))
        #expect(
            dot.contains(
                "    \"Garage\" -> \"Vehicle\" [dir=both, arrowtail=teeodot, arrowhead=crowodot, "
                    + "label=<vehicles (cascade) / garage>];\n"))
        #expect(dot.contains("    \"Bike\" -> \"Vehicle\" [arrowhead=empty, style=dashed, label=<sub-entity>];\n"))
    }

    /// Names Mermaid and DOT cannot take as they are: quoted, replaced, escaped.
    @Test func namesAreQuotedAndEscaped() {
        let model = "Tests/Fixtures/diagrams/names.json"
        let mermaid = trellis("model", "show", model, "--format", "mermaid").stdout.split(separator: "\n").map(String.init)
        #expect(mermaid.contains("    \"Order _Line_\" {"))
        #expect(mermaid.contains("        integer64 line_id PK \"name line-id, key path line.id, required\""))
        #expect(mermaid.contains("        string _2nd PK \"name 2nd, key path a_.b\""))
        // `50% off\` would become `50_ off_`, which another entity is called: the changed name yields.
        #expect(mermaid.contains("    \"Order _Line_\" }|--|| \"50_ off__2\" : \"deal (deny) / lines (ordered, cascade)\""))
        #expect(mermaid.contains("    \"50_ off_\" {"))
        #expect(mermaid.contains("        string _pk \"name pk\""))  // not Mermaid's key PK
        #expect(mermaid.contains("    \"A&B<C>\" }o--o| \"A&B<C>\" : \"self / no inverse\""))
        #expect(mermaid.contains("    \"A&B<C>\" ||..o| \"class\" : \"sub-entity\""))
        let dot = trellis("model", "show", model, "--format", "dot").stdout
        #expect(
            dot.contains(
                "    \"#1\" [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"4\">"
                    + "<tr><td bgcolor=\"#e8e8e8\"><b>Order &quot;Line&quot;</b></td></tr>"))
        #expect(dot.contains("first note: string, key path say &quot;hi&quot; &amp; &lt;go&gt;</td></tr>"))
        #expect(dot.contains("<b><i>50% off\\</i></b> (abstract)"))
        #expect(dot.contains("    \"#3\" -> \"#3\" [dir=both, arrowtail=crowodot, arrowhead=teeodot, label=<self / no inverse>];\n"))
        #expect(dot.contains("    \"class\" -> \"#3\" [arrowhead=empty, style=dashed, label=<sub-entity>];\n"))
    }

    /// A store stands for its recorded model: the same diagram as the model file.
    @Test func aStoreDrawsItsRecordedModel() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-diagram-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = Fixtures.repositoryRoot().path
        let imported = trellis(
            arguments: [
                "import", root + "/Examples/twitter/twitter.json", "--entity", "Status", "--at", "statuses",
                "--model", root + "/Examples/twitter/model.json", "--store", "t.sqlite",
            ], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        for format in Self.formats {
            let fromStore = trellis(arguments: ["model", "show", "t.sqlite", "--format", format], in: directory)
            let fromFile = trellis("model", "show", "Examples/twitter/model.json", "--format", format)
            #expect(fromStore.status == 0)
            #expect(fromStore.stdout == fromFile.stdout)
        }
    }

    @Test func anUnknownFormatIsBadUsage() {
        let result = trellis("model", "show", "Examples/twitter/model.json", "--format", "svg")
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: invalid value 'svg' for '--format'; expected one of: text, mermaid, dot\n"))
    }

    /// `docs/ModelFormat.md` shows the Characters and Twitter diagrams as they are printed.
    @Test(arguments: ["characters", "twitter"]) func theModelFormatPageEmbedsTheDiagram(_ name: String) throws {
        let page = try String(contentsOf: Fixtures.repositoryRoot().appendingPathComponent("docs/ModelFormat.md"), encoding: .utf8)
        let diagram = try String(contentsOf: Fixtures.url("diagrams/\(name).mmd"), encoding: .utf8)
        #expect(page.contains("```mermaid\n" + diagram + "```\n"))
    }

    /// Graphviz reads every DOT golden text: `dot -Tsvg` succeeds, silently, with an SVG.
    /// Graphviz is installed by `Scripts/install-dependencies.sh` (Debian `graphviz`), which
    /// CI runs: a machine without `dot` fails here rather than skipping.
    @Test(arguments: cases) func graphvizRendersTheDOT(_ testCase: Case) throws {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        guard let dot = paths.map({ $0 + "/dot" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            Issue.record("Graphviz's dot is not on PATH; install it with Scripts/install-dependencies.sh (Debian package graphviz)")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dot)
        process.arguments = ["-Tsvg", Self.golden(testCase, "dot").path]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let svg = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(errors == "")
        #expect(svg.contains("<svg "))
        #expect(svg.contains("</svg>"))
    }
}
