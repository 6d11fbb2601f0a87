import Foundation
import Trellis
import TrellisSync

/// What `trellis sync` prints: per resource, pages and objects, or (`--status`) checkpoints.
enum SyncSummary {
    /// ```
    /// heroes → Hero: 26 pages (26 changed, 0 not modified), 2500 records; inserted 2500, updated 0, unchanged 0, deleted 0
    ///   watermark 2024-01-01T00:00:03.499Z (id h00042); walk complete
    /// ```
    static func text(_ report: SyncReport, store: String) -> String {
        var text = report.isDryRun ? "dry run: nothing was written to \(store)\n" : ""
        if let push = report.push { text += self.text(push) }
        for r in report.resources {
            text +=
                "\(r.name) → \(r.entity ?? "?"): \(r.pages) page\(r.pages == 1 ? "" : "s") (\(r.pagesChanged) changed, "
                + "\(r.pagesNotModified) not modified), \(r.records) record\(r.records == 1 ? "" : "s"); \(r.counts)\n"
            for (entity, c) in r.relatedCounts.sorted(by: { $0.key < $1.key }) { text += "  \(entity): \(c)\n" }
            var line = "  watermark \(r.watermark ?? "none")"
            if let next = r.nextPage {
                line += r.stoppedAtMaxPages ? "; stopped by --max-pages, next page \(next)" : "; next page \(next)"
            } else {
                line += "; walk complete"
            }
            text += line + "; \(r.requests) request\(r.requests == 1 ? "" : "s"), \(r.retries) retr\(r.retries == 1 ? "y" : "ies")\n"
            for note in r.diagnostics { text += "  note: \(note)\n" }
        }
        return text
    }

    /// ```
    /// push: 7 operations sent in 4 batches (8 requests); acknowledged 5, retried 0, reconciled 0, resent 0, conflicts 1 (serverWins 1), rejected 1
    ///   Hero h00001 update rejected: 142 name is invalid
    ///   Hero h00002 update overridden: overridden by the server's copy (updatedAt …); local fields name not sent
    /// ```
    static func text(_ push: PushReport) -> String {
        let byPolicy = push.conflictsByPolicy.summary
        var text =
            "push: \(push.sent) operation\(push.sent == 1 ? "" : "s") sent in \(push.batches) batch\(push.batches == 1 ? "" : "es") "
            + "(\(push.requests) request\(push.requests == 1 ? "" : "s")); acknowledged \(push.acknowledged), retried \(push.retried), "
            + "reconciled \(push.reconciled), resent \(push.resent), conflicts \(push.conflicts)\(byPolicy.isEmpty ? "" : " (\(byPolicy))"), "
            + "rejected \(push.rejected)\n"
        for problem in push.problems.prefix(100) { text += "  \(problem)\n" }
        for change in push.overridden.prefix(100) {
            text += "  \(change.entity)\(change.serverIdentity.map { " \($0)" } ?? "") \(change.operation.rawValue) overridden: \(change.message)\n"
        }
        if push.overridden.count > 100 { text += "  … and \(push.overridden.count - 100) more overridden changes\n" }
        if push.problems.count > 100 { text += "  … and \(push.problems.count - 100) more rows left in the outbox\n" }
        return text
    }

    /// ``SyncReport/json`` on one line; with a dry run's plan, `"plannedPush": {"requests":
    /// [{"method", "url", "body", "operations"}], "waiting": N}`.
    static func json(_ report: SyncReport, plan: (requests: [PlannedRequest], waiting: Int)? = nil) -> String {
        var json = report.json
        if let plan, case .object(var object) = json {
            let requests: [JSONValue] = plan.requests.map { r in
                [
                    "method": .string(r.method), "url": .string(r.url), "body": r.body.map(JSONValue.string) ?? .null,
                    "operations": .number(JSONNumber(Int64(r.operations))),
                ]
            }
            object.append(key: "plannedPush", value: ["requests": .array(requests), "waiting": .number(JSONNumber(Int64(plan.waiting)))])
            json = .object(object)
        }
        return ((try? JSONWriter.string(for: json)) ?? "{}") + "\n"
    }

    /// ```
    /// push (dry run, nothing sent): 2 requests now, 1 operation waits for a later round
    ///   POST http://127.0.0.1:1337/parse/batch {"requests":[…]}
    /// ```
    static func text(_ plan: (requests: [PlannedRequest], waiting: Int)) -> String {
        var text =
            "push (dry run, nothing sent): \(plan.requests.count) request\(plan.requests.count == 1 ? "" : "s") now, "
            + "\(plan.waiting) operation\(plan.waiting == 1 ? "" : "s") wait\(plan.waiting == 1 ? "s" : "") for a later round or cannot be pushed\n"
        for request in plan.requests { text += "  \(request)\n" }
        return text
    }

    /// ```
    /// outbox of heroes → Hero: 3 pending (create 0, update 2, delete 1; oldest 2026-…Z), 0 sending, 0 uncertain, 0 conflicts, 1 rejected
    ///   Hero h00002 update rejected: 142 name is invalid
    /// ```
    static func text(_ outbox: OutboxStatus) -> String {
        var text = ""
        for r in outbox.resources + (outbox.notPushable.map { [$0] } ?? []) {
            let name = r.name.map { "\($0) → \(r.entity ?? "?")" } ?? "entities no push section covers"
            text +=
                "outbox of \(name): \(r.pending) pending (create \(r.pendingCreates), update \(r.pendingUpdates), delete \(r.pendingDeletes)"
                + (r.oldestPending.map { "; oldest \(SyncInstant($0).rfc3339)" } ?? "") + "), \(r.sending) sending, \(r.uncertain) uncertain, "
                + "\(r.conflicts) conflict\(r.conflicts == 1 ? "" : "s"), \(r.rejected) rejected\n"
            for problem in r.problems.prefix(100) { text += "  \(problem)\n" }
        }
        return text
    }

    /// ```
    /// heroes → Hero: last run completed (started 2024-…Z, finished …Z): 26 pages (26 changed), 2500 records
    ///   watermark 2024-01-01T00:00:03.499Z (id h00042); no pending page
    ///   in all: 26 pages, 2500 records
    /// ```
    static func text(_ statuses: [ResourceStatus], store: String) -> String {
        var text = ""
        for s in statuses {
            let c = s.checkpoint
            text += "\(s.name) → \(s.entity ?? "?"): "
            if let run = c.lastRun {
                let status = run.status == .running ? "running or interrupted" : run.status.rawValue
                text += "last run \(status) (started \(run.startedAt.rfc3339)"
                if let finished = run.finishedAt { text += ", finished \(finished.rfc3339)" }
                text += "): \(run.pages) page\(run.pages == 1 ? "" : "s") (\(run.pagesChanged) changed), \(run.records) records\n"
                if let message = run.message { text += "  error: \(message)\n" }
            } else {
                text += "never synced into \(store)\n"
            }
            text += "  watermark \(c.watermark?.description ?? "none"); "
            text += c.walk?.next.map { "pending next page \($0)" } ?? "no pending page"
            text += "\n  in all: \(c.totalPages) pages, \(c.totalRecords) records\n"
            if let lease = s.lease {
                if let holder = lease.holder, let expires = lease.expiresAt {
                    let state = expires < Date() ? "expired" : "until"
                    text += "  leased by worker \(holder) (\(state) \(SyncInstant(expires).rfc3339))\n"
                }
                if let finished = lease.finishedAt {
                    text += "  last finished by worker \(lease.finishedBy ?? "?") at \(SyncInstant(finished).rfc3339)\n"
                }
            }
        }
        return text
    }

    /// `{"resources": [ResourceStatus.json…], "outbox": OutboxStatus.json}` on one line (`outbox` when known).
    static func json(_ statuses: [ResourceStatus], outbox: OutboxStatus? = nil) -> String {
        var object: JSONObject = ["resources": .array(statuses.map(\.json))]
        if let outbox { object.append(key: "outbox", value: outbox.json) }
        return ((try? JSONWriter.string(for: .object(object))) ?? "{}") + "\n"
    }
}
