import Foundation
import Testing

@testable import TrellisCLI

@Suite struct ImportProgressBarTests {
    @Test func lineShowsBytesRateAndETA() {
        let line = ProgressBar.line(bytes: 12_300_000, total: 41_000_000, objects: 12_345, elapsed: .seconds(10))
        #expect(line == "12.3 MB / 41.0 MB [========>                     ]  30%  1,234 objects/s  ETA 0:23")
    }

    @Test func lineAtStartAndEnd() {
        #expect(
            ProgressBar.line(bytes: 0, total: 5_000_000, objects: 0, elapsed: .zero)
                == "0.0 MB / 5.0 MB [                              ]   0%  0 objects/s  ETA --:--")
        #expect(
            ProgressBar.line(bytes: 5_000_000, total: 5_000_000, objects: 2_000_000, elapsed: .seconds(125))
                == "5.0 MB / 5.0 MB [=============================>] 100%  16,000 objects/s  ETA 0:00")
    }

    @Test func grouping() {
        #expect(ProgressBar.grouped(0) == "0")
        #expect(ProgressBar.grouped(999) == "999")
        #expect(ProgressBar.grouped(1_000) == "1,000")
        #expect(ProgressBar.grouped(1_234_567) == "1,234,567")
    }
}

/// What the bar writes while an import waits for another writer, and around its own lines.
@Suite struct ProgressBarOutputTests {
    /// The text a bar over a pipe wrote while `body` ran.
    static func output(enabled: Bool, _ body: (ProgressBar) -> Void) throws -> String {
        let pipe = Pipe()
        let bar = ProgressBar(totalBytes: 10 << 20, enabled: enabled, output: FileOutput(fileDescriptor: pipe.fileHandleForWriting.fileDescriptor))
        body(bar)
        try pipe.fileHandleForWriting.close()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test func waitingIsSaidOnceAfterASecondAndShownInTheBar() throws {
        let shown = try Self.output(enabled: true) { bar in
            bar.waiting(.milliseconds(500))
            bar.waiting(.seconds(2))
            bar.waiting(.seconds(3))
            bar.finish()
        }
        // The second redraw comes within 100 ms of the first, so it is skipped.
        #expect(shown == "waiting for another import to finish…\n\rwaiting for another import to finish… 0:02\u{1B}[K\r\u{1B}[K")
        let quiet = try Self.output(enabled: false) { bar in
            bar.waiting(.milliseconds(999))
            bar.waiting(.seconds(1))
            bar.waiting(.seconds(65))
            bar.finish()
        }
        #expect(quiet == "waiting for another import to finish…\n")
    }

    @Test func aLineOfItsOwnErasesTheBarFirst() throws {
        let shown = try Self.output(enabled: true) { bar in
            bar.update(bytes: 1 << 20, objects: 10)
            bar.write(line: "note")
            bar.finish()
        }
        #expect(shown.hasPrefix("\r1.0 MB / 10.5 MB ["))
        #expect(shown.hasSuffix("\u{1B}[K\r\u{1B}[Knote\n"))
        #expect(ProgressBar.clock(.seconds(754)) == "12:34")
    }
}
