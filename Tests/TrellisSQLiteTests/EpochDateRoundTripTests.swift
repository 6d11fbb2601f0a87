import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSQLite

/// Epoch seconds and milliseconds through `epoch-seconds` / `epoch-milliseconds`, the
/// stores (SQLite: dates as REAL Unix seconds; PostgreSQL: timestamptz) and back: integral
/// values come back as the same integers, although `Date` (a Double of seconds since 2001)
/// cannot hold most of them.
@Suite struct EpochDateRoundTripTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Event",
                attributes: [
                    AttributeDescription(name: "key", type: .integer64),
                    AttributeDescription(name: "start", type: .date),
                ], userInfo: ["identityAttributes": "key"])
        ])
    }

    /// Imports each value with `transformer`, stores, fetches and exports it, on every store
    /// that keeps data (SQLite: REAL Unix seconds; PostgreSQL: timestamptz microseconds), which
    /// must agree; returns the exported number texts, in input order.
    static func roundTrip(_ values: [Int64], through transformer: JSONValueTransformer) throws -> [String] {
        let sqlite = try roundTrip(values, through: transformer, on: .sqlite)
        guard StoreKind.persistent.contains(.postgres) else { return sqlite }
        // PostgreSQL's timestamptz spans 4713 BC to 294276 AD: later or earlier dates are
        // refused (never stored shortened); the others come back as from SQLite.
        let dates = try values.map { try transformer.transformedValue(.number(JSONNumber($0))) }
        let fits = dates.map { date -> Bool in
            guard case .date(let d)? = date else { return true }
            return d.timeIntervalSince1970 >= -210_866_803_200 && d.timeIntervalSince1970 < 9_224_318_016_000
        }
        let inRange = zip(values, fits).filter(\.1).map(\.0)
        let expected = zip(sqlite, fits).filter(\.1).map(\.0)
        let postgres = try roundTrip(inRange, through: transformer, on: .postgres)
        if let first = zip(inRange, zip(expected, postgres)).first(where: { $0.1.0 != $0.1.1 }) {
            Issue.record("postgres: \(first.0) → \(first.1.1) instead of \(first.1.0)")
        }
        #expect(postgres.count == expected.count)
        if let outside = zip(values, fits).first(where: { !$0.1 })?.0 {
            #expect { _ = try roundTrip([outside], through: transformer, on: .postgres) } throws: { error in
                (error as? StoreError)?.code == .unsupportedValue
                    && (error as? StoreError)?.message.contains("outside the range of PostgreSQL's timestamptz") == true
            }
        }
        return sqlite
    }

    /// ``roundTrip(_:through:)`` on one store.
    static func roundTrip(_ values: [Int64], through transformer: JSONValueTransformer, on kind: StoreKind) throws -> [String] {
        let test = try kind.makeStore(model: try model())
        let store = test.store
        let inserted = try values.enumerated().map { i, value in
            let date = try transformer.transformedValue(.number(JSONNumber(value)))
            return ObjectSnapshot(
                id: tid("Event", Int64(i + 1)), isPlaceholder: false,
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
        let values: [Int64] = [
            143_646_844_205, -2_005_618_344_228, -1, 1, -999, 473_385_600_123, 0,
            1_000_000_000_000_000, -1_000_000_000_000_000, 999_999_999_999_999, -999_999_999_999_999,
        ]
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
