import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSQLite

/// A store file deleted or replaced (`mv other.sqlite store.sqlite`) while it is observed:
/// the path names another file, which the store's connections never see change, so the
/// observation ends with an error saying so instead of staying silent forever.
@Suite struct ObservedFileReplacedTests {
    final class Outcome: @unchecked Sendable {
        // SAFETY: `updates` and `error` are read and written only while `lock` is held.
        private let lock = NSLock()
        private var updates = 0
        private var error: (any Error)?
        func receive(_ result: Result<FetchResultsUpdate, any Error>) {
            lock.withLock {
                switch result {
                case .success: updates += 1
                case .failure(let failure): error = failure
                }
            }
        }
        /// Waits (at most 60 s) until `done` holds for the updates and the error.
        func wait(until done: (Int, (any Error)?) -> Bool) -> (Int, (any Error)?) {
            let end = Date().addingTimeInterval(60)
            while Date() < end {
                let now = lock.withLock { (updates, error) }
                if done(now.0, now.1) { return now }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return lock.withLock { (updates, error) }
        }
    }

    @Test(arguments: ["replaced", "deleted"])
    func replacingTheFileEndsTheObservation(how: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try charactersModel()
        let path = directory.path("s.sqlite")
        let store = try SQLiteStore(path: path, model: model, configuration: .init(changePollIntervalMilliseconds: 10))
        let outcome = Outcome()
        let observation = try ObjectContext(store: store).observe(ObjectFetchRequest(entity: "Character"), handler: outcome.receive)
        defer { observation.cancel() }
        #expect(outcome.wait { updates, _ in updates >= 1 }.0 == 1)
        if how == "replaced" {
            let other = directory.path("other.sqlite")
            _ = try SQLiteStore(path: other, model: model)
            #expect(rename(other, path) == 0)
        } else {
            try FileManager.default.removeItem(atPath: path)
        }
        let (updates, error) = outcome.wait { _, error in error != nil }
        #expect(updates == 1)
        let storeError = try #require(error as? StoreError)
        #expect(storeError.code == .engine)
        #expect(
            storeError.message == "the store file \(path) was deleted or replaced while it was observed; "
                + "open it again to see what it holds now")
    }
}
