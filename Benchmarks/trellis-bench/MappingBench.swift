import Foundation
import Trellis

// `trellis-bench mapping [FILE] [--runs N] [--profile]`: the typed layer against Foundation's
// JSONDecoder on the characters file (`python3 /work/shared/bench/gen_characters.py
// 100000 FILE`; default FILE `Benchmarks/data/characters.json`, else
// `/tmp/characters.json`). Both sides build the same Swift structs (String ids, a `Date`
// from the RFC 3339 `created_at` with milliseconds, nested powers and publisher).
// Prints best/median seconds and MB/s (wall clock and the thread's CPU time, which is
// what to compare on a loaded machine) of: Trellis parse + map (results and the JSON
// tree freed inside the measurement, as JSONDecoder frees its own), parsing alone,
// mapping an already parsed tree; JSONDecoder with a fractional-seconds ISO 8601 date
// strategy; JSONDecoder with `created_at` kept as a String (its floor); and the ratios.

// MARK: - Trellis models

struct MappedPower: JSONMappable {
    let id: String
    let name: String
    init(map: JSONMap) throws {
        id = try map.from("id")
        name = try map.from("name")
    }
}

struct MappedPublisher: JSONMappable {
    let id: String
    let name: String
    init(map: JSONMap) throws {
        id = try map.from("id")
        name = try map.from("name")
    }
}

struct MappedCharacter: JSONMappable {
    let id: String
    let name: String
    let realName: String?
    let powers: [MappedPower]
    let publisher: MappedPublisher?
    let createdAt: Date
    let rating: Double
    let active: Bool
    init(map: JSONMap) throws {
        id = try map.from("id")
        name = try map.from("name")
        realName = try map.from("real_name")
        powers = try map.from("powers") ?? []
        publisher = try map.from("publisher")
        createdAt = try map.from("created_at")
        rating = try map.from("rating")
        active = try map.from("active")
    }
}

// MARK: - Codable models

struct CodablePower: Codable {
    let id: String
    let name: String
}

struct CodablePublisher: Codable {
    let id: String
    let name: String
}

struct CodableCharacter: Codable {
    let id: String
    let name: String
    let realName: String?
    let powers: [CodablePower]
    let publisher: CodablePublisher?
    let createdAt: Date
    let rating: Double
    let active: Bool

    enum CodingKeys: String, CodingKey {
        case id, name
        case realName = "real_name"
        case powers, publisher
        case createdAt = "created_at"
        case rating, active
    }
}

struct CodableCharacterStringDate: Codable {
    let id: String
    let name: String
    let realName: String?
    let powers: [CodablePower]
    let publisher: CodablePublisher?
    let createdAt: String
    let rating: Double
    let active: Bool

    enum CodingKeys: String, CodingKey {
        case id, name
        case realName = "real_name"
        case powers, publisher
        case createdAt = "created_at"
        case rating, active
    }
}

// MARK: - Workload

/// Runs the mapping benchmark; `arguments` are those after the workload name.
func runMappingBenchmark(arguments: [String]) throws {
    var path: String?
    var runs = 3
    var profileOnly = false
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
        switch argument {
        case "--runs": runs = iterator.next().flatMap(Int.init) ?? runs
        case "--profile":
            // `--profile`: only parse + map with Trellis, `--runs` times (for perf).
            profileOnly = true
        case "--help", "-h":
            print("usage: trellis-bench mapping [FILE] [--runs N] [--profile]")
            return
        default: path = argument
        }
    }
    let candidates = path.map { [$0] } ?? ["Benchmarks/data/characters.json", "/tmp/characters.json"]
    guard let file = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
        throw MappingBenchError(
            message: "no characters file at \(candidates.joined(separator: " or ")); "
                + "generate one: python3 /work/shared/bench/gen_characters.py 100000 /tmp/characters.json")
    }
    let data = try Data(contentsOf: URL(fileURLWithPath: file))
    let megabytes = Double(data.count) / 1_000_000
    if profileOnly {
        var count = 0
        for _ in 0..<runs { count += try [MappedCharacter](jsonData: data).count }
        print(count)
        return
    }
    print("mapping: \(file), \(data.count) bytes, \(runs) runs (best / median)")

    // Checksums keep the results alive and prove both sides read the same content.
    var trellisSum = 0
    let trellis = try Bench.measure(runs: runs) {
        let characters = try [MappedCharacter](jsonData: data)
        trellisSum = checksum(
            characters.count, characters.reduce(0) { $0 + $1.powers.count },
            characters.last?.createdAt, characters.last?.publisher?.name)
    }
    var parsed: JSONValue = .null
    let parseOnly = try Bench.measure(runs: runs, reset: { parsed = .null }, { parsed = try JSONReader.parse(data) })
    var mapSum = 0
    let mapOnly = try Bench.measure(runs: runs) {
        let characters = try [MappedCharacter](json: parsed)
        mapSum = characters.count
    }
    parsed = .null

    var codableSum = 0
    let codable = try Bench.measure(runs: runs) {
        let decoder = JSONDecoder()
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            return try style.parse(text)
        }
        let characters = try decoder.decode([CodableCharacter].self, from: data)
        codableSum = checksum(
            characters.count, characters.reduce(0) { $0 + $1.powers.count },
            characters.last?.createdAt, characters.last?.publisher?.name)
    }
    var stringDateCount = 0
    let codableStrings = try Bench.measure(runs: runs) {
        stringDateCount = try JSONDecoder().decode([CodableCharacterStringDate].self, from: data).count
    }
    guard trellisSum == codableSum, mapSum == stringDateCount else {
        throw MappingBenchError(message: "the two sides read different content (\(trellisSum) vs \(codableSum))")
    }

    print("  " + "".padding(toLength: 46, withPad: " ", startingAt: 0) + "wall best / median        CPU best / median")
    func line(_ label: String, _ t: Bench.Timing) {
        let padded = label.padding(toLength: 46, withPad: " ", startingAt: 0)
        print(
            "  \(padded)\(Bench.format(t.best, 3)) / \(Bench.format(t.median, 3)) s \(Bench.format(megabytes / t.median)) MB/s"
                + "   \(Bench.format(t.cpuBest, 3)) / \(Bench.format(t.cpuMedian, 3)) s \(Bench.format(megabytes / t.cpuMedian)) MB/s")
    }
    line("Trellis: JSONReader + [MappedCharacter]", trellis)
    line("  JSONReader.parse alone", parseOnly)
    line("  mapping a parsed JSONValue (tree kept)", mapOnly)
    line("JSONDecoder [CodableCharacter] (Date)", codable)
    line("JSONDecoder [CodableCharacter] (String date)", codableStrings)
    print(
        "  JSONDecoder (Date) / Trellis, median: wall \(Bench.format(codable.median / trellis.median, 2))x, "
            + "CPU \(Bench.format(codable.cpuMedian / trellis.cpuMedian, 2))x; "
            + "JSONDecoder (String date) / Trellis: wall \(Bench.format(codableStrings.median / trellis.median, 2))x, "
            + "CPU \(Bench.format(codableStrings.cpuMedian / trellis.cpuMedian, 2))x")
}

/// A checksum of what a run produced (count, powers, last date in ms, last publisher).
private func checksum(_ count: Int, _ powers: Int, _ date: Date?, _ publisher: String?) -> Int {
    var hasher = Hasher()
    hasher.combine(count)
    hasher.combine(powers)
    hasher.combine(date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) })
    hasher.combine(publisher)
    return hasher.finalize()
}

/// A benchmark setup failure (missing input, mismatched results).
struct MappingBenchError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
