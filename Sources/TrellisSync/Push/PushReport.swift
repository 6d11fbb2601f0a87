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
    /// Conflicts met: changes made on a base the server had moved past (its stamp differs from
    /// the row's ``OutboxEntry/base``, a 412 to `If-Match`), and updates of objects the server
    /// deleted; each is counted once in ``conflictsByPolicy`` by how it was settled.
    public var conflicts = 0
    /// ``conflicts`` by the rule that settled them (`conflicts.policy`, `remoteDeletes`).
    public var conflictsByPolicy = ConflictCounts()
    /// Local changes a conflict settled against: replaced by the server's copy (`serverWins`,
    /// or the server's side of a field changed on both sides by `merge`), or dropped with an
    /// object the server deleted (`deleteWins`). Their rows are gone; each says what was lost.
    public var overridden: [Problem] = []
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

    /// Conflicts by the rule that settled them; `json` has every key, 0 included.
    public struct ConflictCounts: Sendable, Equatable {
        /// The server's copy was written into the object; the local change reported in ``PushReport/overridden``.
        public var serverWins = 0
        /// Sent again without the precondition: the local values are the server's now.
        public var clientWins = 0
        /// Merged three-way against the base the change was made on.
        public var merge = 0
        /// Left in the outbox in state `conflict`, for `--resolve ENTITY:ID --take local|server`.
        public var manual = 0
        /// An update of an object the server deleted: the object deleted here too, the change dropped and reported.
        public var deleteWins = 0
        /// An update of an object the server deleted: the object created again on the server with all its fields.
        public var recreate = 0

        public init() {}

        /// `{"serverWins": 1, "clientWins": 0, "merge": 0, "manual": 0, "deleteWins": 0, "recreate": 0}`.
        public var json: JSONValue {
            let counts = [
                ("serverWins", serverWins), ("clientWins", clientWins), ("merge", merge), ("manual", manual),
                ("deleteWins", deleteWins), ("recreate", recreate),
            ]
            return .object(JSONObject(counts.map { ($0.0, JSONValue.number(JSONNumber(Int64($0.1)))) }))
        }

        /// `serverWins 1, manual 2`: the non-zero counts (empty when every one is 0).
        public var summary: String {
            let counts = [
                ("serverWins", serverWins), ("clientWins", clientWins), ("merge", merge), ("manual", manual),
                ("deleteWins", deleteWins), ("recreate", recreate),
            ]
            return counts.filter { $0.1 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        }
    }

    /// Operations per write request (0 without requests).
    public var operationsPerRequest: Double { batches == 0 ? 0 : Double(sent) / Double(batches) }
}

extension PushReport {
    /// `{"sent": 50, "acknowledged": 49, "retried": 0, "reconciled": 0, "resent": 0,
    /// "conflicts": 0, "rejected": 1, "batches": 1, "requests": 1, "conflictsByPolicy":
    /// {"serverWins": 0, …} (``ConflictCounts/json``), "problems": [{"entity", "objectId",
    /// "operation", "state", "message"}], "overridden": [the same shape]}`.
    public var json: JSONValue {
        let counts: [(String, Int)] = [
            ("sent", sent), ("acknowledged", acknowledged), ("retried", retried), ("reconciled", reconciled),
            ("resent", resent), ("conflicts", conflicts), ("rejected", rejected), ("batches", batches),
            ("requests", requests),
        ]
        var object = JSONObject(counts.map { ($0.0, JSONValue.number(JSONNumber(Int64($0.1)))) })
        object.append(key: "conflictsByPolicy", value: conflictsByPolicy.json)
        func rows(_ list: [Problem]) -> JSONValue {
            .array(
                list.map { problem in
                    [
                        "entity": .string(problem.entity), "objectId": problem.serverIdentity.map(JSONValue.string) ?? .null,
                        "operation": .string(problem.operation.rawValue), "state": .string(problem.state.rawValue), "message": .string(problem.message),
                    ]
                })
        }
        object.append(key: "problems", value: rows(problems))
        object.append(key: "overridden", value: rows(overridden))
        return .object(object)
    }
}
