import Foundation
import Trellis

/// Sends a store's outbox to the API, exactly once per local change (issue 23, points 4–5).
///
/// **Rounds.** Each round reads the outbox and plans what can go now: the first live row of
/// each object (a row behind a `sending` or `uncertain` one waits for it), a create or update
/// only when every object it points to (to-one relationships) has a server identity and no
/// create still unacknowledged (parents first, children in a later round); a cycle of creates
/// is broken by one create sent without the pointers and a `PUT` of them after. Deletes go
/// when nothing else can (deletes last), children before parents. A round is cut into batches
/// of at most `batchSize` operations per resource, never two on one object.
///
/// **Exactly once.** One store transaction marks a batch's rows `sending` (and assigns a
/// `clientId` create's objectId or a `lookupField` create's key into the object) and reads the
/// values the bodies carry; the request goes out; one transaction records every operation's
/// outcome. A request whose outcome is unknown makes its creates `uncertain`; they are
/// reconciled by their create key before anything is sent again, and rows a killed run left
/// `sending` are treated the same way when the next push starts. Every object write of the
/// push is of origin ``ChangeOrigin/sync``: the server stamps it writes are never recorded in
/// the outbox again.
///
/// **Conflicts** (`Pusher+Conflicts.swift`). At a round's start `detect: check` reads the
/// server stamps of its updates and deletes; before a batch is marked its stale ones are
/// settled by the policy; under
/// `ifMatch` the server's 412 does the same after the answer. An update of an object the server
/// deleted follows `remoteDeletes`; a delete is never held back by a remote update.
final class Pusher {
    let synchronizer: Synchronizer
    let targets: [String: PushTarget]
    let model: ObjectModel
    var report = PushReport()
    let hooks = PushHooks.fromEnvironment()
    /// One pusher per store (``PushLease``).
    let lease = PushLease(holder: Lease.holderName(), seconds: 120)
    /// The `Date` header of the server's latest answer (RFC 3339): the stamp of a tombstone
    /// whose acknowledgement carries none of its own.
    var serverDate: String?

    init(synchronizer: Synchronizer) throws {
        self.synchronizer = synchronizer
        self.model = synchronizer.context.store.model
        self.targets = try PushTarget.targets(of: synchronizer.source, model: model)
    }

    var client: HTTPClient { synchronizer.client }
    var clock: ClientClock { synchronizer.clock }
    var store: any PersistentStore { synchronizer.context.store }

    /// One planned operation.
    struct Operation {
        var row: OutboxEntry
        let target: PushTarget
        let entity: ResolvedEntity
        /// To-one relationships left out of a create that breaks a cycle (sent by a `PUT` after).
        var omit: Set<String> = []
        /// Filled when the row is marked `sending`.
        var body: JSONObject = JSONObject()
        /// The objectId addressed (update, delete) or assigned (a `clientId` create).
        var objectId: String?
        /// `X-Parse-Request-Id` (a `requestId` create).
        var requestId: String?
        /// The server's stamp of the object as the round's pre-read found it (`detect: check`).
        var serverStamp: String?
    }

    // MARK: - Running

    /// Pushes until nothing more can be sent.
    /// - Throws: ``SyncError`` `.pushBusy` (another pusher holds the store's lease: ``PushLease``),
    ///   `.leaseLost`, `.pushRefused` (creates of a `createKey: none` resource without
    ///   ``SyncOptions/atLeastOnce``), `.transport` / `.httpStatus` (after the client's
    ///   `maxAttempts` failed attempts in a row, or a 401/403: the rows stay pending),
    ///   `.malformedResponse` (an answer that is not JSON or lacks a result per operation:
    ///   the batch's creates stay uncertain), `.store`.
    func run() throws -> PushReport {
        guard !targets.isEmpty else {
            report.problems = try problems()
            return report
        }
        try write { session, _ in try lease.take(in: session, now: clock.now()) }
        defer { _ = try? write { session, _ in try lease.release(in: session) } }
        try refuseAtLeastOnceCreates()
        try recoverInterrupted()
        var failures = 0
        /// Whether `result` asks for a wait and a new plan (after counting the failure).
        func retries(_ result: BatchResult, _ batch: [Operation], state: String = "pending") throws -> Bool {
            guard case .retry(let response, let message) = result else {
                failures = 0
                return false
            }
            failures += 1
            guard failures < client.policy.maxAttempts else {
                throw SyncError(
                    response == nil ? .transport : .httpStatus,
                    message: "\(message) (after \(failures) attempts; the operations stay in the outbox, \(state))",
                    resource: batch[0].target.resource.name, status: response?.status)
            }
            clock.sleep(client.retryWait(response, attempt: failures))
            return true
        }
        rounds: while true {
            // A create sent again to settle it (requestId) that fails as its first send did
            // (5xx, 429, a lost connection) counts as a failed attempt in a row, as a batch does.
            if let (result, batch) = try reconcile(), try retries(result, batch, state: "uncertain") { continue rounds }
            let batches = try planRound()
            if batches.isEmpty { break }
            // `detect: check`: the round's pre-read of server stamps, per class at most 200 objects a query.
            let stamps = try serverCopies(of: batches.flatMap { $0 }.filter(needsCheck), stampsOnly: true)
            // Batch N + 1 is marked and sent before batch N's answer is recorded: each is its
            // own transaction, and no object is in two batches of a round.
            var flight: InFlight?
            for planned in batches {
                let next: InFlight?
                do {
                    // The stale ones are settled before anything is marked.
                    let batch = try checked(planned, stamps: stamps)
                    next = batch.isEmpty ? nil : try start(batch)
                } catch {
                    if let flight { _ = try? finish(flight) }
                    throw error
                }
                if let previous = flight {
                    let result: BatchResult
                    do { result = try finish(previous) } catch {
                        if let next { _ = try? finish(next) }
                        throw error
                    }
                    if case .retry = result {
                        if let next { _ = try finish(next) }
                        if try retries(result, previous.batch) { continue rounds }
                    }
                    failures = 0
                }
                flight = next
            }
            if let flight, try retries(try finish(flight), flight.batch) { continue rounds }
        }
        report.problems = try problems()
        return report
    }

    /// Creates of a `createKey: none` resource are refused unless the run accepts duplicates.
    func refuseAtLeastOnceCreates() throws {
        guard !synchronizer.options.atLeastOnce else { return }
        let rows = try read { try $0.outboxEntries() }
        for row in rows where row.operation == .create && row.state != .rejected {
            guard let target = targets[row.object.entityName], target.configuration.createKey == .none else { continue }
            throw SyncError(
                .pushRefused,
                message: "resource \(target.resource.name) has createKey none: a create whose answer is lost "
                    + "cannot be told from one never made, so it may be made twice; give it a createKey (clientId, requestId, "
                    + "lookupField:ATTRIBUTE) or run with --at-least-once", resource: target.resource.name, entity: row.object.entityName)
        }
    }

    /// Rows a killed push left `sending`: their request may have reached the server. Creates
    /// become `uncertain` (reconciled next), updates and deletes `pending` (sent again: an
    /// absolute `PUT` and a `DELETE` are safe to repeat).
    func recoverInterrupted() throws {
        try write { session, storage in
            let rows = try session.outboxEntries().filter { $0.state == .sending }
            guard !rows.isEmpty else { return }
            try storage.updateOutboxRows(
                rows.map { row in
                    var row = row
                    row.state = row.operation == .create ? .uncertain : .pending
                    row.lastError = "the push that sent it was interrupted before it recorded the answer"
                    return row
                })
        }
    }

    // MARK: - Planning

    /// The batches of the next round (empty: nothing can be sent).
    func planRound() throws -> [[Operation]] {
        try read { session in
            let rows = try session.outboxEntries()
            let (firstLive, unacknowledged) = liveRows(rows)
            var candidates: [(OutboxEntry, PushTarget, ResolvedEntity)] = []
            for row in rows where row.state == .pending && firstLive[objectKey(row.object)] == row.sequence {
                guard let target = targets[row.object.entityName], let entity = model.entity(named: row.object.entityName) else { continue }
                if !target.isParse, target.route(row.operation) == nil { continue }  // no route: kept, reported
                candidates.append((row, target, entity))
            }
            // Snapshots only where a pointer decides: creates, and updates of a to-one relationship.
            let needing = candidates.filter { item in
                let (row, _, entity) = item
                return row.operation == .create
                    || ParseWriteBody.pointerIndexes(entity).contains { row.fields.contains(entity.relationships[$0].name) }
            }
            let snapshots = try fetchWithDestinations(needing.map(\.0.object), session: session)
            var ready: [Operation] = []
            var blocked: [(operation: Operation, blockers: [(name: String, destination: ObjectID)])] = []
            var deletes: [Operation] = []
            for (row, target, entity) in candidates {
                let key = objectKey(row.object)
                if row.operation == .delete {
                    if row.serverIdentity != nil { deletes.append(Operation(row: row, target: target, entity: entity)) }
                    continue
                }
                if row.operation == .update, unacknowledged.contains(key) { continue }
                guard let snapshot = snapshots[row.object] else {
                    if row.operation == .update { ready.append(Operation(row: row, target: target, entity: entity)) }
                    continue
                }
                var blockers: [(String, ObjectID)] = []
                for index in ParseWriteBody.pointerIndexes(entity) {
                    let name = entity.relationships[index].name
                    guard row.operation == .create || row.fields.contains(name), let destination = snapshot.relationships[index].first else { continue }
                    if !hasServerIdentity(destination, snapshots: snapshots, unacknowledged: unacknowledged) { blockers.append((name, destination)) }
                }
                let operation = Operation(row: row, target: target, entity: entity)
                if blockers.isEmpty { ready.append(operation) } else { blocked.append((operation, blockers)) }
            }
            if ready.isEmpty {
                // A cycle of creates: one goes without the pointers to the others, a PUT sets them after.
                let waiting = Set(blocked.filter { $0.operation.row.operation == .create }.map { objectKey($0.operation.row.object) })
                if let breaker = blocked.first(where: { item in
                    item.operation.row.operation == .create && item.blockers.allSatisfy { waiting.contains(objectKey($0.destination)) }
                }) {
                    var operation = breaker.operation
                    operation.omit = Set(breaker.blockers.map(\.name))
                    ready = [operation]
                }
            }
            if ready.isEmpty { ready = deletes.sorted { depth($0.entity) > depth($1.entity) } }
            return batches(ready)
        }
    }

    /// The first row in `pending`, `sending` or `uncertain` of each object, by object key, and
    /// the objects whose create is not acknowledged (a create row in any state).
    func liveRows(_ rows: [OutboxEntry]) -> (first: [String: Int64], unacknowledged: Set<String>) {
        var first: [String: Int64] = [:]
        var unacknowledged = Set<String>()
        for row in rows {
            let key = objectKey(row.object)
            if [.pending, .sending, .uncertain].contains(row.state), first[key] == nil { first[key] = row.sequence }
            if row.operation == .create { unacknowledged.insert(key) }
        }
        return (first, unacknowledged)
    }

    /// Whether the server knows `destination`: it has its identity and no unacknowledged create.
    func hasServerIdentity(_ destination: ObjectID, snapshots: [ObjectID: ObjectSnapshot], unacknowledged: Set<String>) -> Bool {
        guard !unacknowledged.contains(objectKey(destination)), let snapshot = snapshots[destination],
            let entity = model.entity(named: destination.entityName), let index = entity.identityAttributeIndexes.first
        else { return false }
        return snapshot.attributes[index] != nil
    }

    /// The snapshots of `ids` and of the objects their to-one relationships point to.
    func fetchWithDestinations(_ ids: [ObjectID], session: any StoreSession) throws -> [ObjectID: ObjectSnapshot] {
        var snapshots: [ObjectID: ObjectSnapshot] = [:]
        // As an export reads them: the to-many relationships no key path maps (a publisher's
        // characters, the inverse of Character.publisher) are not loaded; bodies never send them.
        for snapshot in try session.fetchForExport(ids: ids) { snapshots[snapshot.id] = snapshot }
        var destinations = Set<ObjectID>()
        for snapshot in snapshots.values {
            guard let entity = model.entity(named: snapshot.id.entityName) else { continue }
            for index in ParseWriteBody.pointerIndexes(entity) {
                if let destination = snapshot.relationships[index].first, snapshots[destination] == nil { destinations.insert(destination) }
            }
        }
        for snapshot in try session.fetchForExport(ids: Array(destinations)) { snapshots[snapshot.id] = snapshot }
        return snapshots
    }

    /// Operations cut into batches: per resource, at most `batchSize`; a `requestId` create
    /// alone (Parse gives a batch's sub-requests the batch's request id, so a second create in
    /// one batch would be refused as a duplicate).
    func batches(_ operations: [Operation]) -> [[Operation]] {
        var order: [String] = []
        var groups: [String: [Operation]] = [:]
        var result: [[Operation]] = []
        for operation in operations {
            if operation.row.operation == .create, operation.target.configuration.createKey == .requestId {
                result.append([operation])
                continue
            }
            let name = operation.target.resource.name
            if groups[name] == nil { order.append(name) }
            groups[name, default: []].append(operation)
        }
        for name in order {
            let group = groups[name]!
            // An API without a dialect has no batch route: one operation per request.
            let size = group[0].target.isParse ? max(1, group[0].target.configuration.batchSize) : 1
            var start = 0
            while start < group.count {
                result.append(Array(group[start..<min(start + size, group.count)]))
                start += size
            }
        }
        return result
    }

    /// How far `entity` is from the roots along to-one relationships (children are deeper).
    func depth(_ entity: ResolvedEntity, seen: Set<String> = []) -> Int {
        var deepest = 0
        for relationship in entity.relationships where !relationship.isToMany && !seen.contains(relationship.destinationEntity) {
            guard let destination = model.entity(named: relationship.destinationEntity), destination.name != entity.name else { continue }
            deepest = max(deepest, 1 + depth(destination, seen: seen.union([entity.name])))
        }
        return deepest
    }

    // MARK: - Report

    /// The rows left that this push cannot settle, with why.
    func problems() throws -> [PushReport.Problem] {
        let rows = try read { try $0.outboxEntries() }
        let (firstLive, unacknowledged) = liveRows(rows)
        return rows.compactMap { row in
            let identity = row.serverIdentity?.arrayValue?.first.map { $0.stringValue ?? "\($0)" }
            func problem(_ message: String) -> PushReport.Problem {
                PushReport.Problem(entity: row.object.entityName, serverIdentity: identity, operation: row.operation, state: row.state, message: message)
            }
            switch row.state {
            case .rejected, .conflict, .uncertain:
                return problem(row.lastError ?? row.state.rawValue)
            case .sending:
                return problem("sending")
            case .pending:
                guard let target = targets[row.object.entityName] else {
                    return problem("not pushable: no resource's push section covers entity \(row.object.entityName)")
                }
                if !target.isParse, target.route(row.operation) == nil {
                    return problem("not pushable: the push section of \(target.resource.name) has no \(row.operation.rawValue) route")
                }
                if firstLive[objectKey(row.object)] != row.sequence { return problem("waiting for an earlier change of the object") }
                if row.operation != .create, unacknowledged.contains(objectKey(row.object)) {
                    return problem("waiting: the object's create was not acknowledged")
                }
                if row.operation == .delete, row.serverIdentity == nil { return problem("waiting: the object has no server identity") }
                return problem(row.lastError.map { "waiting: \($0)" } ?? "waiting for an object it points to")
            }
        }
    }

    // MARK: - Store access

    func objectKey(_ id: ObjectID) -> String {
        "\(model.entity(named: id.entityName)?.rootName ?? id.entityName)\u{0}\(id.primaryKey)"
    }

    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        do {
            return try store.read(body)
        } catch let error as StoreError {
            throw SyncError(.store, message: error.description, underlying: error)
        }
    }

    /// One write transaction of origin push (never recorded, never guarded), with the session's outbox.
    func write<T>(_ body: (any StoreSession, any OutboxStorage) throws -> T) throws -> T {
        do {
            return try store.write { session in
                session.origin = .push
                guard let storage = session as? any OutboxStorage else {
                    throw SyncError(.store, message: "this store (\(type(of: store))) keeps no outbox")
                }
                return try body(session, storage)
            }
        } catch let error as StoreError {
            throw SyncError(.store, message: error.description, underlying: error)
        }
    }
}
