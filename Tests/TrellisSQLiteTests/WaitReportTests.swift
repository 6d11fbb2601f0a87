import Foundation
import Testing
import Trellis

@testable import TrellisSQLite

/// ``SQLiteStore/reportWaits(to:)``: a write waiting for another connection's lock is
/// reported while it waits, and still ends with `.busy` after the busy timeout.
@Suite struct WaitReportTests {
    /// Collects what the observer reports.
    final class Reports: @unchecked Sendable {
        // SAFETY: `waits` is read and written with `lock` held.
        private let lock = NSLock()
        private var waits: [Duration] = []
        func append(_ waited: Duration) { lock.withLock { waits.append(waited) } }
        var all: [Duration] { lock.withLock { waits } }
    }

    @Test func aWaitingWriteIsReportedThenGivesUp() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("store.sqlite")
        let model = try charactersModel()
        let holder = try SQLiteStore(path: path, model: model)
        let waiter = try SQLiteStore(path: path, model: model, configuration: .init(busyTimeoutMilliseconds: 300))
        let reports = Reports()
        waiter.reportWaits { reports.append($0) }
        let error = try holder.write { _ in
            try #require(throws: StoreError.self) { try waiter.write { _ in } }
        }
        #expect(error.code == .busy)
        let waits = reports.all
        #expect(waits.first == .zero)
        #expect(waits.count > 1)
        #expect(zip(waits, waits.dropFirst()).allSatisfy { $0 <= $1 }, "\(waits)")
        #expect(waits.allSatisfy { $0 < .milliseconds(300) }, "\(waits)")
        // Once the lock is free, the write goes through and nothing more is reported.
        let before = reports.all.count
        try waiter.write { _ in }
        #expect(reports.all.count == before)
    }
}
