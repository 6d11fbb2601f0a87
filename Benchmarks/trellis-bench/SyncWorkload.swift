// `trellis-bench sync [--characters FILE] [--runs N] [--json] [--dlt PYTHON] [--trellis PATH]`: issue 15's
// benchmark. Serves the 100k generated characters as Parse-style pages of 1,000 from a loopback
// server (`Benchmarks/sync/parse_lite_server.py`, a free port) and measures, in the same run:
//
// - the network floor: every page fetched with the same HTTP client (URLSession), one after the
//   other, bodies kept as they came, nothing parsed (pages by `skip`: the same 100 bodies the
//   keyset walk gets, without reading the last record of each);
// - `import`: those records, written to a file as served (objectId and updatedAt included),
//   streamed into a fresh SQLite store through the same model (as `trellis-bench import` does);
// - `sync`: `trellis sync` of the resource into a fresh store: the `trellis` binary next to this one
//   (or `--trellis PATH`) run as a child process, its wall time and its peak RSS (wait4's
//   ru_maxrss), keyset paging, one transaction per page with its checkpoint, the next page fetched
//   while the current one is imported.
//
// With --json the last line is
// {"workload":"sync","records":100000,"sync_s":S,"fetch_floor_s":F,"import_s":I,
//  "ratio_vs_floor":S/max(F,I),"peak_rss_mb":M}
// (medians over --runs runs, default 3; each run measures the three in turn). `--dlt PYTHON` also runs
// `Benchmarks/sync/dlt_peer.py` with that interpreter (a venv with dlt[duckdb]) against the same
// server once, and prints its line (`{"peer":"dlt",…}`) with its wall time and peak RSS.
//
// `trellis-bench sync --workers N [--json]`: sync workers on one PostgreSQL (its own temporary
// server, as `trellis-bench postgres` starts one). The same 100k characters served as 8
// resources (classes Character0…Character7, every 8th record each, pages of 1,000); one
// worker syncs the 8 into a fresh schema, then N workers (threads of this process, each its
// own connection, `SyncOptions.worker`) sync them into another; each figure is the aggregate
// CPU seconds of this process (every thread) and the database server's processes. Last line:
// {"workload":"sync","workers":N,"resources":8,"records":100000,"single_worker_s":W1,"workers_s":WN,
//  "single_worker_cpu_s":C1,"workers_cpu_s":CN,"ratio_vs_single_worker":CN/C1}
import Foundation
import Trellis
import TrellisPostgres
import TrellisSQLite
import TrellisSync

enum SyncWorkload {
    static func run(_ arguments: [String]) -> Int32 {
        var characters = "Benchmarks/data/characters.json"
        var runs = 3
        var json = false
        var dlt: String?
        var trellis: String?
        var workers: Int?
        var i = 0
        while i < arguments.count {
            let value = i + 1 < arguments.count ? arguments[i + 1] : nil
            switch arguments[i] {
            case "--characters" where value != nil:
                characters = value!
                i += 2
            case "--runs" where value.flatMap(Int.init).map({ $0 > 0 }) == true:
                runs = Int(value!)!
                i += 2
            case "--dlt" where value != nil:
                dlt = value!
                i += 2
            case "--trellis" where value != nil:
                trellis = value!
                i += 2
            case "--workers" where value.flatMap(Int.init).map({ (1...64).contains($0) }) == true:
                workers = Int(value!)!
                i += 2
            case "--json":
                json = true
                i += 1
            default:
                FileHandle.standardError.write(
                    Data(
                        "error: unknown option '\(arguments[i])'\nusage: trellis-bench sync [--characters FILE] [--runs N] [--json] [--dlt PYTHON] [--trellis PATH] [--workers N]\n"
                            .utf8))
                return 64
            }
        }
        do {
            if let workers { return try measureWorkers(workers, characters: characters, runs: runs, json: json) }
            return try measure(characters: characters, runs: runs, json: json, dlt: dlt, trellis: trellis)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    static func measure(characters: String, runs: Int, json: Bool, dlt: String?, trellis: String?) throws -> Int32 {
        if !FileManager.default.fileExists(atPath: characters) {
            try FileManager.default.createDirectory(atPath: (characters as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try ImportWorkload.Floor.shell(["python3", "Benchmarks/data-generators/gen_characters.py", "100000", characters])
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-bench-sync-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let binary = trellis ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("trellis").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchFailure("no trellis binary at \(binary) (build it, or pass --trellis PATH)")
        }

        let server = try LoopbackServer(script: "Benchmarks/sync/parse_lite_server.py", arguments: [characters, "0", "Character"])
        defer { server.stop() }
        let modelFile = work.appendingPathComponent("model.json")
        try modelJSON.write(to: modelFile, atomically: true, encoding: .utf8)
        let sourceFile = work.appendingPathComponent("characters.source.json")
        try sourceJSON(port: server.port).write(to: sourceFile, atomically: true, encoding: .utf8)
        let model = try syncModel()

        var floors: [Double] = []
        var imports: [Double] = []
        var syncs: [Double] = []
        var peaks: [Double] = []
        var records = 0
        var parentRSS = 0.0
        var importCPU: [Double] = []
        var syncCPU: [Double] = []
        for run in 0..<runs {
            // The network floor, and the file of the records as served.
            let recordsFile = work.appendingPathComponent("records.json")
            let floor = try fetchFloor(port: server.port, writingRecordsTo: run == 0 ? recordsFile : nil)
            floors.append(floor.seconds)
            records = floor.records

            // Import of the same records from the file.
            let importStore = work.appendingPathComponent("import-\(run).sqlite").path
            let cpu = Bench.threadCPUTime()
            imports.append(try seconds { try importFile(recordsFile.path, into: importStore, model: model) })
            importCPU.append(Bench.threadCPUTime() - cpu)

            // trellis sync into a fresh store, as a child process. The child's ru_maxrss starts
            // from this process's peak (posix_spawn shares the address space until exec, and
            // exec records the old peak), so this process frees what it can and resets its
            // peak first (/proc/self/clear_refs): the figure is then the child's own, or this
            // process's current RSS if that is larger (printed below).
            let syncStore = work.appendingPathComponent("sync-\(run).sqlite").path
            Bench.trimHeap()
            Bench.resetPeakRSS()
            parentRSS = max(parentRSS, Bench.megabytes(Bench.currentRSS()))
            let child = try ChildProcess.run(binary, ["sync", sourceFile.path, "--model", modelFile.path, "--store", syncStore, "--report", "json"])
            guard child.status == 0 else { throw BenchFailure("trellis sync exited with \(child.status): \(child.standardError)") }
            let synced = try SQLiteStore(path: syncStore, model: model).read { try $0.count(entity: "Character", matching: nil) }
            guard synced == records else { throw BenchFailure("trellis sync stored \(synced) characters, the server has \(records)") }
            syncs.append(child.seconds)
            syncCPU.append(child.cpuSeconds)
            peaks.append(child.peakRSSMegabytes)
            print(
                "run \(run + 1): fetch floor \(Bench.format(floor.seconds, 3)) s, import \(Bench.format(imports.last!, 3)) s, "
                    + "sync \(Bench.format(child.seconds, 3)) s (peak RSS \(Bench.format(child.peakRSSMegabytes)) MB)")
            for file in [importStore, syncStore] { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        }
        let f = ImportWorkload.median(floors)
        let imp = ImportWorkload.median(imports)
        let s = ImportWorkload.median(syncs)
        let peak = peaks.max() ?? 0
        let ratio = s / max(f, imp)
        print("records: \(records) in pages of 1,000 from \(server.script) on 127.0.0.1:\(server.port)")
        print("network floor (fetch every page, no processing):  \(Bench.format(f, 3)) s")
        print("import of the same records from a file:           \(Bench.format(imp, 3)) s")
        print("trellis sync into a fresh store:                  \(Bench.format(s, 3)) s  ratio vs max(floor, import) \(Bench.format(ratio, 2)) (goal ≤ 1.3)")
        print(
            "CPU seconds (the machine may be shared: wall figures then vary): import \(Bench.format(ImportWorkload.median(importCPU), 3)) s "
                + "(this thread), sync \(Bench.format(ImportWorkload.median(syncCPU), 3)) s (every thread of the child: pages are read on a "
                + "second thread while the first imports); runs: import \(imports.map { Bench.format($0, 3) }), sync \(syncs.map { Bench.format($0, 3) })")
        let perRun = zip(syncs, zip(floors, imports)).map { s, fi in s / max(fi.0, fi.1) }
        print("ratio of each run: \(perRun.map { Bench.format($0, 2) }) (best \(Bench.format(perRun.min() ?? 0, 2)))")
        print(
            "peak RSS of trellis sync: \(Bench.format(peak)) MB (goal ≤ 150; this process's RSS when it started the child: "
                + "\(Bench.format(parentRSS)) MB); medians of \(runs) runs")
        if let dlt {
            let peer = try ChildProcess.run(dlt, ["Benchmarks/sync/dlt_peer.py", String(server.port), work.appendingPathComponent("dlt").path])
            guard peer.status == 0 else { throw BenchFailure("dlt_peer.py exited with \(peer.status): \(peer.standardError.suffix(2000))") }
            print(
                "dlt rest_api (same server, same session): \(peer.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)); "
                    + "wall \(Bench.format(peer.seconds, 3)) s, peak RSS \(Bench.format(peer.peakRSSMegabytes)) MB")
        }
        if json {
            print(
                String(
                    format: #"{"workload":"sync","records":%d,"sync_s":%.4f,"fetch_floor_s":%.4f,"import_s":%.4f,"ratio_vs_floor":%.3f,"peak_rss_mb":%.1f}"#,
                    records, s, f, imp, ratio, peak))
        }
        return 0
    }

    // MARK: - Workers

    /// `--workers N`: one worker against N on one PostgreSQL server, aggregate CPU (see the header).
    static func measureWorkers(_ count: Int, characters: String, runs: Int, json: Bool) throws -> Int32 {
        if !FileManager.default.fileExists(atPath: characters) {
            try FileManager.default.createDirectory(atPath: (characters as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try ImportWorkload.Floor.shell(["python3", "Benchmarks/data-generators/gen_characters.py", "100000", characters])
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-bench-sync-workers-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let database = try PostgresWorkload.Server(directory: work.appendingPathComponent("cluster").path)
        defer { database.stop() }
        let resources = 8
        let server = try LoopbackServer(script: "Benchmarks/sync/parse_lite_server.py", arguments: [characters, "0", "Character", String(resources)])
        defer { server.stop() }
        let source = try SyncSource(json: try JSONReader.parse(shardedSourceJSON(port: server.port, resources: resources)), environment: [:])
        let model = try syncModel()
        print("server: \(PostgresStore.describe(connection: database.url)) (\(database.version)); \(resources) resources on 127.0.0.1:\(server.port)")

        var schemas = 0
        /// Wall and aggregate CPU seconds of `workers` workers syncing every resource into a fresh schema.
        func syncAll(workers: Int) throws -> (seconds: Double, cpu: Double, records: Int) {
            schemas += 1
            let location = database.url + "?schema=workers_\(schemas)"
            let stores = try (0..<workers).map { _ in try PostgresStore(connection: location, model: model) }
            let failures = PostgresWorkload.Failures()
            let group = DispatchGroup()
            let start = DispatchSemaphore(value: 0)
            for (index, store) in stores.enumerated() {
                group.enter()
                Thread {
                    defer { group.leave() }
                    start.wait()
                    var options = SyncOptions()
                    options.worker = SyncWorker(holder: "bench#\(index + 1)", leaseSeconds: 60, pollInterval: 0.05)
                    do {
                        _ = try Synchronizer(source: source, context: ObjectContext(store: store), options: options).run()
                    } catch {
                        failures.add("worker \(index + 1): \(error)")
                    }
                }.start()
            }
            Thread.sleep(forTimeInterval: 0.3)  // every backend connected and settled before the measurement
            let cpu = Bench.processCPUTime() + database.cpuSeconds()
            let seconds = ImportWorkload.seconds {
                for _ in 0..<workers { start.signal() }
                group.wait()
            }
            let used = Bench.processCPUTime() + database.cpuSeconds() - cpu
            if let failure = failures.first { throw BenchFailure(failure) }
            let count = try stores[0].rows(#"SELECT count(*), count(DISTINCT "objectId") FROM "Character""#)
            guard let first = count.first, first.count == 2, first[0] == first[1], let n = first[0].flatMap({ Int($0) }) else {
                throw BenchFailure("the workers stored \(count)")
            }
            return (seconds, used, n)
        }

        var singles: [(seconds: Double, cpu: Double, records: Int)] = []
        var many: [(seconds: Double, cpu: Double, records: Int)] = []
        for run in 0..<runs {
            singles.append(try syncAll(workers: 1))
            many.append(try syncAll(workers: count))
            guard singles.last!.records == many.last!.records else {
                throw BenchFailure("one worker stored \(singles.last!.records) characters, \(count) workers \(many.last!.records)")
            }
            print(
                "run \(run + 1): 1 worker \(Bench.format(singles.last!.seconds, 3)) s, CPU \(Bench.format(singles.last!.cpu, 3)) s; "
                    + "\(count) workers \(Bench.format(many.last!.seconds, 3)) s, CPU \(Bench.format(many.last!.cpu, 3)) s")
        }
        let m = ImportWorkload.median
        let w1 = m(singles.map(\.seconds))
        let wn = m(many.map(\.seconds))
        let c1 = m(singles.map(\.cpu))
        let cn = m(many.map(\.cpu))
        let records = singles[0].records
        print("records: \(records) in \(resources) resources, pages of 1,000; \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print(
            "aggregate CPU (this process + the database server): 1 worker \(Bench.format(c1, 3)) s, \(count) workers \(Bench.format(cn, 3)) s; "
                + "ratio \(Bench.format(cn / c1, 2)) (goal ≤ 1.3); wall \(Bench.format(w1, 3)) s and \(Bench.format(wn, 3)) s; medians of \(runs) runs")
        if json {
            print(
                String(
                    format:
                        #"{"workload":"sync","workers":%d,"resources":%d,"records":%d,"single_worker_s":%.4f,"workers_s":%.4f,"single_worker_cpu_s":%.4f,"workers_cpu_s":%.4f,"ratio_vs_single_worker":%.3f}"#,
                    count, resources, records, w1, wn, c1, cn, cn / c1))
        }
        return 0
    }

    /// The source of `--workers`: resources `characters0`… on classes `Character0`….
    static func shardedSourceJSON(port: Int, resources: Int) -> String {
        let list = (0..<resources).map { k in
            #"{"name": "characters\#(k)", "entity": "Character", "path": "classes/Character\#(k)", "records": "results", "#
                + #""params": {"limit": 1000}, "paginator": {"type": "parse"}, "incremental": {"cursor": "updatedAt"}}"#
        }
        return #"{"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://127.0.0.1:\#(port)/parse/", "#
            + #""dialect": "parse", "headers": {"X-Parse-Application-Id": "bench"}}, "resources": [\#(list.joined(separator: ", "))]}"#
    }

    // MARK: - Phases

    /// Fetches every page by `skip`, keeping the bodies; writes the records as served when asked.
    static func fetchFloor(port: Int, writingRecordsTo file: URL?) throws -> (seconds: Double, records: Int) {
        let configuration = ClientConfiguration(baseURL: URL(string: "http://127.0.0.1:\(port)/parse/")!)
        let client = HTTPClient(configuration: configuration, redactor: Redactor(secrets: []))
        var bodies: [Data] = []
        let elapsed = try seconds {
            var skip = 0
            while true {
                let url = URL(string: "http://127.0.0.1:\(port)/parse/classes/Character?limit=1000&skip=\(skip)&order=updatedAt%2CobjectId")!
                let body = try client.get(url, resource: "floor").response.body
                if body.count <= 16 { break }  // {"results":[]}
                bodies.append(body)
                skip += 1000
            }
        }
        // Records: the pages' arrays joined as text (`{"results":[` … `]}`), not parsed.
        var count = 0
        var output = Data("[".utf8)
        for (i, body) in bodies.enumerated() {
            let inner = body.dropFirst(12).dropLast(2)
            if i > 0 { output.append(UInt8(ascii: ",")) }
            output.append(inner)
            count += 1000
        }
        output.append(UInt8(ascii: "]"))
        if let file { try output.write(to: file) }
        // Records: 1,000 a page but the last, whose count is read from its body.
        if let last = bodies.last, let results = try JSONReader.parse(last)["results"]?.arrayValue { count += results.count - 1000 }
        return (elapsed, count)
    }

    static func importFile(_ path: String, into storePath: String, model: ObjectModel) throws {
        let store = try SQLiteStore(path: storePath, model: model)
        var options = ImportOptions()
        options.reportsObjectIDs = false
        var source = try ImportWorkload.StreamSource(path: path)
        _ = try ObjectContext(store: store).importObjects(from: &source, entity: "Character", options: options)
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double { try ImportWorkload.seconds(body) }

    // MARK: - Model and source

    /// The characters with their Parse identity (objectId) and stamp (updatedAt).
    static func syncModel() throws -> ObjectModel {
        let base = try EngineWorkload.model()
        var entities = base.entities
        let character = entities[0]
        entities[0] = EntityDescription(
            name: character.name,
            attributes: [
                AttributeDescription(name: "objectId", type: .string, userInfo: ["JSONKeyPath": "objectId"]),
                AttributeDescription(name: "updatedAt", type: .date, userInfo: ["JSONKeyPath": "updatedAt"]),
            ] + character.attributes,
            relationships: character.relationships, userInfo: ["identityAttributes": "objectId"])
        return try ObjectModel(entities: entities)
    }

    static let modelJSON = #"""
        {"format": "trellis-model", "formatVersion": 1, "entities": [
          {"name": "Character", "identityAttributes": "objectId", "attributes": [
            {"name": "objectId", "type": "string", "jsonKeyPath": "objectId"},
            {"name": "updatedAt", "type": "date", "jsonKeyPath": "updatedAt"},
            {"name": "id", "type": "integer64", "jsonKeyPath": "id"},
            {"name": "name", "type": "string", "jsonKeyPath": "name"},
            {"name": "realName", "type": "string", "jsonKeyPath": "real_name"},
            {"name": "createdAt", "type": "date", "jsonKeyPath": "created_at", "transformer": "iso8601"},
            {"name": "rating", "type": "double", "jsonKeyPath": "rating"},
            {"name": "active", "type": "boolean", "jsonKeyPath": "active"}],
           "relationships": [
            {"name": "powers", "destination": "Power", "inverse": "characters", "toMany": true, "jsonKeyPath": "powers"},
            {"name": "publisher", "destination": "Publisher", "inverse": "characters", "jsonKeyPath": "publisher"}]},
          {"name": "Power", "identityAttributes": "id", "attributes": [
            {"name": "id", "type": "integer64", "jsonKeyPath": "id"}, {"name": "name", "type": "string", "jsonKeyPath": "name"}],
           "relationships": [{"name": "characters", "destination": "Character", "inverse": "powers", "toMany": true}]},
          {"name": "Publisher", "identityAttributes": "id", "attributes": [
            {"name": "id", "type": "integer64", "jsonKeyPath": "id"}, {"name": "name", "type": "string", "jsonKeyPath": "name"}],
           "relationships": [{"name": "characters", "destination": "Character", "inverse": "publisher", "toMany": true}]}]}
        """#

    static func sourceJSON(port: Int) -> String {
        #"""
        {"format": "trellis-source", "formatVersion": 1,
         "client": {"baseURL": "http://127.0.0.1:\#(port)/parse/", "dialect": "parse",
                    "headers": {"X-Parse-Application-Id": "bench"}},
         "resources": [{"name": "characters", "entity": "Character", "path": "classes/Character", "records": "results",
                        "params": {"limit": 1000}, "paginator": {"type": "parse"}, "incremental": {"cursor": "updatedAt"}}]}
        """#
    }
}

/// A helper server started for the benchmark: `python3 SCRIPT ARGUMENTS…`, which prints
/// "listening on PORT" when ready.
final class LoopbackServer {
    let process = Process()
    let port: Int
    let script: String

    init(script: String, arguments: [String]) throws {
        self.script = script
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        guard
            let port = String(decoding: line, as: UTF8.self).split(separator: " ").last
                .flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }), port > 0
        else {
            process.terminate()
            throw BenchFailure("\(script) did not start: \(String(decoding: line, as: UTF8.self))")
        }
        self.port = port
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// A child process run to completion: its status, output, wall time and peak RSS.
struct ChildProcess {
    var status: Int32
    var standardOutput: String
    var standardError: String
    var seconds: Double
    /// User and system CPU seconds of the child (every thread).
    var cpuSeconds: Double
    var peakRSSMegabytes: Double

    static func run(_ executable: String, _ arguments: [String]) throws -> ChildProcess {
        var pid: pid_t = 0
        let outPath = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-bench-child-\(getpid())-out").path
        let errPath = outPath + "-err"
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let start = DispatchTime.now().uptimeNanoseconds
        let rc = posix_spawnp(&pid, executable, &actions, nil, argv, environ)
        guard rc == 0 else { throw BenchFailure("cannot run \(executable): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
        let exited = (status & 0x7f) == 0
        return ChildProcess(
            status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), standardOutput: out, standardError: err,
            seconds: elapsed,
            cpuSeconds: Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6,
            peakRSSMegabytes: Double(usage.ru_maxrss) / 1024)
    }
}
