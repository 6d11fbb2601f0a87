import Foundation
import Testing
import Trellis
import TrellisSync
import TrellisTestSupport

/// Issue 23, point 11: a randomized run interleaving local edits, creates and deletes, server
/// mutations (another client's updates, deletes and inserts) and faults (lost answers, 503s,
/// resets) with syncs that may fail, on every store. After the faults stop and the outbox is
/// drained, the store and the server hold the same heroes: no duplicate create, no lost
/// change, no resurrected delete, an empty outbox. Each seed is a fixed sequence of steps
/// (SplitMix64), so a failure replays exactly.
@Suite struct PushRandomizedTests {
    /// SplitMix64 (Steele, Lea, Flood 2014): a small seeded generator whose sequence is the same on every machine.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var kind: StoreKind
        var seed: UInt64
        var testDescription: String { "\(kind) seed \(seed)" }
    }

    static let cases: [Case] = StoreKind.allCases.flatMap { kind in [1, 2, 3].map { Case(kind: kind, seed: $0) } }

    /// The heroes resource deletes by full scan, so another client's deletes reach the store.
    static func source(_ server: TestServer) throws -> SyncSource {
        try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/parse/", "headers": {"X-Parse-Application-Id": "test-app"},
                        "dialect": "parse", "maxAttempts": 3, "timeoutSeconds": 5},
             "resources": [
               {"name": "teams", "entity": "Team", "path": "classes/Team", "incremental": {"cursor": "updatedAt"},
                "push": {"createKey": "requestId"}},
               {"name": "heroes", "entity": "Hero", "path": "classes/Hero", "params": {"limit": 100},
                "deletions": {"type": "fullScan", "maxFraction": 0.9},
                "push": {"createKey": "requestId"}}]}
            """#, server: server)
    }

    /// `objectId → name` of the server's heroes.
    static func remote(_ server: TestServer) throws -> [String: String] {
        var names: [String: String] = [:]
        for record in try server.data("Hero") {
            let id = try #require(record["objectId"]?.stringValue)
            #expect(names[id] == nil, "objectId \(id) twice on the server")
            names[id] = record["name"]?.stringValue ?? "<none>"
        }
        return names
    }

    @Test(arguments: cases)
    func storeAndServerEndEqualAfterInterleavedEditsMutationsAndFaults(_ c: Case) throws {
        let server = try TestServer(["--heroes", "12", "--ties", "0"])
        let clock = RecordingClock()
        let store = try c.kind.makeStore(model: try PushTests.model())
        let synchronizer = Synchronizer(source: try Self.source(server), context: ObjectContext(store: store.store), clock: clock.clock)
        _ = try synchronizer.run()
        var random = SplitMix64(state: c.seed)
        var steps: [String] = []
        var created: Set<String> = []
        let hero = store.store.model.entity(named: "Hero")!
        let objectIdIndex = hero.attributeIndex(of: "objectId")!

        /// The local heroes that the server knows (an objectId), in objectId order.
        func localIDs() throws -> [String] {
            try store.snapshots(of: "Hero").filter { !$0.isPlaceholder }.compactMap { $0.attributes[objectIdIndex]?.stringValue }.sorted()
        }
        func pick(_ ids: [String]) -> String? { ids.isEmpty ? nil : ids[Int(random.next() % UInt64(ids.count))] }

        for step in 0..<40 {
            switch random.next() % 10 {
            case 0, 1, 2:
                guard let id = pick(try localIDs()) else { continue }
                let context = ObjectContext(store: store.store)
                try #require(try context.fetch("Hero", id: .string(id))).setValue(.string("local \(step)"), forKey: "name")
                try context.save()
                steps.append("\(step): local rename \(id)")
            case 3:
                let context = ObjectContext(store: store.store)
                let new = try context.insert("Hero")
                try new.setValue(.string("created \(step)"), forKey: "name")
                try new.setValue(.integer(Int64(step)), forKey: "power")
                try context.save()
                created.insert("created \(step)")
                steps.append("\(step): local create")
            case 4:
                guard let id = pick(try localIDs()) else { continue }
                let context = ObjectContext(store: store.store)
                _ = try context.delete(try #require(try context.fetch("Hero", id: .string(id))))
                try context.save()
                steps.append("\(step): local delete \(id)")
            case 5:
                guard let id = pick(try Self.remote(server).keys.sorted()) else { continue }
                try server.mutate([["op": "update", "class": "Hero", "objectId": .string(id), "set": ["name": .string("server \(step)")]]])
                steps.append("\(step): server rename \(id)")
            case 6:
                guard let id = pick(try Self.remote(server).keys.sorted()) else { continue }
                try server.mutate([["op": "delete", "class": "Hero", "objectId": .string(id)]])
                steps.append("\(step): server delete \(id)")
            case 7:
                try server.mutate([["op": "insert", "class": "Hero", "objectId": .string("s\(step)"), "set": ["name": .string("inserted \(step)")]]])
                steps.append("\(step): server insert s\(step)")
            case 8:
                let faults: [JSONValue] = [
                    ["method": "POST", "match": "/parse/", "drop": true, "times": 1],
                    ["method": "PUT", "match": "/parse/", "drop": true, "times": 1],
                    ["method": "*", "match": "/parse/", "status": 503, "retryAfter": "0", "times": 2],
                    ["method": "*", "match": "/parse/", "reset": true, "times": 1],
                ]
                let fault = faults[Int(random.next() % UInt64(faults.count))]
                try server.faults([fault])
                steps.append("\(step): fault \(try JSONWriter.string(for: fault))")
            default:
                let pushed = Result { try synchronizer.push() }
                let pulled = Result { try synchronizer.run() }
                steps.append("\(step): sync (push \(pushed.isSuccess ? "ok" : "failed"), pull \(pulled.isSuccess ? "ok" : "failed"))")
            }
        }

        try server.faults([])
        for _ in 0..<3 {
            _ = try synchronizer.push()
            _ = try synchronizer.run()
            if try store.store.outbox().isEmpty { break }
        }
        let trail = steps.joined(separator: "\n")
        #expect(try store.store.outbox() == [], "\(trail)")
        var local: [String: String] = [:]
        let nameIndex = hero.attributeIndex(of: "name")!
        for snapshot in try store.snapshots(of: "Hero") where !snapshot.isPlaceholder {
            let id = snapshot.attributes[objectIdIndex]?.stringValue ?? "unsent"
            #expect(local[id] == nil, "\(id) twice in the store\n\(trail)")
            local[id] = snapshot.attributes[nameIndex]?.stringValue ?? "<none>"
        }
        let remote = try Self.remote(server)
        #expect(local == remote, "\(trail)")
        // Every local create reached the server once, unless it was deleted since.
        for name in created { #expect(remote.values.filter { $0 == name }.count <= 1, "\(name)\n\(trail)") }
        #expect(steps.count > 20)
    }
}

extension Result where Failure == any Error {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
