import Foundation
import Trellis

/// Full-scan deletions: after a completed walk, the stored objects of the entity that the
/// source no longer has are deleted, in one transaction with the checkpoint.
///
/// - The identities the source has come from the walk itself when it was a full walk begun
///   in this run; otherwise (an incremental walk sees only what changed) from a scan of the
///   whole resource that reads identities only (Parse: `keys=objectId,updatedAt`, keyset
///   paged; others: the walk without its incremental start). Nothing is imported by a scan.
/// - Positional walks (offset, page numbers, links) can skip a record when one before it
///   vanishes mid-walk; the candidates they find are confirmed by a second scan, and only
///   those missing from both are deleted. A walk whose pages kept shifting, a walk resumed
///   from an earlier run (its first pages are not in this run's memory), a walk stopped by
///   `--max-pages` and a replay delete nothing.
/// - More than `maxFraction` of the stored objects is refused (``SyncError/Code/deletionRefused``)
///   unless ``SyncOptions/full``.
/// - Placeholders (objects known only by an identifier) are never deleted by a scan.
extension Synchronizer {
    func deleteMissing(_ resource: ResourceConfiguration, entity: ResolvedEntity, identities: IdentityReader?,
                       memory: Synchronizer.WalkMemory, checkpoint: inout SyncCheckpoint, report: inout ResourceReport) throws {
        guard case .fullScan(let maxFraction) = resource.deletions, let identities else { return }
        guard staged == nil else {
            report.note("full-scan deletions are not replayed (their scans were not staged)")
            return
        }
        guard memory.settled else {
            report.note("no deletions: the pages kept shifting while walking")
            return
        }
        if memory.completedWalk?.resumed == true {
            report.note("no deletions: the walk began in an earlier run; the next full walk deletes")
            return
        }
        let planner = WalkPlanner(resource: resource, client: client)
        var seen: Set<[AttributeValue]>
        if let fromWalk = memory.seenInCompletedWalk {
            seen = fromWalk
        } else {
            seen = try scan(resource, planner: planner, identities: identities, report: &report)
        }
        let stored = try storeRead { session in
            try session.fetch(entity: entity.name, matching: nil).filter { !$0.isPlaceholder }
        }
        var candidates = stored.filter { snapshot in
            guard let identity = identities.identity(of: snapshot, model: context.model) else { return false }
            return !seen.contains(identity)
        }
        if !candidates.isEmpty, resource.paginator.isPositional {
            let again = try scan(resource, planner: planner, identities: identities, report: &report)
            candidates = candidates.filter { identities.identity(of: $0, model: context.model).map { !again.contains($0) } ?? false }
        }
        guard !candidates.isEmpty else { return }
        if Double(candidates.count) > maxFraction * Double(stored.count), !options.full {
            throw SyncError(.deletionRefused, message: "the full scan would delete \(candidates.count) of \(stored.count) stored \(entity.name) objects, "
                                + "more than maxFraction (\(SourceFields.format(maxFraction))); nothing was deleted: run with --full to confirm",
                            resource: resource.name, entity: entity.name)
        }
        var doomed: [ManagedObject] = []
        for snapshot in candidates {
            if let object = try context.object(with: snapshot.id) { doomed.append(object) }
        }
        for object in doomed { try context.delete(object) }
        report.counts.deleted += doomed.count
        checkpoint.lastRun?.finishedAt = SyncInstant(clock.now())
        if options.dryRun {
            context.rollback()
            return
        }
        let written = checkpoint
        try context.save { session in try written.write(resource: resource.name, in: session) }
    }

    /// The identities of every record of the resource, walking it from the start without
    /// importing (a Parse scan asks for the identity and the stamp only).
    func scan(_ resource: ResourceConfiguration, planner: WalkPlanner, identities: IdentityReader,
              report: inout ResourceReport) throws -> Set<[AttributeValue]> {
        var seen = Set<[AttributeValue]>()
        var urls = Set<String>()
        var url = try planner.firstURL(start: nil, keysOnly: resource.paginator == .parse)
        var pending = client.start(url, resource: resource.name)
        while true {
            let pageURL = client.printable(url)
            do {
                let exchange = try pending.wait()
                report.requests += exchange.attempts
                report.retries += exchange.attempts - 1
                urls.insert(url.absoluteString)
                let page = try PageDecoder.decode(exchange.response, records: resource.records)
                guard !page.notModified else { throw SyncError(.httpStatus, message: "HTTP 304 to an unconditional request", status: 304) }
                let next = try planner.nextURL(after: url, response: exchange.response, body: page.body, records: page.records,
                                               recordsPath: page.recordsPath)
                if let next, urls.contains(next.absoluteString) {
                    throw SyncError(.paginationLoop, message: "the next page \(client.printable(next)) was already fetched in this scan")
                }
                if let next { pending = client.start(next, resource: resource.name) }
                var remarks: [ParseDialect.Remark] = []
                for (i, record) in page.records.enumerated() {
                    var record = record
                    if source.client.dialect == .parse,
                       let converted = ParseDialect.convert(record, at: page.recordsPath.appending(index: i), remarks: &remarks) {
                        record = converted
                    }
                    if let identity = identities.identity(of: record) { seen.insert(identity) }
                }
                guard let next else { return seen }
                url = next
            } catch {
                throw locate(error, resource: resource.name, pageURL: pageURL)
            }
        }
    }
}
