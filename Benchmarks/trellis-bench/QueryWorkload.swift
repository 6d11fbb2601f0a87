// `trellis-bench query [--characters FILE] [--json]`: fetch requests and observation on a
// SQLite store holding the 100k generated characters (imported first, not timed):
//
// - identity: `id == N` for 1,000 random ids, p50 latency (request resolution, SQL, rows, powers);
// - prefix_sorted_limit: `name BEGINSWITH[c] "bat"` sorted by name, limit 50 (median of 21);
// - any_count: count of `ANY powers.name == "Flight"` (median of 11);
// - full sorted export: every character sorted by name through ObjectExporter to JSON text;
// - [c] methods: the same prefix query through SQLite's ASCII-only LIKE (the floor) and
//   through a folded column kept on write with an index, plus what keeping that column costs;
// - observe_latency: a child process (this executable, `query-observer`) observes the store;
//   the parent imports one object 20 times; latency = the child's delivery time minus the
//   parent's commit return (one monotonic clock), p50;
// - commit_overhead_10_observers: a 1,000-object import's CPU time (the importing thread's)
//   with 10 live observers (all delivered before the next import) over its time with none,
//   minus 1; the wall-clock ratio is printed too (on a loaded 2-core machine the observers'
//   threads delay the importer's without adding to its work).
//
// With `--json` the last line is
// {"workload":"query","identity_p50_ms":…,"prefix_sorted_limit_ms":…,"any_count_ms":…,
//  "observe_latency_ms":…,"commit_overhead_10_observers":…}
import CSQLite
import Foundation
import Trellis
import TrellisSQLite

enum QueryWorkload {
    static func run(_ arguments: [String]) -> Int32 {
        var characters = "Benchmarks/data/characters.json"
        var json = false
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--characters" where i + 1 < arguments.count:
                characters = arguments[i + 1]
                i += 2
            case "--json":
                json = true
                i += 1
            default:
                FileHandle.standardError.write(Data("error: unknown option '\(arguments[i])'\nusage: trellis-bench query [--characters FILE] [--json]\n".utf8))
                return 64
            }
        }
        do {
            return try measure(characters: characters, json: json)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    static func measure(characters: String, json: Bool) throws -> Int32 {
        guard FileManager.default.fileExists(atPath: characters) else {
            FileHandle.standardError.write(Data("error: \(characters) does not exist; run Scripts/generate-bench-data.sh\n".utf8))
            return 1
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-bench-query-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let path = work.appendingPathComponent("characters.sqlite").path
        let model = try EngineWorkload.model()
        let store = try SQLiteStore(path: path, model: model)
        var options = ImportOptions()
        options.reportsObjectIDs = false
        let loaded = try ImportWorkload.freshload(characters, store, options)
        print("store: \(loaded.counts(for: "Character").inserted) characters in \(path)")

        // Identity lookups.
        var generator = SystemRandomNumberGenerator()
        var identity: [Double] = []
        for _ in 0..<1000 {
            let id = Int64.random(in: 1...100_000, using: &generator)
            let request = ObjectFetchRequest(entity: "Character", predicate: .compare("id", .equal, .integer(id)))
            let start = now()
            let found = try store.read { try $0.fetch(try request.resolved(in: model)) }
            identity.append(now() - start)
            guard found.count <= 1 else { throw BenchFailure("identity \(id) found \(found.count) objects") }
        }
        let identityP50 = percentile(identity, 0.5) * 1000

        // Prefix, sorted, limited.
        let prefix = ObjectFetchRequest(
            entity: "Character", predicate: try ObjectPredicate("name BEGINSWITH[c] %@", "bat"),
            sortDescriptors: [ObjectSortDescriptor("name")], limit: 50)
        var prefixRows = 0
        let prefixMS = try medianMS(21) { prefixRows = try store.read { try $0.fetch(try prefix.resolved(in: model)) }.count }
        let prefixCount = try store.read { try $0.count(try prefix.resolved(in: model)) }

        // ANY with a count.
        let any = ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("ANY powers.name == %@", "Flight"))
        var anyCount = 0
        let anyMS = try medianMS(11) { anyCount = try store.read { try $0.count(try any.resolved(in: model)) } }

        // The full sorted export.
        var exportBytes = 0
        let exportMS = try medianMS(3) {
            let context = ObjectContext(store: store)
            let all = ObjectFetchRequest(entity: "Character", sortDescriptors: [ObjectSortDescriptor("name")])
            let json = try context.read { try ObjectExporter(context: context).json(for: try context.fetch(all)) }
            exportBytes = try JSONWriter.string(for: json).utf8.count
        }

        print(String(format: "identity p50 %.3f ms (p90 %.3f ms, 1000 lookups)", identityP50, percentile(identity, 0.9) * 1000))
        print(String(format: "prefix BEGINSWITH[c] 'bat' sorted by name, limit 50: %.2f ms (%d rows of %d matches)", prefixMS, prefixRows, prefixCount))
        print(String(format: "ANY powers.name == 'Flight', count: %.2f ms (%d)", anyMS, anyCount))
        print(String(format: "full export sorted by name: %.0f ms (%d bytes)", exportMS, exportBytes))
        try foldMethods(path: path, work: work)

        let latency = try observeLatency(store: store, path: path)
        let overhead = try commitOverhead(store: store)
        print(
            String(
                format: "observation across processes: p50 %.1f ms, p90 %.1f ms (%d commits)",
                percentile(latency, 0.5), percentile(latency, 0.9), latency.count))
        print(
            String(
                format: "1,000-object import: wall %.1f ms without observers, %.1f ms with 10 (overhead %.3f); "
                    + "CPU of the importing thread %.1f ms / %.1f ms (overhead %.3f); all 10 delivered %.1f ms after the commit",
                overhead.without, overhead.with, overhead.with / overhead.without - 1,
                overhead.withoutCPU, overhead.withCPU, overhead.withCPU / overhead.withoutCPU - 1, overhead.delivered))
        if json {
            print(
                String(
                    format: "{\"workload\":\"query\",\"identity_p50_ms\":%.4f,\"prefix_sorted_limit_ms\":%.3f,\"any_count_ms\":%.3f,"
                        + "\"observe_latency_ms\":%.2f,\"commit_overhead_10_observers\":%.4f}",
                    identityP50, prefixMS, anyMS, percentile(latency, 0.5), overhead.withCPU / overhead.withoutCPU - 1))
        }
        return 0
    }

    // MARK: - [c] methods

    /// The same prefix query three ways on a copy of the store: `trellis_text` (what the
    /// store runs), SQLite's LIKE (ASCII-only: the floor, not Unicode-correct), and a folded
    /// column with an index (the alternative: `lower()` stands in for the fold, which makes
    /// it a lower bound of that method's write cost).
    static func foldMethods(path: String, work: URL) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { throw BenchFailure("cannot open \(path)") }
        defer { sqlite3_close_v2(db) }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchFailure(String(cString: sqlite3_errmsg(db)) + " in " + sql) }
        }
        func query(_ sql: String) throws -> Double {
            try medianMS(21) { try exec(sql) }
        }
        // A registered function is per connection: this raw connection gets a plain one.
        let like = try query("SELECT \"_pk\", \"name\" FROM \"Character\" WHERE \"name\" LIKE 'bat%' ORDER BY \"name\" LIMIT 50")
        try exec("BEGIN")
        let start = now()
        try exec("ALTER TABLE \"Character\" ADD COLUMN \"name#fold\" TEXT")
        try exec("UPDATE \"Character\" SET \"name#fold\" = lower(\"name\")")
        try exec("CREATE INDEX \"Character(name#fold)\" ON \"Character\"(\"name#fold\")")
        let write = (now() - start) * 1000
        let column = try query(
            "SELECT \"_pk\", \"name\" FROM \"Character\" WHERE \"name#fold\" >= 'bat' AND \"name#fold\" < 'bau' "
                + "ORDER BY \"name\" LIMIT 50")
        try exec("ROLLBACK")
        print(
            String(
                format: "[c] prefix query methods: SQLite LIKE (ASCII only) %.2f ms; folded column + index %.2f ms, "
                    + "which costs %.0f ms to write for 100k rows (with lower(), a lower bound)", like, column, write))
    }

    // MARK: - Observation

    /// The child process: observes `id >= 1000000` on the store at `path` and prints
    /// `ready`, then the monotonic time (ns) of each update.
    static func observer(_ arguments: [String]) -> Int32 {
        guard let path = arguments.first else { return 64 }
        do {
            let store = try SQLiteStore(path: path, model: try EngineWorkload.model())
            let context = ObjectContext(store: store)
            let request = ObjectFetchRequest(entity: "Character", predicate: .compare("id", .greaterOrEqual, .integer(1_000_000)))
            let observation = try context.observe(request) { result in
                guard case .success(let update) = result else { exit(1) }
                let line = update.change == nil ? "ready\n" : "\(monotonicNanoseconds()) \(update.results.count)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
            while readLine() != nil {}  // until the parent closes standard input
            observation.cancel()
            return 0
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    static func observeLatency(store: SQLiteStore, path: String) throws -> [Double] {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["query-observer", path]
        let input = Pipe()
        let output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        try child.run()
        defer {
            try? input.fileHandleForWriting.close()
            child.waitUntilExit()
        }
        var reader = LineReader(output.fileHandleForReading)
        guard reader.next() == "ready" else { throw BenchFailure("the observer process did not start") }
        let context = ObjectContext(store: store)
        var latencies: [Double] = []
        for i in 0..<20 {
            usleep(UInt32.random(in: 0...50_000))  // a random phase against the poll interval
            let json: JSONValue = [["id": .string(String(1_000_000 + i)), "name": .string("Observed \(i)")]]
            _ = try context.importObjects(from: json, entity: "Character")
            let committed = monotonicNanoseconds()
            guard let line = reader.next(), let delivered = line.split(separator: " ").first.flatMap({ UInt64($0) }) else {
                throw BenchFailure("the observer process stopped")
            }
            latencies.append(Double(Int64(delivered) - Int64(committed)) / 1e6)
        }
        return latencies
    }

    static func commitOverhead(store: SQLiteStore) throws
        -> (without: Double, with: Double, delivered: Double, withoutCPU: Double, withCPU: Double)
    {
        var next = 2_000_000
        /// The import's wall milliseconds; `cpu` gets this thread's CPU milliseconds (the
        /// observers run on other threads: on a loaded 2-core machine they delay this thread
        /// without adding to its work).
        func importBatch(_ cpu: inout [Double]) throws -> Double {
            var records: [JSONValue] = []
            for _ in 0..<1000 {
                next += 1
                records.append(["id": .string(String(next)), "name": .string("Batch \(next)"), "rating": 4.5])
            }
            let context = ObjectContext(store: store)
            let start = now()
            let cpuStart = Bench.threadCPUTime()
            _ = try context.importObjects(from: .array(records), entity: "Character")
            cpu.append((Bench.threadCPUTime() - cpuStart) * 1000)
            return (now() - start) * 1000
        }
        // Pairs, so that the machine's changing load affects both halves alike: an import
        // without observers and one with 10 fresh observers (their deliveries awaited), in
        // alternating order.
        var without: [Double] = []
        var withoutCPU: [Double] = []
        var withCPU: [Double] = []
        var with: [Double] = []
        var delivered: [Double] = []
        let deliveries = DispatchSemaphore(value: 0)
        var warmup: [Double] = []
        _ = try importBatch(&warmup)
        for pair in 0..<12 {
            // Alternate which half goes first (the first import after observers change differs).
            if pair % 2 == 0 { without.append(try importBatch(&withoutCPU)) }
            var observations: [FetchResultsObservation] = []
            for n in 0..<10 {
                let request = ObjectFetchRequest(
                    entity: "Character", predicate: .compare("id", .greater, .integer(Int64(next + n))),
                    sortDescriptors: [ObjectSortDescriptor("name")])
                observations.append(try ObjectContext(store: store).observe(request) { _ in deliveries.signal() })
            }
            for _ in 0..<10 { deliveries.wait() }
            let ms = try importBatch(&withCPU)
            let committed = now()
            for _ in 0..<10 { deliveries.wait() }
            delivered.append((now() - committed) * 1000)
            with.append(ms)
            for observation in observations { observation.cancel() }
            if pair % 2 == 1 { without.append(try importBatch(&withoutCPU)) }
        }
        return (
            percentile(without, 0.5), percentile(with, 0.5), percentile(delivered, 0.5),
            percentile(withoutCPU, 0.5), percentile(withCPU, 0.5)
        )
    }

    // MARK: - Support

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func medianMS(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            let start = now()
            try body()
            times.append(now() - start)
        }
        return percentile(times, 0.5) * 1000
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    /// Lines of a pipe, read as they come.
    struct LineReader {
        let handle: FileHandle
        var buffer = Data()
        init(_ handle: FileHandle) { self.handle = handle }
        mutating func next() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    return line
                }
                let chunk = handle.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }
    }
}
