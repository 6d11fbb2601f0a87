// `trellis-bench export [--count N] [--runs N] [--batch N] [--json]`: streamed export speed
// and memory (issue 28 point 5). Imports N generated characters (default 100,000; the
// `engine` workload's generator, made one at a time so that 1M records never sit in memory)
// into a fresh SQLite store, then exports every Character as a compact JSON array into a
// file, as `trellis export -o` does (`ObjectExporter.write`, batches of 1000: each character
// with its powers and publisher nested). In the same run, `sqlite3 -json` writes the rows of
// the same table into a file: the floor. Peak RSS is measured over the exports only (reset
// after the import).
//
// With `--json` the last line is
// {"workload":"export","objects":N,"seconds":S,"peak_rss_mb":M,"sqlite3_json_s":Q}
// with S and Q the medians over --runs runs (default 3), each sqlite3 run followed by the
// export it is compared with. Goals: peak_rss_mb ≤ 60 at 100k and ≤ 80 at 1M, S ≤ 3 × Q.
// The text lines also give the CPU seconds of each (this process's, and sqlite3's from
// its rusage), medians too: on a loaded machine the ratio of CPU times is the steadier one.
import Foundation
import Trellis
import TrellisSQLite

enum ExportWorkload {
    static func run(_ arguments: [String]) -> Int32 {
        var count = 100_000
        var runs = 3
        var batchSize = 1000
        var json = false
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--count" where i + 1 < arguments.count:
                guard let n = Int(arguments[i + 1]), n > 0 else { return usage("--count needs a positive count") }
                count = n
                i += 2
            case "--runs" where i + 1 < arguments.count:
                guard let n = Int(arguments[i + 1]), n > 0 else { return usage("--runs needs a positive count") }
                runs = n
                i += 2
            case "--batch" where i + 1 < arguments.count:
                guard let n = Int(arguments[i + 1]), n > 0 else { return usage("--batch needs a positive count") }
                batchSize = n
                i += 2
            case "--json":
                json = true
                i += 1
            default:
                return usage("unknown option '\(arguments[i])'")
            }
        }
        do {
            return try measure(count: count, runs: runs, batchSize: batchSize, json: json)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    static func usage(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("error: \(message)\nusage: trellis-bench export [--count N] [--runs N] [--batch N] [--json]\n".utf8))
        return 64
    }

    static func measure(count: Int, runs: Int, batchSize: Int, json: Bool) throws -> Int32 {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-bench-export-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let path = work.appendingPathComponent("characters.sqlite").path
        let importStart = DispatchTime.now().uptimeNanoseconds
        try load(count: count, into: path)
        print("imported \(count) generated characters in \(Bench.format(seconds(since: importStart), 2)) s")

        let output = work.appendingPathComponent("export.json")
        let floorOutput = work.appendingPathComponent("sqlite3.json")
        var exports: [Double] = []
        var floors: [Double] = []
        var exportCPU: [Double] = []
        var floorCPU: [Double] = []
        var exported = 0
        var bytes = 0
        Bench.trimHeap()
        Bench.resetPeakRSS()
        for _ in 0..<runs {
            let childrenBefore = childrenCPUTime()
            floors.append(try sqlite3JSON(path, to: floorOutput))
            floorCPU.append(childrenCPUTime() - childrenBefore)
            let start = DispatchTime.now().uptimeNanoseconds
            let cpuStart = Bench.processCPUTime()
            (exported, bytes) = try export(path, to: output, batchSize: batchSize)
            exports.append(seconds(since: start))
            exportCPU.append(Bench.processCPUTime() - cpuStart)
            guard exported == count else { throw BenchFailure("exported \(exported) objects, expected \(count)") }
        }
        let peak = Bench.megabytes(Bench.peakRSS())
        let floorBytes = (try? FileManager.default.attributesOfItem(atPath: floorOutput.path)[.size] as? Int) ?? 0
        let s = ImportWorkload.median(exports)
        let q = ImportWorkload.median(floors)
        print(
            "trellis export (streamed, batches of \(batchSize)): \(Bench.format(s, 3)) s, \(bytes) bytes, "
                + "peak RSS \(Bench.format(peak)) MB (goal ≤ \(count > 100_000 ? 80 : 60))")
        print("sqlite3 -json of the Character table:  \(Bench.format(q, 3)) s, \(floorBytes) bytes; ratio \(Bench.format(s / q, 2)) (goal ≤ 3)")
        print("medians of \(runs) runs; runs: export \(exports.map { Bench.format($0, 3) }) sqlite3 \(floors.map { Bench.format($0, 3) })")
        let cs = ImportWorkload.median(exportCPU)
        let cq = ImportWorkload.median(floorCPU)
        print("CPU seconds (medians): export \(Bench.format(cs, 3)), sqlite3 \(Bench.format(cq, 3)); ratio \(Bench.format(cs / cq, 2))")
        if json {
            print(
                String(
                    format: #"{"workload":"export","objects":%d,"seconds":%.4f,"peak_rss_mb":%.1f,"sqlite3_json_s":%.4f}"#,
                    exported, s, peak, q))
        }
        return 0
    }

    /// Imports `count` generated characters into a new store at `path`, made as they are read.
    static func load(count: Int, into path: String) throws {
        struct Generated: ImportSource {
            var generator = CharacterGenerator()
            var remaining: Int
            var index = 0
            mutating func nextElement() throws -> ImportElement? {
                guard remaining > 0 else { return nil }
                remaining -= 1
                defer { index += 1 }
                return ImportElement(value: generator.next(), index: index, key: nil)
            }
        }
        let store = try SQLiteStore(path: path, model: try EngineWorkload.model())
        var options = ImportOptions()
        options.reportsObjectIDs = false
        var source = Generated(remaining: count)
        _ = try ObjectContext(store: store).importObjects(from: &source, entity: "Character", options: options)
    }

    /// Every Character of the store at `path`, streamed into `url`: (objects, bytes).
    /// Its own function, never inlined, for `valgrind --toggle-collect='*export*'`.
    @inline(never)
    static func export(_ path: String, to url: URL, batchSize: Int) throws -> (Int, Int) {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let store = try SQLiteStore(path: path, model: try EngineWorkload.model())
        var bytes = 0
        let count = try ObjectExporter(context: ObjectContext(store: store)).write(
            ObjectFetchRequest(entity: "Character"), as: .array(.compact), batchSize: batchSize
        ) { data in
            try handle.write(contentsOf: data)
            bytes += data.count
        }
        return (count, bytes)
    }

    /// Seconds `sqlite3 -json` takes to write every row of the Character table into `url`.
    static func sqlite3JSON(_ path: String, to url: URL) throws -> Double {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-json", path, #"SELECT * FROM "Character""#]
        process.standardOutput = handle
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        process.waitUntilExit()
        let elapsed = seconds(since: start)
        guard process.terminationStatus == 0 else { throw BenchFailure("sqlite3 -json exited with \(process.terminationStatus)") }
        return elapsed
    }

    /// The CPU seconds (user + system) of this process's waited-for children so far.
    static func childrenCPUTime() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
