import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisPostgres

/// Observation of commits made through other connections (issue 17 point 5): the change
/// log is the truth, `NOTIFY` only wakes the observer early, and the poll delivers what no
/// notification announced. No timing assertions: each wait ends as soon as the update
/// arrives and fails only after 30 s.
@Suite(.enabled(if: PostgresTestServer.isEnabled, "TRELLIS_SKIP_POSTGRES=1"))
struct PostgresObservationTests {
    /// Collects an observation's updates.
    final class Updates: @unchecked Sendable {
        // SAFETY: `received` and `failure` are read and written only while `lock` is held.
        private let lock = NSLock()
        private var received: [FetchResultsUpdate] = []
        private var failure: (any Error)?

        func receive(_ result: Result<FetchResultsUpdate, any Error>) {
            lock.withLock {
                switch result {
                case .success(let update): received.append(update)
                case .failure(let error): failure = error
                }
            }
        }

        /// The first `count` updates, once they arrived (at most 30 s).
        func wait(for count: Int) throws -> [FetchResultsUpdate] {
            for _ in 0..<3000 {
                let (current, error) = lock.withLock { (received, failure) }
                if let error { throw error }
                if current.count >= count { return Array(current.prefix(count)) }
                Thread.sleep(forTimeInterval: 0.01)
            }
            throw StoreError(.engine, message: "received \(lock.withLock { received.count }) update(s) of \(count) within 30 s")
        }
    }

    /// Waits (at most 30 s) until `condition` holds.
    static func eventually(_ what: String, _ condition: () -> Bool) throws {
        for _ in 0..<3000 {
            if condition() { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw StoreError(.engine, message: "\(what) did not happen within 30 s")
    }

    static func model() throws -> ObjectModel { try PostgresWriteTests.model() }

    /// An observer of characters rated above 3, sorted by name, on `store`; its first update
    /// (the current results) has arrived.
    static func observe(_ store: PostgresStore) throws -> (Updates, FetchResultsObservation) {
        let updates = Updates()
        let request = ObjectFetchRequest(
            entity: "Character", predicate: try ObjectPredicate("rating > 3"),
            sortDescriptors: [ObjectSortDescriptor("name")])
        let observation = try ObjectContext(store: store).observe(request, handler: updates.receive)
        let first = try updates.wait(for: 1)[0]
        #expect(first.change == nil)
        #expect(first.results.map { $0["id"]?.integerValue } == [1])
        return (updates, observation)
    }

    /// With a poll interval of an hour, only the notification can wake the observer: a
    /// commit through another store object (another connection) is delivered, with its
    /// change set.
    @Test func anotherConnectionsCommitIsDeliveredThroughNotify() throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        let location = try #require(test.location)
        _ = try ObjectContext(store: test.store).importObjects(from: [["id": 1, "name": "Batman", "rating": 5.0]], entity: "Character")
        let observed = try PostgresStore(
            connection: location, model: try Self.model(),
            configuration: .init(isReadOnly: true, observationPollInterval: 3600))
        let (updates, observation) = try Self.observe(observed)
        defer { observation.cancel() }
        try Self.eventually("LISTEN on the watcher's connection") { observed.observers.isListening }

        let writer = try PostgresStore(connection: location, model: try Self.model())
        #expect(writer.notifiesCommits)
        _ = try ObjectContext(store: writer).importObjects(from: [["id": 2, "name": "Aquaman", "rating": 4.0]], entity: "Character")
        let update = try updates.wait(for: 2)[1]
        #expect(update.results.map { $0["id"]?.integerValue } == [2, 1])
        #expect(update.change?.inserted.map(\.index) == [0])
        #expect(update.change?.deleted == [])
        #expect(try test.rows(#"SELECT count(*) FROM "trellis_commits""#) == [["2"]])
    }

    /// A writer that sends no notification (as if it were lost): the poll finds its commits,
    /// and they are delivered in order; a commit that changes nothing the request sees
    /// delivers nothing.
    @Test func aCommitWithoutNotificationIsDeliveredByThePoll() throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        let location = try #require(test.location)
        _ = try ObjectContext(store: test.store).importObjects(from: [["id": 1, "name": "Batman", "rating": 5.0]], entity: "Character")
        let observed = try PostgresStore(
            connection: location, model: try Self.model(),
            configuration: .init(isReadOnly: true, observationPollInterval: 0.2))
        let (updates, observation) = try Self.observe(observed)
        defer { observation.cancel() }

        var silent = PostgresStore.Configuration()
        silent.notifiesCommits = false
        let writer = try PostgresStore(connection: location, model: try Self.model(), configuration: silent)
        #expect(!writer.notifiesCommits)
        let context = ObjectContext(store: writer)
        _ = try context.importObjects(from: [["id": 2, "name": "Aquaman", "rating": 4.0]], entity: "Character")
        #expect(try updates.wait(for: 2)[1].results.map { $0["id"]?.integerValue } == [2, 1])
        _ = try context.importObjects(from: [["id": 3, "name": "Robin", "rating": 1.0]], entity: "Character")
        _ = try context.importObjects(from: [["id": 1, "rating": 2.0]], entity: "Character")
        let received = try updates.wait(for: 3)
        #expect(received[2].results.map { $0["id"]?.integerValue } == [2])
        #expect(received[2].change?.deleted.map(\.index) == [1])
        #expect(received[2].sequence > received[1].sequence)
        #expect(try test.rows(#"SELECT count(*) FROM "trellis_commits""#) == [["4"]])
    }

    /// A watcher whose connection the server ends connects and listens again: with a poll
    /// interval of an hour, the next commit is delivered by its notification.
    @Test func aWatcherWhoseConnectionIsEndedListensAgain() throws {
        let test = try StoreKind.postgres.makeStore(model: try Self.model())
        let location = try #require(test.location)
        _ = try ObjectContext(store: test.store).importObjects(from: [["id": 1, "name": "Batman", "rating": 5.0]], entity: "Character")
        let observed = try PostgresStore(
            connection: location, model: try Self.model(),
            configuration: .init(isReadOnly: true, observationPollInterval: 3600))
        let (updates, observation) = try Self.observe(observed)
        defer { observation.cancel() }
        try Self.eventually("LISTEN on the watcher's connection") { observed.observers.isListening }
        let name = "trellis watcher " + PostgresStore.notificationChannel(schema: observed.schema)
        let backend = "SELECT pid FROM pg_stat_activity WHERE application_name = '\(name)'"
        let first = try PostgresTestServer.execute(backend)
        #expect(first.count == 1)
        let pid = try #require(first.first?.first ?? nil)
        #expect(try PostgresTestServer.execute("SELECT pg_terminate_backend(\(pid))") == [["t"]])
        // A new backend, and LISTEN sent on it (the watcher says it is not listening from the
        // moment it reconnects until its LISTEN succeeded).
        try Self.eventually("a new watcher connection that listens") {
            guard let now = try? PostgresTestServer.execute(backend), now.count == 1, now[0][0] != pid else { return false }
            return observed.observers.isListening
        }
        _ = try ObjectContext(store: test.store).importObjects(from: [["id": 2, "name": "Aquaman", "rating": 4.0]], entity: "Character")
        #expect(try updates.wait(for: 2)[1].results.map { $0["id"]?.integerValue } == [2, 1])
    }
}
