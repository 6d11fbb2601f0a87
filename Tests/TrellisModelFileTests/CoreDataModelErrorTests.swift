import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisModelFile

@Suite struct CoreDataModelErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var entities: String
        var code: CoreDataModelError.Code
        var description: String
        var testDescription: String { name }
    }

    /// A `<model>` with `entities` on lines 3… (line 1 is the XML declaration).
    static func contents(_ entities: String) -> Data {
        Data(
            ("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
                + "<model type=\"com.apple.IDECoreDataModeler.DataModel\" documentVersion=\"1.0\">\n"
                + entities + "\n</model>\n").utf8)
    }

    static let cases: [Case] = [
        Case(
            name: "unknown attribute type",
            entities: """
                    <entity name="Item">
                        <attribute name="price" attributeType="Money"/>
                    </entity>
                """,
            code: .unknownAttributeType,
            description: "line 4: entity Item, property price: unknown attribute type 'Money'; known types: Binary, Boolean, "
                + "Composite, Date, Decimal, Double, Float, Integer 16, Integer 32, Integer 64, Object ID, String, "
                + "Transformable, URI, UUID, Undefined"),
        Case(
            name: "unknown destination",
            entities: """
                    <entity name="Card">
                        <relationship name="deck" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Deck"/>
                    </entity>
                """,
            code: .unknownDestination,
            description: "line 4: entity Card, property deck: destination entity 'Deck' does not exist"),
        Case(
            name: "inverse does not point back",
            entities: """
                    <entity name="A">
                        <relationship name="b" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="other" inverseEntity="B"/>
                    </entity>
                    <entity name="B">
                        <relationship name="other" maxCount="1" deletionRule="Nullify" destinationEntity="A"/>
                    </entity>
                """,
            code: .inverseMismatch,
            description: "line 4: entity A, property b: inverse 'B.other' does not point back (its inverse is 'none' on 'A')"),
        Case(
            name: "inverse entity is not the destination",
            entities: """
                    <entity name="A">
                        <relationship name="b" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="a" inverseEntity="C"/>
                    </entity>
                """,
            code: .inverseMismatch,
            description: "line 4: entity A, property b: inverseEntity 'C' is not the destination entity 'B'"),
        Case(
            name: "default value out of range",
            entities: """
                    <entity name="Item">
                        <attribute name="count" attributeType="Integer 16" defaultValueString="70000" usesScalarValueType="YES"/>
                    </entity>
                """,
            code: .invalidValue,
            description: "line 4: entity Item, property count: default value '70000' is not a valid Integer 16"),
        Case(
            name: "default date is not seconds",
            entities: """
                    <entity name="Item">
                        <attribute name="at" attributeType="Date" defaultValueString="2020-01-01"/>
                    </entity>
                """,
            code: .invalidValue,
            description: "line 4: entity Item, property at: default value '2020-01-01' is not a valid Date"),
        Case(
            name: "unknown delete rule",
            entities: """
                    <entity name="A">
                        <relationship name="a" maxCount="1" deletionRule="Explode" destinationEntity="A"/>
                    </entity>
                """,
            code: .invalidValue,
            description: "line 4: entity A, property a: unknown deletionRule 'Explode'; expected Nullify, Cascade, Deny or No Action"),
        Case(
            name: "unknown merge policy",
            entities: """
                    <entity name="A">
                        <relationship name="a" toMany="YES" deletionRule="Nullify" destinationEntity="A">
                            <userInfo>
                                <entry key="JSONMergePolicy" value="Append"/>
                            </userInfo>
                        </relationship>
                    </entity>
                """,
            code: .invalidValue,
            description: "line 4: entity A, property a: JSONMergePolicy 'Append' is not replace or append"),
        Case(
            name: "flag that is not YES or NO",
            entities: """
                    <entity name="A">
                        <attribute name="x" optional="maybe" attributeType="String"/>
                    </entity>
                """,
            code: .invalidValue,
            description: "line 4: entity A, property x: optional=\"maybe\" is not YES or NO"),
        Case(
            name: "attribute without a type",
            entities: """
                    <entity name="A">
                        <attribute name="x"/>
                    </entity>
                """,
            code: .missingAttribute,
            description: "line 4: entity A, property x: <attribute> has no attributeType"),
        Case(
            name: "entity without a name",
            entities: "    <entity representedClassName=\"A\"/>",
            code: .missingAttribute,
            description: "line 3: <entity> has no name"),
        Case(
            name: "unknown parent entity",
            entities: "    <entity name=\"Car\" parentEntity=\"Vehicle\"/>",
            code: CoreDataModelError.Code(rawValue: "unknownParent"),
            description: "line 3: entity Car: parent entity 'Vehicle' does not exist"),
        Case(
            name: "unknown identity attribute",
            entities: """
                    <entity name="Card">
                        <userInfo>
                            <entry key="identityAttributes" value="suit"/>
                        </userInfo>
                    </entity>
                """,
            code: CoreDataModelError.Code(rawValue: "unknownIdentityAttribute"),
            description: "line 3: entity Card, property suit: identity attribute 'suit' is not an attribute of the entity"),
    ]

    @Test(arguments: cases)
    func semanticProblemNamesEntityAndProperty(_ test: Case) throws {
        let error = try #require(throws: CoreDataModelError.self) {
            try CoreDataModelReader.read(contents: Self.contents(test.entities))
        }
        #expect(error.code == test.code)
        #expect(error.description == test.description)
    }

    @Test func severalProblemsAreAllReportedWithTheirLines() throws {
        let error = try #require(throws: CoreDataModelError.self) {
            try CoreDataModelReader.read(
                contents: Self.contents(
                    """
                        <entity name="A">
                            <relationship name="b" maxCount="1" deletionRule="Nullify" destinationEntity="B"/>
                            <relationship name="c" maxCount="1" deletionRule="Nullify" destinationEntity="C"/>
                        </entity>
                    """))
        }
        #expect(error.code == .invalidModel)
        #expect(error.problems.map(\.code) == [.unknownDestination, .unknownDestination])
        #expect(error.problemLines == [4, 5])
        #expect(
            error.description == """
                invalid model (2 problems)
                  line 4: entity A, property b: destination entity 'B' does not exist
                  line 5: entity A, property c: destination entity 'C' does not exist
                """)
        // `catch CoreDataModelError.Code.unknownDestination` matches a problem's code too.
        #expect(CoreDataModelError.Code.unknownDestination ~= error)
        #expect(!(CoreDataModelError.Code.inverseMismatch ~= error))
    }

    struct SyntaxCase: Sendable, CustomTestStringConvertible {
        var name: String
        var xml: String
        var line: Int
        var column: Int
        var message: String
        var testDescription: String { name }
    }

    static let syntaxCases: [SyntaxCase] = [
        SyntaxCase(
            name: "unclosed element",
            xml:
                "<?xml version=\"1.0\"?>\n<model>\n    <entity name=\"A\">\n        <attribute name=\"x\" attributeType=\"String\">\n    </entity>\n</model>\n",
            line: 5, column: 14, message: "Opening and ending tag mismatch: attribute line 4 and entity near '</entity>'"),
        SyntaxCase(
            name: "unquoted attribute value",
            xml: "<model>\n<entity name=\"A\" x=1/></model>",
            line: 2, column: 20, message: "AttValue: \" or ' expected near '<entity name=\"A\" x=1/></model>'"),
        SyntaxCase(name: "empty document", xml: "", line: 1, column: 1, message: "the document has no root element"),
    ]

    @Test(arguments: syntaxCases)
    func malformedXMLHasLineAndColumn(_ test: SyntaxCase) throws {
        let error = try #require(throws: CoreDataModelError.self) {
            try CoreDataModelReader.read(contents: Data(test.xml.utf8))
        }
        #expect(error.code == .malformedXML)
        #expect(error.line == test.line)
        #expect(error.column == test.column)
        #expect(error.message == test.message)
    }

    /// FoundationXML traps on names that are not UTF-8; found by Fuzz/coredata-model
    /// (`<u\xffrInfo>` inside an attribute, which crashed the process before).
    @Test(arguments: [
        (prefix: "<model>\n  <entity name=\"A\">\n    <u", suffix: "erInfo/>\n  </entity>\n</model>\n", line: 3, column: 7, offset: 34),
        (prefix: "<model>\n<entity name=\"", suffix: "\"/></model>", line: 2, column: 15, offset: 22),
    ])
    func bytesThatAreNotUTF8AreALocatedErrorNotACrash(_ test: (prefix: String, suffix: String, line: Int, column: Int, offset: Int)) throws {
        let data = Data(test.prefix.utf8) + Data([0xFF]) + Data(test.suffix.utf8)
        let error = try #require(throws: CoreDataModelError.self) { try CoreDataModelReader.read(contents: data) }
        #expect(error.code == .malformedXML)
        #expect(error.line == test.line)
        #expect(error.column == test.column)
        #expect(error.message == "invalid UTF-8 at byte \(test.offset) (a model file is UTF-8 text, as Xcode writes it)")
    }

    /// FoundationXML's XMLParser dereferenced NULL on a processing instruction without
    /// data; found by Fuzz/coredata-model. libxml2 reads it, and the tree ignores it.
    @Test func processingInstructionWithoutDataIsIgnored() throws {
        let xml = "<?xml version=\"1.0\"?>\n<model>\n  <?xmlattr?>\n  <entity name=\"A\"/>\n</model>\n"
        let model = try CoreDataModelReader.read(contents: Data(xml.utf8))
        #expect(model.model.entities.map(\.name) == ["A"])
    }

    @Test func overlongAndSurrogateEncodingsAreNotUTF8() throws {
        for bytes: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            let data = Data("<model a=\"".utf8) + Data(bytes) + Data("\"/>".utf8)
            let error = try #require(throws: CoreDataModelError.self) { try CoreDataModelReader.read(contents: data) }
            #expect(error.message == "invalid UTF-8 at byte 10 (a model file is UTF-8 text, as Xcode writes it)", "\(bytes)")
            #expect(error.column == 11)
        }
        // Well-formed multi-byte text passes on to the XML parser.
        let model = try CoreDataModelReader.read(contents: Data("<model><entity name=\"Café\"/></model>".utf8))
        #expect(model.model.entities.map(\.name) == ["Café"])
    }

    @Test func malformedFileErrorNamesTheFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-cd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = directory.appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data("<model>\n  <entity name=\"A\">\n</model>\n".utf8).write(to: version.appendingPathComponent("contents"))
        let error = try #require(throws: CoreDataModelError.self) { try CoreDataModelReader.read(from: version) }
        #expect(error.description == "\(version.path)/contents:3:9: Opening and ending tag mismatch: entity line 2 and model near '</model>'")
    }

    @Test func rootThatIsNotAModel() throws {
        let error = try #require(throws: CoreDataModelError.self) {
            try CoreDataModelReader.read(contents: Data("<plist version=\"1.0\"><dict/></plist>".utf8))
        }
        #expect(error.code == .notACoreDataModel)
        #expect(error.description == "line 1: the root element is <plist>, not a Core Data <model>")
    }

    @Test func reservedUserInfoKeyIsAWarning() throws {
        let read = try CoreDataModelReader.read(
            contents: Self.contents(
                """
                    <entity name="A">
                        <userInfo>
                            <entry key="coreData.mine" value="x"/>
                        </userInfo>
                    </entity>
                """))
        #expect(read.warnings.map(\.description) == ["line 5: entity A: user-info key 'coreData.mine' uses the reserved prefix 'coreData.'"])
    }
}

@Suite struct CoreDataBadInputTests {
    /// Every prefix of a real model file either reads or throws a located `CoreDataModelError`; none traps.
    @Test func everyTruncationFailsCleanly() throws {
        let data = try Fixtures.data("coredata/Everything.xcdatamodel/contents")
        var outcomes: [CoreDataModelError.Code: Int] = [:]
        for length in stride(from: 0, to: data.count, by: 5) {
            do {
                _ = try CoreDataModelReader.read(contents: data.prefix(length))
                outcomes[CoreDataModelError.Code(rawValue: "read"), default: 0] += 1
            } catch let error as CoreDataModelError {
                outcomes[error.code, default: 0] += 1
                if error.code == .malformedXML { #expect(error.line != nil && error.column != nil) }
            }
        }
        #expect(outcomes.keys.sorted { $0.rawValue < $1.rawValue } == [.malformedXML])
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let depth = 100_000
        let xml = "<model>" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth) + "</model>"
        let error = try #require(throws: CoreDataModelError.self) { try CoreDataModelReader.read(contents: Data(xml.utf8)) }
        #expect(error.code == .malformedXML)
        #expect(error.message == "elements are nested deeper than 64 levels")
        #expect(error.line == 1)
    }
}
