import Foundation
import Trellis

/// What one push (``Synchronizer/push()``) did: `trellis sync`'s `push` report field.
///
/// Counts are of outbox operations unless said otherwise; ``batches`` and ``requests`` count
/// HTTP requests. Every row the push could not settle is in ``problems``: nothing is dropped
/// without a report.
public struct PushReport: Sendable, Equatable {
    /// One outbox row left behind: rejected by the server, in conflict, not pushable, or
    /// waiting for an object that cannot be created.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var entity: String
        /// The object's server identity (`objectId`), nil before it was created.
        public var serverIdentity: String?
        public var operation: OutboxEntry.Operation
        public var state: OutboxEntry.State
        /// The server's message (`142 title is required`), or why it was not sent.
        public var message: String

        public init(entity: String, serverIdentity: String?, operation: OutboxEntry.Operation, state: OutboxEntry.State, message: String) {
            self.entity = entity
            self.serverIdentity = serverIdentity
            self.operation = operation
            self.state = state
            self.message = message
        }

        /// `Hero h00001 update rejected: 142 title is required`.
        public var description: String {
            "\(entity)\(serverIdentity.map { " \($0)" } ?? "") \(operation.rawValue) \(state.rawValue): \(message)"
        }
    }

    /// Operations sent (each time it was sent: a retried one counts again).
    public var sent = 0
    /// Operations the server acknowledged (their rows removed, server stamps written).
    public var acknowledged = 0
    /// Operations sent again: put back to pending after a retryable failure (network, 5xx, 429,
    /// 401), and `requestId` creates whose answer was lost, sent again with their request id.
    public var retried = 0
    /// Creates whose outcome was unknown, settled by their create key (found on the server,
    /// or known not to be there and sent again).
    public var reconciled = 0
    /// Creates sent again without knowing whether the first one arrived (`createKey: none`
    /// under `--at-least-once`): each may have made a duplicate.
    public var resent = 0
    /// Operations in conflict with the server's copy.
    public var conflicts = 0
    /// Operations the server refused (validation: Parse 142, 111…), kept as dead letters.
    public var rejected = 0
    /// Write requests sent (a `POST batch`, or one operation's own request).
    public var batches = 0
    /// Every HTTP request of the push: the writes and the lookups that reconcile uncertain creates.
    public var requests = 0
    /// The rows left in the outbox that this push did not send, with why (rejected, in
    /// conflict, not pushable, waiting for a parent that has no server identity).
    public var problems: [Problem] = []

    public init() {}

    /// Operations per write request (0 without requests).
    public var operationsPerRequest: Double { batches == 0 ? 0 : Double(sent) / Double(batches) }
}

extension PushReport {
    /// `{"sent": 50, "acknowledged": 49, "retried": 0, "reconciled": 0, "resent": 0,
    /// "conflicts": 0, "rejected": 1, "batches": 1, "requests": 1, "problems": [{"entity",
    /// "objectId", "operation", "state", "message"}]}`.
    public var json: JSONValue {
        let counts: [(String, Int)] = [
            ("sent", sent), ("acknowledged", acknowledged), ("retried", retried), ("reconciled", reconciled),
            ("resent", resent), ("conflicts", conflicts), ("rejected", rejected), ("batches", batches),
            ("requests", requests),
        ]
        var object = JSONObject(counts.map { ($0.0, JSONValue.number(JSONNumber(Int64($0.1)))) })
        object.append(
            key: "problems",
            value: .array(
                problems.map { problem in
                    [
                        "entity": .string(problem.entity), "objectId": problem.serverIdentity.map(JSONValue.string) ?? .null,
                        "operation": .string(problem.operation.rawValue), "state": .string(problem.state.rawValue), "message": .string(problem.message),
                    ]
                }))
        return .object(object)
    }
}
