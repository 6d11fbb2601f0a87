import Foundation
import Trellis

/// What a run did, per resource (`trellis sync --report json` prints ``json``).
public struct SyncReport: Sendable {
    /// One entry per resource synced, in source order.
    public var resources: [ResourceReport] = []
    /// Nothing was kept (``SyncOptions/dryRun``).
    public var isDryRun = false
    /// What the push before the pull did (nil: no push ran).
    public var push: PushReport?

    public init() {}

    /// The report of `name`, if it was synced.
    public func resource(_ name: String) -> ResourceReport? { resources.first { $0.name == name } }

    /// `{"dryRun": false, "resources": [{…}], "push": {…}}` (see ``ResourceReport/json``,
    /// ``PushReport/json``; `push` only when a push ran).
    public var json: JSONValue {
        var object: JSONObject = ["dryRun": .bool(isDryRun), "resources": .array(resources.map(\.json))]
        if let push { object.append(key: "push", value: push.json) }
        return .object(object)
    }
}

/// What a run did to one resource.
public struct ResourceReport: Sendable, Equatable {
    /// The resource's name and entity.
    public var name: String
    public var entity: String?
    /// Pages fetched (304s included), pages whose import changed an object (inserted,
    /// updated or deleted one), pages answered `304 Not Modified`.
    public var pages = 0
    public var pagesChanged = 0
    public var pagesNotModified = 0
    /// Records read from the pages.
    public var records = 0
    /// Objects of the resource's entity (placeholders and related objects are in
    /// ``relatedCounts``) inserted, updated, unchanged; deleted by full scans or tombstones.
    public var counts = ImportReport.Counts()
    /// Objects of other entities the pages touched (powers, publishers, placeholders), by entity.
    public var relatedCounts: [String: ImportReport.Counts] = [:]
    /// Walks that reached their last page in this run (a positional walk whose pages
    /// shifted is walked again: see `docs/Sync.md`).
    public var walksCompleted = 0
    /// The walk did not end: `--max-pages` stopped it (``nextPage`` is where it resumes).
    public var stoppedAtMaxPages = false
    /// The watermark after the run (the source's text), if any.
    public var watermark: String?
    /// The page a next run starts with, when the walk did not end.
    public var nextPage: String?
    /// HTTP requests made, retries among them.
    public var requests = 0
    public var retries = 0
    /// The worker that synced it (``SyncOptions/worker``), nil when not run as a worker.
    public var worker: String?
    /// The worker whose expired lease this run took over (it resumed from that worker's last
    /// committed page), if any.
    public var tookOverFrom: String?
    /// The run's lease expired and another worker took the resource over: the pages this
    /// run committed before stay, the rest are the other worker's.
    public var lostLease = false
    /// Things worth knowing that did not stop the run (Parse Relations skipped, unsettled
    /// walks, deletions skipped and why), at most 100.
    public var diagnostics: [String] = []

    public init(name: String, entity: String?) {
        self.name = name
        self.entity = entity
    }

    mutating func note(_ message: String) {
        if diagnostics.count < 100 { diagnostics.append(message) } else if diagnostics.count == 100 { diagnostics.append("more diagnostics left out") }
    }

    /// The report as JSON: `name`, `entity`, `pages`, `pagesChanged`, `pagesNotModified`,
    /// `records`, `inserted`, `updated`, `unchanged`, `deleted`, `related` (entity → counts),
    /// `walksCompleted`, `stoppedAtMaxPages`, `watermark`, `nextPage`, `requests`,
    /// `retries`, `diagnostics`; for a worker's run also `worker`, `tookOverFrom`, `lostLease`.
    public var json: JSONValue {
        var o = JSONObject()
        o.append(key: "name", value: .string(name))
        o.append(key: "entity", value: entity.map(JSONValue.string) ?? .null)
        o.append(key: "pages", value: JSONValue(pages))
        o.append(key: "pagesChanged", value: JSONValue(pagesChanged))
        o.append(key: "pagesNotModified", value: JSONValue(pagesNotModified))
        o.append(key: "records", value: JSONValue(records))
        o.append(key: "inserted", value: JSONValue(counts.inserted))
        o.append(key: "updated", value: JSONValue(counts.updated))
        o.append(key: "unchanged", value: JSONValue(counts.unchanged))
        o.append(key: "deleted", value: JSONValue(counts.deleted))
        var related = JSONObject()
        for (entity, c) in relatedCounts.sorted(by: { $0.key < $1.key }) {
            related.append(
                key: entity,
                value: [
                    "inserted": JSONValue(c.inserted), "updated": JSONValue(c.updated),
                    "unchanged": JSONValue(c.unchanged), "deleted": JSONValue(c.deleted),
                ])
        }
        o.append(key: "related", value: .object(related))
        o.append(key: "walksCompleted", value: JSONValue(walksCompleted))
        o.append(key: "stoppedAtMaxPages", value: .bool(stoppedAtMaxPages))
        o.append(key: "watermark", value: watermark.map(JSONValue.string) ?? .null)
        o.append(key: "nextPage", value: nextPage.map(JSONValue.string) ?? .null)
        o.append(key: "requests", value: JSONValue(requests))
        o.append(key: "retries", value: JSONValue(retries))
        o.append(key: "diagnostics", value: .array(diagnostics.map(JSONValue.string)))
        if let worker {
            o.append(key: "worker", value: .string(worker))
            o.append(key: "tookOverFrom", value: tookOverFrom.map(JSONValue.string) ?? .null)
            o.append(key: "lostLease", value: .bool(lostLease))
        }
        return .object(o)
    }

    /// Adds an import's counts: the entity's own to ``counts``, the rest to ``relatedCounts``.
    mutating func add(_ report: ImportReport, entityKinds: Set<String>) {
        for (entity, c) in report.counts {
            if entityKinds.contains(entity) {
                counts.inserted += c.inserted
                counts.updated += c.updated
                counts.unchanged += c.unchanged
                counts.deleted += c.deleted
            } else {
                var r = relatedCounts[entity] ?? ImportReport.Counts()
                r.inserted += c.inserted
                r.updated += c.updated
                r.unchanged += c.unchanged
                r.deleted += c.deleted
                relatedCounts[entity] = r
            }
        }
    }
}

/// A resource's checkpoint, as `trellis sync --status` prints it.
public struct ResourceStatus: Sendable {
    public var name: String
    public var entity: String?
    public var checkpoint: SyncCheckpoint
    /// The resource's lease row in a store that leases (``LeasingStore``), if it has one:
    /// which worker holds it, until when, and who finished it last.
    public var lease: Lease?

    public init(name: String, entity: String?, checkpoint: SyncCheckpoint, lease: Lease? = nil) {
        self.name = name
        self.entity = entity
        self.checkpoint = checkpoint
        self.lease = lease
    }

    /// `{"name", "entity", "lastRun": {status, startedAt, finishedAt, pages, pagesChanged,
    /// records, message} | null, "watermark": {text, id} | null, "nextPage": URL | null,
    /// "totalPages", "totalRecords"}`, plus `"lease": {holder, expiresAt, finishedAt,
    /// finishedBy}` where the store keeps one. A run still marked `running` (killed, or
    /// running now) has status `running`.
    public var json: JSONValue {
        var o = JSONObject()
        o.append(key: "name", value: .string(name))
        o.append(key: "entity", value: entity.map(JSONValue.string) ?? .null)
        if let run = checkpoint.lastRun {
            o.append(
                key: "lastRun",
                value: [
                    "status": .string(run.status.rawValue), "startedAt": .string(run.startedAt.rfc3339),
                    "finishedAt": run.finishedAt.map { .string($0.rfc3339) } ?? .null, "pages": JSONValue(run.pages),
                    "pagesChanged": JSONValue(run.pagesChanged), "records": JSONValue(run.records),
                    "message": run.message.map(JSONValue.string) ?? .null,
                ])
        } else {
            o.append(key: "lastRun", value: .null)
        }
        if let w = checkpoint.watermark {
            o.append(key: "watermark", value: ["text": .string(w.text), "id": w.tieBreaker.map(JSONValue.string) ?? .null])
        } else {
            o.append(key: "watermark", value: .null)
        }
        o.append(key: "nextPage", value: checkpoint.walk?.next.map(JSONValue.string) ?? .null)
        o.append(key: "totalPages", value: JSONValue(checkpoint.totalPages))
        o.append(key: "totalRecords", value: JSONValue(checkpoint.totalRecords))
        if let lease {
            o.append(
                key: "lease",
                value: [
                    "holder": lease.holder.map(JSONValue.string) ?? .null,
                    "expiresAt": lease.expiresAt.map { .string(SyncInstant($0).rfc3339) } ?? .null,
                    "finishedAt": lease.finishedAt.map { .string(SyncInstant($0).rfc3339) } ?? .null,
                    "finishedBy": lease.finishedBy.map(JSONValue.string) ?? .null,
                ])
        }
        return .object(o)
    }
}
