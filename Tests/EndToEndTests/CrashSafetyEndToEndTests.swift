import Foundation
import Testing
import TrellisModelFile
import TrellisSQLite
import TrellisTestSupport

#if os(Linux)
    /// `trellis import` killed with SIGKILL at random moments (issue 7, crash safety): after
    /// every kill the store passes `PRAGMA integrity_check` and holds exactly the last committed
    /// import — all of the killed import or none of it — and opens normally for `trellis export`
    /// and the next import.
    ///
    /// Each import `k` writes version `vk` into records `0..<100_000 + 100·k` (and into the ten
    /// categories), so the state after a kill is either "records `0..<n_prev` at the previous
    /// version" or "records `0..<n_k` at `vk`", each checked exactly with `sqlite3`; anything
    /// else is a torn import.
    ///
    /// Where the kills land. A full import (measured in the test, about 4 s in a debug build)
    /// reads and fetches for a while, then writes: SQLite spills changed pages to the `-wal`
    /// file whenever its page cache (2000 KiB by default, https://sqlite.org/pragma.html#pragma_cache_size)
    /// is full; `COMMIT` flushes the dirty rest of the cache and appends the commit frame; then
    /// the checkpoint copies the WAL into the database file, and closing deletes the WAL. The
    /// commit takes a few milliseconds, far too short to hit by time, so most kills are triggered
    /// by how many bytes the child has written (`wchar` in `/proc/PID/io`, polled every 0.2 ms),
    /// measured against an uninterrupted reference import whose WAL reached `W` bytes. All but a
    /// few bytes the import writes before its checkpoint are WAL frames, so `wchar` follows the
    /// WAL's growth, also when a killed import left a WAL behind. The commit's flush is the last
    /// 1.7 MiB of that growth: under gdb, a breakpoint on `sqlite3_exec("COMMIT")` in this
    /// workload found `wchar` at 2 991 160 bytes, and the WAL grew to 4 775 112. So the kills are:
    /// - at a random time in `[0, T]` (`T` the reference's duration): anywhere, including opening
    ///   the store, parsing and fetching before anything is written;
    /// - mid-import: after a random number of bytes in `[64 KiB, W - 1.6 MiB)`, while uncommitted
    ///   pages are being spilled;
    /// - in the commit: after a random number of bytes in `[W - 1.6 MiB, W]`, while `COMMIT`
    ///   writes; and within 64 KiB of `W`, on either side of the commit frame (polling and the
    ///   signal let the child write on for a fraction of a millisecond, some 100 KiB at the
    ///   commit's pace);
    /// - after the commit: more than `W + 256 KiB` bytes, during the checkpoint (the database file
    ///   half overwritten; the committed WAL must be replayed);
    /// - while creating a new store (at a random time, into another store path).
    /// The state each kill left says on which side of the commit it landed. A time-triggered kill
    /// that comes too late (the import finished first) is replaced by a mid-import one.
    @Suite struct CrashSafetyEndToEndTests {
        static let baseCount = 100_000
        /// Records each import adds.
        static let growth = 100
        /// How many of the bytes an import writes before its commit completes are written by
        /// `COMMIT` itself, a little less than measured (it flushes about 1.7 MiB of dirty pages
        /// from the 2000 KiB page cache in this workload), so kills placed there land in the commit.
        static let commitWindow = 1_600 << 10
        /// Fewer bytes written than this: the import has not begun to write its changes.
        static let startedWriting = 64 << 10

        enum Plan: CaseIterable {
            case anyTime, midImport, commit, commitFrame, afterCommit, creating
        }

        /// 24 kills.
        static let plan: [Plan: Int] = [.anyTime: 6, .midImport: 6, .commit: 5, .commitFrame: 3, .afterCommit: 2, .creating: 2]

        enum Trigger: CustomStringConvertible {
            case time(Duration)
            case bytes(Int)
            var description: String {
                switch self {
                case .time(let duration): return "at \(duration)"
                case .bytes(let bytes): return "after \(bytes) bytes written"
                }
            }
        }

        struct Run {
            var result: TrellisProcess.Result
            var wasKilled: Bool
            /// Bytes the child had written when it was killed (or last seen).
            var bytesWritten: Int
            var elapsed: Duration
            /// The largest `-wal` size seen.
            var largestWAL: Int
        }

        @Test func killedImportsLeaveExactlyTheLastCommittedState() throws {
            let seed =
                ProcessInfo.processInfo.environment["TRELLIS_CRASH_SEED"].flatMap { UInt64($0) }
                ?? UInt64.random(in: 1...UInt64.max)
            var random = SplitMix64(seed: seed)
            let seedNote = "seed \(seed) (rerun with TRELLIS_CRASH_SEED=\(seed))"
            try #require(
                FileManager.default.isReadableFile(atPath: "/proc/self/io"),
                "the kills are placed by the bytes a process wrote, read from /proc/PID/io, which is not readable here")
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            try Data(RecordsWorkload.modelFile.utf8).write(to: directory.url.appendingPathComponent("model.json"))
            let store = directory.url.appendingPathComponent("trellis.sqlite")
            var schedule = Plan.allCases.flatMap { kind in Array(repeating: kind, count: Self.plan[kind] ?? 0) }
            schedule.shuffle(using: &random)
            let workload = RecordsWorkload(capacity: Self.baseCount + Self.growth * (2 * schedule.count + 4))
            var version = 0
            func writePayload() throws -> Int {
                version += 1
                let count = Self.baseCount + Self.growth * version
                try workload.payload(0..<count, version: version).write(to: directory.url.appendingPathComponent("payload.json"))
                return count
            }

            // 1. The store, created by a complete import.
            var committed = (count: try writePayload(), version: version)
            let created = try TrellisProcess.run(Self.importArguments(), in: directory.url)
            try #require(created.status == 0, "\(created)")
            #expect(RecordsWorkload.counts(inReport: created.stdout) == "Record \(committed.count) 0 0 0, Category 10 0 0 0")
            #expect(try RecordsWorkload.state(of: store) == RecordsWorkload.expectedState(count: committed.count, version: version))

            // 2. The reference: an uninterrupted update of every record, timed, its WAL measured.
            let referenceCount = try writePayload()
            // A second connection, open throughout, keeps the `-wal` file after the child closes
            // (SQLite deletes it with the last connection), so its final size is read after the
            // exit instead of being sampled: sampling misses the commit's growth on a loaded
            // machine, where the child commits, checkpoints and exits between two polls.
            var observer: SQLiteStore? = try SQLiteStore(
                path: store.path, model: ModelFile.read(data: Data(RecordsWorkload.modelFile.utf8)).model,
                configuration: SQLiteStore.Configuration(isReadOnly: true))
            var reference = try run(trigger: nil, in: directory)
            var walInfo = stat()
            if stat(store.path + "-wal", &walInfo) == 0 { reference.largestWAL = max(reference.largestWAL, Int(walInfo.st_size)) }
            withExtendedLifetime(observer) {}
            observer = nil
            try #require(reference.result.status == 0, "\(reference.result)")
            #expect(
                RecordsWorkload.counts(inReport: reference.result.stdout)
                    == "Record \(Self.growth) \(committed.count) 0 0, Category 0 10 0 0")
            committed = (referenceCount, version)
            #expect(try RecordsWorkload.state(of: store) == RecordsWorkload.expectedState(count: committed.count, version: version))
            let duration = reference.elapsed
            let wal = reference.largestWAL
            try #require(wal > 2 * Self.commitWindow, "the reference import's WAL grew to only \(wal) bytes")

            // 3. The kills.
            var tally: [String: Int] = [:]
            var kills = 0
            var completed = 0
            var midImport = 0
            var inCommitWindow = 0
            let planned = schedule.count
            func replaceMissedKill() {
                if schedule.count < 2 * planned { schedule.append(.midImport) }
            }
            var index = 0
            while index < schedule.count {
                let kind = schedule[index]
                defer { index += 1 }
                let trigger: Trigger
                switch kind {
                case .anyTime, .creating:
                    trigger = .time(duration * Double.random(in: 0...1, using: &random))
                case .midImport:
                    trigger = .bytes(Int.random(in: Self.startedWriting..<(wal - Self.commitWindow), using: &random))
                case .commit:
                    trigger = .bytes(Int.random(in: (wal - Self.commitWindow)...wal, using: &random))
                case .commitFrame:
                    trigger = .bytes(Int.random(in: (wal - (64 << 10))...(wal + (64 << 10)), using: &random))
                case .afterCommit:
                    trigger = .bytes(Int.random(in: (wal + (256 << 10))...(wal + wal * 4 / 5), using: &random))
                }
                let note = "attempt \(index) (\(kind), \(trigger)), \(seedNote)"
                if kind == .creating {
                    let fresh = directory.url.appendingPathComponent("fresh.sqlite")
                    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: fresh.path + suffix) }
                    let count = try writePayload()
                    let outcome = try run(trigger: trigger, in: directory, store: "fresh.sqlite")
                    try checkCreation(fresh, outcome: outcome, count: count, version: version, note: note, in: directory)
                    if outcome.wasKilled {
                        kills += 1
                        let created = FileManager.default.fileExists(atPath: fresh.path)
                        tally["creating a new store, " + (created ? "all of it" : "none of it (no store)"), default: 0] += 1
                    } else {
                        completed += 1
                        replaceMissedKill()
                    }
                    continue
                }
                let count = try writePayload()
                let outcome = try run(trigger: trigger, in: directory)
                let integrity = try SQLiteShell.query(store, "PRAGMA integrity_check")
                #expect(integrity == "ok", "\(note)")
                #expect(try SQLiteShell.query(store, "PRAGMA foreign_key_check") == "", "\(note)")
                let state = try RecordsWorkload.state(of: store)
                let unchanged = RecordsWorkload.expectedState(count: committed.count, version: committed.version)
                let applied = RecordsWorkload.expectedState(count: count, version: version)
                #expect(
                    state == unchanged || state == applied,
                    "a torn import: \(note), killed \(outcome.wasKilled) after \(outcome.bytesWritten) bytes; store:\n\(state)")
                if !outcome.wasKilled {
                    completed += 1
                    #expect(outcome.result.status == 0, "\(note): \(outcome.result)")
                    // The import saw exactly the last committed state.
                    #expect(
                        RecordsWorkload.counts(inReport: outcome.result.stdout)
                            == "Record \(count - committed.count) \(committed.count) 0 0, Category 0 10 0 0", "\(note)")
                    #expect(state == applied, "\(note)")
                    committed = (count, version)
                    replaceMissedKill()
                    continue
                }
                kills += 1
                #expect(outcome.result.stdout == "" && outcome.result.stderr == "", "\(note): \(outcome.result)")
                let landed: String
                // By the bytes written when killed, against the reference import's WAL size.
                if state == applied {
                    committed = (count, version)
                    if outcome.bytesWritten <= wal {
                        landed = "in the commit window, all of it"
                        inCommitWindow += 1
                    } else {
                        landed = "after the commit, all of it"
                    }
                } else if outcome.bytesWritten < Self.startedWriting {
                    landed = "before writing, none of it"
                } else if outcome.bytesWritten < wal - Self.commitWindow {
                    landed = "mid-import (writing), none of it"
                    midImport += 1
                } else {
                    landed = "in the commit window, none of it"
                    inCommitWindow += 1
                }
                tally[landed, default: 0] += 1
                // The store opens normally and Trellis reads the same state.
                let last = try TrellisProcess.run(Self.exportArguments(where: "id=\(count - 1)"), in: directory.url)
                #expect(
                    last
                        == TrellisProcess.Result(
                            status: 0, stdout: state == applied ? "[\(RecordsWorkload.exportedRecord(count - 1, version: version))]\n" : "[]\n",
                            stderr: ""), "\(note)")
                let first = try TrellisProcess.run(Self.exportArguments(where: "id=0"), in: directory.url)
                #expect(
                    first
                        == TrellisProcess.Result(
                            status: 0, stdout: "[\(RecordsWorkload.exportedRecord(0, version: committed.version))]\n", stderr: ""), "\(note)")
            }

            // 4. A last, uninterrupted import sees exactly the last committed state.
            let finalCount = try writePayload()
            let final = try TrellisProcess.run(Self.importArguments(), in: directory.url)
            #expect(final.status == 0, "\(final)")
            #expect(
                RecordsWorkload.counts(inReport: final.stdout)
                    == "Record \(finalCount - committed.count) \(committed.count) 0 0, Category 0 10 0 0", "\(seedNote)")
            #expect(try RecordsWorkload.state(of: store) == RecordsWorkload.expectedState(count: finalCount, version: version))
            #expect(try SQLiteShell.query(store, "PRAGMA integrity_check") == "ok")
            // Private files of the killed creating imports are removed by the next import there.
            try workload.payload(0..<10, version: 1).write(to: directory.url.appendingPathComponent("payload.json"))
            #expect(try TrellisProcess.run(Self.importArguments(store: "fresh.sqlite"), in: directory.url).status == 0)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix(".") }
            #expect(leftovers == [], "\(seedNote)")

            let summary = tally.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            print(
                """
                crash safety, \(seedNote): \(kills) kills of trellis import (\(Self.baseCount + Self.growth)…\(finalCount) records), \
                \(completed) finished before their kill came (replaced by mid-import kills); a full import took \(Self.seconds(duration)), its WAL grew to \(wal) bytes; \
                landed: \(summary) (the commit window: from \(wal - Self.commitWindow) bytes written until the commit completed)
                """)
            #expect(kills >= 20, "only \(kills) kills; \(seedNote)")
            #expect(midImport >= 1, "no kill landed mid-import; \(seedNote); \(summary)")
            #expect(inCommitWindow >= 1, "no kill landed in the commit window; \(seedNote); \(summary)")
        }

        // MARK: - Helpers

        /// `4.1 s`.
        static func seconds(_ duration: Duration) -> String {
            let (seconds, attoseconds) = duration.components
            return String(format: "%.1f s", Double(seconds) + Double(attoseconds) / 1e18)
        }

        static func importArguments(store: String = "trellis.sqlite") -> [String] {
            ["import", "payload.json", "--model", "model.json", "--entity", "Record", "--store", store, "--report", "json"]
        }

        static func exportArguments(where condition: String, store: String = "trellis.sqlite") -> [String] {
            ["export", "--model", "model.json", "--entity", "Record", "--store", store, "--where", condition, "--relationships", "ids"]
        }

        /// Runs `trellis import payload.json` into `store` and kills it when `trigger` fires (polling
        /// every 0.2 ms); with no trigger, lets it finish and records the largest `-wal` size seen.
        func run(trigger: Trigger?, in directory: TemporaryDirectory, store: String = "trellis.sqlite") throws -> Run {
            let clock = ContinuousClock()
            let start = clock.now
            let walPath = directory.url.appendingPathComponent(store + "-wal").path
            let child = try TrellisProcess.start(Self.importArguments(store: store), in: directory.url)
            var bytes = 0
            var largestWAL = 0
            while child.isRunning {
                guard let written = child.bytesWritten else { break }  // exited
                bytes = written
                var fire = false
                switch trigger {
                case .time(let time)?: fire = clock.now - start >= time
                case .bytes(let threshold)?: fire = bytes >= threshold
                case nil:
                    var info = stat()
                    if stat(walPath, &info) == 0 { largestWAL = max(largestWAL, Int(info.st_size)) }
                }
                if fire {
                    child.kill()
                    break
                }
                usleep(200)
            }
            let result = child.wait()
            return Run(
                result: result, wasKilled: child.wasKilled, bytesWritten: bytes, elapsed: clock.now - start,
                largestWAL: largestWAL)
        }

        /// After an import that created `fresh` was killed (or finished): either no store at the
        /// path (`trellis export` says so) or the whole import.
        func checkCreation(
            _ fresh: URL, outcome: Run, count: Int, version: Int, note: String,
            in directory: TemporaryDirectory
        ) throws {
            if FileManager.default.fileExists(atPath: fresh.path) {
                #expect(try SQLiteShell.query(fresh, "PRAGMA integrity_check") == "ok", "\(note)")
                #expect(try RecordsWorkload.state(of: fresh) == RecordsWorkload.expectedState(count: count, version: version), "\(note)")
                #expect(outcome.wasKilled || outcome.result.status == 0, "\(note): \(outcome.result)")
            } else {
                #expect(outcome.wasKilled, "\(note): \(outcome.result)")
                let export = try TrellisProcess.run(Self.exportArguments(where: "id=0", store: "fresh.sqlite"), in: directory.url)
                #expect(export == TrellisProcess.Result(status: 1, stdout: "", stderr: "error: fresh.sqlite: no such store\n"), "\(note)")
            }
        }
    }

#endif
