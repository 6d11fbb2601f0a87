// `trellis-bench push [--characters FILE] [--objects N] [--runs N] [--json]`: issue 23's push
// benchmark. The 100k generated characters are synced from the loopback Parse server
// (`Benchmarks/sync/parse_lite_server.py`, which also answers `POST batch`) into a fresh SQLite
// store; then, in this process:
//
// - `save()`: N characters (default 10,000) renamed in one `save()` of an `ObjectContext`, with
//   outbox rows (origin local) and without (origin import), alternately, medians of --runs
//   (default 3) pairs; `save_overhead` is with / without. The outbox rows of all but the last
//   local save are removed before the next pair, so each local save records N new rows;
// - the network floor: the same number of `POST batch` requests, each of 50 `PUT`s with
//   pre-built bodies of the same shape, through the same HTTP client (URLSession) to the same
//   server, one after the other;
// - the push: `Synchronizer.push()` of the N pending updates in batches of 50 (wall time, and
//   this process's peak RSS from a reset taken just before it: `/proc/self/clear_refs`).
//
// With --json the last line is
// {"workload":"push","objects":N,"requests":R,"push_s":S,"floor_s":F,"ratio_vs_floor":S/F,
//  "ops_per_request":O,"save_overhead":X,"peak_rss_mb":M}
import Foundation
import Trellis
import TrellisSQLite
import TrellisSync

enum PushWorkload {
    static func run(_ arguments: [String]) -> Int32 {
        var characters = "Benchmarks/data/characters.json"
        var objects = 10_000
        var runs = 3
        var json = false
        var i = 0
        while i < arguments.count {
            let value = i + 1 < arguments.count ? arguments[i + 1] : nil
            switch arguments[i] {
            case "--characters" where value != nil:
                characters = value!
                i += 2
            case "--objects" where value.flatMap(Int.init).map({ $0 > 0 }) == true:
                objects = Int(value!)!
                i += 2
            case "--runs" where value.flatMap(Int.init).map({ $0 > 0 }) == true:
                runs = Int(value!)!
                i += 2
            case "--json":
                json = true
                i += 1
            default:
                FileHandle.standardError.write(
                    Data("error: unknown option '\(arguments[i])'\nusage: trellis-bench push [--characters FILE] [--objects N] [--runs N] [--json]\n".utf8))
                return 64
            }
        }
        do {
            return try measure(characters: characters, objects: objects, runs: runs, json: json)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    static let batchSize = 50

    static func measure(characters: String, objects: Int, runs: Int, json: Bool) throws -> Int32 {
        if !FileManager.default.fileExists(atPath: characters) {
            try FileManager.default.createDirectory(atPath: (characters as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try ImportWorkload.Floor.shell(["python3", "Benchmarks/data-generators/gen_characters.py", "100000", characters])
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-bench-push-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let server = try LoopbackServer(script: "Benchmarks/sync/parse_lite_server.py", arguments: [characters, "0", "Character"])
        defer { server.stop() }
        let source = try SyncSource(json: try JSONReader.parse(sourceJSON(port: server.port)), environment: [:])
        let model = try SyncWorkload.syncModel()
        let store = try SQLiteStore(path: work.appendingPathComponent("push.sqlite").path, model: model)
        let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store))
        let pulled = try SyncWorkload.seconds { _ = try synchronizer.run() }
        let total = try store.read { try $0.count(entity: "Character", matching: nil) }
        print("synced \(total) characters from \(server.script) on 127.0.0.1:\(server.port) in \(Bench.format(pulled, 3)) s")

        // The objects to edit: the first N by objectId.
        let ids = try store.read { session in
            try session.fetch(entity: "Character", matching: nil).prefix(objects).map(\.id)
        }
        guard ids.count == objects else { throw BenchFailure("the store holds \(ids.count) characters, fewer than \(objects)") }
        let nameIndex = model.entity(named: "Character")!.attributeIndex(of: "name")!

        /// One save() renaming every object of `ids` (`suffix` makes each save a real change).
        func save(origin: ChangeOrigin, suffix: String) throws -> Double {
            let context = ObjectContext(store: store, origin: origin)
            let edited = try context.objects(with: ids)
            for object in edited {
                let name = object.value(at: nameIndex)?.stringValue ?? ""
                try object.setValue(.string(String(name.prefix(while: { $0 != "#" })) + "#" + suffix), at: nameIndex)
            }
            return try SyncWorkload.seconds { try context.save() }
        }
        _ = try save(origin: .import, suffix: "warm")
        var without: [Double] = []
        var with: [Double] = []
        for run in 0..<runs {
            without.append(try save(origin: .import, suffix: "i\(run)"))
            with.append(try save(origin: .local, suffix: "l\(run)"))
            let rows = try store.outbox()
            guard rows.count == objects else { throw BenchFailure("the local save recorded \(rows.count) outbox rows, not \(objects)") }
            if run < runs - 1 {
                try store.write { session in
                    guard let storage = session as? any OutboxStorage else { throw BenchFailure("the store keeps no outbox") }
                    try storage.deleteOutboxRows(sequences: rows.map(\.sequence))
                }
            }
            print(
                "run \(run + 1): save() of \(objects) renamed characters without outbox rows \(Bench.format(without.last!, 3)) s, "
                    + "with \(Bench.format(with.last!, 3)) s")
        }
        let saveWithout = ImportWorkload.median(without)
        let saveWith = ImportWorkload.median(with)

        // The network floor: as many batch requests, of the same shape, with bodies built beforehand.
        let requests = (objects + batchSize - 1) / batchSize
        var mount = "/parse/"
        if let path = source.client.baseURL.path.isEmpty ? nil : source.client.baseURL.path { mount = path.hasSuffix("/") ? path : path + "/" }
        let bodies: [Data] = try (0..<requests).map { r in
            let chunk = (r * batchSize)..<min(objects, (r + 1) * batchSize)
            let items: [JSONValue] = chunk.map { k in
                [
                    "method": "PUT", "path": .string("\(mount)classes/Character/o\(String(format: "%07d", k))"),
                    "body": ["name": .string("Character \(k)#floor")],
                ]
            }
            return try JSONWriter.data(for: ["requests": .array(items)])
        }
        let client = synchronizer.client
        let batchURL = client.url(path: "batch", query: [])!
        let floor = try SyncWorkload.seconds {
            for body in bodies {
                let result = try client.write("POST", batchURL, body: body, resource: "floor")
                guard case .success(let response) = result, response.status == 200 else { throw BenchFailure("the floor's batch failed: \(result)") }
            }
        }

        // The push.
        Bench.trimHeap()
        let peakReset = Bench.resetPeakRSS()
        var report = PushReport()
        let pushed = try SyncWorkload.seconds { report = try synchronizer.push() }
        let peak = Bench.megabytes(Bench.peakRSS())
        guard report.acknowledged == objects, try store.outbox().isEmpty else {
            throw BenchFailure("the push acknowledged \(report.acknowledged) of \(objects) (problems: \(report.problems.prefix(3)))")
        }
        let ratio = pushed / floor
        let perRequest = report.operationsPerRequest
        let overhead = saveWith / saveWithout
        print("network floor (\(requests) batch requests of \(batchSize) pre-built PUTs): \(Bench.format(floor, 3)) s")
        print(
            "push of \(objects) local updates: \(Bench.format(pushed, 3)) s in \(report.batches) batches, \(report.requests) requests; "
                + "ratio vs floor \(Bench.format(ratio, 2)) (goal ≤ 1.25); \(Bench.format(perRequest, 1)) operations per request (goal ≥ 47.5)")
        print(
            "save() of \(objects) renamed characters: with outbox rows \(Bench.format(saveWith, 3)) s, without \(Bench.format(saveWithout, 3)) s; "
                + "overhead \(Bench.format(overhead, 3)) (goal ≤ 1.10); medians of \(runs) pairs")
        print(
            "peak RSS during the push: \(Bench.format(peak)) MB (goal ≤ 150\(peakReset ? "" : "; the peak could not be reset: this process's peak since start"))"
        )
        if json {
            print(
                String(
                    format:
                        #"{"workload":"push","objects":%d,"requests":%d,"push_s":%.4f,"floor_s":%.4f,"ratio_vs_floor":%.3f,"ops_per_request":%.2f,"save_overhead":%.3f,"peak_rss_mb":%.1f}"#,
                    objects, report.requests, pushed, floor, ratio, perRequest, overhead, peak))
        }
        return 0
    }

    static func sourceJSON(port: Int) -> String {
        #"""
        {"format": "trellis-source", "formatVersion": 1,
         "client": {"baseURL": "http://127.0.0.1:\#(port)/parse/", "dialect": "parse",
                    "headers": {"X-Parse-Application-Id": "bench"}},
         "resources": [{"name": "characters", "entity": "Character", "path": "classes/Character", "records": "results",
                        "params": {"limit": 1000}, "paginator": {"type": "parse"}, "incremental": {"cursor": "updatedAt"},
                        "push": {"batchSize": 50, "createKey": "clientId"}}]}
        """#
    }
}
