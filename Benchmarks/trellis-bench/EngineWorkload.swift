// `trellis-bench engine [--characters FILE]… [--sizes N,N,…] [--batch N]`: import characters into an
// InMemoryStore through the Character/Power/Publisher model (ids as strings into integer64,
// created_at as an RFC 3339 date), then import the same data again (unchanged), and print
// records per second for each input (CPU time of the process, so that other work on the
// machine does not distort the figures; wall time is printed too). Without files, records are generated in memory in the
// shape of `Benchmarks/data-generators/gen_characters.py` (10k, 100k, 1M by default).
import Foundation
import Trellis

enum EngineWorkload {
    static func run(_ arguments: [String]) -> Int32 {
        var files: [String] = []
        var sizes: [Int] = []
        var batchSize = 5000
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            let value = i + 1 < arguments.count ? arguments[i + 1] : nil
            switch argument {
            case "--characters":
                guard let value else { return usageError("--characters needs a file") }
                files.append(value)
                i += 2
            case "--sizes":
                guard let value, case let parsed = value.split(separator: ",").compactMap({ Int($0) }), !parsed.isEmpty else {
                    return usageError("--sizes needs a comma-separated list of counts")
                }
                sizes = parsed
                i += 2
            case "--batch":
                guard let value, let n = Int(value), n > 0 else { return usageError("--batch needs a positive count") }
                batchSize = n
                i += 2
            default:
                return usageError("unknown option '\(argument)'")
            }
        }
        if files.isEmpty && sizes.isEmpty { sizes = [10_000, 100_000, 1_000_000] }
        do {
            var results: [(String, Int, Double)] = []
            for size in sizes {
                let records = generate(count: size)
                results.append(try measure(label: "generated \(size)", records: records, batchSize: batchSize))
            }
            for file in files {
                let records = try load(file)
                results.append(try measure(label: file, records: records, batchSize: batchSize))
            }
            // Linearity: each input against the previous one (10× records should take ≤ 12× time).
            for (previous, current) in zip(results, results.dropFirst()) {
                let sizeRatio = Double(current.1) / Double(previous.1)
                let timeRatio = current.2 / previous.2
                print(
                    String(
                        format: "linearity %@ vs %@: %.1f× records, %.1f× CPU time (%.2f per record)",
                        current.0, previous.0, sizeRatio, timeRatio, timeRatio / sizeRatio))
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    static func usageError(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("error: \(message)\nusage: trellis-bench engine [--characters FILE]… [--sizes N,N,…] [--batch N]\n".utf8))
        return 64
    }

    /// The benchmark model.
    static func model() throws -> ObjectModel {
        func attribute(_ name: String, _ type: AttributeType, _ key: String) -> AttributeDescription {
            AttributeDescription(name: name, type: type, userInfo: ["JSONKeyPath": key])
        }
        return try ObjectModel(entities: [
            EntityDescription(
                name: "Character",
                attributes: [
                    attribute("id", .integer64, "id"), attribute("name", .string, "name"),
                    attribute("realName", .string, "real_name"),
                    AttributeDescription(
                        name: "createdAt", type: .date,
                        userInfo: ["JSONKeyPath": "created_at", "JSONTransformerName": "iso8601"]),
                    attribute("rating", .double, "rating"), attribute("active", .boolean, "active"),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "powers", destinationEntity: "Power", inverseName: "characters", isToMany: true,
                        userInfo: ["JSONKeyPath": "powers"]),
                    RelationshipDescription(
                        name: "publisher", destinationEntity: "Publisher", inverseName: "characters",
                        userInfo: ["JSONKeyPath": "publisher"]),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Power", attributes: [attribute("id", .integer64, "id"), attribute("name", .string, "name")],
                relationships: [RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "powers", isToMany: true)],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Publisher", attributes: [attribute("id", .integer64, "id"), attribute("name", .string, "name")],
                relationships: [RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "publisher", isToMany: true)],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    /// Imports `records` twice (fresh, then unchanged) and prints the figures.
    static func measure(label: String, records: [JSONValue], batchSize: Int) throws -> (String, Int, Double) {
        let store = InMemoryStore(model: try model())
        let context = ObjectContext(store: store)
        var options = ImportOptions()
        options.batchSize = batchSize
        options.reportsObjectIDs = false
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = cpuTime()
        let first = try context.importObjects(from: .array(records), entity: "Character", options: options)
        let middle = DispatchTime.now().uptimeNanoseconds
        let cpuMiddle = cpuTime()
        let second = try context.importObjects(from: .array(records), entity: "Character", options: options)
        let end = DispatchTime.now().uptimeNanoseconds
        let cpuEnd = cpuTime()
        let t1 = Double(middle - start) / 1e9
        let t2 = Double(end - middle) / 1e9
        let c1 = cpuMiddle - cpuStart
        let c2 = cpuEnd - cpuMiddle
        let n = Double(records.count)
        print(
            String(
                format: "%@: import %.3f s wall, %.3f s CPU (%.0f records/s by CPU, %.2f µs/record); "
                    + "re-import unchanged %.3f s wall, %.3f s CPU (%.0f records/s, %.2f µs/record)",
                label, t1, c1, n / c1, c1 * 1e6 / n, t2, c2, n / c2, c2 * 1e6 / n))
        print("  first: Character \(first.counts(for: "Character")); Power \(first.counts(for: "Power")); Publisher \(first.counts(for: "Publisher"))")
        print("  again: Character \(second.counts(for: "Character")); objects stored: \(store.objectCount)")
        return (label, records.count, c1)
    }

    /// CPU seconds used by this process (immune to other processes competing for the cores).
    static func cpuTime() -> Double {
        var usage = rusage()
        getrusage(0, &usage)  // RUSAGE_SELF
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    static func load(_ path: String) throws -> [JSONValue] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let value = try JSONReader.parse(data)
        guard case .array(let records) = value else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(path) is not a JSON array"])
        }
        return records
    }

    /// Records shaped like `gen_characters.py`'s (deterministic; not byte-identical to it).
    static func generate(count: Int) -> [JSONValue] {
        var generator = CharacterGenerator()
        var records: [JSONValue] = []
        records.reserveCapacity(count)
        for _ in 0..<count { records.append(generator.next()) }
        return records
    }
}

/// The generated characters one at a time (``EngineWorkload/generate(count:)`` collects them;
/// `export` imports them as they are made, so that 1M records never sit in memory).
struct CharacterGenerator {
    private var state: UInt64 = 42
    private var i = 0
    private static let first = ["Bruce", "Clark", "Diana", "Peter", "Tony", "Natasha", "Wade", "Jean"]
    private static let last = ["Wayne", "Kent", "Prince", "Parker", "Stark", "Romanoff", "Wilson", "Grey"]

    private mutating func random() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }

    /// The next record (ids 1, 2, …).
    mutating func next() -> JSONValue {
        var powers: [JSONValue] = []
        var used = Set<UInt64>()
        for _ in 0..<(2 + Int(random() % 3)) {
            let p = random() % 200 + 1
            if used.insert(p).inserted { powers.append(["id": .string(String(p)), "name": .string("Power \(p)")]) }
        }
        let publisher = random() % 50 + 1
        let date = String(
            format: "20%02d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(random() % 20) + 5, Int(random() % 12) + 1,
            Int(random() % 28) + 1, Int(random() % 24), Int(random() % 60), Int(random() % 60), Int(random() % 1000))
        var object = JSONObject()
        object["id"] = .string(String(i + 1))
        object["name"] = .string("Hero \(i + 1)")
        object["real_name"] = .string("\(Self.first[Int(random() % 8)]) \(Self.last[Int(random() % 8)])")
        object["powers"] = .array(powers)
        object["publisher"] = ["id": .string(String(publisher)), "name": .string("Publisher \(publisher)")]
        object["created_at"] = .string(date)
        object["rating"] = .number(JSONNumber(Double(random() % 50) / 10))
        object["active"] = .bool(random() % 2 == 0)
        i += 1
        return .object(object)
    }
}
