import Foundation
import Testing
import TrellisModelFile
import TrellisTestSupport

@testable import TrellisCLI

/// `trellis model convert` into a `.xcdatamodeld` that exists adds a version, as Xcode's
/// "Add Model Version" does, and never rewrites the versions already there.
@Suite struct ModelConvertBundleTests {
    static let counts = ": 2 entities, 5 attributes, 2 relationships\n"

    /// A scratch directory holding a copy of the Library fixture (versions `Library` and
    /// `Library 2`, the second current).
    static func directoryWithLibrary() throws -> URL {
        let directory = try ModelCommandTests.temporaryDirectory()
        try FileManager.default.copyItem(
            at: Fixtures.url("coredata/Library.xcdatamodeld"),
            to: directory.appendingPathComponent("Library.xcdatamodeld"))
        return directory
    }

    /// Every file under `url` (relative path → bytes).
    static func files(under url: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: url.path) {
            let file = url.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[path] = try Data(contentsOf: file)
            }
        }
        return files
    }

    static func currentVersionPlist(_ version: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t<string>\(version).xcdatamodel</string>
        </dict>
        </plist>

        """
    }

    @Test func convertingABundleIntoItselfAddsTheNextVersion() throws {
        let directory = try Self.directoryWithLibrary()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Library.xcdatamodeld")
        let before = try Self.files(under: bundle)

        let result = trellis(arguments: ["model", "convert", "Library.xcdatamodeld", "--to", "xcdatamodel"], in: directory)
        #expect(
            result
                == CommandResult(
                    status: 0, stdout: "wrote Library.xcdatamodeld (new version Library 3, now current)" + Self.counts, stderr: ""))

        let after = try Self.files(under: bundle)
        for (path, bytes) in before where path != ".xccurrentversion" {
            #expect(after[path] == bytes, "\(path) changed")
        }
        #expect(
            after.keys.sorted() == [
                ".xccurrentversion", "Library 2.xcdatamodel/contents", "Library 3.xcdatamodel/contents",
                "Library.xcdatamodel/contents",
            ])
        #expect(String(decoding: after[".xccurrentversion"] ?? Data(), as: UTF8.self) == Self.currentVersionPlist("Library 3"))
        // The new version is the model that was current (Library 2), byte for byte.
        #expect(after["Library 3.xcdatamodel/contents"] == before["Library 2.xcdatamodel/contents"])
        let read = try CoreDataModelReader.read(from: bundle)
        #expect(read.versionName == "Library 3")
        #expect(read.versionNames == ["Library", "Library 2", "Library 3"])

        // Again: Library 4.
        let again = trellis(arguments: ["model", "convert", "Library.xcdatamodeld", "--to", "xcdatamodel"], in: directory)
        #expect(again.stdout == "wrote Library.xcdatamodeld (new version Library 4, now current)" + Self.counts)
        #expect(try Self.files(under: bundle)["Library 3.xcdatamodel/contents"] == after["Library 3.xcdatamodel/contents"])
    }

    @Test func convertingAJSONModelIntoAnExistingBundleAddsAVersion() throws {
        let directory = try Self.directoryWithLibrary()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Library.xcdatamodeld")
        let before = try Self.files(under: bundle)
        try Data(
            #"{"format": "trellis-model", "formatVersion": 1, "entities": [{"name": "Note", "attributes": [{"name": "text", "type": "string"}]}]}"#
                .utf8
        ).write(to: directory.appendingPathComponent("other.json"))

        let result = trellis(arguments: ["model", "convert", "other.json", "-o", "Library.xcdatamodeld"], in: directory)
        #expect(
            result
                == CommandResult(
                    status: 0, stdout: "wrote Library.xcdatamodeld (new version Library 3, now current): 1 entity, 1 attribute, 0 relationships\n",
                    stderr: ""))
        let after = try Self.files(under: bundle)
        #expect(after["Library.xcdatamodel/contents"] == before["Library.xcdatamodel/contents"])
        #expect(after["Library 2.xcdatamodel/contents"] == before["Library 2.xcdatamodel/contents"])
        #expect(String(decoding: after[".xccurrentversion"] ?? Data(), as: UTF8.self) == Self.currentVersionPlist("Library 3"))
        let current = try CoreDataModelReader.read(from: bundle)
        #expect(current.versionName == "Library 3")
        #expect(current.model.entities.map(\.name) == ["Note"])
    }

    @Test func anExistingVersionDirectoryIsNotOverwritten() throws {
        let directory = try Self.directoryWithLibrary()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Library.xcdatamodeld")
        let before = try Self.files(under: bundle)
        let message =
            ": already exists; a model version is not overwritten (remove it first, or write to a .xcdatamodeld "
            + "bundle, which gets a new version)\n"

        let first = trellis(arguments: ["model", "convert", "Library.xcdatamodeld", "-o", "Copy.xcdatamodel"], in: directory)
        #expect(first == CommandResult(status: 0, stdout: "wrote Copy.xcdatamodel" + Self.counts, stderr: ""))
        let copy = try Data(contentsOf: directory.appendingPathComponent("Copy.xcdatamodel/contents"))
        let second = trellis(
            arguments: ["model", "convert", "Library.xcdatamodeld", "--version", "Library", "-o", "Copy.xcdatamodel"],
            in: directory)
        #expect(second == CommandResult(status: 1, stdout: "", stderr: "error: Copy.xcdatamodel" + message))
        #expect(try Data(contentsOf: directory.appendingPathComponent("Copy.xcdatamodel/contents")) == copy)

        let inside = trellis(
            arguments: [
                "model", "convert", "Library.xcdatamodeld", "--version", "Library",
                "-o", "Library.xcdatamodeld/Library 2.xcdatamodel",
            ], in: directory)
        #expect(inside == CommandResult(status: 1, stdout: "", stderr: "error: Library.xcdatamodeld/Library 2.xcdatamodel" + message))
        #expect(try Self.files(under: bundle) == before)
    }
}
