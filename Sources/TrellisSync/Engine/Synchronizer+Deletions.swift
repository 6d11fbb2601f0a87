import Foundation
import Trellis

/// What a completed walk of a full-scanning resource leaves to decide: which stored objects
/// the source no longer has.
struct PendingDeletions {
    var resource: ResourceConfiguration
    var entity: ResolvedEntity
    var identities: IdentityReader
    var completion: WalkMachine.Completion
    /// The checkpoint as the walk's last page committed it.
    var checkpoint: SyncCheckpoint
}

/// Full-scan deletions: after a completed walk, the stored objects of the resource's scope
/// that the source no longer has are deleted, in one transaction with the checkpoint.
///
/// - The identities the source has come from the walk itself when it was a full walk begun
///   in this run that read every page; otherwise (an incremental walk sees only what
///   changed, a resumed walk's first pages were read by an earlier run, a `304` page's records
///   are not read) from a **scan** of the whole resource that reads identities only (Parse:
///   `keys=objectId,updatedAt`, keyset paged; others: the walk without its incremental
///   start). Nothing is imported by a scan.
/// - Only a walk (and a scan) whose end proves it saw the whole resource decides deletions
///   (``EndEvidence/provesCompleteness``): not a short page, the paginator's `maxPages`, or
///   a stale streak.
/// - Positional walks (offset, page numbers, links) can skip a record when one before it
///   vanishes mid-walk; the candidates they find are confirmed by a second scan, and only
///   those missing from both are deleted. A walk whose pages kept shifting, a walk stopped
///   by `--max-pages` and a replay delete nothing.
/// - The stored objects considered are the resource's `scope` (a predicate), or every
///   object of the entity; more than `maxFraction` of them is refused
///   (``SyncError/Code/deletionRefused``) unless ``SyncOptions/full``.
/// - Placeholders (objects known only by an identifier) are never deleted by a scan.
extension Synchronizer {
    func deleteMissing(_ pending: PendingDeletions, report: inout ResourceReport) throws {
        let resource = pending.resource
        let entity = pending.entity
        let identities = pending.identities
        guard case .fullScan(let maxFraction, let scope) = resource.deletions else { return }
        guard staged == nil else {
            report.note("full-scan deletions are not replayed (their scans were not staged)")
            return
        }
        guard pending.completion.settled else {
            report.note("no deletions: the pages kept shifting while walking")
            return
        }
        guard pending.completion.evidence.provesCompleteness else {
            report.note("no deletions: the walk ended on \(pending.completion.evidence.phrase), which does not prove it saw the whole resource")
            return
        }
        var seen: Set<[AttributeValue]>
        if let fromWalk = pending.completion.identities {
            seen = fromWalk
        } else {
            guard let scanned = try scan(resource, identities: identities, report: &report) else { return }
            seen = scanned
        }
        let stored: [ObjectSnapshot]
        do {
            let request = ObjectFetchRequest(entity: entity.name, predicate: try scope.map { try ObjectPredicate(format: $0) })
            let resolved = try request.resolved(in: context.model)
            stored = try storeRead { session in try session.fetch(resolved).filter { !$0.isPlaceholder } }
        } catch let error as QueryError {
            throw SyncError(
                .invalidValue, message: "the deletions scope \(JSONWriter.quoted(scope ?? "")) does not fit entity \(entity.name): \(error)",
                resource: resource.name, entity: entity.name)
        }
        var candidates = stored.filter { snapshot in
            guard let identity = identities.identity(of: snapshot, model: context.model) else { return false }
            return !seen.contains(identity)
        }
        if !candidates.isEmpty, resource.paginator.isPositional {
            guard let again = try scan(resource, identities: identities, report: &report) else { return }
            candidates = candidates.filter { identities.identity(of: $0, model: context.model).map { !again.contains($0) } ?? false }
        }
        guard !candidates.isEmpty else { return }
        let what = scope.map { "stored \(entity.name) objects of its scope (\($0))" } ?? "stored \(entity.name) objects"
        if Double(candidates.count) > maxFraction * Double(stored.count), !options.full {
            throw SyncError(
                .deletionRefused,
                message: "the full scan would delete \(candidates.count) of \(stored.count) \(what), "
                    + "more than maxFraction (\(SourceFields.format(maxFraction))); nothing was deleted: run with --full to confirm",
                resource: resource.name, entity: entity.name)
        }
        let doomed = try context.objects(with: candidates.map(\.id))
        for object in doomed { try context.delete(object) }
        report.counts.deleted += doomed.count
        var checkpoint = pending.checkpoint
        checkpoint.lastRun?.finishedAt = SyncInstant(clock.now())
        if options.dryRun {
            context.rollback()
            return
        }
        let written = checkpoint
        try context.save(origin: .sync) { session in try record(written, of: resource, in: session) }
    }

    /// The identities of every record of the resource, walking it from the start without
    /// importing (a Parse scan asks for the identity and the stamp only), by the same rules as
    /// a walk (``WalkMachine``, purpose `scan`); nil, with a diagnostic, when the scan's end
    /// does not prove it saw the whole resource.
    func scan(_ resource: ResourceConfiguration, identities: IdentityReader, report: inout ResourceReport) throws -> Set<[AttributeValue]>? {
        var configuration = WalkMachine.Configuration(
            resource: resource, planner: WalkPlanner(resource: resource, client: client),
            origins: client.origins)
        configuration.purpose = .scan
        configuration.needsCompleteness = true
        var machine: WalkMachine
        do {
            machine = try WalkMachine(configuration, checkpoint: SyncCheckpoint(), resuming: false)
        } catch {
            throw locate(error, resource: resource.name)
        }
        let reader = pageReader(resource, identities: identities, readsKeys: PageReader.readsKeys(resource.paginator))
        var pending = reader.start(machine.firstURL, tag: nil, firstOfWalk: false)
        defer { _ = pending.wait() }  // as the walk's: no request of the scan outlives it
        while true {
            let page = try pending.wait().get()
            report.requests += page.exchange.attempts
            report.retries += page.exchange.attempts - 1
            guard !page.decoded.notModified else {
                throw SyncError(
                    .httpStatus, message: "HTTP 304 to an unconditional request", resource: resource.name,
                    pageURL: client.printable(page.url), status: 304)
            }
            let transition = machine.record(page.facts)
            for note in machine.takeNotes() { report.note("scan: " + note) }
            switch transition {
            case .fetch(let next):
                pending = reader.start(next, tag: nil, firstOfWalk: false)
            case .fail(let failure):
                throw failure.error(printable: client.printable).redacted(by: client.redactor).located(
                    resource: resource.name, pageURL: client.printable(page.url))
            case .complete(let evidence):
                guard evidence.provesCompleteness, let seen = machine.completion?.identities else {
                    report.note("no deletions: the scan ended on \(evidence.phrase), which does not prove it saw the whole resource")
                    return nil
                }
                return seen
            case .stop, .verifyFirstPage, .walkAgain, .replayMore:
                // A scan has no page limit, no first-page check and no replay.
                report.note("no deletions: the scan stopped early")
                return nil
            }
        }
    }

    /// Whether two entities share objects (one is the other, or one of its sub-entities):
    /// a full scan of one deletes the other's.
    func entitiesOverlap(_ a: String, _ b: String) -> Bool {
        guard let first = context.model.entity(named: a), let second = context.model.entity(named: b) else { return a == b }
        return first.kindNames.contains(b) || second.kindNames.contains(a)
    }
}
