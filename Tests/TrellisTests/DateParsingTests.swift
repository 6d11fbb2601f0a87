import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

@Suite struct DateParsingTests {
    struct Valid: Sendable, CustomTestStringConvertible {
        var text: String
        /// The exact instant as decimal seconds since 1970 (what `Double(_:)` must give).
        var seconds: String
        var testDescription: String { text }
    }

    static let valid: [Valid] = [
        Valid(text: "1970-01-01T00:00:00Z", seconds: "0"),
        Valid(text: "2011-08-23T20:24:12.249Z", seconds: "1314131052.249"),
        Valid(text: "2011-08-23T22:24:12.249+02:00", seconds: "1314131052.249"),
        Valid(text: "2011-08-23T22:24:12.249+0200", seconds: "1314131052.249"),
        Valid(text: "2011-08-23T15:54:12.249-04:30", seconds: "1314131052.249"),
        Valid(text: "2011-08-23T20:24:12.249", seconds: "1314131052.249"),
        Valid(text: "2011-08-23t20:24:12.249z", seconds: "1314131052.249"),
        Valid(text: "2011-08-23 20:24:12.249Z", seconds: "1314131052.249"),
        Valid(text: "2011-08-23T20:24:12.249-00:00", seconds: "1314131052.249"),
        Valid(text: "2011-08-23T20:24:12.2Z", seconds: "1314131052.2"),
        Valid(text: "2011-08-23T20:24:12.249000000Z", seconds: "1314131052.249"),
        Valid(text: "2011-08-23T20:24:12.123456789Z", seconds: "1314131052.123456789"),
        Valid(text: "2011-08-23T20:24:12.000001Z", seconds: "1314131052.000001"),
        Valid(text: "2015-02-16T19:30:00.000Z", seconds: "1424115000"),
        Valid(text: "2015-02-16", seconds: "1424044800"),
        Valid(text: "2000-02-29", seconds: "951782400"),
        Valid(text: "2000-02-29T00:00:00Z", seconds: "951782400"),
        // RFC 3339 §5.8 examples.
        Valid(text: "1985-04-12T23:20:50.52Z", seconds: "482196050.52"),
        Valid(text: "1996-12-19T16:39:57-08:00", seconds: "851042397"),
        Valid(text: "1990-12-31T23:59:60Z", seconds: "662688000"),
        Valid(text: "1990-12-31T15:59:60-08:00", seconds: "662688000"),
        // Leap second: the first second of the next minute.
        Valid(text: "2016-12-31T23:59:60Z", seconds: "1483228800"),
        Valid(text: "2016-12-31T23:59:60.5Z", seconds: "1483228800.5"),
        Valid(text: "1969-12-31T23:59:59Z", seconds: "-1"),
        Valid(text: "0000-01-01T00:00:00Z", seconds: "-62167219200"),
        Valid(text: "0001-01-01", seconds: "-62135596800"),
        Valid(text: "9999-12-31T23:59:59.999Z", seconds: "253402300799.999"),
        Valid(text: "9999-12-31T23:59:59.999999999Z", seconds: "253402300799.999999999"),
        Valid(text: "2038-01-19T03:14:08Z", seconds: "2147483648"),
        Valid(text: "2001-01-01T00:00:00.001+23:59", seconds: "978220860.001"),
    ]

    @Test(arguments: valid)
    func parsesToTheNearestDouble(_ c: Valid) throws {
        let date = try #require(RFC3339.date(from: c.text))
        #expect(date.timeIntervalSince1970 == Double(c.seconds))
        #expect(RFC3339.date(utf8: Array(c.text.utf8)) == date)
        #expect(RFC3339.date(from: c.text[...]) == date)
    }

    @Test(arguments: [
        "", "2015", "2015-02", "2015-02-1", "2015-2-16", "20150216", "+2015-02-16", "-0001-01-01", "10000-01-01",
        " 2015-02-16", "2015-02-16 ", "2015-02-16T", "2015-02-16T19:30Z", "2015-02-16T19:30:00ZZ",
        "2015-02-29", "1900-02-29", "2000-02-30", "2015-04-31", "2015-13-01", "2015-00-10", "2015-01-00", "2015-01-32",
        "2015-01-01T24:00:00Z", "2015-01-01T23:60:00Z", "2015-01-01T23:59:61Z", "2015-01-01T1:00:00Z",
        "2015-01-01T10:00:00.Z", "2015-01-01T10:00:00.1234567890Z", "2015-01-01T10:00:00,5Z",
        "2015-01-01T10:00:00+01", "2015-01-01T10:00:00+1:00", "2015-01-01T10:00:00+01:60", "2015-01-01T10:00:00+24:00",
        "2015-01-01T10:00:00+01:00:00", "2015-01-01T10:00:00+01-00", "2015-01-01T10:00:00-0", "2015-01-01T10:00:00 Z",
        "2015-01-01X10:00:00Z", "2015-01-01T10-00-00Z", "20150101T100000Z", "２０１５-01-01", "2015-01-01T10:00:00Z\u{0}",
        "2015-01-01T10:00:00UTC", "2015-01-01T10:00:00+01:00Z", "abcdefghij",
    ])
    func rejects(_ text: String) {
        #expect(RFC3339.date(from: text) == nil)
    }

    @Test(arguments: ["2015-02-16", "2000-02-29", "0000-01-01", "9999-12-31"])
    func fullDateIsMidnightUTC(_ text: String) throws {
        let date = try #require(RFC3339.date(fromFullDate: text))
        #expect(date == RFC3339.date(from: text + "T00:00:00Z"))
        #expect(RFC3339.fullDateString(from: date) == text)
    }

    @Test(arguments: ["2015-02-16T00:00:00Z", "2015-02-16T", "2015-02-29", "2015-02-16Z"])
    func fullDateRejectsEverythingElse(_ text: String) {
        #expect(RFC3339.date(fromFullDate: text) == nil)
    }

    /// For many millisecond dates from 1985 to 9999, `timeIntervalSince1970` is exactly
    /// `Double("<seconds>.<milliseconds>")`, and writing the date gives the text back.
    @Test func millisecondDatesAreCorrectlyRounded() throws {
        var generator = SplitMix64(seed: 0x5EED_1985)
        let low: Int64 = 482_112_000  // 1985-04-12
        let high: Int64 = 253_402_300_799
        var mismatches: [String] = []
        for i in 0..<50_000 {
            // Half the cases near today, half across the whole range.
            let seconds =
                i % 2 == 0
                ? Int64(generator.next() % UInt64(high - low)) + low
                : 1_700_000_000 + Int64(generator.next() % 200_000_000)
            let milliseconds = Int(generator.next() % 1000)
            let fraction = String(milliseconds + 1000).dropFirst()
            let whole = RFC3339.string(from: Date(timeIntervalSince1970: Double(seconds)), fractionDigits: 0)
            let text = whole.dropLast() + "." + fraction + "Z"
            guard let date = RFC3339.date(from: text), date.timeIntervalSince1970 == Double("\(seconds).\(fraction)"),
                RFC3339.string(from: date) == text
            else {
                mismatches.append(String(text))
                continue
            }
        }
        #expect(mismatches == [])
    }

    /// Fractions of 1 to 9 digits over years 0000–9999, including the 128-bit path (more
    /// than 2^53 units) and negative instants: `timeIntervalSince1970` is the nearest
    /// Double, or, where `Date` cannot hold that Double (before 1985),
    /// `timeIntervalSinceReferenceDate` is the nearest Double to the instant.
    @Test func longFractionsAreCorrectlyRounded() throws {
        var generator = SplitMix64(seed: 42)
        var mismatches: [String] = []
        var nearestDateCount = 0
        for i in 0..<30_000 {
            let seconds = Int64(generator.next() % 315_569_520_000) - 62_167_219_200  // 0000-01-01 ..< 10000-01-01
            let digits = i % 9 + 1
            let scale = UInt64(EpochInstant.powerOfTen(digits))
            let fraction = String(String(generator.next() % scale + scale).dropFirst())
            let whole = RFC3339.string(from: Date(timeIntervalSince1970: Double(seconds)), fractionDigits: 0)
            let text = whole.dropLast() + "." + fraction + "Z"
            guard let date = RFC3339.date(from: text) else {
                mismatches.append(String(text))
                continue
            }
            if date.timeIntervalSince1970 == Double(exactDecimal(seconds: seconds, fraction: fraction)) { continue }
            nearestDateCount += 1
            let sinceReference = Double(exactDecimal(seconds: seconds - 978_307_200, fraction: fraction))
            if seconds >= 482_112_000 || date.timeIntervalSinceReferenceDate != sinceReference {
                mismatches.append(String(text))
            }
        }
        #expect(mismatches == [])
        #expect(nearestDateCount > 0)  // the fallback was exercised
    }

    @Test(arguments: [
        ("1970-01-01T00:00:00.001Z", "-978307199.999"),
        ("1969-12-31T23:59:59.999Z", "-978307200.001"),
        ("1937-01-01T12:00:27.87+00:20", "-2019644372.13"),
        ("1980-06-15T12:34:56.789Z", "-648386703.211"),
    ])
    func datesBefore1985AreTheNearestDate(_ text: String, _ sinceReference: String) throws {
        let date = try #require(RFC3339.date(from: text))
        #expect(date.timeIntervalSinceReferenceDate == Double(sinceReference))
    }

    /// Calendar arithmetic agrees with Foundation's Gregorian calendar at whole seconds
    /// from 1583 on (Foundation's calendar is Julian before October 1582; RFC 3339 and
    /// this parser use the proleptic Gregorian calendar throughout).
    @Test func wholeSecondsAgreeWithFoundation() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: 0))
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let seconds = Int64(generator.next() % 265_046_774_400) - 11_644_473_600  // 1601 ... 9999
            let date = Date(timeIntervalSince1970: Double(seconds))
            let c = calendar.dateComponents([.era, .year, .month, .day, .hour, .minute, .second], from: date)
            let text = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02dZ",
                c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
            #expect(RFC3339.date(from: text)?.timeIntervalSince1970 == Double(seconds), "\(text)")
            #expect(RFC3339.string(from: date, fractionDigits: 0) == text)
        }
    }

    /// Mutated date texts never trap; whatever is accepted writes back (UTC, 9 digits)
    /// to text that reads as the same instant.
    @Test func mutatedTextIsRejectedOrConsistent() throws {
        var generator = SplitMix64(seed: 99)
        let alphabet = Array("0123456789-:.TtZz+ 9\u{0}é".utf8)
        let seeds = ["2011-08-23T20:24:12.249+02:00", "2000-02-29T23:59:60.123456789Z", "1999-12-31", "0000-01-01T00:00:00-23:59"]
        var accepted = 0
        var inconsistent: [String] = []
        for i in 0..<20_000 {
            var bytes = Array(seeds[i % seeds.count].utf8)
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let position = Int(generator.next() % UInt64(bytes.count + 1))
                let byte = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                switch generator.next() % 3 {
                case 0: if position < bytes.count { bytes[position] = byte }
                case 1: bytes.insert(byte, at: position)
                default: if position < bytes.count { bytes.remove(at: position) }
                }
            }
            guard let date = RFC3339.date(utf8: bytes) else { continue }
            accepted += 1
            let written = RFC3339.string(from: date, fractionDigits: 9)
            // An offset can move year 0000 into year -1, which is written in the expanded form and not read.
            if written.hasPrefix("-") { continue }
            guard let reread = RFC3339.date(from: written), abs(reread.timeIntervalSince(date)) < 1e-6 else {
                inconsistent.append(String(decoding: bytes, as: UTF8.self))
                continue
            }
        }
        #expect(inconsistent == [])
        #expect(accepted > 1_000)
    }

    @Test func civilDaysRoundTripOverTheWholeRange() {
        var expected = CivilDate.days(year: 0, month: 1, day: 1)
        #expect(expected == -719_528)
        var failures = 0
        for year: Int64 in 0...9999 {
            for month: Int64 in 1...12 {
                for day in 1...CivilDate.daysInMonth(year: year, month: month) {
                    let days = CivilDate.days(year: year, month: month, day: day)
                    if days != expected || CivilDate.civil(days: days) != (year, month, day) { failures += 1 }
                    expected += 1
                }
            }
        }
        #expect(failures == 0)
        #expect(expected == CivilDate.days(year: 10000, month: 1, day: 1))
    }

    // MARK: - Writing

    @Test(
        arguments: [
            (1_314_131_052.249, 3, "2011-08-23T20:24:12.249Z"),
            (1_314_131_052.249, 0, "2011-08-23T20:24:12Z"),
            (1_314_131_052.249, 1, "2011-08-23T20:24:12.2Z"),
            (1_314_131_052.249, 6, "2011-08-23T20:24:12.249000Z"),
            (1_314_131_052.9996, 3, "2011-08-23T20:24:13.000Z"),
            (0, 3, "1970-01-01T00:00:00.000Z"),
            (-0.001, 3, "1969-12-31T23:59:59.999Z"),
            (-62_167_219_200, 0, "0000-01-01T00:00:00Z"),
            (-62_167_219_201, 0, "-0001-12-31T23:59:59Z"),
            (253_402_300_800, 0, "+10000-01-01T00:00:00Z"),
            (1_483_228_800, 3, "2017-01-01T00:00:00.000Z"),
            (.nan, 0, "1970-01-01T00:00:00Z"),
            (.infinity, 0, "+275760-09-13T00:00:00Z"),
            (1_314_131_052.249, 12, "2011-08-23T20:24:12.249000072Z"),
            (1_314_131_052.249, -1, "2011-08-23T20:24:12Z"),
        ] as [(Double, Int, String)])
    func writesUTC(_ seconds: Double, _ digits: Int, _ expected: String) {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: seconds), fractionDigits: digits) == expected)
    }

    @Test func writesTheUTCDay() {
        #expect(RFC3339.fullDateString(from: Date(timeIntervalSince1970: 1_314_131_052.249)) == "2011-08-23")
        #expect(RFC3339.fullDateString(from: Date(timeIntervalSince1970: -0.5)) == "1969-12-31")
        #expect(RFC3339.fullDateString(from: Date(timeIntervalSince1970: 86_399.9999)) == "1970-01-01")
    }

    // MARK: - Helpers

    /// `seconds + 0.fraction` as exact decimal text (seconds may be negative).
    func exactDecimal(seconds: Int64, fraction: String) -> String {
        if seconds >= 0 { return "\(seconds).\(fraction)" }
        let scale = Int64(EpochInstant.powerOfTen(fraction.count))
        let f = Int64(fraction) ?? 0
        if f == 0 { return String(seconds) }
        let complement = String(String(scale - f + scale).dropFirst())
        return "-\(-seconds - 1).\(complement)"
    }
}
