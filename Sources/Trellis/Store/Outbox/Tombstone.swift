import Foundation

/// One row of a store's tombstones (`trellis_tombstones`): a local delete the server
/// acknowledged, kept so that a pull whose page still holds the object (a lagging replica, a
/// cached page, an incremental walk that started before the delete) does not bring it back
/// (issue 23, point 7).
///
/// The pusher writes it in the transaction that records the acknowledgement and removes the
/// delete's outbox row: after a crash there is either the outbox row (the delete is sent
/// again, or found gone) or the tombstone, never neither. ``PullGuard`` drops a pulled object
/// whose identity (in the same entity hierarchy) has a tombstone unless the object's stamp is
/// after ``stamp`` (the server created it again); the sync removes tombstones once a resource's
/// watermark passes their stamp.
public struct Tombstone: Sendable, Hashable {
    /// The deleted object's entity (a pull matches any entity of its hierarchy).
    public var entityName: String
    /// The deleted object's identity as the server knows it, as ``OutboxEntry/serverIdentity``
    /// spells it (a JSON array of the identity attributes' values: `["h00042"]`).
    public var serverIdentity: JSONValue
    /// When the server deleted the object, as RFC 3339 text (`2024-01-01T02:46:40.007Z`): the
    /// answer's stamp when it carries one, else the answer's `Date` header (to the second), else
    /// the instant this side recorded the acknowledgement.
    public var stamp: String
    /// When this side recorded the acknowledgement, to the millisecond.
    public var acknowledgedAt: Date

    public init(entityName: String, serverIdentity: JSONValue, stamp: String, acknowledgedAt: Date) {
        self.entityName = entityName
        self.serverIdentity = serverIdentity
        self.stamp = stamp
        self.acknowledgedAt = acknowledgedAt
    }

    /// ``serverIdentity`` as stored (compact JSON, as ``OutboxEntry/serverIdentityText``).
    public var serverIdentityText: String {
        (try? JSONWriter.string(for: serverIdentity)) ?? "null"
    }

    /// `acknowledgedAt` as stored: milliseconds since 1970.
    public var acknowledgedAtMilliseconds: Int64 { Int64((acknowledgedAt.timeIntervalSince1970 * 1000).rounded()) }

    /// Whether a pulled object whose stamp attribute (of `type`) holds `incoming` was stamped
    /// by the server after this tombstone: a date or string attribute compares the instants
    /// (RFC 3339, ISO 8601), a number attribute the numbers. nil when the two cannot be
    /// compared (no stamp, an ETag): the tombstone holds.
    public func isOlder(than incoming: AttributeValue?, type: AttributeType) -> Bool? {
        guard let incoming else { return nil }
        switch type {
        case .date, .string:
            func date(_ value: AttributeValue) -> Date? {
                if case .date(let d) = value { return d }
                guard case .string(let text) = value, case .date(let d)? = try? JSONCoercion.value(from: .string(text), as: .date) else { return nil }
                return d
            }
            guard let a = date(.string(stamp)), let b = date(incoming) else { return nil }
            return a < b
        case .integer16, .integer32, .integer64, .decimal, .double, .float:
            guard let a = Decimal(string: stamp), case .number(let n) = JSONCoercion.json(from: incoming, as: type),
                let b = Decimal(string: n.text)
            else { return nil }
            return a < b
        default:
            return nil
        }
    }

    /// A date as ``stamp`` holds it: RFC 3339 UTC with milliseconds (`2024-01-01T00:00:00.000Z`).
    public static func stampText(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
