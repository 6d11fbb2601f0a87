import Foundation
import Trellis
import TrellisPostgres
import TrellisSQLite

/// The stores every store and import contract test runs on.
///
/// A test that should hold on every store takes its store from here:
///
///     @Test(arguments: StoreKind.allCases)
///     func nullClearsAToOne(kind: StoreKind) throws {
///         let store = try kind.makeStore(model: model)
///         let context = ObjectContext(store: store.store)
///         …
///     }
///
/// A new store is one more case here; every parameterized test then runs on it. The
/// PostgreSQL store runs on the server ``PostgresTestServer`` finds or starts (each test
/// store in a schema of its own); without one its tests fail saying how to start one, and
/// only `TRELLIS_SKIP_POSTGRES=1` leaves `.postgres` out of ``allCases``.
public enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case inMemory
    case sqlite
    case postgres

    public var description: String { rawValue }

    /// Every store the contract tests run on (without `.postgres` when `TRELLIS_SKIP_POSTGRES=1`).
    public static var allCases: [StoreKind] {
        PostgresTestServer.isEnabled ? [.inMemory, .sqlite, .postgres] : [.inMemory, .sqlite]
    }

    /// The stores that keep data outside the process (SQLite, PostgreSQL), for tests that
    /// reopen a store or run the `trellis` binary on it.
    public static var persistent: [StoreKind] { allCases.filter { $0 != .inMemory } }

    /// A fresh, empty store of this kind for `model`; its files (if any) are removed when
    /// the returned ``TestStore`` is released.
    public func makeStore(model: ObjectModel) throws -> TestStore {
        switch self {
        case .inMemory:
            return TestStore(kind: self, store: InMemoryStore(model: model), directory: nil)
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("trellis-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("store.sqlite").path
            return TestStore(kind: self, store: try SQLiteStore(path: path, model: model), directory: directory, location: path)
        case .postgres:
            let schema = PostgresTestServer.makeSchemaName()
            let location = try PostgresTestServer.connectionString(schema: schema)
            do {
                let store = try PostgresStore(connection: location, model: model)
                return TestStore(kind: self, store: store, directory: nil, location: location, cleanup: { PostgresTestServer.dropSchema(schema) })
            } catch {
                PostgresTestServer.dropSchema(schema)
                throw error
            }
        }
    }

    /// Opens the store at `location` (a ``TestStore/location``) again, as a second store
    /// object (another connection) for `model`.
    public func reopen(_ location: String, model: ObjectModel) throws -> any PersistentStore {
        switch self {
        case .inMemory: throw StoreError(.notAStore, message: "an in-memory store cannot be opened again")
        case .sqlite: return try SQLiteStore(path: location, model: model)
        case .postgres: return try PostgresStore(connection: location, model: model)
        }
    }
}

/// A store made for one test, with what it takes to inspect it.
public final class TestStore: @unchecked Sendable {
    // SAFETY: every property is immutable after init; the store is itself Sendable.
    public let kind: StoreKind
    public let store: any PersistentStore
    /// The temporary directory holding the store's files (nil for the in-memory and PostgreSQL stores).
    public let directory: URL?
    /// Where the store is, as `trellis --store` takes it: the SQLite file's path, or the
    /// PostgreSQL connection URI with its `schema` (nil for the in-memory store).
    public let location: String?
    private let cleanup: (@Sendable () -> Void)?

    init(
        kind: StoreKind, store: any PersistentStore, directory: URL?, location: String? = nil,
        cleanup: (@Sendable () -> Void)? = nil
    ) {
        self.kind = kind
        self.store = store
        self.directory = directory
        self.location = location
        self.cleanup = cleanup
    }

    deinit {
        if let directory { try? FileManager.default.removeItem(at: directory) }
        cleanup?()
    }

    /// Every stored object as text, one line per object in entity then object ID order:
    /// `Cat/1 {id: 1, name: "Tom"} owner=[Owner/1]` (placeholders marked). Two dumps are
    /// equal exactly when the stored graph is, so "the store is unchanged" is
    /// `dump()` before == `dump()` after, on every kind of store.
    public func dump() throws -> String {
        try store.read { session in
            var lines: [String] = []
            for entity in session.model.resolvedEntities {  // abstract too: placeholders of an abstract entity
                let snapshots = try session.fetch(entity: entity.name, matching: nil)
                    .filter { $0.id.entityName == entity.name }
                    .sorted { $0.id < $1.id }
                for snapshot in snapshots {
                    lines.append(TestStore.line(snapshot, entity: entity))
                }
            }
            return lines.joined(separator: "\n")
        }
    }

    /// Runs `sql` on the store's database and returns the rows, every column as text (nil for
    /// NULL): SQL that both SQLite and PostgreSQL read alike (quoted names, no engine
    /// functions), so one assertion holds for both. PostgreSQL runs it in the store's schema
    /// and reads booleans as `1`/`0`, as SQLite stores them.
    /// - Throws: for the in-memory store, which has no SQL.
    public func rows(_ sql: String) throws -> [[String?]] {
        switch store {
        case let sqlite as SQLiteStore: return try sqlite.textRows(sql)
        case let postgres as PostgresStore: return try postgres.rows(sql)
        default: throw StoreError(.engine, message: "the \(kind) store has no SQL")
        }
    }

    /// The number of stored objects of every entity.
    public func objectCount() throws -> Int { try store.countObjects() }

    /// The stored objects of exactly `entity` (not its sub-entities), by object ID.
    public func snapshots(of entity: String) throws -> [ObjectSnapshot] {
        try store.read { session in
            try session.fetch(entity: entity, matching: nil)
                .filter { $0.id.entityName == entity }
                .sorted { $0.id < $1.id }
        }
    }

    static func line(_ snapshot: ObjectSnapshot, entity: ResolvedEntity) -> String {
        let attributes = zip(entity.attributes, snapshot.attributes).map { attribute, value in
            "\(attribute.name): \(value.map { "\($0)" } ?? "nil")"
        }.joined(separator: ", ")
        let relationships = zip(entity.relationships, snapshot.relationships).map { relationship, ids in
            "\(relationship.name)=[\(ids.map(\.description).joined(separator: ", "))]"
        }.joined(separator: " ")
        return "\(snapshot.id)\(snapshot.isPlaceholder ? " (placeholder)" : "") {\(attributes)} \(relationships)"
    }
}

extension PersistentStore {
    /// The number of stored objects of every entity (one count per inheritance hierarchy).
    public func countObjects() throws -> Int {
        try read { session in
            try session.model.entities.filter { $0.parentName == nil }.reduce(0) {
                $0 + (try session.count(entity: $1.name, matching: nil))
            }
        }
    }
}

/// Test stores a test made, kept until it ends (their schemas and files go with them), for
/// suites whose tests make stores of the kind they run on:
///
///     @Test(arguments: StoreKind.allCases)
///     func x(kind: StoreKind) throws {
///         let context = ObjectContext(store: try stores.make(kind, model: model))
///
public final class TestStores: @unchecked Sendable {
    // SAFETY: `stores` is only touched while `lock` is held.
    private let lock = NSLock()
    private var stores: [TestStore] = []

    public init() {}

    /// A fresh store of `kind` for `model`, kept as long as this object.
    public func make(_ kind: StoreKind, model: ObjectModel) throws -> any PersistentStore {
        let test = try kind.makeStore(model: model)
        lock.withLock { stores.append(test) }
        return test.store
    }
}
