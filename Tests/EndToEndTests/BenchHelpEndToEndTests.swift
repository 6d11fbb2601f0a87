import Foundation
import Testing

/// `trellis-bench --help` lists the workloads by what they measure: no issue numbers, and
/// not the internal workload `query` starts as its child process.
@Suite struct BenchHelpEndToEndTests {
    /// The built `trellis-bench`, next to the built `trellis` (one directory per build).
    static var bench: URL? {
        guard let trellis = TrellisProcess.binary else { return nil }
        let url = trellis.deletingLastPathComponent().appendingPathComponent("trellis-bench")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    @Test func helpListsWorkloadsByWhatTheyMeasure() throws {
        let bench = try #require(Self.bench, "trellis-bench was not found next to trellis; run `swift build` first")
        let process = Process()
        process.executableURL = bench
        process.arguments = ["--help"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let text = String(decoding: data, as: UTF8.self)
        let names = text.split(separator: "\n").dropFirst(2).map { String($0.dropFirst(2).prefix(while: { $0 != " " })) }
        #expect(names == ["parse", "engine", "import", "postgres", "export", "scale", "mapping", "codable", "query", "sync", "push", "store"])
        #expect(text.hasPrefix("usage: trellis-bench <workload> [options]\n\nworkloads:\n"))
        #expect(text.contains("  import    import speed: characters file → fresh SQLite store, then again unchanged, vs a C floor\n"))
        #expect(!text.contains("issue"))
        #expect(!text.contains("internal"))
        #expect(!text.contains("query-obse"))
    }
}
