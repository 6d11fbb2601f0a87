import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Collects an observation's updates (callback form) for tests; `wait(for:)` returns as soon
/// as the updates have arrived and gives up only after ``deadline`` (a failure, not a timing
/// assertion: generous, since a loaded machine may take seconds to run the observer).
final class UpdateCollector: @unchecked Sendable {
    // SAFETY: `updates` and `failure` are read and written only while `lock` is held.
    private let lock = NSLock()
    private var updates: [FetchResultsUpdate] = []
    private var failure: (any Error)?

    func receive(_ result: Result<FetchResultsUpdate, any Error>) {
        lock.withLock {
            switch result {
            case .success(let update): updates.append(update)
            case .failure(let error): failure = error
            }
        }
    }

    /// The first `count` updates, once they have arrived.
    func wait(for count: Int) throws -> [FetchResultsUpdate] {
        let end = Date().addingTimeInterval(UpdateCollector.deadline)
        while true {
            let (current, error) = lock.withLock { (updates, failure) }
            if let error { throw error }
            if current.count >= count { return Array(current.prefix(count)) }
            if Date() > end { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw CollectorTimeout(received: lock.withLock { updates.count }, wanted: count)
    }

    /// How long `wait(for:)` waits at most (60 s).
    static let deadline: TimeInterval = 60

    var count: Int { lock.withLock { updates.count } }
}

struct CollectorTimeout: Error, CustomStringConvertible {
    let received: Int
    let wanted: Int
    var description: String { "received \(received) update(s) of \(wanted) within \(Int(UpdateCollector.deadline)) s" }
}

@Suite struct ObservationTests {
    static func ids(_ objects: [FetchedObject]) -> [Int64] { objects.map { $0["id"]?.integerValue ?? -1 } }

    @Test(arguments: StoreKind.allCases)
    func commitsDeliverChangeSetsWithPositions(kind: StoreKind) throws {
        let store = try QueryFixture.store(kind)
        let observing = ObjectContext(store: store.store)
        let collector = UpdateCollector()
        let request = ObjectFetchRequest(
            entity: "Character", predicate: try ObjectPredicate("rating > 3"),
            sortDescriptors: [ObjectSortDescriptor("name")])
        let observation = try observing.observe(request, handler: collector.receive)
        defer { observation.cancel() }
        let first = try collector.wait(for: 1)[0]
        #expect(first.change == nil)
        #expect(Self.ids(first.results) == [1, 8, 3, 2])

        let writer = ObjectContext(store: store.store)
        let payload: JSONValue = [
            ["id": 9, "name": "Aquaman", "rating": 4.0],  // enters at 0
            ["id": 3, "name": "Zed"],  // renamed: moves from 2 to 3
            ["id": 2, "rating": 1.0],  // leaves (was at 3)
            ["id": 7, "rating": 2.0],  // changes, but stays out
        ]
        _ = try writer.importObjects(from: payload, entity: "Character")
        let second = try collector.wait(for: 2)[1]
        #expect(Self.ids(second.results) == [9, 1, 8, 3])
        let id = { (n: Int64) in second.results.first { $0["id"]?.integerValue == n }?.id }
        let change = try #require(second.change)
        #expect(change.inserted == [.init(id: try #require(id(9)), index: 0)])
        #expect(change.updated.map { [$0.oldIndex, $0.index] } == [[2, 3]])
        #expect(change.updated.map(\.id) == [try #require(id(3))])
        #expect(change.updated.map(\.changedAttributes) == [["name"]])
        #expect(change.deleted.map(\.index) == [3])
        #expect(change.deleted.map(\.id) == [try #require(first.results.first { $0["id"]?.integerValue == 2 }?.id)])

        // The same payload again changes nothing: no commit is logged and nothing delivered;
        // the next update is the next real change.
        _ = try writer.importObjects(from: payload, entity: "Character")
        _ = try writer.importObjects(from: [["id": 8, "rating": 0.5]], entity: "Character")
        let third = try collector.wait(for: 3)[2]
        #expect(third.change?.deleted.map(\.index) == [2])
        #expect(third.change?.inserted == [])
        #expect(third.change?.updated == [])
        #expect(Self.ids(third.results) == [9, 1, 3])
        #expect(third.sequence > second.sequence)
    }

    @Test(arguments: StoreKind.allCases)
    func changesThroughKeyPathsRerunTheRequest(kind: StoreKind) throws {
        let store = try QueryFixture.store(kind)
        let collector = UpdateCollector()
        let observation = try ObjectContext(store: store.store).observe(
            ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("publisher.name == 'Marvel'")), handler: collector.receive)
        defer { observation.cancel() }
        #expect(Self.ids(try collector.wait(for: 1)[0].results) == [4, 5, 7])
        _ = try ObjectContext(store: store.store).importObjects(from: [["id": 2, "name": "Marvel Comics"]], entity: "Publisher")
        let update = try collector.wait(for: 2)[1]
        #expect(update.results.isEmpty)
        #expect(update.change?.deleted.map(\.index) == [0, 1, 2])
    }

    @Test(arguments: StoreKind.allCases)
    func limitedRequestsKeepTheirWindow(kind: StoreKind) throws {
        let store = try QueryFixture.store(kind)
        let collector = UpdateCollector()
        let observation = try ObjectContext(store: store.store).observe(
            ObjectFetchRequest(entity: "Character", sortDescriptors: [ObjectSortDescriptor("rating", ascending: false)], limit: 2),
            handler: collector.receive)
        defer { observation.cancel() }
        #expect(Self.ids(try collector.wait(for: 1)[0].results) == [3, 1])
        _ = try ObjectContext(store: store.store).importObjects(from: [["id": 4, "rating": 9.0]], entity: "Character")
        let update = try collector.wait(for: 2)[1]
        #expect(Self.ids(update.results) == [4, 3])
        #expect(update.change?.inserted.map(\.index) == [0])
        #expect(update.change?.deleted.map(\.index) == [1])
        // Character 3 only shifted (4 entered before it): not an update, as without a limit.
        #expect(update.change?.updated.map { [$0.oldIndex, $0.index] } == [])
    }

    @Test(arguments: StoreKind.allCases)
    func asyncSequenceDeliversTheSameUpdates(kind: StoreKind) async throws {
        let store = try QueryFixture.store(kind)
        let sequence = try ObjectContext(store: store.store).observe(
            ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("name BEGINSWITH[c] 'bat'")))
        let writerStore = store.store
        var seen: [[Int64]] = []
        for try await update in sequence {
            seen.append(Self.ids(update.results))
            if seen.count == 1 {
                _ = try await writerStore.importObjects(from: [["id": 10, "name": "BATWOMAN"]], entity: "Character")
            } else {
                break
            }
        }
        #expect(seen == [[1, 2], [1, 2, 10]])
    }

    @Test func backgroundImportAndSendableSnapshotsOnTheMainActor() async throws {
        let store = try QueryFixture.store(.sqlite)
        let report = try await store.store.importObjects(from: [["id": 11, "name": "Aqualad", "rating": 2.5]], entity: "Character")
        #expect(report.counts(for: "Character").inserted == 1)
        let rows = try await store.store.fetch(
            ObjectFetchRequest(
                entity: "Character", predicate: try ObjectPredicate("name BEGINSWITH 'Aqua'"), sortDescriptors: [ObjectSortDescriptor("name")]))
        let names = await MainActor.run { rows.map { $0["name"]?.stringValue ?? "" } }
        #expect(names == ["Aqualad"])
        #expect(try await store.store.count(ObjectFetchRequest(entity: "Character")) == 9)
    }
}
