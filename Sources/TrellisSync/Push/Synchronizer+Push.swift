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
    /// A change made on a base the server moved past (its stamp or ETag, never this device's
    /// clock) is settled by the resource's `conflicts.policy`, an update of an object the
    /// server deleted by `remoteDeletes` (`docs/Sync.md`, "Conflicts"; ``resolveConflict(entity:serverIdentity:take:)``
    /// settles what `manual` leaves).
    ///
    /// - Returns: the counts (``PushReport/conflictsByPolicy`` among them), the rows left in the
    ///   outbox with why (``PushReport/problems``), and the local changes conflicts settled
    ///   against (``PushReport/overridden``).
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
    /// of the resources with a `push` section are the pushable ones, and a section's `stamp`
    /// names its entity's stamp attribute (``PushRules``).
    public var pushRules: PushRules {
        let names = source.resources.compactMap { $0.push != nil ? $0.entity : nil }
        var stamps: [String: String] = [:]
        for resource in source.resources {
            if let entity = resource.entity, let stamp = resource.push?.stamp { stamps[entity] = stamp }
        }
        return PushRules(pushableEntities: Set(names), stampAttributes: stamps)
    }
}

/// Which side settles a conflict left for the user (`conflicts.policy: manual`):
/// `trellis sync SOURCE --resolve ENTITY:ID --take local|server`.
public enum ConflictResolution: String, Sendable, Hashable, CaseIterable {
    /// The local change is sent again, on the server's current stamp (a write by anyone else
    /// meanwhile is a new conflict); an object the server deleted is created again.
    case local
    /// The server's copy is written into the object (origin sync) and the change dropped; an
    /// object the server deleted is deleted here too.
    case server
}

extension Synchronizer {
    /// Settles the `conflict` rows a `manual` policy left for one object, after one read of the
    /// server's copy (`GET classes/X?where={"objectId":{"$in":[ID]}}`); the next
    /// ``push()`` sends what `.local` put back.
    ///
    ///     try synchronizer.resolveConflict(entity: "Hero", serverIdentity: "h00042", take: .server)
    ///     let report = try synchronizer.push()
    ///
    /// - Parameters:
    ///   - entity: the object's entity (or one in its hierarchy) as the model names it.
    ///   - serverIdentity: the object's server identity (its `objectId`).
    ///   - take: `.local` puts the rows back to `pending` with the server's current stamp as
    ///     their base (an object the server deleted becomes a create of every field);
    ///     `.server` writes the server's copy into the object and removes the rows (an object
    ///     the server deleted is deleted here, by the model's delete rules).
    /// - Returns: the number of outbox rows settled (1 unless later edits of the object were
    ///   recorded behind the conflict), with ``Synchronizer/lastReport``'s `push.overridden`
    ///   listing the changes `.server` dropped.
    /// - Throws: ``SyncError`` `.invalidValue` when no push section covers `entity` or the
    ///   outbox holds no conflict of the object (the message lists the conflicts it holds);
    ///   `.pushBusy` while another push holds the store; `.transport`, `.httpStatus`,
    ///   `.malformedResponse` from the read of the server's copy (nothing is changed then); `.store`.
    @discardableResult
    public func resolveConflict(entity: String, serverIdentity: String, take: ConflictResolution) throws -> Int {
        let pusher = try Pusher(synchronizer: self)
        let count = try pusher.resolve(entity: entity, serverIdentity: serverIdentity, take: take)
        lastReport.push = pusher.report
        return count
    }
}
