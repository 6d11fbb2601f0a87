import Foundation
import Trellis

extension Pusher {
    /// Settles every `uncertain` create by its resource's create key, before anything is sent again:
    ///
    /// - `clientId`: one query per class, `where={"objectId":{"$in":[…]}}`: a create found is
    ///   acknowledged with the server's stamps; one not found goes back to pending (sent again
    ///   with the same objectId: a duplicate would be refused with 137).
    /// - `lookupField:ATTRIBUTE`: the same query on the attribute's values; the objectId found is adopted.
    /// - `requestId`: the create is sent again with the same `X-Parse-Request-Id`; a 201 means
    ///   the first never got through; a 159 (the id was seen, which says nothing about success:
    ///   Parse records it before processing) is answered by a lookup of the body's values among
    ///   the objects of the class no local object holds; not found: pending, under a new id.
    /// - `none`: pending again under ``SyncOptions/atLeastOnce`` (counted in ``PushReport/resent``).
    ///
    /// - Returns: nil when every uncertain create was settled or looked up; else the failed
    ///   resend (a `requestId` create answered 5xx or 429, or lost again: it stays `uncertain`)
    ///   as a ``BatchResult/retry(_:_:)`` and its operation, for the caller's wait and attempt count.
    func reconcile() throws -> (BatchResult, [Operation])? {
        let rows = try read { try $0.outboxEntries() }.filter { $0.state == .uncertain }
        guard !rows.isEmpty else { return nil }
        var failed: (BatchResult, [Operation])?
        var byResource: [String: [OutboxEntry]] = [:]
        var order: [String] = []
        for row in rows {
            guard let target = targets[row.object.entityName] else { continue }
            if byResource[target.resource.name] == nil { order.append(target.resource.name) }
            byResource[target.resource.name, default: []].append(row)
        }
        for name in order {
            let group = byResource[name]!
            let target = targets[group[0].object.entityName]!
            switch target.configuration.createKey {
            case .clientId where !target.isParse:
                try reconcileByReading(group, target: target)
            case .clientId:
                try reconcileByQuery(group, target: target, field: "objectId", index: target.objectIdIndex)
            case .lookupField:
                try reconcileByQuery(group, target: target, field: lookupKey(target), index: target.lookupIndex!)
            case .requestId:
                for row in group {
                    if let failure = try reconcileByRequestId(row, target: target), failed == nil { failed = failure }
                }
            case .none:
                try settle(group.map { ($0, target, .pending("sent again: createKey none cannot tell whether the first create arrived")) })
                report.resent += group.count
            }
        }
        return failed
    }

    /// The JSON key of the lookup attribute.
    func lookupKey(_ target: PushTarget) -> String {
        let entity = model.entity(named: target.resource.entity ?? "")
        let index = target.lookupIndex!
        return entity?.attributeMappings.first { $0.index == index }?.keyPath.description ?? entity?.attributes[index].name ?? ""
    }

    /// One `$in` query on `field` for the rows' values of the attribute at `index`.
    func reconcileByQuery(_ rows: [OutboxEntry], target: PushTarget, field: String, index: Int) throws {
        let snapshots = Dictionary(try read { try $0.fetch(ids: rows.map(\.object)) }.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var values: [String: OutboxEntry] = [:]
        var settled: [(OutboxEntry, PushTarget, Outcome)] = []
        for row in rows {
            guard let value = snapshots[row.object]?.attributes[index] else {
                settled.append((row, target, .pending("no key to look the create up by: sent again")))
                continue
            }
            values[identityText(value)] = row
        }
        if !values.isEmpty {
            let found = try lookUp(target, where: [field: ["$in": .array(values.keys.sorted().map { .string($0) })]])
            for object in found {
                guard let key = object[field].map({ $0.stringValue ?? "\($0)" }), let row = values.removeValue(forKey: key) else { continue }
                let created = object["createdAt"]?.stringValue
                settled.append(
                    (
                        row, target,
                        .acknowledged(
                            objectId: object["objectId"]?.stringValue, createdAt: created,
                            updatedAt: object["updatedAt"]?.stringValue ?? created)
                    ))
            }
            for row in values.values.sorted(by: { $0.sequence < $1.sequence }) {
                settled.append((row, target, .pending("not on the server: the create is sent again")))
            }
        }
        report.reconciled += settled.count
        try settle(settled)
    }

    /// `clientId` creates of an API without a dialect: one `GET` of each object's path; found →
    /// acknowledged with its stamp, not found → pending (sent again with the same id).
    func reconcileByReading(_ rows: [OutboxEntry], target: PushTarget) throws {
        let snapshots = Dictionary(try read { try $0.fetch(ids: rows.map(\.object)) }.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var settled: [(OutboxEntry, PushTarget, Outcome)] = []
        for row in rows {
            guard let value = snapshots[row.object]?.attributes[target.objectIdIndex] else {
                settled.append((row, target, .pending("no id to look the create up by: sent again")))
                continue
            }
            let id = identityText(value)
            if let copy = try readCopy(target, id) {
                settled.append((row, target, .acknowledged(objectId: id, createdAt: nil, updatedAt: copy.stamp)))
            } else {
                settled.append((row, target, .pending("not on the server: the create is sent again")))
            }
        }
        report.reconciled += settled.count
        try settle(settled)
    }

    /// Sends the create again with its request id; a 159 is answered by a lookup.
    /// - Returns: the resend's ``BatchResult/retry(_:_:)`` when it failed as a batch is retried
    ///   (the create stays `uncertain`), else nil.
    func reconcileByRequestId(_ row: OutboxEntry, target: PushTarget) throws -> (BatchResult, [Operation])? {
        guard let entity = model.entity(named: row.object.entityName) else { return nil }
        let operation = Operation(row: row, target: target, entity: entity)
        let batch = try markSending([operation], keepAttempts: true)
        guard let sent = batch.first else { return nil }
        let (method, url, body, headers) = try request(for: batch)
        report.sent += 1
        report.retried += 1
        report.batches += 1
        report.requests += 1
        let result = try client.write(method, url, body: body, headers: headers, resource: target.resource.name)
        let (outcomes, malformed) = interpret(result, batch: batch)
        if case .uncertain(let message) = outcomes[0], message.hasPrefix("159 ") {
            let outcome = try lookUpByBody(sent)
            report.reconciled += 1
            try record([(sent, outcome)])
            return nil
        }
        if case .acknowledged = outcomes[0] { report.reconciled += 1 }
        try record([(sent, outcomes[0])])
        if let malformed {
            throw SyncError(
                .malformedResponse, message: malformed, resource: target.resource.name, pageURL: client.printable(url),
                status: result.response?.status, entity: row.object.entityName)
        }
        switch outcomes[0] {
        case .uncertain(let message), .pending(let message):
            return (.retry(result.response, message), batch)
        default:
            return nil
        }
    }

    /// The object a create whose request id was seen made, found by its body's values among
    /// the class's objects that no local object holds; not found: pending (a new request id next time).
    func lookUpByBody(_ operation: Operation) throws -> Outcome {
        var conditions = JSONObject()
        for (key, value) in operation.body {
            switch value {
            case .string, .number, .bool: conditions.append(key: key, value: value)
            default: continue
            }
        }
        let found = try lookUp(operation.target, where: .object(conditions), order: "createdAt")
        let ids = found.compactMap { $0["objectId"]?.stringValue }
        let held = Set(
            try read { session in
                try session.fetch(entity: operation.entity.rootName, identities: ids.map { [.string($0)] })
            }.compactMap { $0.attributes[operation.target.objectIdIndex]?.stringValue })
        guard let object = found.first(where: { ($0["objectId"]?.stringValue).map { !held.contains($0) } ?? false }) else {
            return .pending("its request id was seen but no object was made: sent again under a new request id")
        }
        let created = object["createdAt"]?.stringValue
        return .acknowledged(objectId: object["objectId"]?.stringValue, createdAt: created, updatedAt: object["updatedAt"]?.stringValue ?? created)
    }

    /// The objects of `target`'s class matching `where` (every key, or only objectId, createdAt,
    /// updatedAt and `keys`); `what` names the query in errors.
    func lookUp(
        _ target: PushTarget, where condition: JSONValue, order: String? = nil, keys: String? = nil,
        what: String = "the lookup of uncertain creates"
    ) throws -> [JSONObject] {
        var query: [(name: String, value: String)] = [("where", try JSONWriter.string(for: condition)), ("limit", "1000")]
        if let order { query.append(("order", order)) }
        if let keys { query.append(("keys", keys)) }
        guard let url = client.url(path: "classes/\(target.className)", query: query) else {
            throw SyncError(.invalidValue, message: "no URL for classes/\(target.className)", resource: target.resource.name)
        }
        report.requests += 1
        let exchange = try client.get(url, resource: target.resource.name)
        noteServerDate(exchange.response)
        guard case .object(let body)? = try? JSONReader.parse(exchange.response.body), case .array(let results)? = body["results"] else {
            throw SyncError(
                .malformedResponse, message: "\(what) got no results array", resource: target.resource.name,
                pageURL: client.printable(url), status: exchange.response.status)
        }
        return results.compactMap(\.objectValue)
    }

    /// Records outcomes of rows that were not sent in this step (reconciled by a query).
    func settle(_ items: [(OutboxEntry, PushTarget, Outcome)]) throws {
        guard !items.isEmpty else { return }
        try record(
            items.compactMap { row, target, outcome in
                guard let entity = model.entity(named: row.object.entityName) else { return nil }
                var operation = Operation(row: row, target: target, entity: entity)
                operation.objectId = nil
                return (operation, outcome)
            })
    }
}
