import Foundation
import Trellis

/// One pusher per store (issue 23, point 8): a lease kept in the store's metadata under
/// `push/lease` (`{"holder": "host:pid", "expiresAt": milliseconds since 1970}`), taken in a
/// write transaction that first locks the scope `push` exclusively (PostgreSQL: the
/// `trellis_locks` row, `FOR UPDATE`; SQLite's writers are serialised anyway), renewed in the
/// transaction that marks each batch `sending`, released at the end of the push.
///
/// A second push while the lease is held and not expired is refused with the holder's name and
/// the lease's end (``SyncError/Code/pushBusy``); a holder of this machine whose process is gone
/// (``Lease/isDeadLocalHolder(_:)``) is taken over at once, any other one once its lease expired.
/// Only the holder turns the `sending` rows a killed push left into `uncertain` ones, so a second
/// pusher can never take a live push's requests for lost ones.
struct PushLease {
    static let key = "push/lease"
    let holder: String
    /// How long the lease lasts unless renewed, in seconds.
    let seconds: Double

    /// `{"holder", "expiresAt"}` as stored.
    struct Record: Equatable {
        var holder: String
        var expiresAt: Date

        init(holder: String, expiresAt: Date) {
            self.holder = holder
            self.expiresAt = expiresAt
        }

        init?(text: String) {
            guard let json = try? JSONReader.parse(text), let holder = json["holder"]?.stringValue,
                let milliseconds = json["expiresAt"]?.int64Value
            else { return nil }
            self.init(holder: holder, expiresAt: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        }

        var text: String {
            let milliseconds = Int64((expiresAt.timeIntervalSince1970 * 1000).rounded())
            return (try? JSONWriter.string(for: ["holder": .string(holder), "expiresAt": .number(JSONNumber(milliseconds))])) ?? ""
        }
    }

    /// Takes the lease, or throws `.pushBusy` naming its holder.
    func take(in session: any StoreSession, now: Date) throws {
        try session.lock(scope: "push", exclusive: true)
        if let current = try session.metadataValue(forKey: Self.key).flatMap(Record.init(text:)), current.holder != holder,
            current.expiresAt > now, !Lease.isDeadLocalHolder(current.holder)
        {
            throw SyncError(
                .pushBusy,
                message: "another push is sending this store's changes: \(current.holder) holds the push lease until "
                    + "\(SyncInstant(current.expiresAt).rfc3339) (renewed with every batch); run again once it is done")
        }
        try session.setMetadataValue(Record(holder: holder, expiresAt: now.addingTimeInterval(seconds)).text, forKey: Self.key)
    }

    /// Renews the lease, or throws `.leaseLost` when another pusher took it over (this one's
    /// lease expired): the transaction rolls back, nothing more is sent.
    func renew(in session: any StoreSession, now: Date) throws {
        try session.lock(scope: "push", exclusive: true)
        let current = try session.metadataValue(forKey: Self.key).flatMap(Record.init(text:))
        if let current, current.holder != holder {
            throw SyncError(.leaseLost, message: "this push's lease expired and \(current.holder) took the store's push over")
        }
        try session.setMetadataValue(Record(holder: holder, expiresAt: now.addingTimeInterval(seconds)).text, forKey: Self.key)
    }

    /// Frees the lease if this pusher still holds it.
    func release(in session: any StoreSession) throws {
        try session.lock(scope: "push", exclusive: true)
        if try session.metadataValue(forKey: Self.key).flatMap(Record.init(text:))?.holder == holder {
            try session.setMetadataValue(nil, forKey: Self.key)
        }
    }
}
