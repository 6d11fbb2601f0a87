// `trellis-bench import [--characters FILE] [--runs N] [--json] [--no-floor]`: the end-to-end import
// benchmark of issue 4. Streams the generated characters file through the importer into a
// fresh SQLite store, then imports the same file again (every object unchanged), and in the
// same run builds and runs the hand-written C floor (`Benchmarks/data-generators/sqlite_bench.c`:
// pre-flattened TSV, per-record prepared upserts, one WAL transaction) on the same records.
//
// With `--json` the last line is
// {"workload":"import","records":N,"trellis_s":T,"floor_s":F,"ratio":T/F,"reimport_s":R,
//  "reimport_ratio":R/F2,"peak_rss_mb":M}
// where F and F2 are the floor's pass 1 and pass 2 (medians over --runs runs, default 3; each floor
// run is followed by the Trellis run it is compared with).
// The CPU seconds of the Trellis imports (this thread's) are printed too: on a loaded
// machine they are the figure to compare. `--no-floor` skips the C floor (no child
// processes: for profiling under valgrind, which cannot spawn them) and prints no ratios.
// Each phase runs in its own function (`freshload`, `reimport`) for callgrind's --toggle-collect.
import Foundation
import Trellis
import TrellisSQLite

enum ImportWorkload {
    static func run(_ arguments: [String]) -> Int32 {
        var characters = "Benchmarks/data/characters.json"
        var runs = 3
        var json = false
        var floorRuns = true
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--characters" where i + 1 < arguments.count:
                characters = arguments[i + 1]
                i += 2
            case "--runs" where i + 1 < arguments.count:
                guard let n = Int(arguments[i + 1]), n > 0 else { return usage("--runs needs a positive count") }
                runs = n
                i += 2
            case "--json":
                json = true
                i += 1
            case "--no-floor":
                floorRuns = false
                i += 1
            default:
                return usage("unknown option '\(arguments[i])'")
            }
        }
        do {
            return try measure(characters: characters, runs: runs, json: json, floorRuns: floorRuns)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    static func usage(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("error: \(message)\nusage: trellis-bench import [--characters FILE] [--runs N] [--json] [--no-floor]\n".utf8))
        return 64
    }

    static func measure(characters: String, runs: Int, json: Bool, floorRuns: Bool) throws -> Int32 {
        guard FileManager.default.fileExists(atPath: characters) else {
            FileHandle.standardError.write(Data("error: \(characters) does not exist; run Scripts/generate-bench-data.sh\n".utf8))
            return 1
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-bench-import-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        // The C floor, built in this run and run on the same records, alternating with the
        // Trellis runs so that a machine getting slower or faster meanwhile affects both.
        var floorFirst: [Double] = []
        var floorSecond: [Double] = []
        let floor = floorRuns ? try Floor(work: work, characters: characters) : nil

        // Trellis: stream the file into a fresh store, then again unchanged.
        let model = try EngineWorkload.model()
        var first: [Double] = []
        var second: [Double] = []
        var firstCPU: [Double] = []
        var secondCPU: [Double] = []
        var records = 0
        var counts = ""
        Bench.trimHeap()
        Bench.resetPeakRSS()
        for run in 0..<runs {
            if let floor {
                let (p1, p2) = try floor.run()
                floorFirst.append(p1)
                floorSecond.append(p2)
            }
            let path = work.appendingPathComponent("trellis-\(run).sqlite").path
            let store = try SQLiteStore(path: path, model: model)
            var options = ImportOptions()
            options.reportsObjectIDs = false
            var report1 = ImportReport()
            var cpu = Bench.threadCPUTime()
            first.append(try seconds { report1 = try freshload(characters, store, options) })
            firstCPU.append(Bench.threadCPUTime() - cpu)
            var report2 = ImportReport()
            cpu = Bench.threadCPUTime()
            second.append(try seconds { report2 = try reimport(characters, store, options) })
            secondCPU.append(Bench.threadCPUTime() - cpu)
            let c1 = report1.counts(for: "Character")
            let c2 = report2.counts(for: "Character")
            records = c1.inserted
            guard c2.unchanged == records else {
                throw BenchFailure("re-import was not all unchanged: \(c2)")
            }
            counts =
                "Character \(c1), Power \(report1.counts(for: "Power")), Publisher \(report1.counts(for: "Publisher")); "
                + "again: Character \(c2)"
        }
        let peak = Bench.megabytes(Bench.peakRSS())

        let t = median(first)
        let r = median(second)
        print("records: \(records) (\(counts))")
        print(
            "Trellis CPU seconds (this thread): import \(Bench.format(median(firstCPU), 3)) s, re-import \(Bench.format(median(secondCPU), 3)) s; "
                + "runs \(firstCPU.map { Bench.format($0, 3) }) / \(secondCPU.map { Bench.format($0, 3) })")
        guard floorRuns else {
            print("Trellis import \(Bench.format(t, 3)) s, re-import \(Bench.format(r, 3)) s (wall); peak RSS \(Bench.format(peak)) MB; no floor run")
            return 0
        }
        let f = median(floorFirst)
        let f2 = median(floorSecond)
        print("C floor (sqlite_bench.c, WAL, one transaction): pass 1 \(Bench.format(f, 3)) s, pass 2 \(Bench.format(f2, 3)) s")
        print("Trellis import (parse + import + SQLite):       \(Bench.format(t, 3)) s  ratio \(Bench.format(t / f, 2)) (goal ≤ 1.5)")
        print("Trellis re-import, all unchanged:               \(Bench.format(r, 3)) s  ratio \(Bench.format(r / f2, 2)) (goal ≤ 0.6)")
        print("peak RSS of the Trellis imports: \(Bench.format(peak)) MB (goal ≤ 200)")
        print(
            "medians of \(runs) runs; runs: trellis \(first.map { Bench.format($0, 3) }) re-import \(second.map { Bench.format($0, 3) }) "
                + "floor \(floorFirst.map { Bench.format($0, 3) }) / \(floorSecond.map { Bench.format($0, 3) })")
        if json {
            print(
                String(
                    format:
                        #"{"workload":"import","records":%d,"trellis_s":%.4f,"floor_s":%.4f,"ratio":%.3f,"reimport_s":%.4f,"reimport_ratio":%.3f,"peak_rss_mb":%.1f}"#,
                    records, t, f, t / f, r, r / f2, peak))
        }
        return 0
    }

    /// The first import, into the fresh store. Its own function, never inlined, so a profiler
    /// can collect it alone: `valgrind --tool=callgrind --toggle-collect='*freshload*' …`.
    @inline(never)
    static func freshload(_ characters: String, _ store: SQLiteStore, _ options: ImportOptions) throws -> ImportReport {
        var source = try StreamSource(path: characters)
        return try ObjectContext(store: store).importObjects(from: &source, entity: "Character", options: options)
    }

    /// The second import of the same file, every object unchanged (`--toggle-collect='*reimport*'`).
    @inline(never)
    static func reimport(_ characters: String, _ store: SQLiteStore, _ options: ImportOptions) throws -> ImportReport {
        var source = try StreamSource(path: characters)
        let report = try ObjectContext(store: store).importObjects(from: &source, entity: "Character", options: options)
        let counts = report.counts(for: "Character")
        guard counts.updated == 0, counts.inserted == 0 else { throw BenchFailure("re-import was not all unchanged: \(counts)") }
        return report
    }

    /// Wall-clock seconds taken by `body` (the floor is timed the same way, by wall clock).
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    /// Elements of the top-level array of a file, read streaming.
    struct StreamSource: ImportSource {
        let stream: JSONArrayStream

        init(path: String) throws {
            stream = try JSONArrayStream(contentsOf: URL(fileURLWithPath: path))
        }

        mutating func nextElement() throws -> ImportElement? {
            guard let element = try stream.nextElement() else { return nil }
            return ImportElement(value: element.value, index: element.index, key: element.key)
        }
    }

    /// The hand-written C program, built with the system compiler against the system SQLite.
    struct Floor {
        let binary: URL
        let tsv: URL
        let database: URL

        init(work: URL, characters: String) throws {
            let generators = URL(fileURLWithPath: "Benchmarks/data-generators")
            binary = work.appendingPathComponent("sqlite_bench")
            tsv = work.appendingPathComponent("characters.tsv")
            database = work.appendingPathComponent("floor.sqlite")
            try Floor.shell(["cc", "-O2", "-o", binary.path, generators.appendingPathComponent("sqlite_bench.c").path, "-lsqlite3"])
            try Floor.shell(["python3", generators.appendingPathComponent("flatten.py").path, characters, tsv.path])
        }

        /// Seconds of pass 1 (inserts) and pass 2 (the same rows again).
        func run() throws -> (Double, Double) {
            let output = try Floor.shell([binary.path, database.path, tsv.path, "--mode", "wal", "--passes", "2"])
            var passes: [Int: Double] = [:]
            for line in output.split(separator: "\n") where line.hasPrefix("RESULT") {
                var pass: Int?
                var seconds: Double?
                for field in line.split(separator: " ") {
                    if field.hasPrefix("pass=") { pass = Int(field.dropFirst(5)) }
                    if field.hasPrefix("seconds=") { seconds = Double(field.dropFirst(8)) }
                }
                if let pass, let seconds { passes[pass] = seconds }
            }
            guard let p1 = passes[1], let p2 = passes[2] else { throw BenchFailure("unexpected floor output:\n\(output)") }
            return (p1, p2)
        }

        @discardableResult
        static func shell(_ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw BenchFailure("\(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
            }
            return String(decoding: data, as: UTF8.self)
        }
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
