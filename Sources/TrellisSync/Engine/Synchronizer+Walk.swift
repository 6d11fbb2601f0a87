import Foundation
import Trellis

/// One resource's run: its walk (or walks), page by page, each page committed with the
/// checkpoint; then what its deletions need. The decisions are ``WalkMachine``'s; the
/// requests (``PageReader``) and the commits are here.
extension Synchronizer {
    /// What the records of a walk's pages are used for.
    enum PageUse {
        /// Imported as objects of the entity.
        case importing
        /// Tombstones: the objects they name are deleted.
        case tombstones(IdentityReader)
    }

    /// Walks `resource`, committing each page with its checkpoint.
    /// - Returns: the full-scan deletions its walk calls for, to be decided now or (when other
    ///   resources of the run fill the same entity) after them; nil when there are none.
    func sync(_ resource: ResourceConfiguration, into report: inout ResourceReport) throws -> PendingDeletions? {
        let entity = try self.entity(of: resource)
        let kinds = Set(entity.kindNames)
        let isTombstones = tombstoneOwner(of: resource) != nil
        let fullScan: Bool = {
            if case .fullScan = resource.deletions { return true }
            return false
        }()
        let readsKeys = PageReader.readsKeys(resource.paginator)
        let needsIdentities = isTombstones || resource.paginator.isPositional || fullScan
        let hasIdentity = !entity.identityAttributeIndexes.isEmpty
        // Record keys use identities where they can be read (otherwise the whole record).
        let identities =
            needsIdentities && hasIdentity
            ? try IdentityReader(entity: entity, bindings: context.bindings, resource: resource.name)
            : readsKeys && hasIdentity ? try? IdentityReader(entity: entity, bindings: context.bindings, resource: resource.name) : nil
        if isTombstones, identities == nil {
            throw SyncError(.invalidValue, message: "tombstones need identity attributes; entity \(entity.name) has none", resource: resource.name)
        }
        if fullScan, identities == nil {
            throw SyncError(
                .invalidValue, message: "fullScan deletions need identity attributes; entity \(entity.name) has none",
                resource: resource.name, entity: entity.name)
        }
        let use: PageUse = isTombstones ? .tombstones(identities!) : .importing
        let stager = try options.stageDirectory.map { try PageStager(directory: $0, resource: resource.name, redactor: source.redactor) }

        var checkpoint = try storeRead { try SyncCheckpoint.read(resource: resource.name, in: $0) }
        checkpoint.lastRun = SyncCheckpoint.RunRecord(
            status: .running, startedAt: SyncInstant(clock.now()), finishedAt: nil,
            pages: 0, pagesChanged: 0, records: 0, message: nil)
        var configuration = WalkMachine.Configuration(
            resource: resource, planner: WalkPlanner(resource: resource, client: client),
            origins: client.origins)
        configuration.needsCompleteness = fullScan
        configuration.maximumPages = staged == nil ? options.maxPages : nil
        configuration.full = options.full
        configuration.isReplay = staged != nil
        var machine: WalkMachine
        do {
            machine = try WalkMachine(configuration, checkpoint: checkpoint, resuming: !options.full && staged == nil)
        } catch {
            throw locate(error, resource: resource.name)
        }
        let reader = pageReader(resource, identities: identities, readsKeys: readsKeys)

        var pending = reader.start(
            machine.firstURL, tag: checkpoint.pageTags[machine.firstURL.absoluteString],
            firstOfWalk: machine.walk?.pages == 0)
        // A walk that ends early (a page that does not commit, a failed transition) still has the
        // next page in flight: it is awaited, so that no request of this run is still being sent
        // or read on another thread once the run has returned.
        defer { _ = pending.wait() }
        while true {
            let page = try pending.wait().get()
            let url = page.url
            let pageURL = client.printable(url)
            report.requests += page.exchange.attempts
            report.retries += page.exchange.attempts - 1
            if page.decoded.notModified { report.pagesNotModified += 1 }
            for remark in page.remarks { report.note("\(pageURL): \(remark.path): \(remark.message)") }

            var transition = machine.record(page.facts)
            if case .verifyFirstPage(let first) = transition {
                transition = machine.recordFirstPage(changed: try firstPageChanged(first, resource: resource, report: &report))
            }
            for note in machine.takeNotes() { report.note(note) }

            // The next page is asked for now, while this one is committed.
            var next: URL?
            switch transition {
            case .fail(let failure):
                throw failure.error(printable: client.printable).redacted(by: client.redactor).located(resource: resource.name, pageURL: pageURL)
            case .fetch(let url):
                next = url
                pending = reader.start(url, tag: checkpoint.pageTags[url.absoluteString], firstOfWalk: false)
            case .walkAgain(let url), .replayMore(let url):
                pending = reader.start(url, tag: checkpoint.pageTags[url.absoluteString], firstOfWalk: true)
            case .stop(let url):
                next = url
            case .complete, .verifyFirstPage:
                break
            }
            try stager?.stage(page.exchange.response, url: url, next: next, fetcher: client)
            if !page.decoded.notModified, let etag = page.exchange.response.headers["etag"],
                checkpoint.pageTags.count < SyncCheckpoint.maximumPageTags
            {
                checkpoint.pageTags[url.absoluteString] = SyncCheckpoint.PageTag(etag: etag, next: next?.absoluteString)
            }

            report.pages += 1
            report.records += page.records.count
            checkpoint.totalPages += 1
            checkpoint.totalRecords += page.records.count
            checkpoint.lastRun?.pages += 1
            checkpoint.lastRun?.records += page.records.count
            checkpoint.walk = machine.walk
            checkpoint.watermark = machine.watermark
            switch transition {
            case .stop:
                checkpoint.lastRun?.status = .stopped
                checkpoint.lastRun?.finishedAt = SyncInstant(clock.now())
                report.stoppedAtMaxPages = staged == nil
            case .walkAgain:
                report.walksCompleted += 1
            case .complete, .replayMore:
                report.walksCompleted += 1
                if case .complete = transition {
                    checkpoint.pageTags = checkpoint.pageTags.filter { machine.allURLs.contains($0.key) }
                    checkpoint.lastRun?.status = .completed
                    checkpoint.lastRun?.finishedAt = SyncInstant(clock.now())
                }
            default:
                break
            }

            // Commit the page's objects with the checkpoint.
            do {
                let changed = try commit(
                    page.records, page: page.decoded, entity: entity, kinds: kinds, use: use, resource: resource,
                    checkpoint: &checkpoint, report: &report)
                if changed { report.pagesChanged += 1 }
            } catch {
                throw locate(error, resource: resource.name, pageURL: pageURL)
            }
            if transition.endsRun { break }
        }
        report.watermark = checkpoint.watermark?.text
        report.nextPage = checkpoint.walk?.next.map { client.redactor.redact($0) }
        guard checkpoint.walk == nil, let completion = machine.completion, fullScan, let identities else { return nil }
        return PendingDeletions(resource: resource, entity: entity, identities: identities, completion: completion, checkpoint: checkpoint)
    }

    /// The page reader of `resource`'s walks: the network through the client, or the staged pages.
    func pageReader(_ resource: ResourceConfiguration, identities: IdentityReader?, readsKeys: Bool) -> PageReader {
        let client = self.client
        let name = resource.name
        var reader = PageReader(
            resource: resource, planner: WalkPlanner(resource: resource, client: client),
            isParse: source.client.dialect == .parse, identities: identities, readsKeys: readsKeys,
            now: clock.now, fetch: { url, headers in try client.get(url, headers: headers, resource: name) },
            stagedHasMore: nil)
        if let staged {
            reader.fetch = { url, _ in try staged.next(for: name, requested: url).wait() }
            reader.stagedHasMore = { staged.hasMore(name) }
        }
        return reader
    }

    /// Whether the first page of a walk differs now from when the walk fetched it (asked
    /// with `If-None-Match` when it had an ETag: a 304 means unchanged).
    func firstPageChanged(_ first: FirstPage, resource: ResourceConfiguration, report: inout ResourceReport) throws -> Bool {
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
        return PageReader.digest(exchange.response.body) != first.digest
    }

    /// Writes one page: its objects (imported, or deleted for tombstones) and `checkpoint`,
    /// in one store transaction (nothing is kept in a dry run).
    /// - Returns: whether an object changed.
    func commit(
        _ records: [JSONValue], page: DecodedPage, entity: ResolvedEntity, kinds: Set<String>, use: PageUse,
        resource: ResourceConfiguration, checkpoint: inout SyncCheckpoint, report: inout ResourceReport
    ) throws -> Bool {
        var written = checkpoint
        defer { checkpoint = written }
        switch use {
        case .importing where !records.isEmpty:
            var importOptions = options.importOptions
            importOptions.reportsObjectIDs = false
            importOptions.dryRun = options.dryRun
            importOptions.deleteMissing = nil
            importOptions.origin = .sync
            var elements = JSONImportSource(array: records, in: page.recordsPath)
            let imported = try context.importObjects(from: &elements, entity: entity.name, options: importOptions) { session, imported in
                if imported.counts.values.contains(where: { $0.inserted + $0.updated + $0.deleted > 0 }) { written.lastRun?.pagesChanged += 1 }
                try record(written, of: resource, in: session)
            }
            report.add(imported, entityKinds: kinds)
            return imported.counts.values.contains { $0.inserted + $0.updated + $0.deleted > 0 }
        case .tombstones(let identities) where !records.isEmpty:
            let doomed = try context.fetch(entity.name, identities: records.compactMap(identities.identity(of:)))
            for object in doomed { try context.delete(object) }
            if !doomed.isEmpty { written.lastRun?.pagesChanged += 1 }
            report.counts.deleted += doomed.count
            if options.dryRun {
                context.rollback()
            } else {
                try context.save(origin: .sync) { session in try record(written, of: resource, in: session) }
            }
            return !doomed.isEmpty
        default:
            if !options.dryRun { try context.store.write { session in try record(written, of: resource, in: session) } }
            return false
        }
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
