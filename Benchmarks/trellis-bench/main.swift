// `trellis-bench <workload> [options]`: one file per workload (`ParseWorkload.swift`, …).
// Add a workload by adding its file and one entry to `workloads`.
// Run in release: `swift run -c release trellis-bench parse --json`.
import Foundation

/// Every workload: name, one-line summary of what it measures, entry point (arguments after
/// the name → exit status). Names in ``internalWorkloads`` run but are not listed.
let workloads: [(name: String, summary: String, run: ([String]) -> Int32)] = [
    ("parse", "JSON reader and writer vs JSONSerialization on the corpus and the characters file", ParseWorkload.run),
    ("engine", "import generated characters into the in-memory store at 10k/100k/1M records", EngineWorkload.run),
    ("import", "import speed: characters file → fresh SQLite store, then again unchanged, vs a C floor", ImportWorkload.run),
    (
        "postgres", "PostgreSQL import speed: characters file → fresh schema (its own temporary server), again unchanged, vs SQLite; 4 concurrent importers",
        PostgresWorkload.run
    ),
    (
        "export", "export speed and memory: the generated characters from SQLite, streamed as JSON, vs sqlite3 -json [--count N] [--json]",
        ExportWorkload.run
    ),
    (
        "scale", "import scaling: a new to-one destination per record at 10k and 100k records, vs the characters import",
        ScaleWorkload.run
    ),
    (
        "mapping", "typed layer (JSONMappable) vs JSONDecoder into Codable structs [FILE] [--runs N]",
        { arguments in
            do {
                try runMappingBenchmark(arguments: arguments)
                return 0
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                return 1
            }
        }
    ),
    ("codable", "TrellisJSONDecoder/Encoder vs JSONDecoder/Encoder: twitter, citm, characters [--runs N] [--json]", CodableWorkload.run),
    ("query", "fetch requests and observation latency on the 100k characters [--characters FILE] [--json]", QueryWorkload.run),
    ("query-observer", "the observing child process of `query` (internal, not listed)", QueryWorkload.observer),
    ("sync", "sync speed: Parse-style pages from a loopback server → trellis sync, vs the network floor and the import", SyncWorkload.run),
    (
        "push", "push speed: 10,000 local updates sent in batches of 50 to a loopback Parse server, vs the network floor; save() with outbox rows",
        PushWorkload.run
    ),
    (
        "store", "store-level SQLite apply/fetch passes (insert, unchanged, update) [N] [path]",
        { arguments in
            do {
                try StoreBench.run(arguments: arguments)
                return 0
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                return 1
            }
        }
    ),
]

/// Workloads other workloads start as child processes; `--help` does not list them.
let internalWorkloads: Set<String> = ["query-observer"]

@MainActor func usage() -> String {
    var text = "usage: trellis-bench <workload> [options]\n\nworkloads:\n"
    for workload in workloads where !internalWorkloads.contains(workload.name) {
        text += "  \(workload.name.padding(toLength: 10, withPad: " ", startingAt: 0))\(workload.summary)\n"
    }
    return text
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first else {
    FileHandle.standardError.write(Data(usage().utf8))
    exit(64)
}
if name == "--help" || name == "-h" {
    print(usage(), terminator: "")
    exit(0)
}
guard let workload = workloads.first(where: { $0.name == name }) else {
    FileHandle.standardError.write(Data("error: unknown workload '\(name)'\n\(usage())".utf8))
    exit(64)
}
exit(workload.run(Array(arguments.dropFirst())))
