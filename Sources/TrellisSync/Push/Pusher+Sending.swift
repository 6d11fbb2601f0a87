import Foundation
import Trellis

extension Pusher {
    /// What became of one operation.
    enum Outcome {
        /// Done: the server's identity and stamps (a create's `createdAt` is also its `updatedAt`).
        case acknowledged(objectId: String?, createdAt: String?, updatedAt: String?)
        /// To be sent again (a network error before anything was sent, 5xx, 429, 401).
        case pending(String)
        /// The request may or may not have been applied (a create's answer was lost).
        case uncertain(String)
        case rejected(String)
        case conflict(String)
        /// An update of an object the server no longer has: settled by `remoteDeletes`.
        case remoteDeleted(String)
        /// A precondition failed (412 to `If-Match`): the server moved past the base; settled by `conflicts.policy`.
        case stale(String)
    }

    /// What a sent batch asks of the push loop.
    enum BatchResult {
        /// Every operation's outcome is recorded; go on.
        case settled
        /// Some were put back (pending or uncertain): wait (`Retry-After`, backoff), reconcile, plan again.
        case retry(HTTPResponse?, String)
    }

    // MARK: - Sending

    /// A batch marked `sending` whose request is on its way (sent on another thread, so that
    /// the push records the previous batch's answer meanwhile).
    final class InFlight: @unchecked Sendable {
        // SAFETY: `outcome` is written once by the sending thread before `done` is signalled,
        // and read only after `wait()` returned; `batch` and `url` are immutable.
        let batch: [Operation]
        let url: URL
        private let done = DispatchSemaphore(value: 0)
        private var outcome: Result<Result<HTTPResponse, TransportFailure>, any Error>?

        init(batch: [Operation], url: URL) {
            self.batch = batch
            self.url = url
        }

        func fulfil(_ value: Result<Result<HTTPResponse, TransportFailure>, any Error>) {
            outcome = value
            done.signal()
        }

        func wait() throws -> Result<HTTPResponse, TransportFailure> {
            done.wait()
            return try outcome!.get()
        }
    }

    /// Marks `planned` `sending`, sends it, records each operation's outcome.
    func send(_ planned: [Operation], resend: Bool = false) throws -> BatchResult {
        guard let flight = try start(planned, resend: resend) else { return .settled }
        return try finish(flight)
    }

    /// Marks `planned` `sending` (one transaction) and starts its request; nil when none of its
    /// rows is still to be sent.
    func start(_ planned: [Operation], resend: Bool = false) throws -> InFlight? {
        let batch = try markSending(planned, keepAttempts: resend)
        guard !batch.isEmpty else { return nil }
        hooks.reach(.afterMarking)
        let (method, url, body, headers) = try request(for: batch)
        report.sent += batch.count
        report.batches += 1
        report.requests += 1
        hooks.arm(.midSend)
        let flight = InFlight(batch: batch, url: url)
        let client = self.client
        let resource = batch[0].target.resource.name
        DispatchQueue.global().async {
            flight.fulfil(Result { try client.write(method, url, body: body, headers: headers, resource: resource) })
        }
        return flight
    }

    /// Waits for `flight`'s answer and records each operation's outcome (one transaction).
    func finish(_ flight: InFlight) throws -> BatchResult {
        let batch = flight.batch
        let url = flight.url
        let result = try flight.wait()
        hooks.reach(.afterResponse)
        if let response = result.response { noteServerDate(response) }
        let (outcomes, malformed) = interpret(result, batch: batch)
        try record(zip(batch, outcomes).map { ($0, $1) })
        if let malformed {
            throw SyncError(
                .malformedResponse, message: malformed, resource: batch[0].target.resource.name, pageURL: client.printable(url),
                status: result.response?.status, entity: batch[0].row.object.entityName)
        }
        if case .success(let response) = result, response.status == 401 || response.status == 403 {
            throw SyncError(
                .httpStatus,
                message: "HTTP \(response.status): the API refused the credentials; the \(batch.count) operation(s) "
                    + "stay pending (a 401 is never taken as a verdict on the changes)", resource: batch[0].target.resource.name,
                pageURL: client.printable(url), status: response.status)
        }
        let putBack = outcomes.filter {
            if case .pending = $0 { return true }
            if case .uncertain = $0 { return true }
            return false
        }
        guard !putBack.isEmpty else { return .settled }
        let message: String
        switch result {
        case .failure(let failure): message = failure.message
        case .success(let response): message = "HTTP \(response.status)"
        }
        return .retry(result.response, message)
    }

    /// In one transaction: re-reads the rows (a row no longer pending is left out), assigns the
    /// client-made keys, reads the values, marks the rows `sending`.
    func markSending(_ planned: [Operation], keepAttempts: Bool) throws -> [Operation] {
        try write { session, storage in
            try lease.renew(in: session, now: clock.now())
            let current = try storage.outboxRows(objectKeys: planned.map(\.row.object.primaryKey), serverIdentities: [])
            let bySequence = Dictionary(uniqueKeysWithValues: current.map { ($0.sequence, $0) })
            var snapshots = try fetchWithDestinations(planned.filter { $0.row.operation != .delete }.map(\.row.object), session: session)
            var assignments: [ObjectChange] = []
            var batch: [Operation] = []
            var superseded: [Int64] = []
            var conflicted: [OutboxEntry] = []
            for var operation in planned {
                guard var row = bySequence[operation.row.sequence], row.state == (keepAttempts ? .uncertain : .pending) else { continue }
                if !keepAttempts { row.attempts += 1 }
                row.state = .sending
                operation.row = row
                let target = operation.target
                if row.operation == .delete {
                    operation.objectId = identityText(row.serverIdentity)
                } else {
                    guard var snapshot = snapshots[row.object] else {
                        // Deleted here since: a delete row after it speaks for the object; without
                        // one (a pull deleted it) the update stays, reported as a conflict.
                        if row.operation == .update {
                            if current.contains(where: { $0.object == row.object && $0.operation == .delete && $0.sequence > row.sequence }) {
                                superseded.append(row.sequence)
                            } else {
                                // A pull deleted it (the server did): nothing is left to recreate from.
                                report.conflicts += 1
                                if target.configuration.remoteDeletes == .deleteWins {
                                    report.conflictsByPolicy.deleteWins += 1
                                    report.overridden.append(
                                        problem(row, "dropped: the object was deleted on the server, and here by a pull (remoteDeletes deleteWins)"))
                                    superseded.append(row.sequence)
                                } else {
                                    row.state = .conflict
                                    row.lastError = "the object was deleted here by a pull before its update was sent: nothing is left to recreate it from"
                                    conflicted.append(row)
                                }
                            }
                        }
                        continue
                    }
                    if row.operation == .create {
                        var changes: [AttributeChange] = []
                        if target.configuration.createKey == .clientId, snapshot.attributes[target.objectIdIndex] == nil {
                            changes.append(AttributeChange(index: target.objectIdIndex, value: .string(Pusher.newObjectId())))
                        }
                        if let index = target.lookupIndex, snapshot.attributes[index] == nil {
                            changes.append(AttributeChange(index: index, value: .string(UUID().uuidString.lowercased())))
                        }
                        for change in changes { snapshot.attributes[change.index] = change.value }
                        if !changes.isEmpty {
                            assignments.append(ObjectChange(id: row.object, attributes: changes))
                            snapshots[row.object] = snapshot
                        }
                        if target.configuration.createKey == .requestId {
                            let key = row.key.uuidString.lowercased()
                            // Parse: a new id after a 159 found nothing; an Idempotency-Key is kept (its answer is replayed).
                            operation.requestId = row.attempts <= 1 || !target.isParse ? key : "\(key)-\(row.attempts)"
                        }
                    }
                    operation.objectId = snapshot.attributes[target.objectIdIndex].map(identityText)
                    operation.body = body(of: operation, snapshot: snapshot, snapshots: snapshots)
                    if row.operation == .update, operation.objectId == nil { continue }
                }
                batch.append(operation)
            }
            if !assignments.isEmpty { _ = try session.apply(ChangeSet(updated: assignments)) }
            if !superseded.isEmpty { try storage.deleteOutboxRows(sequences: superseded) }
            try storage.updateOutboxRows(batch.map(\.row) + conflicted)
            return batch
        }
    }

    /// The body of `operation` (a create: every mapped value; an update: its row's fields) from `snapshot`.
    func body(of operation: Operation, snapshot: ObjectSnapshot, snapshots: [ObjectID: ObjectSnapshot]) -> JSONObject {
        let row = operation.row
        let target = operation.target
        let fields = row.operation == .create ? nil : row.fields
        let clientId = row.operation == .create && target.configuration.createKey == .clientId
        if !target.isParse {
            return RESTWriteBody.make(
                snapshot, entity: operation.entity, target: target, fields: fields, includeIdentity: clientId,
                identity: { destination in self.pointer(destination, snapshots: snapshots)?.objectId })
        }
        return ParseWriteBody.make(
            snapshot, entity: operation.entity, target: target, fields: fields, includeObjectId: clientId, omit: operation.omit,
            pointer: { destination in self.pointer(destination, snapshots: snapshots) })
    }

    /// The Parse class and objectId of `destination`, if it has one.
    func pointer(_ destination: ObjectID, snapshots: [ObjectID: ObjectSnapshot]) -> (className: String, objectId: String)? {
        guard let snapshot = snapshots[destination], let entity = model.entity(named: destination.entityName),
            let index = entity.identityAttributeIndexes.first, let value = snapshot.attributes[index]
        else { return nil }
        return (targets[destination.entityName]?.className ?? destination.entityName, identityText(value))
    }

    /// The request carrying `batch`: one operation's own route, or `POST batch`.
    func request(for batch: [Operation]) throws -> (String, URL, Data?, HTTPHeaders) {
        var headers = HTTPHeaders()
        func route(_ operation: Operation) -> (method: String, path: String) {
            let base = "classes/\(operation.target.className)"
            switch operation.row.operation {
            case .create: return ("POST", base)
            case .update: return ("PUT", "\(base)/\(operation.objectId ?? "")")
            case .delete: return ("DELETE", "\(base)/\(operation.objectId ?? "")")
            }
        }
        if !batch[0].target.isParse {
            return try restRequest(batch[0])
        }
        if batch.count == 1 {
            let operation = batch[0]
            let (method, path) = route(operation)
            if let id = operation.requestId { headers.set("X-Parse-Request-Id", id) }
            guard let url = client.url(path: path, query: []) else {
                throw SyncError(.invalidValue, message: "no URL for \(path)", resource: operation.target.resource.name)
            }
            let body = method == "DELETE" ? nil : try JSONWriter.data(for: .object(operation.body))
            return (method, url, body, headers)
        }
        var mount = client.configuration.baseURL.path
        if !mount.hasSuffix("/") { mount += "/" }
        let requests: [JSONValue] = batch.map { operation in
            let (method, path) = route(operation)
            var item: JSONObject = ["method": .string(method), "path": .string(mount + path)]
            if method != "DELETE" { item.append(key: "body", value: .object(operation.body)) }
            return .object(item)
        }
        guard let url = client.url(path: "batch", query: []) else {
            throw SyncError(.invalidValue, message: "no URL for batch", resource: batch[0].target.resource.name)
        }
        return ("POST", url, try JSONWriter.data(for: ["requests": .array(requests)]), headers)
    }

    /// The request of one operation to an API without a dialect: its route (`{id}` replaced),
    /// `Idempotency-Key` for a `requestId` create, and `If-Match` with the row's base for an
    /// update whose route asks for it (`"ifMatch": true`) unless `detect` is `none` or the row
    /// has no base. A delete sends no precondition: a local delete beats a remote update.
    func restRequest(_ operation: Operation) throws -> (String, URL, Data?, HTTPHeaders) {
        let target = operation.target
        guard let route = target.route(operation.row.operation) else {
            throw SyncError(
                .invalidValue, message: "the push section has no \(operation.row.operation.rawValue) route", resource: target.resource.name,
                entity: operation.row.object.entityName)
        }
        var headers = HTTPHeaders()
        if let id = operation.requestId { headers.set("Idempotency-Key", id) }
        if operation.row.operation == .update, route.ifMatch, target.configuration.detect != .none, let base = operation.row.base {
            headers.set("If-Match", base)
        }
        let encoded =
            (operation.objectId ?? "").addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
            ?? ""
        let path = route.path.replacingOccurrences(of: "{id}", with: encoded)
        guard let url = client.url(path: path, query: []) else {
            throw SyncError(.invalidValue, message: "no URL for \(path)", resource: target.resource.name)
        }
        let body = route.method == "DELETE" ? nil : try JSONWriter.data(for: .object(operation.body))
        return (route.method, url, body, headers)
    }

    // MARK: - Answers

    /// Each operation's outcome from the answer, and a message when the answer is malformed
    /// (then every operation is taken as unknown: creates uncertain, the rest pending).
    func interpret(_ result: Result<HTTPResponse, TransportFailure>, batch: [Operation]) -> ([Outcome], String?) {
        func unknown(_ message: String) -> [Outcome] {
            batch.map { $0.row.operation == .create ? .uncertain(message) : .pending(message) }
        }
        let response: HTTPResponse
        switch result {
        case .failure(let failure): return (unknown(failure.message), nil)
        case .success(let r): response = r
        }
        let status = response.status
        if status == 429 || (500...599).contains(status) || status == 401 || status == 403 {
            let message = "HTTP \(status)" + (BodyMessage.message(in: response.body, contentType: response.headers["content-type"]).map { ": \($0)" } ?? "")
            // 5xx: the server may have applied a create before failing; 429/401/403 refuse before doing anything.
            if (500...599).contains(status) { return (unknown(message), nil) }
            return (batch.map { _ in .pending(message) }, nil)
        }
        if !batch[0].target.isParse { return interpretREST(response, batch[0]) }
        let json = try? JSONReader.parse(response.body)
        let describe =
            "the answer to \(batch.count == 1 ? "\(batch[0].row.operation.rawValue) of \(batch[0].row.object.entityName)" : "a batch of \(batch.count) operations")"
        if batch.count == 1, (200...299).contains(status) {
            guard case .object(let object)? = json else {
                return (unknown("not JSON"), "\(describe) (HTTP \(status)) is not a JSON object")
            }
            return ([success(object, batch[0])], nil)
        }
        if batch.count == 1 || !(200...299).contains(status) {
            guard case .object(let object)? = json, let code = object["code"]?.int64Value else {
                return (batch.map { _ in .rejected("HTTP \(status)") }, nil)
            }
            return (batch.map { failure(Int(code), object["error"]?.stringValue ?? "", $0) }, nil)
        }
        guard case .array(let results)? = json, results.count == batch.count else {
            let found = json.map { if case .array(let a) = $0 { return "\(a.count) results" } else { return "no array" } } ?? "not JSON"
            return (unknown("malformed batch answer"), "\(describe) (HTTP \(status)) has not one result per operation (\(found))")
        }
        var outcomes: [Outcome] = []
        for (operation, item) in zip(batch, results) {
            if case .object(let result)? = item["success"] {
                outcomes.append(success(result, operation))
            } else if let error = item["error"], let code = error["code"]?.int64Value {
                outcomes.append(failure(Int(code), error["error"]?.stringValue ?? "", operation))
            } else {
                return (unknown("malformed batch answer"), "\(describe) (HTTP \(status)): a result is neither success nor error")
            }
        }
        return (outcomes, nil)
    }

    /// One answer of an API without a dialect: 2xx acknowledged (the stamp from the `ETag`
    /// header, else the body's stamp key; a create's identity from the body's identity key),
    /// 412 stale (the base is not the server's ETag: settled by the policy), 404 on an update
    /// an object the server deleted (`remoteDeletes`), on a delete already gone; any other
    /// status rejected.
    func interpretREST(_ response: HTTPResponse, _ operation: Operation) -> ([Outcome], String?) {
        let status = response.status
        let target = operation.target
        let object = (try? JSONReader.parse(response.body))?.objectValue ?? JSONObject()
        let message = "HTTP \(status)" + (BodyMessage.message(in: response.body, contentType: response.headers["content-type"]).map { ": \($0)" } ?? "")
        switch status {
        case 200...299:
            let stamp = response.headers["etag"] ?? target.stampKey.flatMap { object[$0]?.stringValue }
            var objectId = operation.objectId
            if operation.row.operation == .create, let key = target.identityKey, let value = object[key] {
                objectId = value.stringValue ?? (try? JSONWriter.string(for: value))
            }
            if operation.row.operation == .create, objectId == nil {
                return (
                    [.uncertain("the answer names no id")],
                    "the answer to create of \(operation.row.object.entityName) (HTTP \(status)) names no \(target.identityKey ?? "id")"
                )
            }
            return ([.acknowledged(objectId: objectId, createdAt: nil, updatedAt: stamp)], nil)
        case 412:
            return ([.stale("HTTP 412: the server's ETag is \(response.headers["etag"] ?? "unknown"), not the base \(operation.row.base ?? "none")")], nil)
        case 404 where operation.row.operation == .delete:
            return ([.acknowledged(objectId: operation.objectId, createdAt: nil, updatedAt: nil)], nil)
        case 404 where operation.row.operation == .update:
            return ([.remoteDeleted("the object was deleted on the server (\(message))")], nil)
        default:
            return ([.rejected(message)], nil)
        }
    }

    func success(_ object: JSONObject, _ operation: Operation) -> Outcome {
        switch operation.row.operation {
        case .create:
            let created = object["createdAt"]?.stringValue
            return .acknowledged(
                objectId: object["objectId"]?.stringValue ?? operation.objectId, createdAt: created,
                updatedAt: object["updatedAt"]?.stringValue ?? created)
        case .update:
            return .acknowledged(objectId: operation.objectId, createdAt: nil, updatedAt: object["updatedAt"]?.stringValue)
        case .delete:
            return .acknowledged(objectId: operation.objectId, createdAt: nil, updatedAt: nil)
        }
    }

    /// A Parse error code (https://docs.parseplatform.org/rest/guide/#error-codes) for one operation.
    func failure(_ code: Int, _ message: String, _ operation: Operation) -> Outcome {
        let text = "\(code) \(message)"
        switch (code, operation.row.operation) {
        case (101, .delete): return .acknowledged(objectId: operation.objectId, createdAt: nil, updatedAt: nil)  // already gone
        case (101, .update): return .remoteDeleted("the object was deleted on the server (\(text))")
        case (137, .create) where operation.target.configuration.createKey == .clientId: return .uncertain(text)
        case (159, .create): return .uncertain(text)
        case (1, _), (100, _), (124, _), (155, _), (159, _), (209, _): return .pending(text)  // internal, connection, timeout, limit, session
        default: return .rejected(text)
        }
    }

    // MARK: - Recording

    /// Records every outcome in one transaction: per acknowledgement the server's identity and
    /// stamps written into the object (origin push) and the row removed (a cycle-breaking create
    /// becomes the update of the pointers it left out), and per acknowledged delete a
    /// ``Tombstone`` of its server identity; per failure the row's new state.
    func record(_ outcomes: [(Operation, Outcome)]) throws {
        // Updates of objects the server deleted, under `remoteDeletes: deleteWins`: the objects
        // are deleted here (the context's delete rules) in the recording transaction.
        let doomed: [ObjectID] = outcomes.compactMap { operation, outcome in
            if case .remoteDeleted = outcome, operation.target.configuration.remoteDeletes == .deleteWins { return operation.row.object }
            return nil
        }
        // Updates a 412 refused: settled by the policy after this transaction.
        var overridden: [Operation] = []
        func work(_ session: any StoreSession, _ storage: any OutboxStorage, deletedHere: Bool) throws {
            let current = try storage.outboxRows(objectKeys: outcomes.map(\.0.row.object.primaryKey), serverIdentities: [])
            let existing = Set(try session.fetchForExport(ids: outcomes.map(\.0.row.object)).map(\.id))
            var changes: [ObjectChange] = []
            var removed: [Int64] = []
            var updated: [Int64: OutboxEntry] = [:]
            var tombstones: [Tombstone] = []
            overridden = []
            for (operation, outcome) in outcomes {
                var row = operation.row
                switch outcome {
                case .acknowledged(let objectId, let createdAt, let updatedAt):
                    report.acknowledged += 1
                    let target = operation.target
                    if row.operation != .delete, existing.contains(row.object) {
                        var attributes: [AttributeChange] = []
                        if row.operation == .create, let objectId { attributes.append(AttributeChange(index: target.objectIdIndex, value: .string(objectId))) }
                        if let index = target.createdAtIndex, let value = stamp(createdAt, operation.entity, index) {
                            attributes.append(AttributeChange(index: index, value: value))
                        }
                        if let index = target.updatedAtIndex, let value = stamp(updatedAt, operation.entity, index) {
                            attributes.append(AttributeChange(index: index, value: value))
                        }
                        if !attributes.isEmpty { changes.append(ObjectChange(id: row.object, attributes: attributes)) }
                    }
                    let identity: JSONValue? = objectId.map { .array([.string($0)]) }
                    if row.operation == .delete, let serverIdentity = row.serverIdentity {
                        tombstones.append(
                            Tombstone(
                                entityName: row.object.entityName, serverIdentity: serverIdentity, stamp: tombstoneStamp(operation, answered: updatedAt),
                                acknowledgedAt: clock.now()))
                    }
                    if row.operation == .create, !operation.omit.isEmpty {
                        row.operation = .update
                        row.fields = operation.entity.relationships.map(\.name).filter(operation.omit.contains)
                        row.state = .pending
                        row.attempts = 0
                        row.serverIdentity = identity
                        row.key = UUID()
                        updated[row.sequence] = row
                    } else {
                        removed.append(row.sequence)
                    }
                    if row.operation != .delete, let identity {
                        for later in current where later.sequence > row.sequence && later.object == row.object && later.serverIdentity == nil {
                            var later = updated[later.sequence] ?? later
                            later.serverIdentity = identity
                            updated[later.sequence] = later
                        }
                    }
                    continue
                case .pending(let message):
                    report.retried += 1
                    row.state = .pending
                    row.lastError = message
                case .uncertain(let message):
                    row.state = .uncertain
                    row.lastError = message
                case .rejected(let message):
                    report.rejected += 1
                    row.state = .rejected
                    row.lastError = message
                case .conflict(let message):
                    report.conflicts += 1
                    row.state = .conflict
                    row.lastError = message
                case .stale(let message):
                    // Settled by the policy after this transaction (it reads the server's copy first).
                    row.state = .pending
                    row.lastError = message
                    var stale = operation
                    stale.row = row
                    overridden.append(stale)
                case .remoteDeleted(let message):
                    report.conflicts += 1
                    if operation.target.configuration.remoteDeletes == .recreate {
                        report.conflictsByPolicy.recreate += 1
                        row = recreated(row, operation.entity)
                    } else if deletedHere {
                        report.conflictsByPolicy.deleteWins += 1
                        report.overridden.append(problem(row, "dropped: the object was deleted on the server, and here too (remoteDeletes deleteWins)"))
                        // Every row of the object: it exists on neither side.
                        let key = objectKey(row.object)
                        for other in current where objectKey(other.object) == key && other.state != .uncertain {
                            removed.append(other.sequence)
                            updated[other.sequence] = nil
                        }
                        continue
                    } else {
                        report.conflictsByPolicy.deleteWins += 1
                        row.state = .conflict
                        row.lastError =
                            message
                            + "; deleting it here failed: resolve with --resolve \(row.object.entityName):\(identityText(row.serverIdentity) ?? "?") --take local|server"
                    }
                }
                updated[row.sequence] = row
            }
            if !changes.isEmpty { _ = try session.apply(ChangeSet(updated: changes)) }
            if !removed.isEmpty { try storage.deleteOutboxRows(sequences: Array(Set(removed)).sorted()) }
            let rewritten = updated.values.filter { !removed.contains($0.sequence) }.sorted { $0.sequence < $1.sequence }
            if !rewritten.isEmpty { try storage.updateOutboxRows(rewritten) }
            if !tombstones.isEmpty { try storage.writeTombstones(tombstones) }
            hooks.reach(.whileRecording)
        }
        if doomed.isEmpty {
            try write { session, storage in try work(session, storage, deletedHere: false) }
        } else {
            let context = synchronizer.context
            var deleted = false
            do {
                for object in try context.objects(with: doomed) { try context.delete(object) }
                deleted = true
            } catch is ContextError {
                // A deny rule: the object stays, its row in conflict with why.
                context.rollback()
            }
            if deleted {
                do {
                    try context.save(origin: .push) { session in
                        guard let storage = session as? any OutboxStorage else {
                            throw SyncError(.store, message: "this store (\(type(of: store))) keeps no outbox")
                        }
                        try work(session, storage, deletedHere: true)
                    }
                } catch let error as StoreError {
                    context.rollback()
                    throw SyncError(.store, message: error.description, underlying: error)
                } catch {
                    context.rollback()
                    throw error
                }
            } else {
                try write { session, storage in try work(session, storage, deletedHere: false) }
            }
        }
        if !overridden.isEmpty { _ = try settle(stale: overridden.map { ($0, nil) }, answered: true) }
    }

    /// The stamp of an acknowledged delete's tombstone: the latest of the server's instants
    /// known for it (RFC 3339 text): the answer's own stamp, the object's stamp as the round's
    /// pre-read found it, the row's base, and the `Date` header of the server's latest answer (to
    /// the second); this side's clock only when there is none of them. Every copy of the object
    /// the server served before the delete is stamped at or before the latest it is known to
    /// have had, so a pull drops such a copy and takes one stamped later (the object made again).
    func tombstoneStamp(_ operation: Operation, answered: String?) -> String {
        let known = [answered, operation.serverStamp, operation.row.base, serverDate].compactMap { text in
            text.flatMap { text in SyncInstant(rfc3339: text).map { (text, $0) } }
        }
        return known.max { $0.1 < $1.1 }?.0 ?? SyncInstant(clock.now()).rfc3339
    }

    /// Keeps `response`'s `Date` header (RFC 9110 §6.6.1) as ``serverDate``.
    func noteServerDate(_ response: HTTPResponse) {
        if let date = response.headers["date"].flatMap(HTTPDate.parse) { serverDate = SyncInstant(date).rfc3339 }
    }

    /// A server stamp (RFC 3339 text) as the attribute's value.
    func stamp(_ text: String?, _ entity: ResolvedEntity, _ index: Int) -> AttributeValue? {
        guard let text else { return nil }
        return try? JSONCoercion.value(from: .string(text), as: entity.attributes[index].type)
    }

    /// An identity value as the text Parse uses.
    func identityText(_ value: AttributeValue) -> String {
        if case .string(let s) = value { return s }
        let json = JSONCoercion.json(from: value, as: .string)
        return json.stringValue ?? ((try? JSONWriter.string(for: json)) ?? "")
    }

    /// The first element of a row's server identity as text.
    func identityText(_ identity: JSONValue?) -> String? {
        guard let first = identity?.arrayValue?.first else { return nil }
        return first.stringValue ?? (try? JSONWriter.string(for: first))
    }

    /// A new objectId as Parse Server makes them: 10 characters of [A-Za-z0-9].
    static func newObjectId() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
}

extension Result where Success == HTTPResponse {
    var response: HTTPResponse? {
        if case .success(let r) = self { return r }
        return nil
    }
}
