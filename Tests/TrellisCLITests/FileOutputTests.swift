import Foundation
import Testing

@testable import TrellisCLI

@Suite struct FileOutputTests {
    @Test func failedWriteIsRecordedAndLaterWritesAreDropped() throws {
        let descriptor = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var output = FileOutput(fileDescriptor: descriptor)
        #expect(output.writeError == nil)
        output.write("[1, 2, 3]\n")
        #expect(output.writeError == ENOSPC)
        output.write("more\n")
        #expect(output.writeError == ENOSPC)
    }

    @Test func commandWritingToAFullOutputFailsWithAMessage() throws {
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0)
        defer { close(full) }
        let errors = Pipe()
        let status = TrellisCommand.run(
            arguments: ["--help"], environment: CommandEnvironment(),
            standardOutput: FileOutput(fileDescriptor: full),
            standardError: FileOutput(fileDescriptor: errors.fileHandleForWriting.fileDescriptor))
        try errors.fileHandleForWriting.close()
        #expect(status == ExitStatus.failure)
        #expect(
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                == "error: cannot write standard output: No space left on device\n")
    }
}
