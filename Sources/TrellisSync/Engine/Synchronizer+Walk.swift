import Foundation
import Trellis

/// One resource's run: its walk (or walks), page by page, each page committed with the
/// checkpoint; then its deletions.
extension Synchronizer {
    /// What the records of a walk's pages are used for.
    enum PageUse {
        /// Imported as objects of the entity.
        case importing
        /// Tombstones: the objects they name are deleted.
        case tombstones(IdentityReader)
    }

    /// What one walk of a run keeps in memory (the checkpoint keeps the rest).
    struct WalkMemory {
        /// Identities seen in the current walk (positional walks: a repeat means the pages shifted).
        var seenInWalk = Set<[AttributeValue]>()
        /// URLs fetched in this walk (the loop guard), and in every walk of this run (page tags kept).
        var urls = Set<String>()
        var allURLs = Set<String>()
        /// The walk ended (not stopped), and whether its pages stayed put.
        var completed = false
        var settled = true
        /// The walk that completed (its start, whether it was resumed).
        var completedWalk: SyncCheckpoint.WalkState?
        /// The current walk's first page: its URL and a digest of its body (its `ETag`, or an
        /// FNV-1a hash), to tell at the walk's end whether it changed meanwhile.
        var firstPage: (url: URL, etag: String?, digest: UInt64)?
        /// Identities seen in the current walk when it is a full walk begun in this run, and in
        /// the walk that completed (the last, settled one decides full-scan deletions).
        var seenInThisFullWalk: Set<[AttributeValue]>?
        var seenInCompletedWalk: Set<[AttributeValue]>?
    }

    func sync(_ resource: ResourceConfiguration, into report: inout ResourceReport) throws {
        let entity = try self.entity(of: resource)
        let kinds = Set(entity.kindNames)
        let isTombstones = tombstoneOwner(of: resource) != nil
        let needsIdentities = isTombstones || resource.paginator.isPositional || { if case .fullScan = resource.deletions { return true }; return false }()
        let identities = needsIdentities && !entity.identityAttributeIndexes.isEmpty
            ? try IdentityReader(entity: entity, bindings: context.bindings, resource: resource.name) : nil
        if isTombstones, identities == nil {
            throw SyncError(.invalidValue, message: "tombstones need identity attributes; entity \(entity.name) has none", resource: resource.name)
        }
        let use: PageUse = isTombstones ? .tombstones(identities!) : .importing
        let planner = WalkPlanner(resource: resource, client: client)
        let stager = try options.stageDirectory.map { try PageStager(directory: $0, resource: resource.name, redactor: source.redactor) }

        var checkpoint = try storeRead { try SyncCheckpoint.read(resource: resource.name, in: $0) }
        checkpoint.lastRun = SyncCheckpoint.RunRecord(status: "running", startedAt: SyncInstant(clock.now()), finishedAt: nil,
                                                      pages: 0, pagesChanged: 0, records: 0, message: nil)
        var memory = WalkMemory()
        var walk: SyncCheckpoint.WalkState
        var url: URL
        if !options.full, staged == nil, let pending = checkpoint.walk, let next = pending.next.flatMap(URL.init(string:)) {
            walk = pending
            walk.resumed = true
            url = next
        } else {
            let start = startValue(of: resource, checkpoint: checkpoint)
            url = try planner.firstURL(start: start)
            walk = SyncCheckpoint.WalkState(start: start, next: url.absoluteString, pages: 0, records: 0, greatest: nil,
                                            serverStart: nil, unsettled: false, repeats: 0, resumed: false)
        }
        if case .fullScan = resource.deletions, walk.start == nil, !walk.resumed { memory.seenInThisFullWalk = [] }

        var pagesThisRun = 0
        var producer = startProducer(url, resource: resource, identities: identities, checkpoint: checkpoint, pagesDone: pagesThisRun)
        defer { producer.cancel() }
        while true {
            guard let page = try producer.next() else { break }
            url = page.url
            let pageURL = client.printable(url)
            report.requests += page.exchange.attempts
            report.retries += page.exchange.attempts - 1
            memory.urls.insert(url.absoluteString)
            memory.allURLs.insert(url.absoluteString)
            if page.decoded.notModified { report.pagesNotModified += 1 }
            let next = page.next
            let stopping = page.stopsHere && next != nil
            pagesThisRun += 1
            try stager?.stage(page.exchange.response, url: url, next: next, fetcher: client)
            if !page.decoded.notModified, let etag = page.exchange.response.headers["etag"],
               checkpoint.pageTags.count < SyncCheckpoint.maximumPageTags {
                checkpoint.pageTags[url.absoluteString] = SyncCheckpoint.PageTag(etag: etag, next: next?.absoluteString)
            }

            // Stamps, identities and the evidence that a positional walk's pages shifted.
            let records = page.records
            if walk.pages == 0, walk.serverStart == nil, resource.paginator.isPositional { walk.serverStart = page.serverDate }
            if let greatest = page.greatest, walk.greatest.map({ $0 < greatest }) ?? true { walk.greatest = greatest }
            if let latest = page.latestInstant, let start = walk.serverStart, latest > start { walk.unsettled = true }
            for identity in page.identities ?? [] {
                guard let identity else { continue }
                if resource.paginator.isPositional, !memory.seenInWalk.insert(identity).inserted { walk.unsettled = true }
                memory.seenInThisFullWalk?.insert(identity)
            }
            for remark in page.remarks { report.note("\(pageURL): \(remark.path): \(remark.message)") }
            walk.pages += 1
            walk.records += records.count
            report.pages += 1
            report.records += records.count
            checkpoint.totalPages += 1
            checkpoint.totalRecords += records.count
            checkpoint.lastRun?.pages += 1
            checkpoint.lastRun?.records += records.count
            if walk.pages == 1, resource.paginator.isPositional, !page.decoded.notModified, staged == nil {
                memory.firstPage = (url, page.exchange.response.headers["etag"], Synchronizer.digest(page.exchange.response.body))
            }
            // A positional walk of several pages ends by asking for its first page again: if it
            // changed, records moved while walking (see docs/Sync.md).
            if next == nil, resource.paginator.isPositional, walk.pages > 1, !walk.unsettled, let first = memory.firstPage {
                if try firstPageChanged(first, resource: resource, report: &report) { walk.unsettled = true }
            }

            // Where the walk goes on.
            var again: URL?
            if let next, !stopping {
                walk.next = next.absoluteString
                checkpoint.walk = walk
            } else if let next {
                walk.next = next.absoluteString
                checkpoint.walk = walk
                checkpoint.lastRun?.status = "stopped"
                checkpoint.lastRun?.finishedAt = SyncInstant(clock.now())
                report.stoppedAtMaxPages = staged == nil
            } else {
                report.walksCompleted += 1
                if resource.paginator.isPositional, walk.unsettled, walk.repeats < Synchronizer.maximumRepeats {
                    report.note("the pages shifted while walking (a record changed or appeared twice); walking again from the same start")
                    let first = try planner.firstURL(start: walk.start)
                    walk = SyncCheckpoint.WalkState(start: walk.start, next: first.absoluteString, pages: 0, records: 0, greatest: walk.greatest,
                                                    serverStart: nil, unsettled: false, repeats: walk.repeats + 1, resumed: walk.resumed)
                    checkpoint.walk = walk
                    again = first
                } else {
                    memory.settled = !(resource.paginator.isPositional && walk.unsettled)
                    if !memory.settled {
                        report.note("the pages kept shifting in \(walk.repeats + 1) walks; the watermark stays where it was")
                    } else if let greatest = walk.greatest, options.full || checkpoint.watermark.map({ $0 < greatest }) ?? true {
                        checkpoint.watermark = greatest
                    }
                    checkpoint.walk = nil
                    checkpoint.pageTags = checkpoint.pageTags.filter { memory.allURLs.contains($0.key) }
                    checkpoint.lastRun?.status = "completed"
                    checkpoint.lastRun?.finishedAt = SyncInstant(clock.now())
                    memory.completed = true
                    memory.completedWalk = walk
                    memory.seenInCompletedWalk = memory.seenInThisFullWalk
                    if staged?.hasMore(resource.name) == true {
                        // Replay: the staged pages of a later walk follow.
                        let start = startValue(of: resource, checkpoint: checkpoint)
                        let first = try planner.firstURL(start: start)
                        walk = SyncCheckpoint.WalkState(start: start, next: first.absoluteString, pages: 0, records: 0, greatest: nil,
                                                        serverStart: nil, unsettled: false, repeats: 0, resumed: false)
                        again = first
                    }
                }
            }

            // Commit the page's objects with the checkpoint.
            do {
                let changed = try commit(records, page: page.decoded, entity: entity, kinds: kinds, use: use, resource: resource,
                                         checkpoint: &checkpoint, report: &report)
                if changed { report.pagesChanged += 1 }
            } catch {
                throw locate(error, resource: resource.name, pageURL: pageURL)
            }

            if let again {
                memory.urls = []
                memory.seenInWalk = []
                memory.firstPage = nil
                memory.seenInThisFullWalk = walk.start == nil && !walk.resumed && memory.seenInThisFullWalk != nil ? [] : nil
                producer.cancel()
                producer = startProducer(again, resource: resource, identities: identities, checkpoint: checkpoint, pagesDone: pagesThisRun)
                continue
            }
            if next == nil || stopping { break }
        }
        report.watermark = checkpoint.watermark?.text
        report.nextPage = checkpoint.walk?.next.map { client.redactor.redact($0) }
        if checkpoint.walk == nil, memory.completed {
            try deleteMissing(resource, entity: entity, identities: identities, memory: memory,
                              checkpoint: &checkpoint, report: &report)
        }
    }

    /// Whether the first page of a walk differs now from when the walk fetched it (asked
    /// with `If-None-Match` when it had an ETag: a 304 means unchanged).
    func firstPageChanged(_ first: (url: URL, etag: String?, digest: UInt64), resource: ResourceConfiguration,
                          report: inout ResourceReport) throws -> Bool {
        var headers = HTTPHeaders()
        if let etag = first.etag { headers.set("If-None-Match", etag) }
        let exchange: HTTPClient.Exchange
        do {
            exchange = try client.get(first.url, headers: headers, resource: resource.name)
        } catch {
            throw locate(error, resource: resource.name, pageURL: client.printable(first.url))
        }
        report.requests += exchange.attempts
        report.retries += exchange.attempts - 1
        if exchange.response.status == 304 { return false }
        if let etag = first.etag, exchange.response.headers["etag"] == etag { return false }
        return Synchronizer.digest(exchange.response.body) != first.digest
    }

    /// FNV-1a, 64 bits, of a page body (a fingerprint, not a security hash).
    static func digest(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// Positional walks are repeated at most this many times when their pages shift.
    static let maximumRepeats = 2

    /// Where a new walk starts: `--full` → the `initial` value; otherwise the watermark
    /// (moved back by `lagSeconds`), or `initial` before the first completed walk.
    func startValue(of resource: ResourceConfiguration, checkpoint: SyncCheckpoint) -> Watermark? {
        guard let incremental = resource.incremental else { return nil }
        let initial = incremental.initial.flatMap { text in Watermark.Value(text: text).map { Watermark(text: text, value: $0) } }
        guard !options.full, let watermark = checkpoint.watermark else { return initial }
        return watermark.lagged(by: incremental.lagSeconds)
    }

    /// Starts reading a walk's pages from `url` on another thread (``PageProducer``), at most
    /// the pages `--max-pages` leaves after `pagesDone`.
    func startProducer(_ url: URL, resource: ResourceConfiguration, identities: IdentityReader?, checkpoint: SyncCheckpoint,
                       pagesDone: Int) -> PageProducer {
        let reader = PageProducer.Reader(resource: resource, planner: WalkPlanner(resource: resource, client: client),
                                         isParse: source.client.dialect == .parse, identities: identities,
                                         tags: checkpoint.pageTags, now: clock.now)
        let client = self.client
        let name = resource.name
        if let staged {
            return PageProducer(first: url, reader: reader, maximumPages: nil, stagedHasMore: { staged.hasMore(name) },
                                fetch: { url, _ in staged.next(for: name, requested: url) })
        }
        return PageProducer(first: url, reader: reader, maximumPages: options.maxPages.map { max(0, $0 - pagesDone) },
                            stagedHasMore: nil, fetch: { url, headers in client.start(url, headers: headers, resource: name) })
    }

    /// Writes one page: its objects (imported, or deleted for tombstones) and `checkpoint`,
    /// in one store transaction (nothing is kept in a dry run).
    /// - Returns: whether an object changed.
    func commit(_ records: [JSONValue], page: DecodedPage, entity: ResolvedEntity, kinds: Set<String>, use: PageUse,
                resource: ResourceConfiguration, checkpoint: inout SyncCheckpoint, report: inout ResourceReport) throws -> Bool {
        var written = checkpoint
        defer { checkpoint = written }
        switch use {
        case .importing where !records.isEmpty:
            var importOptions = options.importOptions
            importOptions.reportsObjectIDs = false
            importOptions.dryRun = options.dryRun
            importOptions.deleteMissing = nil
            var elements = JSONImportSource(array: records, in: page.recordsPath)
            let imported = try context.importObjects(from: &elements, entity: entity.name, options: importOptions) { session, imported in
                if imported.counts.values.contains(where: { $0.inserted + $0.updated + $0.deleted > 0 }) { written.lastRun?.pagesChanged += 1 }
                try written.write(resource: resource.name, in: session)
            }
            report.add(imported, entityKinds: kinds)
            return imported.counts.values.contains { $0.inserted + $0.updated + $0.deleted > 0 }
        case .tombstones(let identities) where !records.isEmpty:
            let doomed = try objects(named: records.compactMap(identities.identity(of:)), of: entity)
            for object in doomed { try context.delete(object) }
            if !doomed.isEmpty { written.lastRun?.pagesChanged += 1 }
            report.counts.deleted += doomed.count
            if options.dryRun {
                context.rollback()
            } else {
                try context.save { session in try written.write(resource: resource.name, in: session) }
            }
            return !doomed.isEmpty
        default:
            if !options.dryRun { try context.store.write { session in try written.write(resource: resource.name, in: session) } }
            return false
        }
    }

    /// The stored objects of `entity` with these identities.
    func objects(named identities: [[AttributeValue]], of entity: ResolvedEntity) throws -> [ManagedObject] {
        guard !identities.isEmpty else { return [] }
        if entity.identityAttributeIndexes.count == 1 {
            let name = entity.attributes[entity.identityAttributeIndexes[0]].name
            var result: [ManagedObject] = []
            var start = 0
            while start < identities.count {
                let chunk = identities[start..<min(start + 500, identities.count)].map { $0[0] }
                result += try context.fetch(entity.name, matching: .oneOf(attribute: name, values: chunk))
                start += 500
            }
            return result
        }
        return try identities.compactMap { try context.fetch(entity.name, identity: $0) }
    }
}

extension JSONPath {
    /// This path followed by a key path's components.
    func appending(keyPath: JSONKeyPath) -> JSONPath {
        var path = self
        for component in keyPath.components {
            if let index = component.index { path = path.appending(index: index) } else { path = path.appending(key: component.key) }
        }
        return path
    }
}
