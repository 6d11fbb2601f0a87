import Foundation

/// Timing and memory helpers shared by the workloads.
enum Bench {
    /// Timings of one piece of work: wall-clock seconds and the seconds of CPU time the
    /// calling thread used (the latter is what to compare on a loaded machine).
    struct Timing {
        var best: Double
        var median: Double
        var cpuBest: Double
        var cpuMedian: Double
    }

    /// Which clock the reported figures use (`--clock wall|cpu`, default wall).
    nonisolated(unsafe) static var useCPUClock = false

    /// The seconds of CPU time used by the calling thread so far.
    static func threadCPUTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The seconds of CPU time (user + system) used by every thread of this process so far.
    static func processCPUTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Best and median of `runs` timings of `body`; `reset` runs untimed before each
    /// (to free the previous run's result outside the measurement).
    static func measure(runs: Int, reset: () -> Void = {}, _ body: () throws -> Void) rethrows -> Timing {
        var wall: [Double] = []
        var cpu: [Double] = []
        for _ in 0..<max(1, runs) {
            reset()
            let cpuStart = threadCPUTime()
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            wall.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            cpu.append(threadCPUTime() - cpuStart)
        }
        wall.sort()
        cpu.sort()
        return Timing(best: wall[0], median: wall[wall.count / 2], cpuBest: cpu[0], cpuMedian: cpu[cpu.count / 2])
    }

    /// (best, median) of the clock chosen with ``useCPUClock``.
    static func figures(_ t: Timing) -> (best: Double, median: Double) {
        useCPUClock ? (t.cpuBest, t.cpuMedian) : (t.best, t.median)
    }

    /// Resets the kernel's peak-RSS mark (VmHWM) to the current RSS (Linux ≥ 4.0;
    /// no effect elsewhere). Returns whether it worked.
    @discardableResult
    static func resetPeakRSS() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }

    /// Peak resident set size since start or the last ``resetPeakRSS()``, in bytes
    /// (VmHWM from /proc/self/status; getrusage's ru_maxrss when that is unavailable).
    static func peakRSS() -> Int {
        if let kb = statusField("VmHWM:") { return kb * 1024 }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
    }

    /// Returns freed heap memory to the system (glibc `malloc_trim`), so that RSS
    /// reflects live memory before a peak measurement.
    static func trimHeap() {
        #if os(Linux)
            _ = mallocTrim(0)
        #endif
    }

    /// Current resident set size in bytes (VmRSS).
    static func currentRSS() -> Int { (statusField("VmRSS:") ?? 0) * 1024 }

    private static func statusField(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            return Int(line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    static func megabytes(_ bytes: Int) -> Double { Double(bytes) / 1_000_000 }

    static func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
}

#if os(Linux)
    /// glibc's `int malloc_trim(size_t pad)` (not exported by the Glibc module).
    @_silgen_name("malloc_trim")
    func mallocTrim(_ pad: Int) -> Int32
#endif
