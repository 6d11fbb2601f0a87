import Foundation
import Testing
import TrellisTestSupport

/// `trellis model infer` reads a large array streaming, in bounded memory (issue 14, point 1):
/// its peak resident memory on an 8 MB array stays below the size of the input above the
/// peak on a tiny one, where reading the whole document would hold several times the input
/// (parsed values take more room than their text). Peak memory is the child's `ru_maxrss`
/// (getrusage(2)), read by a Python launcher. Time is not measured here; `trellis-bench`
/// and the acceptance script do that on release builds.
@Suite struct InferenceMemoryEndToEndTests {
    /// Runs the binary with its arguments and writes `maxrss=<KiB>` on standard error when it ends.
    static let launcher = [
        "/usr/bin/env", "python3", "-c",
        """
        import resource, subprocess, sys
        status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
        sys.stderr.write("maxrss=%d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        sys.exit(status)
        """,
    ]

    static func peakKiB(_ arguments: [String], in directory: URL) throws -> Int {
        let result = try TrellisProcess.run(arguments, in: directory, launcher: launcher)
        #expect(result.status == 0, "\(result)")
        let line = try #require(result.stderr.split(separator: "\n").last { $0.hasPrefix("maxrss=") })
        return try #require(Int(line.dropFirst("maxrss=".count)))
    }

    /// `{"items": [{…}, {…}, …]}` of about `bytes` bytes, with nested objects, arrays and dates.
    static func writeItems(to url: URL, bytes: Int) throws -> Int {
        var text = #"{"items": ["#
        var count = 0
        while text.utf8.count < bytes {
            if count > 0 { text += "," }
            text +=
                #"{"id": \#(count), "name": "user \#(count)", "score": \#(Double(count % 997) / 7), "#
                + #""created_at": "2017-10-10T16:00:\#(count % 50 + 10)Z", "tags": ["a", "b\#(count % 9)"], "#
                + #""owner": {"id": \#(count % 1000), "login": "login\#(count % 1000)"}, "#
                + #""lines": [{"sku": "s\#(count % 50)", "qty": \#(count % 7)}, {"sku": "t\#(count % 30)", "qty": 1}]}"#
            count += 1
        }
        text += "]}"
        try Data(text.utf8).write(to: url)
        return count
    }

    @Test func aLargeArrayIsInferredInBoundedMemory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let large = directory.url.appendingPathComponent("large.json")
        let size = 8 << 20
        let count = try Self.writeItems(to: large, bytes: size)
        _ = try Self.writeItems(to: directory.url.appendingPathComponent("tiny.json"), bytes: 2000)

        let arguments = ["model", "infer", "--at", "items", "--entity", "Item", "-o"]
        let tiny = try Self.peakKiB(arguments + ["tiny.json.model", "tiny.json"], in: directory.url)
        let peak = try Self.peakKiB(arguments + ["large.json.model", "large.json"], in: directory.url)
        #expect(peak - tiny < size / 1024, "peak \(peak) KiB on \(count) items, \(tiny) KiB on a tiny input")
        // The two models are the same: the large input has nothing the tiny one lacks.
        let small = try Data(contentsOf: directory.url.appendingPathComponent("tiny.json.model"))
        #expect(try Data(contentsOf: directory.url.appendingPathComponent("large.json.model")) == small)
    }
}
