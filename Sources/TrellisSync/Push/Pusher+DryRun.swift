import Foundation
import Trellis

/// A request a push would send (`trellis sync --dry-run`): secrets replaced by `***`.
public struct PlannedRequest: Sendable, Equatable, CustomStringConvertible {
    public var method: String
    /// The URL, redacted.
    public var url: String
    /// The JSON body, redacted (nil for a `DELETE`).
    public var body: String?
    /// The outbox operations it carries.
    public var operations: Int

    public init(method: String, url: String, body: String?, operations: Int) {
        self.method = method
        self.url = url
        self.body = body
        self.operations = operations
    }

    /// `POST http://127.0.0.1:1337/parse/batch {"requests":[…]}`.
    public var description: String { "\(method) \(url)" + (body.map { " \($0)" } ?? "") }
}

extension Pusher {
    /// The requests of the next round, built as a push would build them but in a read session:
    /// nothing is marked, assigned or sent. A `clientId` create shows no objectId (one is
    /// assigned when it is sent); a `requestId` create's header is not shown.
    /// - Returns: the requests, and how many rows wait (for a later round, or are not pushable).
    func plannedRequests() throws -> (requests: [PlannedRequest], waiting: Int) {
        let batches = try planRound()
        let total = try read { try $0.outboxEntries() }.count
        var requests: [PlannedRequest] = []
        var planned = 0
        for batch in batches {
            let prepared: [Operation] = try read { session in
                let snapshots = try fetchWithDestinations(batch.filter { $0.row.operation != .delete }.map(\.row.object), session: session)
                return batch.compactMap { operation in
                    var operation = operation
                    if operation.row.operation == .delete {
                        operation.objectId = identityText(operation.row.serverIdentity)
                        return operation
                    }
                    guard let snapshot = snapshots[operation.row.object] else { return nil }
                    operation.objectId = snapshot.attributes[operation.target.objectIdIndex].map(identityText)
                    operation.body = self.body(of: operation, snapshot: snapshot, snapshots: snapshots)
                    return operation
                }
            }
            guard !prepared.isEmpty else { continue }
            let (method, url, body, _) = try request(for: prepared)
            planned += prepared.count
            requests.append(
                PlannedRequest(
                    method: method, url: client.printable(url),
                    body: body.map { client.redactor.redact(String(decoding: $0, as: UTF8.self)) },
                    operations: prepared.count))
        }
        return (requests, total - planned)
    }
}

extension Synchronizer {
    /// The requests a push would send now (its first round), secrets redacted, and how many
    /// outbox rows wait for a later round or cannot be pushed; nothing is written or sent
    /// (`trellis sync --dry-run`).
    /// - Throws: ``SyncError`` `.invalidValue` (a push section the sending does not cover), `.store`.
    public func plannedPush() throws -> (requests: [PlannedRequest], waiting: Int) {
        try Pusher(synchronizer: self).plannedRequests()
    }
}
