import Foundation
import Testing
import Trellis
import TrellisTestSupport
@testable import TrellisSQLite

/// Epoch seconds and milliseconds through `epoch-seconds` / `epoch-milliseconds`, the
/// SQLite store (dates as REAL Unix seconds) and back: integral values come back as the
/// same integers, although `Date` (a Double of seconds since 2001) cannot hold most of them.
@Suite struct EpochDateRoundTripTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(name: "Event", attributes: [
                AttributeDescription(name: "key", type: .integer64),
                AttributeDescription(name: "start", type: .date),
            ], userInfo: ["identityAttributes": "key"]),
        ])
    }

    /// Imports each value with `transformer`, stores, fetches and exports it; returns the
    /// exported number texts, in input order.
    static func roundTrip(_ values: [Int64], through transformer: JSONValueTransformer) throws -> [String] {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try SQLiteStore(path: directory.path("s.sqlite"), model: try model())
        let inserted = try values.enumerated().map { i, value in
            let date = try transformer.transformedValue(.number(JSONNumber(value)))
            return ObjectSnapshot(id: tid("Event", Int64(i + 1)), isPlaceholder: false,
                                  attributes: [.integer(Int64(i)), date], relationships: [])
        }
        _ = try store.write { try $0.apply(ChangeSet(inserted: inserted)) }
        let fetched = try store.read { try $0.fetch(entity: "Event", matching: nil) }
            .sorted { ($0.attributes[0]?.integerValue ?? 0) < ($1.attributes[0]?.integerValue ?? 0) }
        return try fetched.map { snapshot in
            guard case .number(let n) = try transformer.reverseTransformedValue(snapshot.attributes[1]!) else { return "not a number" }
            return n.text
        }
    }

    /// Uniform integers in `range`, from a fixed seed (replayable).
    static func randomValues(_ range: ClosedRange<Int64>, count: Int, seed: UInt64) -> [Int64] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in Int64.random(in: range, using: &generator) }
    }

    // 1600-01-01 and 2400-01-01 in Unix seconds.
    static let year1600: Int64 = -11_676_096_000
    static let year2400: Int64 = 13_569_465_600

    @Test func reportedMillisecondsComeBackExactly() throws {
        let values: [Int64] = [143_646_844_205, -2_005_618_344_228, -1, 1, -999, 473_385_600_123, 0,
                               1_000_000_000_000_000, -1_000_000_000_000_000, 999_999_999_999_999, -999_999_999_999_999]
        #expect(try Self.roundTrip(values, through: .epochMilliseconds) == values.map(String.init))
    }

    @Test func randomMillisecondsFrom1600To2400ComeBackExactly() throws {
        let values = Self.randomValues(Self.year1600 * 1000...Self.year2400 * 1000, count: 20_000, seed: 0x7E11_1500)
        let exported = try Self.roundTrip(values, through: .epochMilliseconds)
        let wrong = zip(values, exported).filter { String($0) != $1 }
        #expect(wrong.isEmpty, "\(wrong.count) wrong, e.g. \(wrong.prefix(5))")
    }

    @Test func randomMillisecondsWithin10To15ComeBackExactly() throws {
        let values = Self.randomValues(-1_000_000_000_000_000...1_000_000_000_000_000, count: 5_000, seed: 42)
        let exported = try Self.roundTrip(values, through: .epochMilliseconds)
        let wrong = zip(values, exported).filter { String($0) != $1 }
        #expect(wrong.isEmpty, "\(wrong.count) wrong, e.g. \(wrong.prefix(5))")
    }

    @Test func randomSecondsComeBackExactly() throws {
        var values = Self.randomValues(Self.year1600...Self.year2400, count: 10_000, seed: 7)
        values += Self.randomValues(-1_000_000_000_000...1_000_000_000_000, count: 5_000, seed: 8)
        values += [143_646_844, -2_005_618_344, 1_000_000_000_000, -1_000_000_000_000]
        let exported = try Self.roundTrip(values, through: .epochSeconds)
        let wrong = zip(values, exported).filter { String($0) != $1 }
        #expect(wrong.isEmpty, "\(wrong.count) wrong, e.g. \(wrong.prefix(5))")
    }

    /// Without the store: the transformer alone, forward then reverse.
    @Test func reverseOfForwardIsTheSameInteger() throws {
        let values = Self.randomValues(Self.year1600 * 1000...Self.year2400 * 1000, count: 20_000, seed: 1984)
        var wrong: [(Int64, String)] = []
        for value in values {
            let date = try JSONValueTransformer.epochMilliseconds.transformedValue(.number(JSONNumber(value)))
            let json = try JSONValueTransformer.epochMilliseconds.reverseTransformedValue(date!)
            if case .number(let n) = json, n.text == String(value) { continue }
            wrong.append((value, "\(json)"))
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong, e.g. \(wrong.prefix(5))")
    }
}
