// `trellis-bench postgres [--characters FILE] [--runs N] [--json]`: the PostgreSQL store's
// benchmark (issue 16). Starts its own temporary server (Scripts/postgres-server.sh, a cluster
// in a temporary directory on a Unix socket), then, per run: streams the characters file
// into a fresh schema, imports it again unchanged, and in the same run into a fresh SQLite
// store. Then the many-writers figure: one importer of a quarter of the file, and four
// importers of the four quarters at once (each its own connection), into schemas that
// already hold the 200 powers and 50 publishers every quarter links to (so the quarters share
// no row they write); the wall figure is the four's wall time over the one's. The CPU figure
// compares the same work done two ways: one importer of all four quarters, one after the
// other, against four importers of a quarter each at once; each is the aggregate CPU seconds
// of this process (every thread, CLOCK_PROCESS_CPUTIME_ID) plus every server process
// (/proc/PID/stat of the postmaster and its children, the importers' backends alive
// throughout), so on 2 cores shared by client and server it shows what concurrency costs in
// work (locks, retries, contention), not the wall clock this machine cannot spread.
//
// With `--json` the last line is
// {"workload":"postgres","records":100000,"import_s":P,"reimport_s":R,"sqlite_import_s":S,
//  "ratio_vs_sqlite":P/S,"rows_per_s":N,"peak_rss_mb":M,"concurrent_4_s":C4,"single_quarter_s":C1,
//  "concurrency_ratio":C4/C1,"single_all_cpu_s":A1,"concurrent_cpu_s":A4,"concurrent_cpu_ratio":A4/A1}
// (medians of --runs runs, default 3; rows_per_s: rows the import wrote, every table, per second;
// peak_rss_mb: this process during the PostgreSQL imports; the server is another process).
// The CPU seconds of this thread plus the cluster's processes (/proc) are printed too, against
// the SQLite import's CPU seconds: on a loaded machine they are the figures to compare.
import Foundation
import Trellis
import TrellisPostgres
import TrellisSQLite

enum PostgresWorkload {
    static func run(_ arguments: [String]) -> Int32 {
        var characters = "Benchmarks/data/characters.json"
        var runs = 3
        var json = false
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
            default:
                return usage("unknown option '\(arguments[i])'")
            }
        }
        do {
            return try measure(characters: characters, runs: runs, json: json)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    static func usage(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("error: \(message)\nusage: trellis-bench postgres [--characters FILE] [--runs N] [--json]\n".utf8))
        return 64
    }

    static func measure(characters: String, runs: Int, json: Bool) throws -> Int32 {
        guard FileManager.default.fileExists(atPath: characters) else {
            FileHandle.standardError.write(Data("error: \(characters) does not exist; run Scripts/generate-bench-data.sh\n".utf8))
            return 1
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-bench-postgres-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let server = try Server(directory: work.appendingPathComponent("cluster").path)
        defer { server.stop() }
        print("server: \(PostgresStore.describe(connection: server.url)) (\(server.version))")

        let model = try EngineWorkload.model()
        var options = ImportOptions()
        options.reportsObjectIDs = false
        var imports: [Double] = []
        var reimports: [Double] = []
        var sqliteImports: [Double] = []
        var importCPU: [Double] = []
        var reimportCPU: [Double] = []
        var sqliteCPU: [Double] = []
        var importServerCPU: [Double] = []
        var reimportServerCPU: [Double] = []
        var rows = 0
        var records = 0
        var peak = 0
        for run in 0..<runs {
            let store = try PostgresStore(connection: server.url + "?schema=bench_\(run)", model: model)
            Bench.trimHeap()
            Bench.resetPeakRSS()
            var report = ImportReport()
            var cpu = Bench.threadCPUTime()
            var serverCPU = server.cpuSeconds()
            imports.append(try ImportWorkload.seconds { report = try freshload(characters, store, options) })
            importCPU.append(Bench.threadCPUTime() - cpu)
            importServerCPU.append(server.cpuSeconds() - serverCPU)
            records = report.counts(for: "Character").inserted
            cpu = Bench.threadCPUTime()
            serverCPU = server.cpuSeconds()
            reimports.append(try ImportWorkload.seconds { report = try reimport(characters, store, options) })
            reimportCPU.append(Bench.threadCPUTime() - cpu)
            reimportServerCPU.append(server.cpuSeconds() - serverCPU)
            peak = max(peak, Bench.peakRSS())
            guard report.counts(for: "Character").unchanged == records else {
                throw BenchFailure("re-import was not all unchanged: \(report.counts(for: "Character"))")
            }
            rows = try Int(
                store.rows(
                    #"SELECT (SELECT count(*) FROM "Character") + (SELECT count(*) FROM "Power") "#
                        + #"+ (SELECT count(*) FROM "Publisher") + (SELECT count(*) FROM "Character.powers")"#
                )
                .first?.first.flatMap { $0 }.flatMap { Int($0) } ?? 0)
            let path = work.appendingPathComponent("sqlite-\(run).sqlite").path
            let sqlite = try SQLiteStore(path: path, model: model)
            cpu = Bench.threadCPUTime()
            sqliteImports.append(try ImportWorkload.seconds { _ = try ImportWorkload.freshload(characters, sqlite, options) })
            sqliteCPU.append(Bench.threadCPUTime() - cpu)
        }
        let p = ImportWorkload.median(imports)
        let r = ImportWorkload.median(reimports)
        let s = ImportWorkload.median(sqliteImports)
        let peakMB = Bench.megabytes(peak)
        print("records: \(records); rows written by the import: \(rows)")
        print(
            "PostgreSQL import:   \(Bench.format(p, 3)) s (\(Bench.format(Double(rows) / p, 0)) rows/s), CPU of this thread "
                + "\(Bench.format(ImportWorkload.median(importCPU), 3)) s")
        print(
            "PostgreSQL re-import, all unchanged: \(Bench.format(r, 3)) s (\(Bench.format(r / p, 2))× the import, goal ≤ 0.5), "
                + "CPU \(Bench.format(ImportWorkload.median(reimportCPU), 3)) s")
        print("SQLite import (same run): \(Bench.format(s, 3)) s; ratio PostgreSQL / SQLite \(Bench.format(p / s, 2)) (goal ≤ 1.5)")
        print("peak RSS of this process during the PostgreSQL imports: \(Bench.format(peakMB)) MB (goal ≤ 200)")
        let m = ImportWorkload.median
        let cpuImport = m(importCPU) + m(importServerCPU)
        let cpuReimport = m(reimportCPU) + m(reimportServerCPU)
        print(
            "CPU seconds (this thread + every server process): import \(Bench.format(m(importCPU), 3)) + \(Bench.format(m(importServerCPU), 3)) "
                + "= \(Bench.format(cpuImport, 3)) s, re-import \(Bench.format(m(reimportCPU), 3)) + \(Bench.format(m(reimportServerCPU), 3)) "
                + "= \(Bench.format(cpuReimport, 3)) s (\(Bench.format(cpuReimport / cpuImport, 2))×); SQLite import \(Bench.format(m(sqliteCPU), 3)) s; "
                + "CPU ratio PostgreSQL / SQLite \(Bench.format(cpuImport / m(sqliteCPU), 2))")
        print(
            "medians of \(runs) runs; runs: import \(imports.map { Bench.format($0, 3) }) re-import \(reimports.map { Bench.format($0, 3) }) "
                + "sqlite \(sqliteImports.map { Bench.format($0, 3) })")

        let figures = try concurrency(characters: characters, work: work, server: server, model: model, runs: runs)
        let single = figures.singleQuarter
        let concurrent = figures.fourAtOnce
        print(
            "one importer of a quarter: \(Bench.format(single, 3)) s; four importers of the four quarters at once: "
                + "\(Bench.format(concurrent, 3)) s; ratio \(Bench.format(concurrent / single, 2)) (goal < 1.5; "
                + "\(ProcessInfo.processInfo.activeProcessorCount) cores)")
        let cpuRatio = figures.fourAtOnceCPU / figures.oneOfAllCPU
        print(
            "aggregate CPU (client + server): one importer of the four quarters in turn \(Bench.format(figures.oneOfAllCPU, 3)) s; "
                + "four importers of a quarter each at once \(Bench.format(figures.fourAtOnceCPU, 3)) s; "
                + "ratio \(Bench.format(cpuRatio, 2)) (goal ≤ 1.3)")
        if json {
            print(
                String(
                    format:
                        #"{"workload":"postgres","records":%d,"import_s":%.4f,"reimport_s":%.4f,"sqlite_import_s":%.4f,"ratio_vs_sqlite":%.3f,"rows_per_s":%.0f,"peak_rss_mb":%.1f,"concurrent_4_s":%.4f,"single_quarter_s":%.4f,"concurrency_ratio":%.3f,"single_all_cpu_s":%.4f,"concurrent_cpu_s":%.4f,"concurrent_cpu_ratio":%.3f}"#,
                    records, p, r, s, p / s, Double(rows) / p, peakMB, concurrent, single, concurrent / single,
                    figures.oneOfAllCPU, figures.fourAtOnceCPU, cpuRatio))
        }
        return 0
    }

    /// Wall seconds of one importer of the first quarter, and of four importers of the four
    /// quarters at once; aggregate CPU seconds of one importer of the four quarters in turn,
    /// and of the four at once (medians of `runs`), each into a fresh schema seeded with the
    /// powers and publishers.
    static func concurrency(
        characters: String, work: URL, server: Server, model: ObjectModel,
        runs: Int
    ) throws -> Concurrency {
        guard case .array(let all) = try JSONReader.parse(Data(contentsOf: URL(fileURLWithPath: characters))) else {
            throw BenchFailure("\(characters) is not a JSON array")
        }
        let quarter = (all.count + 3) / 4
        var files: [String] = []
        for q in 0..<4 {
            let path = work.appendingPathComponent("quarter-\(q).json").path
            let slice = Array(all[(q * quarter)..<min(all.count, (q + 1) * quarter)])
            try Data(try JSONWriter.string(for: .array(slice)).utf8).write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        var powers: [String: JSONValue] = [:]
        var publishers: [String: JSONValue] = [:]
        for record in all {
            if case .array(let list)? = record["powers"] { for power in list { powers[power["id"]?.stringValue ?? ""] = power } }
            if let publisher = record["publisher"] { publishers[publisher["id"]?.stringValue ?? ""] = publisher }
        }
        var options = ImportOptions()
        options.reportsObjectIDs = false
        var schemaCount = 0
        func seededStore() throws -> String {
            schemaCount += 1
            let location = server.url + "?schema=quarters_\(schemaCount)"
            let context = ObjectContext(store: try PostgresStore(connection: location, model: model))
            _ = try context.importObjects(from: .array(Array(powers.values)), entity: "Power")
            _ = try context.importObjects(from: .array(Array(publishers.values)), entity: "Publisher")
            return location
        }
        var singles: [Double] = []
        var fours: [Double] = []
        var allCPU: [Double] = []
        var fourCPU: [Double] = []
        for _ in 0..<runs {
            let one = try seededStore()
            let store = try PostgresStore(connection: one, model: model)
            singles.append(try ImportWorkload.seconds { _ = try freshload(files[0], store, options) })

            // The same work as the four below, by one importer: the four quarters in turn.
            let whole = try PostgresStore(connection: try seededStore(), model: model)
            Thread.sleep(forTimeInterval: 0.3)  // the seeding backend's exit, outside the measurement
            var cpu = Bench.processCPUTime() + server.cpuSeconds()
            for file in files { _ = try freshload(file, whole, options) }
            allCPU.append(Bench.processCPUTime() + server.cpuSeconds() - cpu)
            let wholeCount = try whole.rows(#"SELECT count(*), count(DISTINCT "id") FROM "Character""#)
            guard wholeCount == [[String(all.count), String(all.count)]] else { throw BenchFailure("the one importer stored \(wholeCount)") }

            let location = try seededStore()
            let stores = try (0..<4).map { _ in try PostgresStore(connection: location, model: model) }
            let failures = Failures()
            let group = DispatchGroup()
            let start = DispatchSemaphore(value: 0)
            let quarterFiles = files
            let importOptions = options
            for (q, store) in stores.enumerated() {
                group.enter()
                Thread {
                    defer { group.leave() }
                    start.wait()
                    do {
                        _ = try freshload(quarterFiles[q], store, importOptions)
                    } catch {
                        failures.add("quarter \(q): \(error)")
                    }
                }.start()
            }
            // Every store's backend is connected already, so none starts or ends inside the measurement.
            Thread.sleep(forTimeInterval: 0.3)
            cpu = Bench.processCPUTime() + server.cpuSeconds()
            fours.append(
                ImportWorkload.seconds {
                    for _ in 0..<4 { start.signal() }
                    group.wait()
                })
            fourCPU.append(Bench.processCPUTime() + server.cpuSeconds() - cpu)
            if let failure = failures.first { throw BenchFailure(failure) }
            let count = try stores[0].rows(#"SELECT count(*), count(DISTINCT "id") FROM "Character""#)
            guard count == [[String(all.count), String(all.count)]] else { throw BenchFailure("the four imports stored \(count)") }
        }
        let m = ImportWorkload.median
        return Concurrency(singleQuarter: m(singles), fourAtOnce: m(fours), oneOfAllCPU: m(allCPU), fourAtOnceCPU: m(fourCPU))
    }

    /// The many-writers figures, medians of the runs.
    struct Concurrency {
        /// Wall seconds of one importer of the first quarter.
        var singleQuarter: Double
        /// Wall seconds of four importers of the four quarters at once.
        var fourAtOnce: Double
        /// Aggregate CPU seconds (this process + the server's processes) of one importer of the four quarters in turn.
        var oneOfAllCPU: Double
        /// Aggregate CPU seconds of the four importers of a quarter each at once.
        var fourAtOnceCPU: Double
    }

    /// The first import, into the fresh schema (`--toggle-collect='*PostgresWorkload*freshload*'`).
    @inline(never)
    static func freshload(_ characters: String, _ store: PostgresStore, _ options: ImportOptions) throws -> ImportReport {
        var source = try ImportWorkload.StreamSource(path: characters)
        return try ObjectContext(store: store).importObjects(from: &source, entity: "Character", options: options)
    }

    /// The second import of the same file, every object unchanged.
    @inline(never)
    static func reimport(_ characters: String, _ store: PostgresStore, _ options: ImportOptions) throws -> ImportReport {
        var source = try ImportWorkload.StreamSource(path: characters)
        return try ObjectContext(store: store).importObjects(from: &source, entity: "Character", options: options)
    }

    /// A temporary cluster (Scripts/postgres-server.sh), stopped by ``stop()`` or, should this
    /// process die first, by the script's watchdog.
    struct Server {
        let directory: String
        let url: String
        let version: String

        init(directory: String) throws {
            self.directory = directory
            let output = try ImportWorkload.Floor.shell(["bash", "Scripts/postgres-server.sh", "start", directory, "--watch", String(getpid())])
            guard let url = output.split(separator: "\n").last.map(String.init), !url.isEmpty else {
                throw BenchFailure("Scripts/postgres-server.sh printed no connection URI")
            }
            self.url = url
            version = (try? PostgresStore.execute("SHOW server_version", connection: url).first?.first ?? nil) ?? "?"
        }

        func stop() {
            _ = try? ImportWorkload.Floor.shell(["bash", "Scripts/postgres-server.sh", "stop", directory])
        }

        /// CPU seconds (user + system) used so far by the cluster's processes still running:
        /// the postmaster and its children (/proc/PID/stat), including the store's backend.
        func cpuSeconds() -> Double {
            guard let text = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8),
                let postmaster = text.split(separator: "\n").first.map(String.init)
            else { return 0 }
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            var total = 0.0
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where entry.allSatisfy(\.isNumber) {
                guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { continue }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                // After "pid (comm)": state ppid … utime (14th field overall) stime (15th).
                guard fields.count > 13, entry == postmaster || String(fields[1]) == postmaster,
                    let user = Double(fields[11]), let system = Double(fields[12])
                else { continue }
                total += (user + system) / ticks
            }
            return total
        }
    }

    /// Errors of the importer threads.
    // SAFETY: `messages` is only touched while `lock` is held.
    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [String] = []
        func add(_ message: String) { lock.withLock { messages.append(message) } }
        var first: String? { lock.withLock { messages.first } }
    }
}
