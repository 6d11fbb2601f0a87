import Foundation
import Trellis

extension Synchronizer {
    /// Sends the store's outbox (the local changes ``ObjectContext`` saves of origin
    /// ``ChangeOrigin/local`` recorded) to the API, through the resources whose source
    /// sections have a `push` section; `trellis sync` runs it before the pull.
    ///
    ///     let report = try Synchronizer(source: source, context: context).push()
    ///     report.acknowledged     // operations the server confirmed (their rows are gone)
    ///     report.problems         // rejected, in conflict, not pushable: kept in the outbox
    ///
    /// Every local change reaches the server exactly once, whatever fails and wherever the
    /// process is killed (`docs/Sync.md`, "Pushing local changes"): rows are marked `sending`
    /// in one transaction before a request, each answer is recorded in one transaction, and a
    /// create whose answer was lost is reconciled by its create key before anything else is sent.
    /// The server's identity and stamps are written into the pushed objects as origin
    /// ``ChangeOrigin/sync``, so the next pull finds them unchanged and nothing is pushed again.
    ///
    /// - Returns: the counts, and the rows left in the outbox with why (``PushReport/problems``).
    /// - Throws: ``SyncError`` (see ``Pusher``'s cases: `.pushRefused`, `.transport`,
    ///   `.httpStatus`, `.malformedResponse`, `.invalidValue` for a push section the sending
    ///   does not cover, `.store`); what was recorded before stays recorded.
    public func push() throws -> PushReport {
        let pusher = try Pusher(synchronizer: self)
        do {
            let report = try pusher.run()
            lastReport.push = report
            return report
        } catch {
            var partial = pusher.report
            partial.problems = (try? pusher.problems()) ?? []
            lastReport.push = partial
            throw error
        }
    }

    /// The push rules a context saving local changes for this source should use: the entities
    /// of the resources with a `push` section are the pushable ones (``PushRules``).
    public var pushRules: PushRules {
        let names = source.resources.compactMap { $0.push != nil ? $0.entity : nil }
        return PushRules(pushableEntities: Set(names))
    }
}
