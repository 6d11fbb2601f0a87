import Foundation
import Testing

@testable import TrellisModelFile

/// `OutputFile.write(to:_:)`: text written in chunks to a temporary file renamed over the
/// path once complete (what `trellis export -o` uses), never a half-written file.
@Suite struct OutputFileStreamTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-output-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    struct Interrupted: Error {}

    @Test func chunksAppearTogetherOnceComplete() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("out.json")
        try Data("old".utf8).write(to: file)
        try OutputFile.write(to: file) { write in
            try write(Data("[1,".utf8))
            // Not there yet: the old file is what readers see.
            #expect(try String(contentsOf: file, encoding: .utf8) == "old")
            try write(Data("2]\n".utf8))
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "[1,2]\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.json"])
    }

    /// A producer that throws midway leaves the file as it was (or absent) and no temporary file.
    @Test func aFailedProducerLeavesTheFileAsItWas() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("out.json")
        try Data("old".utf8).write(to: file)
        #expect(throws: Interrupted.self) {
            try OutputFile.write(to: file) { write in
                try write(Data("[1,".utf8))
                throw Interrupted()
            }
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "old")
        let absent = directory.appendingPathComponent("new.json")
        #expect(throws: Interrupted.self) {
            try OutputFile.write(to: absent) { write in
                try write(Data("[".utf8))
                throw Interrupted()
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.json"])
    }

    /// A device is written in place (`/dev/null` stays a device); a directory is refused.
    @Test func devicesInPlaceDirectoriesRefused() throws {
        try OutputFile.write(to: URL(fileURLWithPath: "/dev/null")) { write in try write(Data("x".utf8)) }
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: OutputFileError.self) { try OutputFile.write(to: directory) { write in try write(Data("x".utf8)) } }
    }
}
