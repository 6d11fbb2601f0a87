import Foundation
import Testing
import Trellis
import TrellisPostgres
import TrellisTestSupport

@testable import TrellisSQLite

/// Several contexts, each over its own store object on one SQLite file or one PostgreSQL
/// schema, used from several threads at once (issue 7, concurrent writers and readers, in
/// one process).
@Suite struct ConcurrentContextsTests {
    /// Records (identity `id`, a `version`) each linked to one of ten categories, which carry
    /// the version of the import that wrote them last.
    static func recordsModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Record",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64, userInfo: ["JSONKeyPath": "id"]),
                    AttributeDescription(name: "version", type: .string, userInfo: ["JSONKeyPath": "version"]),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "category", destinationEntity: "Category", inverseName: "records",
                        userInfo: ["JSONKeyPath": "category"])
                ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Category",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64, userInfo: ["JSONKeyPath": "id"]),
                    AttributeDescription(name: "version", type: .string, userInfo: ["JSONKeyPath": "version"]),
                ],
                relationships: [
                    RelationshipDescription(name: "records", destinationEntity: "Record", inverseName: "category", isToMany: true)
                ], userInfo: ["identityAttributes": "id"]),
        ])
    }

    /// `[{"id": 6000, "version": "b", "category": {"id": 0, "version": "b"}}, …]`.
    static func payload(_ ids: Range<Int>, version: String) -> JSONValue {
        .array(
            ids.map { id in
                ["id": JSONValue(id), "version": .string(version), "category": ["id": JSONValue(id % 10), "version": .string(version)]]
            })
    }

    /// Waits up to two minutes for another connection's write lock (an import holds it for
    /// its whole transaction), so the test does not depend on how fast the machine is.
    static let configuration = SQLiteStore.Configuration(busyTimeoutMilliseconds: 120_000)

    /// Another store object (its own connection) on the store at `location`.
    static func open(_ kind: StoreKind, _ location: String, _ model: ObjectModel) throws -> any PersistentStore {
        kind == .sqlite ? try SQLiteStore(path: location, model: model, configuration: configuration) : try kind.reopen(location, model: model)
    }

    /// What a committed state looks like from one read: the record count, the versions in
    /// A's own ids (0..<6000), the ids both write (6000..<12000), B's own ids (12000..<18000),
    /// and the categories reached from the records; `-` for none, several versions joined by `+`.
    static func signature(of records: [ManagedObject]) throws -> String {
        var versions = Array(repeating: Set<String>(), count: 4)
        for record in records {
            guard case .integer(let id)? = record["id"], case .string(let version)? = record["version"] else {
                return "a record without id or version"
            }
            versions[id < 6_000 ? 0 : id < 12_000 ? 1 : 2].insert(version)
            if case .string(let categoryVersion)? = try record.destination(forKey: "category")?["version"] {
                versions[3].insert(categoryVersion)
            } else {
                versions[3].insert("no category")
            }
        }
        let parts = zip(["A", "O", "B", "C"], versions).map { name, set in
            "\(name):" + (set.isEmpty ? "-" : set.sorted().joined(separator: "+"))
        }
        return "\(records.count) " + parts.joined(separator: " ")
    }

    /// The text of a string value; `nil` or the value's kind otherwise.
    static func text(_ value: AttributeValue?) -> String {
        guard let value else { return "nil" }
        guard case .string(let text) = value else { return "not a string: \(value)" }
        return text
    }

    /// Two threads, each with its own store and context, import overlapping payloads at the
    /// same time (A: ids 0..<12000 at `a`, B: 6000..<18000 at `b`), while a third thread reads
    /// again and again. Both imports succeed (the second waits for the first's write lock);
    /// each record is stored once; A's and B's own records keep their versions; the shared
    /// ones hold the version of whichever committed last; and every read saw one of the five
    /// committed states (empty, after A, after B, after A then B, after B then A).
    @Test(arguments: StoreKind.persistent)
    func twoContextsImportOverlappingPayloadsWhileAThirdReads(kind: StoreKind) throws {
        let model = try Self.recordsModel()
        let test = try kind.makeStore(model: model)  // the schema, created once
        let path = try #require(test.location)

        let results = Results()
        let writersDone = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for (name, ids, version) in [("A", 0..<12_000, "a"), ("B", 6_000..<18_000, "b")] {
            writersDone.enter()
            Thread {
                defer { writersDone.leave() }
                start.wait()
                do {
                    let store = try Self.open(kind, path, model)
                    let context = ObjectContext(store: store)
                    let report = try context.importObjects(from: Self.payload(ids, version: version), entity: "Record")
                    results.set(name, "Record \(report.counts(for: "Record")); Category \(report.counts(for: "Category"))")
                } catch {
                    results.set(name, "error: \(error)")
                }
            }.start()
        }
        let readerDone = DispatchSemaphore(value: 0)
        Thread {
            defer { readerDone.signal() }
            do {
                let store = try Self.open(kind, path, model)
                var finished = false
                while !finished {
                    finished = writersDone.wait(timeout: .now()) == .success
                    let context = ObjectContext(store: store)  // fresh: nothing registered from an earlier state
                    let state = try context.read { try Self.signature(of: context.fetch("Record")) }
                    results.read(state)
                }
            } catch {
                results.read("error: \(error)")
            }
        }.start()
        start.signal()
        start.signal()
        writersDone.wait()
        readerDone.wait()

        let store = test
        #expect(
            try store.rows(#"SELECT count(*), count(DISTINCT "id"), min("id"), max("id") FROM "Record""#)
                == [["18000", "18000", "0", "17999"]])
        #expect(try store.rows(#"SELECT "version", count(*) FROM "Record" WHERE "id" < 6000 GROUP BY 1"#) == [["a", "6000"]])
        #expect(try store.rows(#"SELECT "version", count(*) FROM "Record" WHERE "id" >= 12000 GROUP BY 1"#) == [["b", "6000"]])
        let shared = try store.rows(#"SELECT "version", count(*) FROM "Record" WHERE "id" BETWEEN 6000 AND 11999 GROUP BY 1"#)
        #expect(shared == [["a", "6000"]] || shared == [["b", "6000"]], "\(shared)")
        let last = shared.first?.first.flatMap { $0 } ?? "?"
        #expect(try store.rows(#"SELECT "version", count(*) FROM "Category" GROUP BY 1"#) == [[last, "10"]])
        #expect(
            try store.rows(
                #"""
                SELECT count(*) FROM "Record" AS r JOIN "Category" AS c ON c."_pk" = r."category" WHERE c."id" = r."id" % 10
                """#) == [["18000"]])

        // Each import found exactly what the other had committed before it.
        let first = "Record inserted 12000, updated 0, unchanged 0, deleted 0; Category inserted 10, updated 0, unchanged 0, deleted 0"
        let second = "Record inserted 6000, updated 6000, unchanged 0, deleted 0; Category inserted 0, updated 10, unchanged 0, deleted 0"
        let reports = results.reports
        #expect(reports == (last == "b" ? ["A": first, "B": second] : ["A": second, "B": first]))

        let allowed: Set<String> = [
            "0 A:- O:- B:- C:-",
            "12000 A:a O:a B:- C:a",
            "12000 A:- O:b B:b C:b",
            "18000 A:a O:b B:b C:b",
            "18000 A:a O:a B:b C:a",
        ]
        let reads = results.reads
        #expect(!reads.isEmpty)
        for state in Set(reads) {
            #expect(allowed.contains(state), "a read saw a state no commit produced: \(state)")
        }
        #expect(reads.last == (last == "b" ? "18000 A:a O:b B:b C:b" : "18000 A:a O:a B:b C:a"))
    }

    /// Inside `ObjectContext.read`, objects fetched before and faulted after another
    /// connection commits all come from the state the read began with; the export of a
    /// record with its nested category cannot mix two imports.
    @Test(arguments: StoreKind.persistent)
    func readSeesOneCommittedStateAcrossFetchesAndFaults(kind: StoreKind) throws {
        let model = try Self.recordsModel()
        let test = try kind.makeStore(model: model)
        let path = try #require(test.location)
        let writer = ObjectContext(store: try Self.open(kind, path, model))
        _ = try writer.importObjects(from: Self.payload(0..<100, version: "v1"), entity: "Record")
        let readerStore = try Self.open(kind, path, model)
        let reader = ObjectContext(store: readerStore)
        var exportOptions = ExportOptions()
        exportOptions.relationshipStyle = .nested

        let (states, exported) = try reader.read { () throws -> ([String], JSONValue) in
            let records = try reader.fetch("Record")
            // Another connection commits a new version of every record and category.
            let report = try writer.importObjects(from: Self.payload(0..<100, version: "v2"), entity: "Record")
            #expect(report.counts(for: "Record") == ImportReport.Counts(updated: 100))
            // Categories are faulted only now, after that commit.
            let states = try records.map { record in
                "\(Self.text(record["version"])) \(Self.text(try record.destination(forKey: "category")?["version"]))"
            }
            return (states, try ObjectExporter(context: reader, options: exportOptions).json(for: records[0]))
        }
        #expect(states.count == 100)
        #expect(Set(states) == ["v1 v1"])
        #expect(exported["version"] == "v1")
        #expect(exported["category"]?["version"] == "v1")

        // A new read (in a fresh context) sees the new state.
        let later = ObjectContext(store: readerStore)
        let after = try later.read { try Self.signature(of: later.fetch("Record")) }
        #expect(after == "100 A:v2 O:- B:- C:v2")
    }

    /// A context that holds objects it read before another context changed them still
    /// applies its import wholly: the import compares its payload with the stored rows, not
    /// with what the context read earlier. (It compared with the stale objects: record 1
    /// came out "unchanged" and kept the other import's version and category, so the store
    /// held records of both imports.)
    @Test(arguments: StoreKind.persistent)
    func importRereadsObjectsTheContextReadBeforeAnotherCommit(kind: StoreKind) throws {
        let model = try Self.recordsModel()
        let test = try kind.makeStore(model: model)
        let path = try #require(test.location)
        let mine = ObjectContext(store: try Self.open(kind, path, model))
        let other = ObjectContext(store: try Self.open(kind, path, model))
        _ = try mine.importObjects(from: Self.payload(0..<3, version: "a"), entity: "Record")
        let held = try #require(try mine.fetch("Record", id: .integer(1)))
        #expect(try held.destination(forKey: "category")?["id"] == .integer(1))
        _ = try other.importObjects(
            from: [
                ["id": 1, "version": "b", "category": ["id": 5, "version": "b"]],
                ["id": 2, "version": "b", "category": ["id": 2, "version": "b"]],
            ], entity: "Record")

        let report = try mine.importObjects(from: Self.payload(0..<3, version: "a"), entity: "Record")
        #expect(report.counts(for: "Record") == ImportReport.Counts(updated: 2, unchanged: 1))
        #expect(report.counts(for: "Category") == ImportReport.Counts(updated: 1, unchanged: 2))
        let store = test
        #expect(
            try store.rows(
                #"""
                SELECT r."id", r."version", c."id", c."version" FROM "Record" AS r JOIN "Category" AS c ON c."_pk" = r."category"
                ORDER BY r."id"
                """#) == [["0", "a", "0", "a"], ["1", "a", "1", "a"], ["2", "a", "2", "a"]])
        #expect(
            try store.rows(#"SELECT "id", "version" FROM "Category" ORDER BY 1"#)
                == [["0", "a"], ["1", "a"], ["2", "a"], ["5", "b"]])
        // The held object was updated in place.
        #expect(held["version"] == .string("a"))
        #expect(try held.destination(forKey: "category")?["id"] == .integer(1))
    }

    /// An object the context holds that another context deleted meanwhile is imported as a
    /// new object. (The import updated the held object in place and failed: "cannot update
    /// Record/2: no such object in the store".)
    @Test(arguments: StoreKind.persistent)
    func importRecreatesAnObjectAnotherContextDeleted(kind: StoreKind) throws {
        let model = try Self.recordsModel()
        let test = try kind.makeStore(model: model)
        let path = try #require(test.location)
        let mine = ObjectContext(store: try Self.open(kind, path, model))
        let other = ObjectContext(store: try Self.open(kind, path, model))
        _ = try mine.importObjects(from: Self.payload(0..<3, version: "a"), entity: "Record")
        _ = try #require(try mine.fetch("Record", id: .integer(1)))
        try other.delete(try #require(try other.fetch("Record", id: .integer(1))))
        try other.save()

        let report = try mine.importObjects(from: Self.payload(0..<3, version: "b"), entity: "Record")
        #expect(report.counts(for: "Record") == ImportReport.Counts(inserted: 1, updated: 2))
        let store = test
        #expect(try store.rows(#"SELECT "id", "version" FROM "Record" ORDER BY 1"#) == [["0", "b"], ["1", "b"], ["2", "b"]])
    }
}

/// Results written by the test's threads.
// SAFETY: every property is read and written only while holding `lock`.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var reportsByName: [String: String] = [:]
    private var readStates: [String] = []

    func set(_ name: String, _ report: String) { lock.withLock { reportsByName[name] = report } }
    func read(_ state: String) { lock.withLock { readStates.append(state) } }
    var reports: [String: String] { lock.withLock { reportsByName } }
    var reads: [String] { lock.withLock { readStates } }
}
