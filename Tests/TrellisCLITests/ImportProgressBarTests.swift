import Testing
@testable import TrellisCLI

@Suite struct ImportProgressBarTests {
    @Test func lineShowsBytesRateAndETA() {
        let line = ProgressBar.line(bytes: 12_300_000, total: 41_000_000, objects: 12_345, elapsed: .seconds(10))
        #expect(line == "12.3 MB / 41.0 MB [========>                     ]  30%  1,234 objects/s  ETA 0:23")
    }

    @Test func lineAtStartAndEnd() {
        #expect(ProgressBar.line(bytes: 0, total: 5_000_000, objects: 0, elapsed: .zero)
                    == "0.0 MB / 5.0 MB [                              ]   0%  0 objects/s  ETA --:--")
        #expect(ProgressBar.line(bytes: 5_000_000, total: 5_000_000, objects: 2_000_000, elapsed: .seconds(125))
                    == "5.0 MB / 5.0 MB [=============================>] 100%  16,000 objects/s  ETA 0:00")
    }

    @Test func grouping() {
        #expect(ProgressBar.grouped(0) == "0")
        #expect(ProgressBar.grouped(999) == "999")
        #expect(ProgressBar.grouped(1_000) == "1,000")
        #expect(ProgressBar.grouped(1_234_567) == "1,234,567")
    }
}
