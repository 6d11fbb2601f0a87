// `trellis-bench <workload> [options]`: one file per workload (`ParseWorkload.swift`, …).
// Add a workload by adding its file and one entry to `workloads`.
// Run in release: `swift run -c release trellis-bench parse --json`.
import Foundation

/// Every workload: name, one-line summary, entry point (arguments after the name → exit status).
let workloads: [(name: String, summary: String, run: ([String]) -> Int32)] = [
    ("parse", "JSON reader and writer vs JSONSerialization on the corpus and the characters file", ParseWorkload.run),
    ("engine", "import generated characters into the in-memory store at 10k/100k/1M records", EngineWorkload.run),
    ("import", "characters file → fresh SQLite store, then again unchanged, vs the C floor (issue 4)", ImportWorkload.run),
    ("postgres", "characters file → fresh PostgreSQL schema (its own temporary server), again unchanged, vs SQLite; 4 concurrent importers (issue 16)",
     PostgresWorkload.run),
    ("scale", "imports with a new to-one destination per record at 10k and 100k records, vs the characters import (issue 13)",
     ScaleWorkload.run),
    ("mapping", "typed layer (JSONMappable) vs JSONDecoder into Codable structs [FILE] [--runs N]", { arguments in
        do {
            try runMappingBenchmark(arguments: arguments)
            return 0
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }),
    ("query", "fetch requests and observation on the 100k characters [--characters FILE] [--json] (issue 17)", QueryWorkload.run),
    ("query-observer", "(internal) the observing child process of `query`", QueryWorkload.observer),
    ("sync", "Parse-style pages from a loopback server → trellis sync, vs the network floor and the import (issue 15)", SyncWorkload.run),
    ("store", "store-level SQLite apply/fetch passes (insert, unchanged, update) [N] [path]", { arguments in
        do {
            try StoreBench.run(arguments: arguments)
            return 0
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }),
]

@MainActor func usage() -> String {
    var text = "usage: trellis-bench <workload> [options]\n\nworkloads:\n"
    for workload in workloads { text += "  \(workload.name.padding(toLength: 10, withPad: " ", startingAt: 0))\(workload.summary)\n" }
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
