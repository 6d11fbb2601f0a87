import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// ``RFC3339/exactString(from:)``: as many fraction digits (3, 6 or 9) as the date needs
/// to read back as itself.
@Suite struct RFC3339ExactStringTests {
    @Test(arguments: [
        ("2011-08-23T20:24:12.249Z", "2011-08-23T20:24:12.249Z"),
        ("2015-11-13T09:36:13.184968Z", "2015-11-13T09:36:13.184968Z"),
        ("2015-11-13T09:36:13Z", "2015-11-13T09:36:13.000Z"),
        ("2015-11-13T09:36:13.5Z", "2015-11-13T09:36:13.500Z"),
        ("2015-11-13T09:36:13.1849Z", "2015-11-13T09:36:13.184900Z"),
        ("2015-11-13T10:36:13.000001+01:00", "2015-11-13T09:36:13.000001Z"),
        ("1969-12-31T23:59:59.999999Z", "1969-12-31T23:59:59.999999Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"),
    ])
    func writesTheDigitsTheDateHas(_ text: String, _ expected: String) throws {
        let date = try #require(RFC3339.date(from: text))
        #expect(RFC3339.exactString(from: date) == expected)
        #expect(RFC3339.date(from: expected) == date)
    }

    /// A date no text reads back as exactly has the nearest nanosecond; one beyond the years
    /// the reader takes, 3 digits.
    @Test func aDateNoTextReadsBackAsHasNineOrThreeDigits() {
        // Seconds since 2001 (2010-02-08T11:58:48.2163068…Z) that no rounded Unix second gives.
        let since2001 = Date(timeIntervalSinceReferenceDate: 287_236_728.216_306_8)
        #expect(RFC3339.date(from: RFC3339.exactString(from: since2001)) != since2001)
        #expect(RFC3339.exactString(from: since2001) == RFC3339.string(from: since2001, fractionDigits: 9))
        #expect(RFC3339.exactString(from: Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.exactString(from: Date(timeIntervalSince1970: 253_402_300_800)) == "+10000-01-01T00:00:00.000Z")
    }

    /// Every microsecond text from 1985 to 2106 comes back as written (padded to 6 digits),
    /// through SQLite's storage of the date as Unix seconds too; any date of Unix seconds
    /// (what the reader and the SQLite store give) reads back as itself.
    @Test func microsecondsComeBackFrom1985To2106() throws {
        var generator = SplitMix64(seed: 0x00E8_AC75)
        var mismatches: [String] = []
        for _ in 0..<20_000 {
            let seconds = Int64(generator.next() % (4_294_967_295 - 482_112_000)) + 482_112_000
            let micro = String(String(generator.next() % 1_000_000 + 1_000_000).dropFirst())
            let text =
                String(RFC3339.string(from: Date(timeIntervalSince1970: Double(seconds)), fractionDigits: 0).dropLast())
                + "." + micro + "Z"
            guard let date = RFC3339.date(from: text) else {
                mismatches.append(text)
                continue
            }
            let written = RFC3339.exactString(from: date)
            let stored = Date(timeIntervalSince1970: date.timeIntervalSince1970)
            let expected = micro.hasSuffix("000") ? String(text.dropLast(4)) + "Z" : text
            if written != expected || RFC3339.exactString(from: stored) != expected { mismatches.append(text) }
            let unix = Date(timeIntervalSince1970: Double(seconds) + Double(generator.next() % (1 << 52)) / Double(1 << 52))
            if RFC3339.date(from: RFC3339.exactString(from: unix)) != unix { mismatches.append("\(unix.timeIntervalSince1970)") }
        }
        #expect(mismatches == [])
    }
}
