import Foundation
import Trellis

/// Pulls a source's resources into a context's store, page by page: each page's objects
/// and the resource's checkpoint commit in one store transaction (``SyncCheckpoint``), so
/// a run killed at any moment loses nothing and the next run resumes at the first page not
/// committed (it fetches again at most the pages in flight: the one being imported and the
/// next one, which is fetched while the current one is imported).
///
///     let source = try SyncSource(contentsOf: sourceURL, environment: ProcessInfo.processInfo.environment)
///     let context = ObjectContext(store: try SQLiteStore(path: "heroes.sqlite", model: model))
///     let report = try Synchronizer(source: source, context: context).run()
///     report.resource("heroes")?.pagesChanged   // 0 when the server has nothing new
///
/// Incremental resources start after their watermark; Parse resources page by keyset on
/// `(updatedAt, objectId)` (``ParseDialect``); positional walks (offset, page numbers,
/// links) over a changing sort key promote their watermark only at the walk's end and
/// walk again when the pages shifted meanwhile (`docs/Sync.md`, "Walks over a changing
/// sort key"). A walk ends on evidence the API gives (``EndEvidence``), never on a page a
/// server shortened. Deletions happen only where the source file states their scope: a
/// completed full walk (`fullScan`, within its `scope`), or tombstones.
public final class Synchronizer {
    /// The source file.
    public let source: SyncSource
    /// The context the pages are imported through (its store keeps the checkpoints).
    public let context: ObjectContext
    /// The HTTP client (or the replay of staged pages).
    public let client: HTTPClient
    /// What a run does.
    public var options: SyncOptions
    /// The report of the last ``run()`` so far (also after it threw: the resources done
    /// and the one that failed, up to its last committed page).
    public internal(set) var lastReport = SyncReport()

    let clock: ClientClock
    var staged: StagedPages?
    /// The resource this worker holds the lease of while it syncs it (``SyncOptions/worker``).
    var currentLease: String?

    /// A synchronizer fetching over `transport` (URLSession by default).
    /// - Parameter clock: the clock, sleeps and jitter of the HTTP client (tests replace them).
    public init(
        source: SyncSource, context: ObjectContext, options: SyncOptions = SyncOptions(),
        transport: (any HTTPTransport)? = nil, clock: ClientClock = .system
    ) {
        self.source = source
        self.context = context
        self.options = options
        self.clock = clock
        self.client = HTTPClient(
            configuration: source.client, redactor: source.redactor,
            transport: transport ?? URLSessionTransport(), clock: clock)
    }

    /// A synchronizer that imports the pages staged in `directory` (``SyncOptions/stageDirectory``
    /// of an earlier run) instead of fetching: each resource's pages in the order they were
    /// fetched, through the same decoding, paging and checkpoints; nothing goes to the network.
    /// Full-scan deletions are not replayed (their scans were not staged); tombstone pages are.
    /// - Throws: ``SyncError`` `.staging` when the directory cannot be read.
    public convenience init(
        replaying directory: URL, source: SyncSource, context: ObjectContext,
        options: SyncOptions = SyncOptions()
    ) throws {
        let pages = try StagedPages(directory: directory, redactor: source.redactor)
        self.init(source: source, context: context, options: options, transport: ReplayTransport(pages: pages))
        staged = pages
    }

    // MARK: - Running

    /// Syncs the resources (``SyncOptions/resources``, or all), in source order.
    ///
    /// - Returns: what each resource's run did.
    /// - Throws: ``SyncError`` located at the resource and page (and record) that failed;
    ///   the pages committed before it stay committed, with their checkpoint. Resources after
    ///   a failed one are not synced.
    public func run() throws -> SyncReport {
        lastReport = SyncReport()
        lastReport.isDryRun = options.dryRun
        if let (_, scan, other) = SyncSource.unscopedFullScan(source.resources, overlapping: entitiesOverlap) {
            throw SyncError(.invalidValue, message: SyncSource.unscopedFullScanMessage(scan, other), resource: scan.name)
        }
        if let worker = options.worker { return try runAsWorker(worker) }
        let resources = try selectedResources()
        try inBulkRun { try sync(resources: resources) }
        return lastReport
    }

    /// Runs `body` as one bulk run of the store (``BulkWritingStore``: the SQLite store defers
    /// its secondary indexes while the run inserts many objects, `docs/Sync.md` "Index upkeep
    /// during a run"); a dry run, or a store without bulk runs, runs it as it is.
    /// - Throws: what `body` throws; ``SyncError`` `.store` when the store cannot finish the run
    ///   (the pages committed stay committed, with their checkpoints).
    func inBulkRun(_ body: () throws -> Void) throws {
        guard !options.dryRun, let store = context.store as? any BulkWritingStore else { return try body() }
        do {
            try store.withBulkRun(body)
        } catch let error as StoreError {
            throw SyncError(.store, message: error.description, underlying: error)
        }
    }

    /// The checkpoint of every resource (``SyncOptions/resources``, or all), for `--status`.
    /// - Throws: ``SyncError`` `.invalidCheckpoint`, `.store`.
    public func status() throws -> [ResourceStatus] {
        let resources = try selectedResources()
        return try resources.map { resource in
            let checkpoint = try storeRead { try SyncCheckpoint.read(resource: resource.name, in: $0) }
            return ResourceStatus(name: resource.name, entity: try entityName(of: resource), checkpoint: checkpoint)
        }
    }

    /// The status of `source`'s resources (`names`, or all) from a store's metadata read
    /// without the store (`SQLiteStore.userMetadata(atPath:)`), for `trellis sync --status`
    /// without a model.
    /// - Throws: ``SyncError`` `.unknownResource`, `.invalidCheckpoint`.
    public static func status(of source: SyncSource, resources names: [String]?, metadata: [String: String]) throws -> [ResourceStatus] {
        for name in names ?? [] where source.resource(named: name) == nil {
            throw SyncError(
                .unknownResource, message: "no resource named '\(name)' in the source (resources: \(source.resources.map(\.name).joined(separator: ", ")))")
        }
        return try source.resources.filter { names?.contains($0.name) ?? true }.map { resource in
            let checkpoint =
                try metadata[SyncCheckpoint.key(for: resource.name)].map { try SyncCheckpoint(text: $0, resource: resource.name) }
                ?? SyncCheckpoint()
            let owner = source.resources.first { if case .tombstones(let n) = $0.deletions { return n == resource.name } else { return false } }
            return ResourceStatus(name: resource.name, entity: resource.entity ?? owner?.entity, checkpoint: checkpoint)
        }
    }

    /// Syncs `resources` in order, each resource's full-scan deletions deferred until every
    /// later resource of the run filling the same entity walked.
    func sync(resources: [ResourceConfiguration]) throws {
        // Full-scan deletions wait until every resource of the run filling the same entity
        // walked: an object that moved from one resource's scope to another's is then updated
        // by the other before the first one's deletions look at it.
        var deferred: [(report: Int, deletions: PendingDeletions)] = []
        for (i, resource) in resources.enumerated() {
            var resourceReport = ResourceReport(name: resource.name, entity: try entityName(of: resource))
            do {
                if let pending = try sync(resource, into: &resourceReport) {
                    deferred.append((lastReport.resources.count, pending))
                }
                lastReport.resources.append(resourceReport)
            } catch {
                let located = locate(error, resource: resource.name)
                if let attempts = located.attempts {  // the failed exchange's requests, which no page reported
                    resourceReport.requests += attempts
                    resourceReport.retries += attempts - 1
                }
                lastReport.resources.append(resourceReport)
                // A lost lease: the resource's checkpoint is the new holder's to write.
                if !options.dryRun, located.code != .leaseLost { recordFailure(located, of: resource) }
                throw located
            }
            let later = resources[(i + 1)...].compactMap(\.entity)
            while let index = deferred.firstIndex(where: { item in !later.contains { entitiesOverlap($0, item.deletions.entity.name) } }) {
                let (position, pending) = deferred.remove(at: index)
                do {
                    try deleteMissing(pending, report: &lastReport.resources[position])
                } catch {
                    let located = locate(error, resource: pending.resource.name)
                    if !options.dryRun, located.code != .leaseLost { recordFailure(located, of: pending.resource) }
                    throw located
                }
            }
        }
    }

    /// ``run()`` as one of several workers (``SyncWorker``): claims the resources through
    /// the store's leases one at a time until every one was finished since this worker
    /// started. The unit of a lease is a resource, except where a resource's full-scan
    /// deletions wait for other resources filling the same entity (``sync(resources:)``),
    /// and for tombstones and the resource they delete from: those resources are leased
    /// together, under the first one's name, and synced together, in source order.
    ///
    /// - Throws: ``SyncError`` `.invalidValue` when the store cannot lease (not
    ///   PostgreSQL); `.store`; the first resource that failed (its lease is freed, so another
    ///   worker may try it). A resource whose lease this worker lost is reported
    ///   (``ResourceReport/lostLease``) and left to the worker that took it.
    func runAsWorker(_ worker: SyncWorker) throws -> SyncReport {
        guard let leasing = context.store as? any LeasingStore else {
            throw SyncError(
                .invalidValue,
                message: "sync workers share a source's resources through leases in the store, and this store "
                    + "(\(type(of: context.store))) has none: use a PostgreSQL store")
        }
        let groups = leaseGroups(try selectedResources())
        let names = groups.map { $0[0].name }
        let started: Date
        do { started = try leasing.leaseClock() } catch { throw locate(error, resource: names.first ?? "") }
        while true {
            let claim: LeaseClaim
            do {
                claim = try leasing.claimLease(among: names, holder: worker.holder, seconds: worker.leaseSeconds, notFinishedSince: started)
            } catch {
                throw locate(error, resource: names.first ?? "")
            }
            switch claim {
            case .done:
                return lastReport
            case .waiting:
                clock.sleep(worker.pollInterval)
            case .claimed(let name, let previous):
                guard let group = groups.first(where: { $0[0].name == name }) else { continue }
                let first = lastReport.resources.count
                currentLease = name
                defer { currentLease = nil }
                func annotate(lost: SyncError? = nil) {
                    for i in first..<lastReport.resources.count {
                        lastReport.resources[i].worker = worker.holder
                        lastReport.resources[i].tookOverFrom = previous
                    }
                    if let lost, let last = lastReport.resources.indices.last, last >= first {
                        lastReport.resources[last].lostLease = true
                        lastReport.resources[last].note(lost.message)
                    }
                }
                do {
                    try sync(resources: group)
                    annotate()
                    try leasing.endLease(name, holder: worker.holder, finished: !options.dryRun)
                } catch let error as SyncError where error.code == .leaseLost {
                    annotate(lost: error)
                } catch {
                    annotate()
                    try? leasing.endLease(name, holder: worker.holder, finished: false)
                    throw error
                }
            }
        }
    }

    /// `resources` in groups leased together (source order kept within and between groups):
    /// resources whose entities overlap where either has full-scan deletions, and tombstone
    /// resources with the resource they delete from.
    func leaseGroups(_ resources: [ResourceConfiguration]) -> [[ResourceConfiguration]] {
        var group = Array(resources.indices)
        func root(_ i: Int) -> Int { group[i] == i ? i : root(group[i]) }
        func fullScan(_ r: ResourceConfiguration) -> Bool {
            if case .fullScan = r.deletions { return true }
            return false
        }
        for i in resources.indices {
            for j in resources.indices where j > i {
                let a = resources[i]
                let b = resources[j]
                let linked: Bool
                if tombstoneOwner(of: a)?.name == b.name || tombstoneOwner(of: b)?.name == a.name {
                    linked = true
                } else if fullScan(a) || fullScan(b), let x = try? entityName(of: a), let y = try? entityName(of: b) {
                    linked = entitiesOverlap(x, y)
                } else {
                    linked = false
                }
                if linked { group[max(root(i), root(j))] = min(root(i), root(j)) }
            }
        }
        var order: [Int] = []
        var members: [Int: [ResourceConfiguration]] = [:]
        for i in resources.indices {
            let r = root(i)
            if members[r] == nil { order.append(r) }
            members[r, default: []].append(resources[i])
        }
        return order.map { members[$0]! }
    }

    /// Writes `checkpoint` in a page's transaction (`session`) and, for a worker, renews its
    /// lease of the resource there: a worker that lost the lease throws `.leaseLost`, so the
    /// page rolls back and only the lease's holder commits pages of the resource.
    func record(_ checkpoint: SyncCheckpoint, of resource: ResourceConfiguration, in session: any StoreSession) throws {
        if let worker = options.worker, let leased = currentLease {
            guard let leasing = session as? any LeasingSession else {
                throw SyncError(.invalidValue, message: "the store's sessions cannot renew leases", resource: resource.name)
            }
            guard try leasing.renewLease(leased, holder: worker.holder, seconds: worker.leaseSeconds) else {
                throw SyncError(
                    .leaseLost,
                    message: "worker \(worker.holder) lost its lease of the resource (it expired and another "
                        + "worker took the resource over, resuming from the last committed page)", resource: resource.name)
            }
        }
        try checkpoint.write(resource: resource.name, in: session)
        try pruneTombstones(passedBy: checkpoint.watermark, of: resource, in: session)
    }

    /// Removes the tombstones (``Tombstone``) of the resource's entity hierarchy whose stamp the
    /// resource's committed watermark has passed (compared as instants, or numbers), in the
    /// page's transaction: a pull asks only for what changed after its watermark, so no page
    /// of an incremental walk brings such an object back. Watermarks come only from pulled pages.
    func pruneTombstones(passedBy watermark: Watermark?, of resource: ResourceConfiguration, in session: any StoreSession) throws {
        guard let watermark, let name = resource.entity, let storage = session as? any OutboxStorage else { return }
        let model = context.model
        guard let root = model.entity(named: name)?.rootName else { return }
        let passed = try storage.tombstoneRows(serverIdentities: nil).filter { tombstone in
            guard (model.entity(named: tombstone.entityName)?.rootName ?? tombstone.entityName) == root,
                let stamp = Watermark.Value(text: tombstone.stamp)
            else { return false }
            return stamp < watermark.value
        }
        if !passed.isEmpty { try storage.deleteTombstones(passed) }
    }

    // MARK: - Internals

    func selectedResources() throws -> [ResourceConfiguration] {
        guard let names = options.resources else { return source.resources }
        for name in names where source.resource(named: name) == nil {
            throw SyncError(
                .unknownResource, message: "no resource named '\(name)' in the source (resources: \(source.resources.map(\.name).joined(separator: ", ")))")
        }
        return source.resources.filter { names.contains($0.name) }
    }

    /// The entity a resource's records are (or, for tombstones, name).
    func entityName(of resource: ResourceConfiguration) throws -> String? {
        if let entity = resource.entity { return entity }
        return tombstoneOwner(of: resource)?.entity
    }

    /// The resource whose tombstones `resource` is, if any.
    func tombstoneOwner(of resource: ResourceConfiguration) -> ResourceConfiguration? {
        source.resources.first { if case .tombstones(let name) = $0.deletions { return name == resource.name } else { return false } }
    }

    /// The resolved entity of `resource`.
    func entity(of resource: ResourceConfiguration) throws -> ResolvedEntity {
        guard let name = try entityName(of: resource) else {
            throw SyncError(.invalidValue, message: "the resource has no entity", resource: resource.name)
        }
        guard let entity = context.model.entity(named: name) else {
            throw SyncError(
                .invalidValue, message: "the model has no entity '\(name)' (entities: \(context.model.resolvedEntities.map(\.name).joined(separator: ", ")))",
                resource: resource.name, entity: name)
        }
        return entity
    }

    /// Store errors as ``SyncError`` `.store`; everything located at `resource`.
    func locate(_ error: any Error, resource: String, pageURL: String? = nil) -> SyncError {
        switch error {
        case let error as SyncError:
            return error.located(resource: resource, pageURL: pageURL)
        case let error as ImportError:
            return SyncError(
                .importFailed, message: error.message, path: error.path, resource: resource, pageURL: pageURL,
                entity: error.entity, attribute: error.property, underlying: error)
        case let error as StoreError:
            return SyncError(.store, message: error.description, resource: resource, pageURL: pageURL, underlying: error)
        default:
            return SyncError(.store, message: "\(error)", resource: resource, pageURL: pageURL)
        }
    }

    /// Marks the last run failed in the stored checkpoint (what was committed stays as it is).
    func recordFailure(_ error: SyncError, of resource: ResourceConfiguration) {
        _ = try? context.store.write { session in
            var checkpoint = try SyncCheckpoint.read(resource: resource.name, in: session)
            if checkpoint.lastRun == nil || checkpoint.lastRun?.status != .running {
                checkpoint.lastRun = SyncCheckpoint.RunRecord(
                    status: .failed, startedAt: SyncInstant(clock.now()), finishedAt: nil,
                    pages: 0, pagesChanged: 0, records: 0, message: nil)
            }
            checkpoint.lastRun?.status = .failed
            checkpoint.lastRun?.finishedAt = SyncInstant(clock.now())
            checkpoint.lastRun?.message = source.redactor.redact(error.description)
            try checkpoint.write(resource: resource.name, in: session)
        }
    }

    func storeRead<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        do {
            return try context.store.read(body)
        } catch let error as StoreError {
            throw SyncError(.store, message: error.description, underlying: error)
        }
    }
}
