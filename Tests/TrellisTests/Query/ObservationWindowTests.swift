import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Observed requests with an offset: the window moves when an object before it leaves
/// (deleted, or no longer matching), although no object in the window changed; objects that
/// only shift position are not updates (with or without a limit).
@Suite struct ObservationWindowTests {
    static func ids(_ objects: [FetchedObject]) -> [Int64] { objects.map { $0["id"]?.integerValue ?? -1 } }

    static func observe(_ store: TestStore, _ request: ObjectFetchRequest) throws -> (UpdateCollector, FetchResultsObservation) {
        let collector = UpdateCollector()
        let observation = try ObjectContext(store: store.store).observe(request, handler: collector.receive)
        return (collector, observation)
    }

    @Test(arguments: StoreKind.allCases)
    func deletingAnObjectBeforeTheWindowMovesIt(kind: StoreKind) throws {
        let store = try QueryFixture.store(kind)
        let (collector, observation) = try Self.observe(
            store, ObjectFetchRequest(entity: "Character", sortDescriptors: [ObjectSortDescriptor("id")], limit: 2, offset: 2))
        defer { observation.cancel() }
        let first = try collector.wait(for: 1)[0]
        #expect(Self.ids(first.results) == [3, 4])
        let writer = ObjectContext(store: store.store)
        let doomed = try writer.fetch(ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("id == 1")))
        try writer.delete(try #require(doomed.first))
        try writer.save()
        let second = try collector.wait(for: 2)[1]
        #expect(Self.ids(second.results) == [4, 5])
        #expect(second.change?.deleted.map(\.index) == [0])
        #expect(second.change?.deleted.map(\.id) == [first.results[0].id])
        #expect(second.change?.inserted.map(\.index) == [1])
        #expect(second.change?.updated == [])  // 4 moved from 1 to 0 only because 3 left
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectBeforeTheWindowThatStopsMatchingMovesIt(kind: StoreKind) throws {
        let store = try QueryFixture.store(kind)
        let (collector, observation) = try Self.observe(
            store,
            ObjectFetchRequest(
                entity: "Character", predicate: try ObjectPredicate("active == TRUE"),
                sortDescriptors: [ObjectSortDescriptor("id")], limit: 2, offset: 2))
        defer { observation.cancel() }
        #expect(Self.ids(try collector.wait(for: 1)[0].results) == [3, 6])
        _ = try ObjectContext(store: store.store).importObjects(from: [["id": 1, "active": false]], entity: "Character")
        let second = try collector.wait(for: 2)[1]
        #expect(Self.ids(second.results) == [6, 8])
        #expect(second.change?.deleted.map(\.index) == [0])
        #expect(second.change?.inserted.map(\.index) == [1])
        #expect(second.change?.updated == [])
    }

    /// The same commit gives the same kinds of change with and without a limit that does
    /// not cut the results (the limited request is run again, the unlimited one is not).
    @Test(arguments: StoreKind.allCases)
    func shiftsAreNotUpdatesWithOrWithoutALimit(kind: StoreKind) throws {
        let store = try QueryFixture.store(kind)
        let request = ObjectFetchRequest(
            entity: "Character", predicate: try ObjectPredicate("rating > 3"),
            sortDescriptors: [ObjectSortDescriptor("rating", ascending: false)])
        var limited = request
        limited.limit = 100
        let (unlimitedUpdates, a) = try Self.observe(store, request)
        let (limitedUpdates, b) = try Self.observe(store, limited)
        defer {
            a.cancel()
            b.cancel()
        }
        #expect(Self.ids(try unlimitedUpdates.wait(for: 1)[0].results) == [3, 1, 8, 2])
        #expect(Self.ids(try limitedUpdates.wait(for: 1)[0].results) == [3, 1, 8, 2])
        _ = try ObjectContext(store: store.store).importObjects(
            from: [["id": 4, "rating": 9.0], ["id": 8, "rating": 4.0]],
            entity: "Character")
        let changes = [try unlimitedUpdates.wait(for: 2)[1], try limitedUpdates.wait(for: 2)[1]]
        for update in changes {
            #expect(Self.ids(update.results) == [4, 3, 1, 8, 2])
            #expect(update.change?.inserted.map(\.index) == [0])
            #expect(update.change?.updated.map { [$0.oldIndex, $0.index] } == [[2, 3]])  // 8's rating changed
            #expect(update.change?.deleted == [])
        }
    }
}
