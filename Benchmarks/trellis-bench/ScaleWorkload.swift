// `trellis-bench scale [--json] [--sizes N,N] [--runs N] [--store sqlite|memory] [--characters FILE]`: imports
// stay linear when many destinations are new (issue 13, point 1).
//
// Generates payloads of 10k and 100k records (`--sizes`) in which every record brings
//   - a new to-one destination, as a nested object: `"publisher": {"id": i, "name": "p<i>"}`;
//   - a to-one self reference by bare identifier to an earlier record: `"parent_id": i / 2`
//     (absent for record 1);
//   - a to-many into a pool of 1,000: `"tags": [{"id": t, "name": "t<t>"}, …]` (three tags);
// writes each payload to a file and streams it into a fresh store (SQLite by default), then
// imports the characters of `trellis-bench import` (`--characters`, default
// Benchmarks/data/characters.json; generated in memory in the same shape when the file is
// absent) into a fresh SQLite store in the same run. Prints the seconds per size, the growth
// factor (seconds of the largest over the smallest; 10 is linear for 10k → 100k, the goal is
// ≤ 12) and the ratio of the largest size's seconds to the characters import's (goal ≤ 2).
//
// With `--json` the last line is
// {"workload":"scale","records":[10000,100000],"seconds":[S1,S2],"growth":G}
// Seconds are wall clock, the median of `--runs` runs per size (default 3, each into a fresh
// store; the CPU seconds of this thread are printed too: on a loaded machine they are the
// figure to compare).
import Foundation
import Trellis
import TrellisSQLite

enum ScaleWorkload {
    static func run(_ arguments: [String]) -> Int32 {
        var json = false
        var sizes = [10_000, 100_000]
        var storeKind = "sqlite"
        var characters = "Benchmarks/data/characters.json"
        var runs = 3
        var i = 0
        while i < arguments.count {
            let value = i + 1 < arguments.count ? arguments[i + 1] : nil
            switch arguments[i] {
            case "--json":
                json = true
                i += 1
            case "--sizes":
                guard let value, case let parsed = value.split(separator: ",").compactMap({ Int($0) }), parsed.count >= 2,
                    parsed.allSatisfy({ $0 > 1 })
                else { return usage("--sizes needs two or more counts above 1, comma-separated") }
                sizes = parsed
                i += 2
            case "--runs":
                guard let value, let n = Int(value), n > 0 else { return usage("--runs needs a positive count") }
                runs = n
                i += 2
            case "--store":
                guard let value, value == "sqlite" || value == "memory" else { return usage("--store takes sqlite or memory") }
                storeKind = value
                i += 2
            case "--characters":
                guard let value else { return usage("--characters needs a file") }
                characters = value
                i += 2
            default:
                return usage("unknown option '\(arguments[i])'")
            }
        }
        do {
            return try measure(sizes: sizes, runs: runs, storeKind: storeKind, characters: characters, json: json)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    static func usage(_ message: String) -> Int32 {
        FileHandle.standardError.write(
            Data(
                ("error: \(message)\nusage: trellis-bench scale [--json] [--sizes N,N] [--runs N] "
                    + "[--store sqlite|memory] [--characters FILE]\n").utf8))
        return 64
    }

    /// The scale model: Record (publisher to-one, parent to-one to Record, tags to-many), each
    /// relationship with its inverse.
    static func model() throws -> ObjectModel {
        func attribute(_ name: String, _ type: AttributeType, _ key: String? = nil) -> AttributeDescription {
            AttributeDescription(name: name, type: type, userInfo: ["JSONKeyPath": key ?? name])
        }
        return try ObjectModel(entities: [
            EntityDescription(
                name: "Record", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [
                    RelationshipDescription(
                        name: "publisher", destinationEntity: "Publisher", inverseName: "records",
                        userInfo: ["JSONKeyPath": "publisher"]),
                    RelationshipDescription(
                        name: "parent", destinationEntity: "Record", inverseName: "children",
                        userInfo: ["JSONKeyPath": "parent_id"]),
                    RelationshipDescription(name: "children", destinationEntity: "Record", inverseName: "parent", isToMany: true),
                    RelationshipDescription(
                        name: "tags", destinationEntity: "Tag", inverseName: "records", isToMany: true,
                        userInfo: ["JSONKeyPath": "tags"]),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Publisher", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [RelationshipDescription(name: "records", destinationEntity: "Record", inverseName: "publisher", isToMany: true)],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Tag", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [RelationshipDescription(name: "records", destinationEntity: "Record", inverseName: "tags", isToMany: true)],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    /// The payload of `count` records as JSON text (deterministic).
    static func payload(count: Int) -> String {
        var text = "["
        text.reserveCapacity(count * 120)
        for i in 1...count {
            if i > 1 { text += "," }
            text += "{\"id\":\(i),\"name\":\"r\(i)\",\"publisher\":{\"id\":\(i),\"name\":\"p\(i)\"}"
            if i > 1 { text += ",\"parent_id\":\(i / 2)" }
            let tags = [i % 1000 + 1, (i * 7 + 3) % 1000 + 1, (i * 13 + 5) % 1000 + 1]
            text += ",\"tags\":["
            var seen: [Int] = []
            for t in tags where !seen.contains(t) {
                if !seen.isEmpty { text += "," }
                seen.append(t)
                text += "{\"id\":\(t),\"name\":\"t\(t)\"}"
            }
            text += "]}"
        }
        return text + "]"
    }

    static func measure(sizes: [Int], runs: Int, storeKind: String, characters: String, json: Bool) throws -> Int32 {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-bench-scale-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let model = try model()
        var options = ImportOptions()
        options.reportsObjectIDs = false

        var seconds: [Double] = []
        for size in sizes {
            let file = work.appendingPathComponent("scale-\(size).json")
            try Data(payload(count: size).utf8).write(to: file)
            var walls: [Double] = []
            var cpus: [Double] = []
            var report = ImportReport()
            for run in 0..<runs {
                let store: any PersistentStore =
                    storeKind == "memory"
                    ? InMemoryStore(model: model)
                    : try SQLiteStore(path: work.appendingPathComponent("scale-\(size)-\(run).sqlite").path, model: model)
                let cpu = Bench.threadCPUTime()
                walls.append(try ImportWorkload.seconds { report = try scaleload(file.path, store, options) })
                cpus.append(Bench.threadCPUTime() - cpu)
            }
            let wall = ImportWorkload.median(walls)
            let cpuSeconds = ImportWorkload.median(cpus)
            let records = report.counts(for: "Record")
            let publishers = report.counts(for: "Publisher")
            guard records.inserted == size, publishers.inserted == size else {
                throw BenchFailure("scale \(size): expected \(size) records and publishers inserted; got Record \(records), Publisher \(publishers)")
            }
            print(
                "scale \(size) records (\(storeKind), median of \(runs)): \(Bench.format(wall, 3)) s wall, \(Bench.format(cpuSeconds, 3)) s CPU "
                    + "(Record \(records), Publisher \(publishers), Tag \(report.counts(for: "Tag"))); runs \(walls.map { Bench.format($0, 3) })")
            seconds.append(wall)
        }
        let growth = seconds[seconds.count - 1] / seconds[0]
        let sizeRatio = Double(sizes[sizes.count - 1]) / Double(sizes[0])
        print(
            "growth \(sizes[0]) → \(sizes[sizes.count - 1]): \(Bench.format(growth, 2))× time for \(Bench.format(sizeRatio, 0))× records "
                + "(linear is \(Bench.format(sizeRatio, 0)); goal ≤ \(Bench.format(sizeRatio * 1.2, 0)))")

        // The characters import of `trellis-bench import`, in the same run.
        var source = characters
        if !FileManager.default.fileExists(atPath: characters) {
            source = work.appendingPathComponent("characters.json").path
            let data = try JSONWriter.data(for: .array(EngineWorkload.generate(count: 100_000)))
            try data.write(to: URL(fileURLWithPath: source))
            print("(\(characters) is absent: 100,000 characters generated in its shape)")
        }
        var report = ImportReport()
        var charactersRuns: [Double] = []
        for run in 0..<runs {
            let store = try SQLiteStore(path: work.appendingPathComponent("characters-\(run).sqlite").path, model: try EngineWorkload.model())
            charactersRuns.append(try ImportWorkload.seconds { report = try ImportWorkload.freshload(source, store, options) })
        }
        let charactersSeconds = ImportWorkload.median(charactersRuns)
        let ratio = seconds[seconds.count - 1] / charactersSeconds
        print(
            "characters import (\(report.counts(for: "Character").inserted) records, SQLite, median of \(runs)): \(Bench.format(charactersSeconds, 3)) s; "
                + "scale \(sizes[sizes.count - 1]) / characters: \(Bench.format(ratio, 2)) (goal ≤ 2)")
        if json {
            let records = sizes.map(String.init).joined(separator: ",")
            let figures = seconds.map { String(format: "%.4f", $0) }.joined(separator: ",")
            print(#"{"workload":"scale","records":[\#(records)],"seconds":[\#(figures)],"growth":\#(String(format: "%.3f", growth))}"#)
        }
        return 0
    }

    /// One scale import (`--toggle-collect='*scaleload*'`).
    @inline(never)
    static func scaleload(_ path: String, _ store: any PersistentStore, _ options: ImportOptions) throws -> ImportReport {
        var source = try ImportWorkload.StreamSource(path: path)
        return try ObjectContext(store: store).importObjects(from: &source, entity: "Record", options: options)
    }
}
