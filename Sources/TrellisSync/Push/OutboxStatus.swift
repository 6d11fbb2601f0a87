import Foundation
import Trellis

/// The outbox per resource, as `trellis sync SOURCE --status` shows it (issue 23, point 9):
/// pending rows by operation and the oldest one's age, rows `sending` and `uncertain`, and
/// the conflicts and rejected rows with their errors. Rows of an entity that no resource's
/// `push` section covers are listed under ``notPushable``.
public struct OutboxStatus: Sendable, Equatable {
    /// One resource's rows (or the rows no resource pushes).
    public struct Resource: Sendable, Equatable {
        /// The resource's name (nil for the rows no resource pushes).
        public var name: String?
        public var entity: String?
        public var pendingCreates = 0
        public var pendingUpdates = 0
        public var pendingDeletes = 0
        /// When the oldest pending row was recorded.
        public var oldestPending: Date?
        public var sending = 0
        public var uncertain = 0
        public var conflicts = 0
        public var rejected = 0
        /// The conflict and rejected rows (and, for ``OutboxStatus/notPushable``, every row), with their errors.
        public var problems: [PushReport.Problem] = []

        public var pending: Int { pendingCreates + pendingUpdates + pendingDeletes }
        public var total: Int { pending + sending + uncertain + conflicts + rejected }
    }

    /// The resources with a `push` section, in source order (also those with no rows).
    public var resources: [Resource]
    /// The rows of entities no `push` section covers (nil when there are none).
    public var notPushable: Resource?

    /// The status of `rows` (a store's ``PersistentStore/outbox()``) for `source`'s resources.
    public init(source: SyncSource, model: ObjectModel, rows: [OutboxEntry]) {
        resources = source.resources.filter { $0.push != nil && $0.entity != nil }.map { Resource(name: $0.name, entity: $0.entity) }
        var other = Resource(name: nil, entity: nil)
        for row in rows {
            let names = [row.object.entityName] + (model.entity(named: row.object.entityName)?.ancestorNames ?? [])
            let index = resources.firstIndex { resource in names.contains(resource.entity ?? "") }
            func add(to resource: inout Resource, pushable: Bool) {
                let identity = row.serverIdentity?.arrayValue?.first.map { $0.stringValue ?? "\($0)" }
                let problem = PushReport.Problem(
                    entity: row.object.entityName, serverIdentity: identity, operation: row.operation,
                    state: row.state, message: row.lastError ?? row.state.rawValue)
                switch row.state {
                case .pending:
                    switch row.operation {
                    case .create: resource.pendingCreates += 1
                    case .update: resource.pendingUpdates += 1
                    case .delete: resource.pendingDeletes += 1
                    }
                    resource.oldestPending = min(resource.oldestPending ?? row.enqueuedAt, row.enqueuedAt)
                    if !pushable {
                        resource.problems.append(
                            PushReport.Problem(
                                entity: problem.entity, serverIdentity: identity,
                                operation: row.operation, state: row.state,
                                message: "not pushable: no resource's push section covers entity \(row.object.entityName)"))
                    }
                case .sending: resource.sending += 1
                case .uncertain: resource.uncertain += 1
                case .conflict:
                    resource.conflicts += 1
                    resource.problems.append(problem)
                case .rejected:
                    resource.rejected += 1
                    resource.problems.append(problem)
                }
            }
            if let index { add(to: &resources[index], pushable: true) } else { add(to: &other, pushable: false) }
        }
        notPushable = other.total > 0 ? other : nil
    }

    /// `{"resources": [{"name", "entity", "pending": {"create", "update", "delete"}, "oldestPending", "sending",
    /// "uncertain", "conflicts", "rejected", "problems": […]}], "notPushable": {…}|null}`.
    public var json: JSONValue {
        func object(_ r: Resource) -> JSONValue {
            func count(_ n: Int) -> JSONValue { .number(JSONNumber(Int64(n))) }
            return [
                "name": r.name.map(JSONValue.string) ?? .null, "entity": r.entity.map(JSONValue.string) ?? .null,
                "pending": ["create": count(r.pendingCreates), "update": count(r.pendingUpdates), "delete": count(r.pendingDeletes)],
                "oldestPending": r.oldestPending.map { .string(SyncInstant($0).rfc3339) } ?? .null,
                "sending": count(r.sending), "uncertain": count(r.uncertain), "conflicts": count(r.conflicts), "rejected": count(r.rejected),
                "problems": .array(
                    r.problems.map { p in
                        [
                            "entity": .string(p.entity), "objectId": p.serverIdentity.map(JSONValue.string) ?? .null,
                            "operation": .string(p.operation.rawValue), "state": .string(p.state.rawValue), "message": .string(p.message),
                        ]
                    }),
            ]
        }
        return ["resources": .array(resources.map(object)), "notPushable": notPushable.map(object) ?? .null]
    }
}
