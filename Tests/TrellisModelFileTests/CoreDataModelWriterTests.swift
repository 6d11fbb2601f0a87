import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisModelFile

@Suite struct CoreDataModelWriterTests {
    static func fixtureText(_ path: String) throws -> String {
        String(decoding: try Fixtures.data("coredata/" + path), as: UTF8.self)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-cd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    // MARK: - Xcode's own text

    @Test func writesTheGrootModelAsXcodeWritesIt() throws {
        let read = try CoreDataModelReader.read(from: Fixtures.url("coredata/Characters.xcdatamodeld"))
        let xml = try CoreDataModelWriter(lastSavedToolsVersion: "21754", systemVersion: "22G120")
            .contents(for: read.model, versionName: "Characters")
        // The same text, less the diagram layout (`<elements>`), which Trellis does not keep.
        let expected = try Self.fixtureText("Characters.xcdatamodeld/Characters.xcdatamodel/contents")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("<element") && !$0.contains("</elements>") }
            .joined(separator: "\n")
        #expect(xml == expected)
    }

    @Test func writesAbstractEntitiesAndSubentitiesAsXcodeWritesThem() throws {
        let read = try CoreDataModelReader.read(from: Fixtures.url("coredata/Vehicles.xcdatamodeld"))
        let xml = try CoreDataModelWriter().contents(for: read.model, versionName: "Vehicles")
        #expect(xml == (try Self.fixtureText("Vehicles.xcdatamodeld/Vehicles.xcdatamodel/contents")))
    }

    @Test func writesAModelBuiltInSwift() throws {
        let model = try ObjectModel(
            entities: [
                EntityDescription(
                    name: "Status",
                    attributes: [
                        AttributeDescription(
                            name: "id", type: .integer64, isOptional: false,
                            userInfo: [
                                "JSONKeyPath": "id_str",
                                "JSONTransformerName": "integer-from-string",
                            ]),
                        AttributeDescription(name: "text", type: .string, defaultValue: .string("a \"quote\" & <b>")),
                        AttributeDescription(name: "createdAt", type: .date, defaultValue: .date(Date(timeIntervalSinceReferenceDate: 3600.5))),
                        AttributeDescription(name: "ratio", type: .float, defaultValue: .double(Double(Float(0.1)))),
                        AttributeDescription(name: "price", type: .decimal, defaultValue: .decimal(Decimal(string: "12.50")!)),
                        AttributeDescription(name: "flag", type: .boolean, defaultValue: .bool(true)),
                        AttributeDescription(name: "entities", type: .json),
                    ],
                    relationships: [
                        RelationshipDescription(
                            name: "user", destinationEntity: "User", inverseName: "statuses", deleteRule: .cascade,
                            userInfo: ["JSONKeyPath": "user"])
                    ], userInfo: ["identityAttributes": "id"]),
                EntityDescription(
                    name: "User",
                    relationships: [
                        RelationshipDescription(
                            name: "statuses", destinationEntity: "Status", inverseName: "user", isToMany: true,
                            isOrdered: true, minCount: 1, maxCount: 5)
                    ]),
            ], versionLabel: "7")
        let xml = try CoreDataModelWriter().contents(for: model)
        #expect(
            xml == """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="7">
                    <entity name="Status" representedClassName="Status" syncable="YES" codeGenerationType="class">
                        <attribute name="id" attributeType="Integer 64" usesScalarValueType="YES">
                            <userInfo>
                                <entry key="JSONKeyPath" value="id_str"/>
                                <entry key="JSONTransformerName" value="integer-from-string"/>
                            </userInfo>
                        </attribute>
                        <attribute name="text" optional="YES" attributeType="String" defaultValueString="a &quot;quote&quot; &amp; &lt;b&gt;"/>
                        <attribute name="createdAt" optional="YES" attributeType="Date" defaultValueString="3600.5" usesScalarValueType="NO"/>
                        <attribute name="ratio" optional="YES" attributeType="Float" defaultValueString="0.1" usesScalarValueType="YES"/>
                        <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="12.5"/>
                        <attribute name="flag" optional="YES" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
                        <attribute name="entities" optional="YES" attributeType="Transformable"/>
                        <relationship name="user" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="User" inverseName="statuses" inverseEntity="User">
                            <userInfo>
                                <entry key="JSONKeyPath" value="user"/>
                            </userInfo>
                        </relationship>
                        <userInfo>
                            <entry key="identityAttributes" value="id"/>
                        </userInfo>
                    </entity>
                    <entity name="User" representedClassName="User" syncable="YES" codeGenerationType="class">
                        <relationship name="statuses" optional="YES" toMany="YES" minCount="1" maxCount="5" deletionRule="Nullify" ordered="YES" destinationEntity="Status" inverseName="user" inverseEntity="Status"/>
                    </entity>
                </model>

                """)
        // And it reads back as the same model.
        let back = try CoreDataModelReader.read(contents: Data(xml.utf8))
        #expect(back.model.entities == model.entities)
        #expect(back.model.versionLabel == "7")
    }

    // MARK: - Round trips through XML

    @Test(arguments: [
        "Characters.xcdatamodeld", "Cards.xcdatamodeld", "Vehicles.xcdatamodeld", "Library.xcdatamodeld",
        "Everything.xcdatamodel",
    ])
    func readWriteReadKeepsTheModel(fixture: String) throws {
        let first = try CoreDataModelReader.read(from: Fixtures.url("coredata/" + fixture))
        let xml = try CoreDataModelWriter().contents(for: first.model, versionName: first.versionName)
        let second = try CoreDataModelReader.read(contents: Data(xml.utf8))
        #expect(second.model.entities == first.model.entities)
        #expect(second.model.versionLabel == first.model.versionLabel)
        #expect(second.warnings.map(\.message) == first.warnings.map(\.message))
        // Writing again gives the same text: the writer is deterministic and the settings stable.
        #expect(try CoreDataModelWriter().contents(for: second.model, versionName: first.versionName) == xml)
    }

    @Test func keptElementsAreWrittenBack() throws {
        let read = try CoreDataModelReader.read(from: Fixtures.url("coredata/Everything.xcdatamodel"))
        let xml = try CoreDataModelWriter().contents(for: read.model)
        let lines = xml.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains(#"<entity name="Item" representedClassName="CDItem" syncable="YES">"#))
        #expect(lines.contains(#"<entity name="Legacy" syncable="YES">"#))
        #expect(lines.contains(#"<attribute name="cache" optional="YES" transient="YES" attributeType="Undefined"/>"#))
        #expect(lines.contains(#"<attribute name="location" optional="YES" attributeType="Composite" composite="Location"/>"#))
        #expect(lines.contains(#"<attribute name="ratio" optional="YES" attributeType="Float" defaultValueString="0.1" usesScalarValueType="YES"/>"#))
        #expect(lines.contains(#"<fetchRequest name="fetchedPropertyFetchRequest" entity="Item" predicateString="amount &gt; 100"/>"#))
        #expect(lines.contains(#"<configuration name="Cloud" usedWithCloudKit="YES">"#))
        #expect(lines.contains(#"<composite name="Location">"#))
        #expect(lines.contains(#"<entry key="note" value="line one&#10;line two &amp; &quot;quoted&quot; &lt;ok&gt;"/>"#))
        #expect(!xml.contains("coreData."))
        #expect(!xml.contains("<elements>"))
    }

    // MARK: - Files

    @Test func writesABundleAsXcodeLaysItOut() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try CoreDataModelReader.read(from: Fixtures.url("coredata/Cards.xcdatamodeld")).model
        let bundle = directory.appendingPathComponent("Cards.xcdatamodeld")
        try CoreDataModelWriter().write(model, to: bundle)

        let files = try FileManager.default.subpathsOfDirectory(atPath: bundle.path).sorted()
        #expect(files == [".xccurrentversion", "Cards.xcdatamodel", "Cards.xcdatamodel/contents"])
        #expect(
            String(decoding: try Data(contentsOf: bundle.appendingPathComponent(".xccurrentversion")), as: UTF8.self) == """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                \t<key>_XCCurrentVersionName</key>
                \t<string>Cards.xcdatamodel</string>
                </dict>
                </plist>

                """)
        let back = try CoreDataModelReader.read(from: bundle)
        #expect(back.versionName == "Cards")
        #expect(back.model.entities == model.entities)
    }

    @Test func addsAVersionToAnExistingBundleAndMakesItCurrent() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Library.xcdatamodeld")
        let first = try CoreDataModelReader.read(from: Fixtures.url("coredata/Library.xcdatamodeld"), version: "Library")
        let second = try CoreDataModelReader.read(from: Fixtures.url("coredata/Library.xcdatamodeld"), version: "Library 2")
        try CoreDataModelWriter().write(first.model, to: bundle, versionName: "Library")
        try CoreDataModelWriter().write(second.model, to: bundle, versionName: "Library 2")

        let current = try CoreDataModelReader.read(from: bundle)
        #expect(current.versionNames == ["Library", "Library 2"])
        #expect(current.versionName == "Library 2")
        #expect(current.model.versionLabel == "2")
        #expect(current.model.entities == second.model.entities)
        let old = try CoreDataModelReader.read(from: bundle, version: "Library")
        #expect(old.model.versionLabel == "Library")
        #expect(old.model.entities == first.model.entities)
        // A version label equal to the version name is not repeated as the user-defined identifier.
        let text = String(decoding: try Data(contentsOf: bundle.appendingPathComponent("Library.xcdatamodel/contents")), as: UTF8.self)
        #expect(text.contains(#"userDefinedModelVersionIdentifier="""#))
    }

    /// Without a version name, a bundle that has versions gets the first free `NAME N`
    /// (N ≥ 2), as Xcode's "Add Model Version" names it; the others are not touched.
    @Test func addsTheFirstFreeNumberedVersionByDefault() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Library.xcdatamodeld")
        let model = try ObjectModel(entities: [EntityDescription(name: "A")])
        let writer = CoreDataModelWriter()
        #expect(try writer.write(model, to: bundle) == .init(versionName: "Library", isNewVersion: false))
        #expect(try writer.write(model, to: bundle, versionName: "Library 3") == .init(versionName: "Library 3", isNewVersion: false))
        let library = try Data(contentsOf: bundle.appendingPathComponent("Library.xcdatamodel/contents"))
        #expect(try writer.write(model, to: bundle) == .init(versionName: "Library 2", isNewVersion: true))
        #expect(try writer.write(model, to: bundle) == .init(versionName: "Library 4", isNewVersion: true))
        #expect(try CoreDataModelBundle(url: bundle).versionNames == ["Library", "Library 2", "Library 3", "Library 4"])
        #expect(try CoreDataModelBundle(url: bundle).currentVersionName == "Library 4")
        #expect(try Data(contentsOf: bundle.appendingPathComponent("Library.xcdatamodel/contents")) == library)
    }

    @Test func anExistingVersionDirectoryIsAlreadyExists() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = directory.appendingPathComponent("A.xcdatamodel")
        let model = try ObjectModel(entities: [EntityDescription(name: "A")])
        try CoreDataModelWriter().write(model, to: version)
        let error = try #require(throws: CoreDataModelError.self) { try CoreDataModelWriter().write(model, to: version) }
        #expect(error.code == .alreadyExists)
        #expect(error.file == version.path)
    }

    /// Core Data has no place for a key convention: each property without a `JSONKeyPath`
    /// gets the one the convention gives it, so the model maps the same keys.
    @Test func keyConventionIsWrittenAsKeyPaths() throws {
        let model = try ObjectModel(
            entities: [
                EntityDescription(
                    name: "Item",
                    attributes: [
                        AttributeDescription(name: "a.b", type: .string),
                        AttributeDescription(name: "itemID", type: .integer64),
                        AttributeDescription(name: "explicit", type: .string, userInfo: ["JSONKeyPath": "x.y"]),
                    ], relationships: [RelationshipDescription(name: "parentItem", destinationEntity: "Item")])
            ], keyConvention: .propertyName)
        let read = try CoreDataModelReader.read(contents: Data(try CoreDataModelWriter().contents(for: model).utf8))
        let item = try read.model.requireEntity("Item")
        #expect(item.attributes.map(\.jsonKeyPathText) == [#"a\.b"#, "itemID", "x.y"])
        #expect(item.relationships.map(\.jsonKeyPathText) == ["parentItem"])
        #expect(item.attributeMappings.map(\.keyPath) == (try model.requireEntity("Item")).attributeMappings.map(\.keyPath))
    }

    @Test func writesASingleVersionDirectory() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try CoreDataModelReader.read(from: Fixtures.url("coredata/Vehicles.xcdatamodeld")).model
        let version = directory.appendingPathComponent("Vehicles.xcdatamodel")
        try CoreDataModelWriter().write(model, to: version)
        #expect(try FileManager.default.contentsOfDirectory(atPath: version.path) == ["contents"])
        #expect(try CoreDataModelReader.read(from: version).model.entities == model.entities)
    }

    @Test func namesXcodeRejectsAreReported() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "status",
                attributes: [
                    AttributeDescription(name: "ID", type: .integer64), AttributeDescription(name: "description", type: .string),
                    AttributeDescription(name: "text", type: .string),
                ])
        ])
        #expect(
            CoreDataModelWriter.xcodeNamingProblems(in: model).map(\.description) == [
                "entity status: Xcode requires entity names to start with an uppercase letter",
                "entity status, property ID: Xcode requires property names to start with a lowercase letter",
                "entity status, property description: Xcode rejects 'description' as a property name (an NSManagedObject member)",
            ])
        let fixtures = try CoreDataModelReader.read(from: Fixtures.url("coredata/Everything.xcdatamodel")).model
        #expect(CoreDataModelWriter.xcodeNamingProblems(in: fixtures).isEmpty)
    }

    // MARK: - Errors

    @Test func binaryDefaultValueIsUnrepresentable() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Blob",
                attributes: [
                    AttributeDescription(name: "data", type: .binary, defaultValue: .binary(Data([1, 2])))
                ])
        ])
        let error = try #require(throws: CoreDataModelError.self) { try CoreDataModelWriter().contents(for: model) }
        #expect(error.code == .unrepresentable)
        #expect(error.description == "entity Blob, property data: Core Data has no text form for the default value <2 bytes> of a binary attribute")
    }

    @Test func reservedKeyThatIsNotAnXMLNameIsUnrepresentable() throws {
        let model = try ObjectModel(entities: [EntityDescription(name: "A", userInfo: ["coreData.bad name": "x"])])
        let error = try #require(throws: CoreDataModelError.self) { try CoreDataModelWriter().contents(for: model) }
        #expect(error.code == .unrepresentable)
        #expect(error.description == "entity A: user-info key 'coreData.bad name' does not name an XML attribute")
    }

    /// XML 1.0 has no way to write U+0000–U+001F (but tab, line feed, carriage return), U+FFFE
    /// or U+FFFF, not even as a character reference: a key path holding one (a payload key
    /// `"\u0001"`, which `model infer --to xcdatamodel` maps) is unrepresentable, and nothing is
    /// written, where the writer used to write a `contents` file that no parser reads.
    @Test(arguments: [
        ("\u{0}", "U+0000"), ("x\u{1}", "U+0001"), ("\u{1F}", "U+001F"), ("a\u{FFFE}", "U+FFFE"), ("\u{FFFF}", "U+FFFF"),
    ])
    func charactersXMLCannotHoldAreUnrepresentable(keyPath: String, code: String) throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64, userInfo: [GrootAnnotation.jsonKeyPath: "id"]),
                    AttributeDescription(name: "odd", type: .string, userInfo: [GrootAnnotation.jsonKeyPath: keyPath]),
                ])
        ])
        let error = try #require(throws: CoreDataModelError.self) { try CoreDataModelWriter().contents(for: model) }
        #expect(error.code == .unrepresentable)
        #expect(
            error.description == "entity Item, property odd: its user-info entry JSONKeyPath holds \(code), "
                + "a character a Core Data model (XML 1.0) cannot hold")
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Odd.xcdatamodeld")
        #expect(throws: CoreDataModelError.self) { try CoreDataModelWriter().write(model, to: bundle) }
        #expect(!FileManager.default.fileExists(atPath: bundle.path))
    }

    /// Tab, line feed and carriage return are written as character references and read back.
    @Test func tabsAndNewlinesInValuesReadBack() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "odd", type: .string, userInfo: [GrootAnnotation.jsonKeyPath: "a\tb\nc\rd"])
                ])
        ])
        let xml = try CoreDataModelWriter().contents(for: model)
        let read = try CoreDataModelReader.read(contents: Data(xml.utf8))
        #expect(read.model.entities[0].attributes[0].jsonKeyPathText == "a\tb\nc\rd")
    }

    @Test func unwritablePathIsWriteFailed() throws {
        let model = try ObjectModel(entities: [EntityDescription(name: "A")])
        let error = try #require(throws: CoreDataModelError.self) {
            try CoreDataModelWriter().write(model, to: URL(fileURLWithPath: "/proc/trellis-nope/A.xcdatamodeld"))
        }
        #expect(error.code == .writeFailed)
        #expect(error.file == "/proc/trellis-nope/A.xcdatamodeld")
        #expect(error.message == "cannot write: No such file or directory")
    }

    /// A `contents` path that is a symbolic link is written through: the link stays, its
    /// target gets the XML. A bundle path that is a file is an error, not replaced.
    @Test func writesThroughSymbolicLinksAndNeverReplacesAFile() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try ObjectModel(entities: [EntityDescription(name: "A")])
        let target = directory.appendingPathComponent("real-contents")
        try Data("old".utf8).write(to: target)
        let link = directory.appendingPathComponent("contents")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real-contents")
        try CoreDataModelWriter().write(model, to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real-contents")
        #expect(String(decoding: try Data(contentsOf: target), as: UTF8.self) == (try CoreDataModelWriter().contents(for: model)))

        let file = directory.appendingPathComponent("File.xcdatamodeld")
        try Data("a file".utf8).write(to: file)
        let error = try #require(throws: CoreDataModelError.self) { try CoreDataModelWriter().write(model, to: file) }
        #expect(error.description == "\(file.path): cannot write: it is not a directory")
        #expect(try Data(contentsOf: file) == Data("a file".utf8))
    }
}
