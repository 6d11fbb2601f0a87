import Foundation
import Trellis
import TrellisSQLite

/// `trellis-bench store [N] [path]`: the store half of the issue's import benchmark, without
/// JSON. Generates N characters shaped like `gen_characters.py` (string ids, 2–4 powers from
/// 200, a publisher from 50, millisecond dates, rating, active) and runs what the importer
/// asks of a store:
///
/// 1. `insert`: in one write session, batched identity fetches of all publishers, powers and
///    characters (none found), then one `apply` inserting everything.
/// 2. `unchanged`: in one write session, the same fetches (all found), a comparison with the
///    generated values, and an empty `apply` (nothing changed, nothing written).
/// 3. `update`: as 2, with every 10th character renamed (changed column only).
///
/// Prints seconds per pass and the peak RSS. Run with `-c release`.
enum StoreBench {
    struct Character {
        var id: String, name: String, realName: String
        var powers: [Int], publisher: Int
        var createdAt: Date, rating: Double, active: Bool
    }

    static func run(arguments: [String]) throws {
        if arguments.first == "--import" {
            try runImport(
                file: arguments.count > 1 ? arguments[1] : "/tmp/characters.json",
                path: arguments.count > 2 ? arguments[2] : NSTemporaryDirectory() + "trellis-import-bench.sqlite")
            return
        }
        let count = arguments.first.flatMap { Int($0) } ?? 100_000
        let path = arguments.count > 1 ? arguments[1] : NSTemporaryDirectory() + "trellis-store-bench.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let model = try benchModel()
        let (characters, powers, publishers) = generate(count)
        let store = try SQLiteStore(path: path, model: model)
        print("store bench: \(count) characters, \(powers.count) powers, \(publishers.count) publishers, sqlite file \(path)")

        var seconds = try time { try importPass(store: store, characters: characters, powers: powers, publishers: publishers) }
        print(String(format: "RESULT pass=insert seconds=%.3f", seconds))
        seconds = try time { try importPass(store: store, characters: characters, powers: powers, publishers: publishers) }
        print(String(format: "RESULT pass=unchanged seconds=%.3f", seconds))
        var renamed = characters
        for i in stride(from: 0, to: renamed.count, by: 10) { renamed[i].name += " II" }
        seconds = try time { try importPass(store: store, characters: renamed, powers: powers, publishers: publishers) }
        print(String(format: "RESULT pass=update seconds=%.3f", seconds))
        var usage = rusage()
        getrusage(rusageSelf, &usage)
        print("RESULT peak_rss_mb=\(usage.ru_maxrss / 1024)")
    }

    /// `store --import FILE [path]`: the issue's benchmark end to end — parse FILE (from
    /// `gen_characters.py`) with `JSONReader` and import it through `ObjectContext` into a
    /// fresh SQLite store, then parse and import it again (unchanged). CPU and wall seconds per pass.
    static func runImport(file: String, path: String) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let store = MeasuringStore(try SQLiteStore(path: path, model: try EngineWorkload.model()))
        let context = ObjectContext(store: store)
        var options = ImportOptions()
        options.reportsObjectIDs = false
        for pass in ["import", "reimport"] {
            let wall = DispatchTime.now().uptimeNanoseconds
            let cpu = cpuSeconds()
            let json = try JSONReader.parse(bytes)
            let parsed = cpuSeconds()
            let report = try context.importObjects(from: json, entity: "Character", options: options)
            print(
                String(
                    format: "RESULT pass=%@ cpu_seconds=%.3f (parse %.3f) wall_seconds=%.3f", pass, cpuSeconds() - cpu, parsed - cpu,
                    Double(DispatchTime.now().uptimeNanoseconds - wall) / 1e9))
            print("  Character \(report.counts(for: "Character")); Power \(report.counts(for: "Power"))")
            print(
                String(
                    format: "  in the store: fetch %.3f s CPU, apply %.3f s CPU, commit %.3f s CPU", store.fetchSeconds, store.applySeconds,
                    store.commitSeconds))
            store.reset()
        }
        var usage = rusage()
        getrusage(rusageSelf, &usage)
        print("RESULT peak_rss_mb=\(usage.ru_maxrss / 1024)")
    }

    /// Wall seconds of `body`; also prints the process CPU seconds (user + system), which
    /// stay meaningful on a loaded machine.
    static func time(_ body: () throws -> Int) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = cpuSeconds()
        let written = try body()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print(String(format: "  objects written: %d, cpu_seconds=%.3f", written, cpuSeconds() - cpuStart))
        return seconds
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(rusageSelf, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// One import as the importer runs it; returns the number of inserted + updated objects.
    static func importPass(store: SQLiteStore, characters: [Character], powers: [String], publishers: [String]) throws -> Int {
        try store.write { session in
            var temp: Int64 = 0
            func nextTemp() -> Int64 {
                temp -= 1
                return temp
            }
            var changes = ChangeSet()
            // Publishers and powers: id "1"... with names.
            func upsertPool(_ entity: String, _ names: [String]) throws -> [ObjectID] {
                let ids = names.indices.map { [AttributeValue.string(String($0 + 1))] }
                var found: [String: ObjectSnapshot] = [:]
                for snapshot in try session.fetch(entity: entity, identities: ids) {
                    if case .string(let id)? = snapshot.attributes[0] { found[id] = snapshot }
                }
                var result: [ObjectID] = []
                for (i, name) in names.enumerated() {
                    let id = String(i + 1)
                    let relationships: [[ObjectID]] = entity == "Publisher" ? [[]] : []
                    if let stored = found[id] {
                        result.append(stored.id)
                        if stored.attributes[1] != .string(name) {
                            changes.updated.append(ObjectChange(id: stored.id, attributes: [AttributeChange(index: 1, value: .string(name))]))
                        }
                    } else {
                        let objectID = ObjectID(entityName: entity, primaryKey: nextTemp())
                        changes.inserted.append(
                            ObjectSnapshot(
                                id: objectID, isPlaceholder: false,
                                attributes: [.string(id), .string(name)], relationships: relationships))
                        result.append(objectID)
                    }
                }
                return result
            }
            let publisherIDs = try upsertPool("Publisher", publishers)
            let powerIDs = try upsertPool("Power", powers)
            var found: [String: ObjectSnapshot] = [:]
            found.reserveCapacity(characters.count)
            let t0 = cpuSeconds()
            let fetched = try session.fetch(entity: "Character", identities: characters.map { [.string($0.id)] })
            let t1 = cpuSeconds()
            print(String(format: "  fetch characters: %.3f cpu s (%d found)", t1 - t0, fetched.count))
            for snapshot in fetched {
                if case .string(let id)? = snapshot.attributes[0] { found[id] = snapshot }
            }
            for character in characters {
                let attributes: [AttributeValue?] = [
                    .string(character.id), .string(character.name), .string(character.realName),
                    .date(character.createdAt), .double(character.rating), .bool(character.active),
                ]
                let powerList = character.powers.map { powerIDs[$0] }.sorted()
                let publisher = [publisherIDs[character.publisher]]
                if let stored = found[character.id] {
                    var change = ObjectChange(id: stored.id)
                    for i in attributes.indices where stored.attributes[i] != attributes[i] {
                        change.attributes.append(AttributeChange(index: i, value: attributes[i]))
                    }
                    if stored.relationships[0] != powerList { change.relationships.append(RelationshipChange(index: 0, destinations: powerList)) }
                    if stored.relationships[1] != publisher { change.relationships.append(RelationshipChange(index: 1, destinations: publisher)) }
                    if !change.attributes.isEmpty || !change.relationships.isEmpty { changes.updated.append(change) }
                } else {
                    changes.inserted.append(
                        ObjectSnapshot(
                            id: ObjectID(entityName: "Character", primaryKey: nextTemp()),
                            isPlaceholder: false, attributes: attributes,
                            relationships: [powerList, publisher]))
                }
            }
            let t2 = cpuSeconds()
            print(String(format: "  compare: %.3f cpu s", t2 - t1))
            _ = try session.apply(changes)
            print(String(format: "  apply: %.3f cpu s", cpuSeconds() - t2))
            return changes.inserted.count + changes.updated.count
        }
    }

    static func benchModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Character",
                attributes: [
                    AttributeDescription(name: "id", type: .string, isOptional: false),
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "realName", type: .string),
                    AttributeDescription(name: "createdAt", type: .date),
                    AttributeDescription(name: "rating", type: .double),
                    AttributeDescription(name: "active", type: .boolean),
                ],
                relationships: [
                    RelationshipDescription(name: "powers", destinationEntity: "Power", isToMany: true),
                    RelationshipDescription(name: "publisher", destinationEntity: "Publisher", inverseName: "characters"),
                ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Power",
                attributes: [
                    AttributeDescription(name: "id", type: .string, isOptional: false),
                    AttributeDescription(name: "name", type: .string),
                ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Publisher",
                attributes: [
                    AttributeDescription(name: "id", type: .string, isOptional: false),
                    AttributeDescription(name: "name", type: .string),
                ],
                relationships: [
                    RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "publisher", isToMany: true)
                ], userInfo: ["identityAttributes": "id"]),
        ])
    }

    /// Deterministic data shaped like `gen_characters.py` (a 64-bit LCG, not Python's RNG).
    static func generate(_ count: Int) -> ([Character], [String], [String]) {
        var state: UInt64 = 42
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let syllables = ["ka", "ro", "vin", "tor", "ul", "bat", "man", "mira", "zed", "lo", "an", "thra", "kor", "el", "ix"]
        let first = ["Bruce", "Clark", "Diana", "Peter", "Tony", "Natasha", "Wade", "Jean", "Scott", "Ororo"]
        let last = ["Wayne", "Kent", "Prince", "Parker", "Stark", "Romanoff", "Wilson", "Grey", "Summers", "Munroe"]
        let powers = (0..<200).map { "Power \($0 + 1)" }
        let publishers = (0..<50).map { "Publisher \($0 + 1)" }
        let epoch: Int64 = 1_199_145_600_000  // 2008-01-01 in ms
        var characters: [Character] = []
        characters.reserveCapacity(count)
        for i in 0..<count {
            var powerSet: [Int] = []
            let k = 2 + next(3)
            while powerSet.count < k {
                let p = next(200)
                if !powerSet.contains(p) { powerSet.append(p) }
            }
            let name = (0..<(2 + next(3))).map { _ in syllables[next(syllables.count)] }.joined().capitalized
            let ms = epoch + Int64(next(16 * 365 * 24 * 3600)) * 1000 + Int64(next(1000))
            characters.append(
                Character(
                    id: String(1000 + i), name: name,
                    realName: "\(first[next(first.count)]) \(last[next(last.count)])",
                    powers: powerSet, publisher: next(50),
                    createdAt: Date(timeIntervalSince1970: Double(ms) / 1000),
                    rating: Double(next(51)) / 10, active: next(10) < 8))
        }
        return (characters, powers, publishers)
    }
}

#if os(Linux)
    private let rusageSelf = RUSAGE_SELF.rawValue
#else
    private let rusageSelf = RUSAGE_SELF
#endif

/// Wraps a store and adds up the CPU seconds its sessions spend in fetches, applies and commits.
final class MeasuringStore: PersistentStore, @unchecked Sendable {
    // SAFETY: the counters are only touched from the thread running the benchmark.
    let inner: SQLiteStore
    var fetchSeconds = 0.0, applySeconds = 0.0, commitSeconds = 0.0
    var model: ObjectModel { inner.model }

    init(_ inner: SQLiteStore) { self.inner = inner }

    func reset() {
        fetchSeconds = 0
        applySeconds = 0
        commitSeconds = 0
    }

    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try inner.read { try body(MeasuringSession(inner: $0, store: self)) }
    }

    func write<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        var end = 0.0
        let result = try inner.write { session -> T in
            let result = try body(MeasuringSession(inner: session, store: self))
            end = StoreBench.cpuSeconds()
            return result
        }
        commitSeconds += StoreBench.cpuSeconds() - end
        return result
    }
}

final class MeasuringSession: StoreSession {
    let inner: any StoreSession
    let store: MeasuringStore
    var model: ObjectModel { inner.model }
    var origin: ChangeOrigin {
        get { inner.origin }
        set { inner.origin = newValue }
    }
    var pushRules: PushRules {
        get { inner.pushRules }
        set { inner.pushRules = newValue }
    }
    func outboxEntries() throws -> [OutboxEntry] { try inner.outboxEntries() }

    init(inner: any StoreSession, store: MeasuringStore) {
        self.inner = inner
        self.store = store
    }

    private func fetching<T>(_ body: () throws -> T) rethrows -> T {
        let start = StoreBench.cpuSeconds()
        defer { store.fetchSeconds += StoreBench.cpuSeconds() - start }
        return try body()
    }

    func fetch(entity: String, identities: [[AttributeValue]]) throws -> [ObjectSnapshot] {
        try fetching { try inner.fetch(entity: entity, identities: identities) }
    }
    func fetch(entity: String, matching predicate: StorePredicate?) throws -> [ObjectSnapshot] {
        try fetching { try inner.fetch(entity: entity, matching: predicate) }
    }
    func fetch(ids: [ObjectID]) throws -> [ObjectSnapshot] { try fetching { try inner.fetch(ids: ids) } }
    func count(entity: String, matching predicate: StorePredicate?) throws -> Int {
        try fetching { try inner.count(entity: entity, matching: predicate) }
    }
    func apply(_ changes: ChangeSet) throws -> [ObjectID: ObjectID] {
        let start = StoreBench.cpuSeconds()
        defer { store.applySeconds += StoreBench.cpuSeconds() - start }
        return try inner.apply(changes)
    }
}
