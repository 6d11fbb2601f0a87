import Foundation
import Trellis
import TrellisModelFile
import TrellisPostgres
import TrellisSQLite
import TrellisSync

/// `trellis sync SOURCE [--model MODEL] [--store PATH] [--resource NAME]… [--full] [--dry-run]
/// [--stage DIR] [--replay DIR] [--report json] [--max-pages N] [--push-only | --pull-only] [--at-least-once]`,
/// `trellis sync SOURCE --resolve ENTITY:ID --take local|server` (settles a conflict the
/// `manual` policy left, then pushes), and `trellis sync SOURCE --status [--report json]`: pushes the store's outbox to the resources
/// with a push section, then pulls a source file's resources into a store, page by page, each
/// page committed with its checkpoint (see docs/Sync.md).
enum SyncCommand: LeafCommand {
    static let source = ArgumentKey<String>("source", help: "The source file (docs/Sync.md): the API client and its resources.")
    static let model = OptionKey<String?>(
        "--model", valueName: "model",
        help: "The model: a Trellis JSON model file, a .xcdatamodeld, a .xcdatamodel or a store (default: the one the store records).")
    static let resource = OptionKey<[String]>(
        repeating: "--resource", valueName: "name", help: "Sync only this resource (default: all, in file order).")
    static let full = OptionKey<Bool>(
        flag: "--full", help: "Ignore the watermarks (walk everything again), and confirm full-scan deletions beyond maxFraction.")
    static let dryRun = OptionKey<Bool>(
        flag: "--dry-run",
        help: "Print the push's planned requests (secrets redacted) and send none; fetch and import, report what would change, keep nothing.")
    static let stage = OptionKey<String?>(
        "--stage", valueName: "dir", help: "Write every fetched page (status, headers without secrets, body) into this directory before importing it.")
    static let replay = OptionKey<String?>(
        "--replay", valueName: "dir",
        help: "Import the pages staged in this directory instead of fetching them (no network; the source's ${env:…} variables may be unset).")
    static let report = OptionKey<ReportFormat>("--report", valueName: "format", help: "The summary format on standard output.", default: "text")
    static let maxPages = OptionKey<Int?>("--max-pages", valueName: "count", help: "Fetch at most this many pages per resource; the next run resumes there.")
    static let status = OptionKey<Bool>(
        flag: "--status", help: "Print each resource's last run, watermark, pending next page and totals, and the outbox; sync nothing.")
    static let workers = OptionKey<Int?>(
        "--workers", valueName: "count",
        help: "Sync with this many workers in this process, splitting the resources through leases in a PostgreSQL store (default 1).")
    static let leaseSeconds = OptionKey<Seconds?>(
        "--lease-seconds", valueName: "seconds",
        help:
            "How long a worker's lease of a resource lasts unless renewed by its next page; a killed worker's resource is taken over after it (PostgreSQL; default 30)."
    )

    static let pushOnly = OptionKey<Bool>(flag: "--push-only", help: "Send the store's local changes (its outbox) to the API; pull nothing.")
    static let pullOnly = OptionKey<Bool>(flag: "--pull-only", help: "Pull only; leave the local changes in the outbox.")
    static let resolve = OptionKey<ConflictTarget?>(
        "--resolve", valueName: "entity:id",
        help: "Settle the outbox's conflict of this object (the entity and its server identity: Hero:h00042) with --take, then push.")
    static let take = OptionKey<ConflictResolution?>(
        "--take", valueName: "side",
        help: "With --resolve: local sends the local change again, server writes the server's copy here and drops the change.")
    static let atLeastOnce = OptionKey<Bool>(
        flag: "--at-least-once",
        help: "Push creates of resources whose createKey is none: a create whose answer is lost is sent again and may exist twice.")

    static let spec = CommandSpec(
        name: "sync",
        abstract: "Push a store's local changes to a REST API, then pull its resources, page by page, incrementally.",
        discussion: """
            Each page's objects and its resource's checkpoint (watermark, next page, ETags) are \
            committed in one transaction: a run that is interrupted loses nothing, and the next run \
            resumes at the first page not committed. Incremental resources start after their \
            watermark; Parse resources page by keyset on (updatedAt, objectId). Deletions happen \
            only where the source file states their scope (fullScan, tombstones). Into a \
            PostgreSQL store each run is a worker: several runs at once (processes on one \
            machine or several, or --workers N) split the resources between them through \
            leases, and a killed worker's resource is taken over from its last committed page. \
            Before the pull, the local changes recorded in the store's outbox go to the \
            resources with a push section, each exactly once (docs/Sync.md, "Pushing local \
            changes"); a dry run and a replay push nothing.
            """,
        arguments: [source],
        options: [
            model,
            CommonOptions.store.with(
                help: "The store: an SQLite file (created when missing), or a PostgreSQL connection string (postgresql://user@host/dbname)."), resource, full,
            dryRun,
            stage, replay, report, maxPages, status, workers, leaseSeconds, pushOnly, pullOnly, resolve, take, atLeastOnce,
            CommonOptions.bindings,
            CommonOptions.busyTimeout,
        ])

    /// `--report`.
    enum ReportFormat: String, CaseIterable, OptionValue {
        /// One paragraph per resource.
        case text
        /// One JSON object on one line.
        case json
    }

    static func run(_ arguments: ParsedArguments, _ context: inout CommandContext) throws {
        let environment = context.environment
        let sourcePath = arguments[source]
        let json = arguments[report] == .json
        let names = arguments[resource].isEmpty ? nil : arguments[resource]
        if arguments[status] {
            for option in [full.spec, dryRun.spec, stage.spec, replay.spec, maxPages.spec] where arguments.given.contains(option.name) {
                throw UsageError("'--status' reports only; it does not take '\(option.name)'")
            }
        }
        if arguments[pushOnly], arguments[pullOnly] { throw UsageError("'--push-only' and '--pull-only' cannot be combined") }
        if arguments[pushOnly] {
            for option in [full.spec, dryRun.spec, stage.spec, replay.spec, maxPages.spec, status.spec, workers.spec]
            where arguments.given.contains(option.name) {
                throw UsageError("'--push-only' pulls nothing; it does not take '\(option.name)'")
            }
        }
        if arguments[resolve] != nil, arguments[take] == nil { throw UsageError("'--resolve' needs '--take local' or '--take server'") }
        if arguments[take] != nil, arguments[resolve] == nil { throw UsageError("'--take' says how to settle a '--resolve ENTITY:ID'; give one") }
        if arguments[resolve] != nil {
            for option in [full.spec, dryRun.spec, stage.spec, replay.spec, maxPages.spec, status.spec, workers.spec, pullOnly.spec]
            where arguments.given.contains(option.name) {
                throw UsageError("'--resolve' settles one conflict and pushes; it does not take '\(option.name)'")
            }
        }
        if let pages = arguments[maxPages], pages < 1 { throw UsageError("invalid value '\(pages)' for '--max-pages'; expected a count of 1 or more") }
        if arguments[stage] != nil, arguments[replay] != nil { throw UsageError("'--stage' and '--replay' cannot be combined (a replay fetches nothing)") }
        if arguments[replay] != nil, arguments[maxPages] != nil {
            // A replay imports every staged page from the first and records no resumption point, so a page budget
            // would silently stop it short; refused rather than ignored.
            throw UsageError("'--max-pages' and '--replay' cannot be combined (a replay imports every staged page)")
        }

        let storePath = arguments[CommonOptions.store]
        let location = StoreLocation(storePath, environment: environment)
        if let count = arguments[workers], count < 1 || count > 64 {
            throw UsageError("invalid value '\(count)' for '--workers'; expected a count from 1 to 64")
        }
        if !location.isPostgres, (arguments[workers] ?? 1) > 1 || arguments[leaseSeconds] != nil {
            throw UsageError(
                "'\(arguments[workers] ?? 1 > 1 ? "--workers" : "--lease-seconds")' needs a PostgreSQL store: "
                    + "workers split the resources through leases kept in it")
        }
        if let lease = arguments[leaseSeconds], lease.value < 0.1 {
            throw UsageError("invalid value '\(lease.value)' for '--lease-seconds'; expected at least 0.1 seconds")
        }
        if arguments[status], arguments[workers] != nil || arguments[leaseSeconds] != nil {
            throw UsageError("'--status' reports only; it does not take '\(arguments[workers] != nil ? "--workers" : "--lease-seconds")'")
        }
        // How summaries and messages name the store (a connection string without its password).
        let storeName = location.name
        // Without --model, the model the store records (written by every import and sync).
        // A PostgreSQL store exists once its schema holds the store's tables (read only when needed).
        let exists: Bool
        switch location {
        case .postgres: exists = arguments[model] == nil && !arguments[status] ? try location.holdsStore() : false
        case .sqlite(_, let url): exists = FileManager.default.fileExists(atPath: url.path)
        }
        let modelPath = arguments[model] ?? (exists ? storePath : nil)
        if modelPath == nil, !arguments[status] {
            throw UsageError("missing option '--model <model>': the store \(storeName) does not exist yet, so it records no model")
        }
        // A replay and `--status` send no request: the source's secrets may be unset (`${env:NYT_API_KEY}`).
        let syncSource = try load(sourcePath, environment: environment, replaying: arguments[replay] != nil || arguments[status])
        if arguments[status] {
            var metadata: [String: String] = [:]
            var leases: [Lease] = []
            do {
                switch location {
                case .postgres(let connection):
                    metadata = try PostgresStore.userMetadata(connection: connection)
                    leases = try PostgresStore.leases(connection: connection)
                case .sqlite(_, let url) where exists: metadata = try SQLiteStore.userMetadata(atPath: url.path)
                case .sqlite: break
                }
            } catch let error as StoreError {
                throw location.commandError(error, busyTimeoutMilliseconds: 0)
            }
            var statuses = try Synchronizer.status(of: syncSource, resources: names, metadata: metadata)
            for i in statuses.indices { statuses[i].lease = leases.first { $0.name == statuses[i].name } }
            let outbox = try outboxStatus(
                syncSource, location: location, exists: exists || location.isPostgres,
                modelPath: arguments[model], arguments: arguments, environment: environment)
            context.stdout.write(
                json
                    ? SyncSummary.json(statuses, outbox: outbox)
                    : SyncSummary.text(statuses, store: storeName)
                        + (outbox.map(SyncSummary.text) ?? ""))
            return
        }
        guard let modelPath else { return }
        let file = try ModelLoading.load(modelPath, bindings: arguments[CommonOptions.bindings], environment: environment)
        let record = ImportModel.text(of: file.modelFile)
        for resource in syncSource.resources where names?.contains(resource.name) ?? true {
            if let entity = resource.entity { _ = try ModelLoading.entity(entity, in: file.model, modelPath: modelPath) }
        }
        var options = SyncOptions()
        options.resources = names
        options.full = arguments[full]
        options.dryRun = arguments[dryRun]
        options.maxPages = arguments[maxPages]
        options.stageDirectory = arguments[stage].map { environment.url(for: $0) }
        options.atLeastOnce = arguments[atLeastOnce]
        let pushes = !arguments[pullOnly] && !options.dryRun && arguments[replay] == nil
        let busy = arguments[CommonOptions.busyTimeout].milliseconds

        if (arguments[workers] ?? 1) > 1 || arguments[leaseSeconds] != nil, options.dryRun {
            throw UsageError(
                "'--dry-run' cannot be combined with '\(arguments[workers] != nil ? "--workers" : "--lease-seconds")' "
                    + "(a dry run keeps nothing, so it takes no leases)")
        }
        if location.isPostgres, !options.dryRun {
            // Every run into PostgreSQL is a worker (alone, it claims every resource in turn);
            // a dry run keeps nothing, leases included.
            options.worker = SyncWorker(holder: Lease.holderName(), leaseSeconds: arguments[leaseSeconds]?.value ?? 30)
        }
        if case .postgres(let connection) = location, let count = arguments[workers], count > 1 {
            var pushReport: PushReport?
            if pushes {
                let store = try PostgresStoreOpening.open(connection, model: file.model, readOnly: false, modelRecord: record)
                pushReport = shown(
                    try push(
                        Synchronizer(
                            source: syncSource, context: ObjectContext(store: store, bindings: file.bindings),
                            options: options), json: json, location: location, busy: 0, &context),
                    source: syncSource)
            }
            try runWorkers(
                count, source: syncSource, file: file, record: record, options: options, connection: connection,
                storeName: storeName, replay: arguments[replay].map { environment.url(for: $0) }, push: pushReport, json: json,
                &context)
            return
        }

        let store: any PersistentStore
        switch location {
        case .postgres(let connection):
            // Each page's transaction creates or migrates the tables first, until one commits
            // (a dry run's roll back with it).
            store = try PostgresStoreOpening.open(connection, model: file.model, readOnly: false, modelRecord: record)
        case .sqlite where options.dryRun && !exists:
            store = InMemoryStore(model: file.model)
        case .sqlite(_, let storeURL):
            try location.checkCreatable()
            store = try StoreOpening.open(
                storeURL, path: storePath, model: file.model,
                migrationPolicy: options.dryRun ? .inWriteTransactions : .onOpen, busyTimeoutMilliseconds: busy,
                modelRecord: record, manyTransactions: true,
                notes: context.environment.notes, repairs: !options.dryRun)
        }
        let objectContext = ObjectContext(store: store, bindings: file.bindings)
        let synchronizer: Synchronizer
        if let replayPath = arguments[replay] {
            synchronizer = try Synchronizer(replaying: environment.url(for: replayPath), source: syncSource, context: objectContext, options: options)
        } else {
            synchronizer = Synchronizer(source: syncSource, context: objectContext, options: options)
        }
        // Ctrl-C or SIGTERM ends the run at once (Interruption): each page commits with its
        // checkpoint, so what was committed stays and the next run resumes after it.
        Interruption.begin(
            options.dryRun
                ? "nothing was written (dry run)"
                : "the pages committed so far are kept, with their checkpoints; the next run resumes after them")
        defer { Interruption.end() }
        var plan: (requests: [PlannedRequest], waiting: Int)?
        if options.dryRun, !arguments[pullOnly], arguments[replay] == nil, syncSource.resources.contains(where: { $0.push != nil }) {
            do { plan = try synchronizer.plannedPush() } catch let error as SyncError { throw CommandError(.importFailed, "push: " + error.description) }
            if !json, let plan { context.stdout.write(SyncSummary.text(plan)) }
        }
        var resolved: PushReport?
        if let target = arguments[resolve], let side = arguments[take] {
            do {
                let rows = try synchronizer.resolveConflict(entity: target.entity, serverIdentity: target.serverIdentity, take: side)
                resolved = synchronizer.lastReport.push
                if !json {
                    context.stdout.write(
                        "resolved \(target.entity):\(target.serverIdentity) for the \(side.rawValue) side (\(rows) outbox row\(rows == 1 ? "" : "s"))\n")
                }
            } catch let error as SyncError {
                throw CommandError(.importFailed, "resolve: " + error.description)
            }
        }
        var pushReport: PushReport?
        if pushes {
            var report = try push(synchronizer, json: json, location: location, busy: busy, &context)
            if let resolved { report.overridden = resolved.overridden + report.overridden }
            pushReport = shown(report, source: syncSource)
        }
        if arguments[pushOnly] || arguments[resolve] != nil {
            var result = SyncReport()
            result.push = pushReport
            context.stdout.write(json ? SyncSummary.json(result) : SyncSummary.text(result, store: storeName))
            return
        }
        do {
            var result = try synchronizer.run()
            result.push = pushReport
            context.stdout.write(json ? SyncSummary.json(result, plan: plan) : SyncSummary.text(result, store: storeName))
        } catch let error as SyncError {
            var partial = synchronizer.lastReport
            partial.push = pushReport
            if json { context.stdout.write(SyncSummary.json(partial)) }
            if let storeError = error.underlying as? StoreError, error.code == .store {
                throw location.commandError(storeError, busyTimeoutMilliseconds: busy)
            }
            throw CommandError(.importFailed, error.description)
        }
    }

    /// The outbox per resource for `--status` (nil when the source has no push section, or the
    /// store does not exist or records no model).
    static func outboxStatus(
        _ source: SyncSource, location: StoreLocation, exists: Bool, modelPath: String?,
        arguments: ParsedArguments, environment: CommandEnvironment
    ) throws -> OutboxStatus? {
        guard source.resources.contains(where: { $0.push != nil }), exists || modelPath != nil else { return nil }
        let file: LoadedModel
        do {
            file = try ModelLoading.load(modelPath ?? location.text, bindings: arguments[CommonOptions.bindings], environment: environment)
        } catch  where modelPath == nil {
            return nil  // a store that records no model yet: nothing was pushed or recorded through it
        }
        if let url = location.fileURL, !FileManager.default.fileExists(atPath: url.path) { return nil }
        let store = try location.openExisting(
            model: file.model, environment: environment, busyTimeoutMilliseconds: arguments[CommonOptions.busyTimeout].milliseconds)
        do {
            return OutboxStatus(source: source, model: file.model, rows: try store.outbox())
        } catch let error as StoreError {
            throw CommandError(.importFailed, "the outbox cannot be read: \(error)")
        }
    }

    /// The push report as the summary shows it: nil (no `push` line or field) when the source
    /// has no push section and nothing was left in the outbox.
    static func shown(_ report: PushReport, source: SyncSource) -> PushReport? {
        source.resources.contains { $0.push != nil } || !report.problems.isEmpty ? report : nil
    }

    /// Pushes the outbox (``Synchronizer/push()``); on failure prints the partial report
    /// (`--report json`) and throws the command's error.
    static func push(
        _ synchronizer: Synchronizer, json: Bool, location: StoreLocation, busy: Int,
        _ context: inout CommandContext
    ) throws -> PushReport {
        do {
            return try synchronizer.push()
        } catch let error as SyncError {
            if json {
                var partial = SyncReport()
                partial.push = synchronizer.lastReport.push
                context.stdout.write(SyncSummary.json(partial))
            }
            if let storeError = error.underlying as? StoreError, error.code == .store {
                throw location.commandError(storeError, busyTimeoutMilliseconds: busy)
            }
            throw CommandError(.importFailed, "push: " + error.description)
        }
    }

    /// `--workers N` into the PostgreSQL store `connection`: N threads, each a worker with its
    /// own connection (holders `host:pid`, `host:pid#2`, …), splitting the resources through
    /// the store's leases. The summary lists every resource a worker synced, in source order;
    /// the first failure (after every worker stopped) is the command's error.
    static func runWorkers(
        _ count: Int, source: SyncSource, file: LoadedModel, record: String, options: SyncOptions, connection: String,
        storeName: String, replay: URL?, push: PushReport?, json: Bool, _ context: inout CommandContext
    ) throws {
        let results = WorkerResults(count: count)
        var threads: [Thread] = []
        let done = DispatchGroup()
        for index in 0..<count {
            var workerOptions = options
            workerOptions.worker?.holder = Lease.holderName(worker: index)
            let finalOptions = workerOptions
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                var synchronizer: Synchronizer?
                do {
                    let store = try PostgresStoreOpening.open(connection, model: file.model, readOnly: false, modelRecord: record)
                    let objectContext = ObjectContext(store: store, bindings: file.bindings)
                    let made =
                        try replay.map { try Synchronizer(replaying: $0, source: source, context: objectContext, options: finalOptions) }
                        ?? Synchronizer(source: source, context: objectContext, options: finalOptions)
                    synchronizer = made
                    results.set(index, report: try made.run(), error: nil)
                } catch {
                    results.set(index, report: synchronizer?.lastReport ?? SyncReport(), error: error)
                }
            }
            threads.append(thread)
        }
        Interruption.begin(
            options.dryRun
                ? "nothing was written (dry run)"
                : "the pages committed so far are kept, with their checkpoints; the next run resumes after them")
        defer { Interruption.end() }
        for thread in threads { thread.start() }
        done.wait()
        var merged = SyncReport()
        merged.isDryRun = options.dryRun
        merged.push = push
        let order = Dictionary(source.resources.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        merged.resources = results.reports.flatMap(\.resources).sorted { (order[$0.name] ?? 0) < (order[$1.name] ?? 0) }
        guard let failure = results.errors.compactMap({ $0 }).first else {
            context.stdout.write(json ? SyncSummary.json(merged) : SyncSummary.text(merged, store: storeName))
            return
        }
        if json { context.stdout.write(SyncSummary.json(merged)) }
        if let error = failure as? SyncError {
            if let storeError = error.underlying as? StoreError, error.code == .store {
                throw PostgresStoreOpening.commandError(storeError, connection: connection)
            }
            throw CommandError(.importFailed, error.description)
        }
        throw failure
    }

    /// What each worker thread of ``runWorkers(_:source:file:record:options:connection:storeName:replay:push:json:_:)`` ended with.
    // SAFETY: `reports` and `errors` are only touched while `lock` is held.
    final class WorkerResults: @unchecked Sendable {
        private let lock = NSLock()
        private var storedReports: [SyncReport]
        private var storedErrors: [(any Error)?]

        init(count: Int) {
            storedReports = Array(repeating: SyncReport(), count: count)
            storedErrors = Array(repeating: nil, count: count)
        }

        func set(_ index: Int, report: SyncReport, error: (any Error)?) {
            lock.withLock {
                storedReports[index] = report
                storedErrors[index] = error
            }
        }

        var reports: [SyncReport] { lock.withLock { storedReports } }
        var errors: [(any Error)?] { lock.withLock { storedErrors } }
    }

    /// The source file at `path`, `${env:NAME}` read from the environment.
    static func load(_ path: String, environment: CommandEnvironment, replaying: Bool = false) throws -> SyncSource {
        do {
            return try SyncSource(
                contentsOf: environment.url(for: path), environment: environment.variables,
                unsetVariableValue: replaying ? "unset-in-replay" : nil)
        } catch var error as SyncError {
            error.file = path
            throw CommandError(.invalidInput, error.description)
        }
    }
}

/// `--resolve ENTITY:ID`: an object of the outbox by its entity and server identity (split at
/// the first colon: `Hero:h00042`).
struct ConflictTarget: OptionValue, Equatable {
    var entity: String
    var serverIdentity: String

    init(optionText text: String) throws(OptionValueError) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex else {
            throw .expected("ENTITY:ID, an entity and an object's server identity (Hero:h00042)")
        }
        entity = String(text[..<colon])
        serverIdentity = String(text[text.index(after: colon)...])
    }
}

extension ConflictResolution: OptionValue {}
