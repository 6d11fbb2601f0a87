import Foundation
import Trellis

/// Conflicts (issue 23, point 6): a change made on a base the server has moved past, noticed by
/// the server's stamps (`conflicts.detect: check`) or its ETags (`ifMatch`), never by this
/// device's clock, and settled by the resource's `conflicts.policy`; an update of an object the
/// server deleted follows `remoteDeletes`. A local delete beats a remote update: it is sent
/// whatever the server's stamp says.
extension Pusher {
    /// How one checked operation stands against the server's copy.
    enum Standing {
        /// The server's stamp is the row's base (or the row has no base): send it.
        case current
        /// The server's stamp moved past the base.
        case stale(serverStamp: String?)
        /// The server has no such object.
        case gone
    }

    // MARK: - Detection

    /// `detect: check`: the server stamps of `batch`'s updates and deletes (`stamps`: the
    /// round's pre-read, else one made now: per class, `GET classes/X?where={"objectId":{"$in":[…]}}&keys=updatedAt`), compared
    /// with each row's ``OutboxEntry/base`` as instants of the stamp attribute's type. Returns
    /// the operations to send; the others are settled here: a stale update by the policy
    /// (``settle(stale:)``), an update of an object the server deleted by `remoteDeletes`, a
    /// delete of an object already gone acknowledged. A stale delete is sent (a local delete
    /// beats a remote update).
    func checked(_ batch: [Operation], stamps known: [String: ServerCopy]? = nil) throws -> [Operation] {
        let checking = batch.filter(needsCheck)
        guard !checking.isEmpty else { return batch }
        let stamps = try known ?? serverCopies(of: checking, stampsOnly: true)
        var send: [Operation] = []
        var stale: [(Operation, String?)] = []
        var gone: [(Operation, Outcome)] = []
        let checkedKeys = Set(checking.map(\.row.sequence))
        for var operation in batch {
            guard checkedKeys.contains(operation.row.sequence), let id = identityText(operation.row.serverIdentity) else {
                send.append(operation)
                continue
            }
            let server = stamps["\(operation.target.className)\u{0}\(id)"]
            operation.serverStamp = server?.stamp
            switch standing(operation, serverStamp: server.map(\.stamp)) {
            case .current:
                send.append(operation)
            case .stale(let serverStamp):
                if operation.row.operation == .delete {
                    send.append(operation)  // a local delete beats a remote update
                } else {
                    stale.append((operation, serverStamp))
                }
            case .gone:
                if operation.row.operation == .delete {
                    gone.append((operation, .acknowledged(objectId: id, createdAt: nil, updatedAt: nil)))
                } else {
                    gone.append((operation, .remoteDeleted("the object was deleted on the server (the pre-read found no \(operation.target.className) \(id))")))
                }
            }
        }
        if !gone.isEmpty { try settleUnsent(gone) }
        send += try settle(stale: stale)
        return send
    }

    /// Whether `operation` is pre-read under `detect: check`: an update or delete of an object the server knows.
    func needsCheck(_ operation: Operation) -> Bool {
        operation.target.configuration.detect == .check && operation.row.operation != .create && identityText(operation.row.serverIdentity) != nil
    }

    /// Whether `operation`'s base is the server's stamp (`serverStamp`: nil when the server has
    /// no such object; `.some(nil)` when the object has no stamp).
    func standing(_ operation: Operation, serverStamp: String??) -> Standing {
        guard let serverStamp else { return .gone }
        guard let base = operation.row.base else { return .current }  // no base: no precondition
        guard let serverStamp else { return .stale(serverStamp: nil) }
        if base == serverStamp { return .current }
        if let index = operation.target.updatedAtIndex, let a = stamp(base, operation.entity, index), let b = stamp(serverStamp, operation.entity, index) {
            return a == b ? .current : .stale(serverStamp: serverStamp)
        }
        return .stale(serverStamp: serverStamp)
    }

    /// The server's copy of an object, and its stamp (Parse `updatedAt`; the `ETag` header,
    /// else the stamp key of the body, for an API without a dialect).
    struct ServerCopy {
        var record: JSONObject
        var stamp: String?
    }

    /// The server's copies of `operations`' objects, by class and server identity
    /// (`"Hero\u{0}h00001"`); an object the server does not have is absent. Parse: one query
    /// per class (`where={"objectId":{"$in":[…]}}`, with `keys=updatedAt` when `stampsOnly`);
    /// an API without a dialect: one `GET` of each object's path (``PushTarget/itemPath(_:)``).
    /// - Throws: ``SyncError`` from the requests (a 404 or 410 of one object is its absence).
    func serverCopies(of operations: [Operation], stampsOnly: Bool) throws -> [String: ServerCopy] {
        var copies: [String: ServerCopy] = [:]
        for (target, group) in grouped(operations) {
            let ids = Array(Set(group.compactMap { identityText($0.row.serverIdentity) })).sorted()
            if target.isParse {
                let what = stampsOnly ? "the pre-read of server stamps" : "the fetch of the server's copies"
                // At most 200 objectIds a query: its URL stays near 4 KB.
                var start = 0
                while start < ids.count {
                    let chunk = ids[start..<min(start + 200, ids.count)]
                    start += 200
                    let condition: JSONValue = ["objectId": ["$in": .array(chunk.map { .string($0) })]]
                    for object in try lookUp(target, where: condition, keys: stampsOnly ? "updatedAt" : nil, what: what) {
                        if let id = object["objectId"]?.stringValue {
                            copies["\(target.className)\u{0}\(id)"] = ServerCopy(record: object, stamp: object["updatedAt"]?.stringValue)
                        }
                    }
                }
                continue
            }
            for id in ids {
                if let copy = try readCopy(target, id) { copies["\(target.className)\u{0}\(id)"] = copy }
            }
        }
        return copies
    }

    /// One `GET` of object `id`'s path (an API without a dialect); nil on 404 or 410.
    func readCopy(_ target: PushTarget, _ id: String) throws -> ServerCopy? {
        guard let path = target.itemPath(id), let url = client.url(path: path, query: []) else {
            throw SyncError(
                .invalidValue, message: "reading an object back needs an update or delete route with {id}", resource: target.resource.name)
        }
        report.requests += 1
        let exchange: HTTPClient.Exchange
        do {
            exchange = try client.get(url, resource: target.resource.name)
        } catch let error as SyncError where error.status == 404 || error.status == 410 {
            return nil
        }
        guard case .object(let object)? = try? JSONReader.parse(exchange.response.body) else {
            throw SyncError(
                .malformedResponse, message: "the server's copy of \(target.className) \(id) is not a JSON object",
                resource: target.resource.name, pageURL: client.printable(url), status: exchange.response.status)
        }
        let stamp = exchange.response.headers["etag"] ?? target.stampKey.flatMap { object[$0]?.stringValue }
        return ServerCopy(record: object, stamp: stamp)
    }

    /// Operations by target (one per Parse class), in first-seen order.
    func grouped(_ operations: [Operation]) -> [(PushTarget, [Operation])] {
        var order: [String] = []
        var groups: [String: (PushTarget, [Operation])] = [:]
        for operation in operations {
            let name = operation.target.className
            if groups[name] == nil {
                order.append(name)
                groups[name] = (operation.target, [])
            }
            groups[name]!.1.append(operation)
        }
        return order.map { groups[$0]! }
    }

    // MARK: - Policies

    /// Settles stale updates by their resource's `conflicts.policy`; returns the ones to send
    /// (`clientWins`).
    ///
    /// - `serverWins`: the server's copy (one query per class) is written into the object as
    ///   origin sync and the row removed, in one transaction; the change is reported in
    ///   ``PushReport/overridden``.
    /// - `clientWins`: sent as it is (the pre-read is the only precondition: none is sent).
    /// - `manual`: the row becomes `conflict`, the local values stay, until ``resolve(_:take:)``.
    /// - `merge`: as `serverWins` until the outbox keeps the base values of changed fields.
    func settle(stale: [(Operation, String?)], answered: Bool = false) throws -> [Operation] {
        guard !stale.isEmpty else { return [] }
        let copies = try serverCopies(of: stale.map(\.0), stampsOnly: false)
        // The server already holds every changed field's local value: this push's own write whose
        // answer was lost (a killed run), or the same change made there. No conflict: the server's
        // copy (its stamp) is taken and the row removed.
        let holding: Set<Int64> = try read { session in
            var found = Set<Int64>()
            for (operation, _) in stale {
                guard let copy = copies[copyKey(operation)], try session.fetchForExport(ids: [operation.row.object]).first != nil else { continue }
                let merge = try merged(operation, copy, session: session)
                if merge.send.isEmpty, merge.taken.isEmpty { found.insert(operation.row.sequence) }
            }
            return found
        }
        if !holding.isEmpty { try adopt(stale.map(\.0).filter { holding.contains($0.row.sequence) }, copies) }
        var send: [Operation] = []
        var serverSide: [Operation] = []
        var manual: [OutboxEntry] = []
        var unconditional: [OutboxEntry] = []
        for (operation, stamp) in stale where !holding.contains(operation.row.sequence) {
            report.conflicts += 1
            let serverStamp = stamp ?? copies[copyKey(operation)]?.stamp
            let stampName = operation.target.isParse ? "updatedAt" : "ETag"
            let moved =
                "the server changed \(operation.target.className) \(identityText(operation.row.serverIdentity) ?? "?") since the change was made "
                + "(\(stampName) \(serverStamp ?? "none"), base \(operation.row.base ?? "none"))"
            switch operation.target.configuration.policy {
            case .clientWins:
                report.conflictsByPolicy.clientWins += 1
                if answered {
                    // Refused by If-Match: sent again in a later round without the precondition.
                    var row = operation.row
                    row.base = nil
                    row.lastError = moved + "; sent again without If-Match (clientWins)"
                    unconditional.append(row)
                } else {
                    send.append(operation)
                }
            case .manual:
                report.conflictsByPolicy.manual += 1
                var row = operation.row
                row.state = .conflict
                row.lastError =
                    moved + "; resolve with --resolve \(operation.row.object.entityName):\(identityText(row.serverIdentity) ?? "?") --take local|server"
                manual.append(row)
            case .serverWins, .merge:
                if operation.target.configuration.policy == .merge { report.conflictsByPolicy.merge += 1 } else { report.conflictsByPolicy.serverWins += 1 }
                serverSide.append(operation)
            }
        }
        if !manual.isEmpty {
            try write { _, storage in
                // Onto the rows as they are now (a pending row may have merged a later edit since it was planned).
                let rows = try storage.outboxRows(objectKeys: manual.map(\.object.primaryKey), serverIdentities: [])
                let current = Dictionary(rows.map { ($0.sequence, $0) }, uniquingKeysWith: { a, _ in a })
                let settled: [OutboxEntry] = manual.sorted { $0.sequence < $1.sequence }.compactMap { wanted in
                    guard var row = current[wanted.sequence], row.state == .pending else { return nil }
                    row.state = wanted.state
                    row.lastError = wanted.lastError
                    return row
                }
                if !settled.isEmpty { try storage.updateOutboxRows(settled) }
            }
        }
        if !unconditional.isEmpty {
            try write { _, storage in
                let rows = try storage.outboxRows(objectKeys: unconditional.map(\.object.primaryKey), serverIdentities: [])
                let current = Dictionary(rows.map { ($0.sequence, $0) }, uniquingKeysWith: { a, _ in a })
                let settled: [OutboxEntry] = unconditional.sorted { $0.sequence < $1.sequence }.compactMap { wanted in
                    guard var row = current[wanted.sequence], row.state == .pending else { return nil }
                    row.base = nil
                    row.lastError = wanted.lastError
                    return row
                }
                if !settled.isEmpty { try storage.updateOutboxRows(settled) }
            }
        }
        if !serverSide.isEmpty { try takeServerCopies(serverSide, reason: "overridden by the server's copy", copies: copies) }
        return send
    }

    /// The key of `operation`'s object in ``serverCopies(of:stampsOnly:)``.
    func copyKey(_ operation: Operation) -> String {
        "\(operation.target.className)\u{0}\(identityText(operation.row.serverIdentity) ?? "")"
    }

    /// Settles `operations` whose changes the server already holds: in one transaction the rows
    /// are removed and the server's copies (their stamps) written into the objects, as an
    /// acknowledgement.
    func adopt(_ operations: [Operation], _ copies: [String: ServerCopy]) throws {
        try write { session, storage in
            let rows = Set(try storage.outboxRows(objectKeys: operations.map(\.row.object.primaryKey), serverIdentities: []).map(\.sequence))
            var removed: [Int64] = []
            var changes: [ObjectChange] = []
            for operation in operations where rows.contains(operation.row.sequence) {
                guard let copy = copies[copyKey(operation)] else { continue }
                removed.append(operation.row.sequence)
                changes.append(try serverChange(copy, for: operation.row.object, entity: operation.entity, target: operation.target, session: session))
                report.acknowledged += 1
            }
            if !removed.isEmpty { try storage.deleteOutboxRows(sequences: removed) }
            if !changes.isEmpty { _ = try session.apply(ChangeSet(updated: changes)) }
        }
    }

    /// Fetches the server's copies of `operations`' objects (one query per class) and, in one
    /// transaction, removes the rows and writes the copies into the objects (origin sync); an
    /// object the server no longer has follows `remoteDeletes`.
    func takeServerCopies(_ operations: [Operation], reason: String, copies known: [String: ServerCopy]? = nil) throws {
        let copies = try known ?? serverCopies(of: operations, stampsOnly: false)
        var gone: [(Operation, Outcome)] = []
        try write { session, storage in
            // The rows as they are now: a pending row may have merged a later edit since it was planned.
            let rows = try storage.outboxRows(objectKeys: operations.map(\.row.object.primaryKey), serverIdentities: [])
            let current = Dictionary(rows.map { ($0.sequence, $0) }, uniquingKeysWith: { a, _ in a })
            var removed: [Int64] = []
            var rewritten: [OutboxEntry] = []
            var changes: [ObjectChange] = []
            for planned in operations {
                guard let row = current[planned.row.sequence], [.pending, .sending].contains(row.state) else { continue }
                var operation = planned
                operation.row = row
                let id = identityText(operation.row.serverIdentity) ?? ""
                guard let copy = copies["\(operation.target.className)\u{0}\(id)"] else {
                    gone.append((operation, .remoteDeleted("the object was deleted on the server")))
                    continue
                }
                let stampName = operation.target.isParse ? "updatedAt" : "ETag"
                if operation.target.configuration.policy == .merge {
                    let merge = try merged(operation, copy, session: session)
                    changes.append(merge.change)
                    if merge.send.isEmpty {
                        removed.append(operation.row.sequence)
                    } else {
                        var row = operation.row
                        row.fields = merge.send
                        row.base = copy.stamp  // sent on the server's current copy
                        row.state = .pending
                        row.lastError = "merged with the server's copy (\(stampName) \(copy.stamp ?? "none"))"
                        rewritten.append(row)
                    }
                    if !merge.taken.isEmpty {
                        report.overridden.append(
                            problem(
                                operation.row,
                                "merged (\(stampName) \(copy.stamp ?? "none")): the server's values kept for \(merge.taken.joined(separator: ", "))"
                                    + (merge.send.isEmpty ? "" : "; sent \(merge.send.joined(separator: ", "))")))
                    }
                    continue
                }
                removed.append(operation.row.sequence)
                changes.append(try serverChange(copy, for: operation.row.object, entity: operation.entity, target: operation.target, session: session))
                report.overridden.append(
                    problem(
                        operation.row,
                        "\(reason) (\(stampName) \(copy.stamp ?? "none")); local fields \(operation.row.fields.joined(separator: ", ")) not sent"))
            }
            // The rows first: the copy is the server's, not a change to protect.
            if !removed.isEmpty { try storage.deleteOutboxRows(sequences: removed) }
            if !rewritten.isEmpty { try storage.updateOutboxRows(rewritten) }
            if !changes.isEmpty { _ = try session.apply(ChangeSet(updated: changes)) }
            hooks.reach(.whileSettling)
        }
        if !gone.isEmpty {
            // Deleted on the server since: counted again, by remoteDeletes.
            for (operation, _) in gone {
                report.conflicts -= 1
                if operation.target.configuration.policy == .merge { report.conflictsByPolicy.merge -= 1 } else { report.conflictsByPolicy.serverWins -= 1 }
            }
            try settleUnsent(gone)
        }
    }

    /// `conflicts.policy: merge`, three-way against the base the change was made on, field by
    /// field over the row's changed fields (each compared as stored values: the server's copy
    /// read as a pull would read it, the local object's, the base's):
    ///
    /// - the server still holds the base value → the server did not change it: the local value
    ///   is sent;
    /// - the server holds the local value → both made the same change: nothing to send;
    /// - else it changed on both sides (or its base value is unknown) → `conflicts.bothChanged`
    ///   (`serverWins`, the default: the server's value is kept here; `clientWins`: sent).
    ///
    /// Fields the change did not touch take the server's values.
    /// - Returns: the change that writes the server's side into the object (every field but
    ///   the ones sent), the fields to send, and the locally changed fields the server's value replaced.
    func merged(_ operation: Operation, _ copy: ServerCopy, session: any StoreSession) throws -> (
        change: ObjectChange, send: [String], taken: [String]
    ) {
        let entity = operation.entity
        var change = try serverChange(copy, for: operation.row.object, entity: entity, target: operation.target, session: session)
        guard let local = try session.fetchForExport(ids: [operation.row.object]).first else { return (change, [], []) }
        var send: [String] = []
        var taken: [String] = []
        for name in operation.row.fields {
            let base = baseValue(of: operation.row, field: name)
            if let index = entity.attributeIndex(of: name) {
                guard let server = change.attributes.first(where: { $0.index == index }) else {
                    send.append(name)  // not read from the server (a nested key path): the local value goes
                    continue
                }
                let mine = local.attributes[index]
                if server.value == mine { continue }
                let type = entity.attributes[index].type
                if let base, base == (server.value.map { JSONCoercion.json(from: $0, as: type) } ?? .null) {
                    send.append(name)
                } else if operation.target.configuration.bothChanged == .clientWins {
                    send.append(name)
                } else {
                    taken.append(name)
                }
            } else if let index = entity.relationships.firstIndex(where: { $0.name == name }) {
                guard let server = change.relationships.first(where: { $0.index == index }) else {
                    send.append(name)
                    continue
                }
                if server.destinations == local.relationships[index] { continue }
                if operation.target.configuration.bothChanged == .clientWins { send.append(name) } else { taken.append(name) }
            }
        }
        let sent = Set(send.compactMap { entity.attributeIndex(of: $0) })
        let sentLinks = Set(send.compactMap { name in entity.relationships.firstIndex { $0.name == name } })
        change.attributes.removeAll { sent.contains($0.index) }
        change.relationships.removeAll { sentLinks.contains($0.index) }
        if !send.isEmpty, let index = operation.target.updatedAtIndex {
            // The stamp stays the base's until the merged change is acknowledged.
            change.attributes.removeAll { $0.index == index }
        }
        return (change, send, taken)
    }

    /// The value `field` had when the change of `row` was made, in its JSON form
    /// (``OutboxEntry/baseValues``); nil when the outbox does not know it (a relationship, a
    /// row recorded before the column existed), which makes a field the server changed count
    /// as changed on both sides.
    func baseValue(of row: OutboxEntry, field: String) -> JSONValue? {
        row.baseValues[field]
    }

    /// The change that makes the stored object `id` equal to the server's `copy`: every
    /// attribute mapped to one key (a missing key clears it), the stamps, and every to-one
    /// relationship sent as a Pointer whose destination is stored (else it is left as it is;
    /// the next pull links it).
    func serverChange(_ copy: ServerCopy, for id: ObjectID, entity: ResolvedEntity, target: PushTarget, session: any StoreSession) throws -> ObjectChange {
        var remarks: [ParseDialect.Remark] = []
        let record = copy.record
        let plain = (target.isParse ? (ParseDialect.convert(.object(record), at: .root, remarks: &remarks) ?? .object(record)).objectValue : nil) ?? record
        var attributes: [AttributeChange] = []
        for (index, keyPath) in entity.attributeMappings where keyPath.components.count == 1 && index != target.objectIdIndex {
            var value = plain[keyPath.description]
            if index == target.updatedAtIndex, let stamp = copy.stamp { value = .string(stamp) }
            let converted: AttributeValue?
            if let value, value != .null {
                converted = try? JSONCoercion.value(from: value, as: entity.attributes[index].type)
            } else {
                converted = nil
            }
            attributes.append(AttributeChange(index: index, value: converted))
        }
        var relationships: [RelationshipChange] = []
        for index in ParseWriteBody.pointerIndexes(entity) {
            let relationship = entity.relationships[index]
            guard let keyPath = entity.relationshipMappings.first(where: { $0.index == index })?.keyPath else { continue }
            let value = plain[keyPath.description]
            guard let value, value != .null else {
                relationships.append(RelationshipChange(index: index, destinations: []))
                continue
            }
            guard let destinationID = value.stringValue, let destination = model.entity(named: relationship.destinationEntity),
                let found = try session.fetch(entity: destination.rootName, identities: [[.string(destinationID)]]).first
            else { continue }
            relationships.append(RelationshipChange(index: index, destinations: [found.id]))
        }
        return ObjectChange(id: id, attributes: attributes, relationships: relationships)
    }

    /// A report line for `row`.
    func problem(_ row: OutboxEntry, _ message: String) -> PushReport.Problem {
        PushReport.Problem(
            entity: row.object.entityName, serverIdentity: identityText(row.serverIdentity), operation: row.operation, state: row.state,
            message: message)
    }

    /// Records outcomes of operations that were not sent (they were never marked `sending`).
    func settleUnsent(_ items: [(Operation, Outcome)]) throws {
        try record(items)
    }

    // MARK: - Remote deletes

    /// The row of an update whose object the server deleted, made a create of every field
    /// (`remoteDeletes: recreate`): sent in a later round, with the local values.
    func recreated(_ row: OutboxEntry, _ entity: ResolvedEntity) -> OutboxEntry {
        var row = row
        row.operation = .create
        row.fields = entity.attributes.map(\.name) + entity.relationships.map(\.name)
        row.serverIdentity = nil
        row.base = nil
        row.state = .pending
        row.attempts = 0
        row.key = UUID()
        row.lastError = "recreated: the object was deleted on the server"
        return row
    }

    /// `remoteDeletes: deleteWins`: deletes the rows' objects here (the context's delete
    /// rules, origin push: never guarded) and removes the rows, in one transaction; each change is reported in
    /// ``PushReport/overridden``.
    func deleteLocally(_ rows: [OutboxEntry]) throws {
        guard !rows.isEmpty else { return }
        let context = synchronizer.context
        do {
            for object in try context.objects(with: rows.map(\.object)) { try context.delete(object) }
            try context.save(origin: .push) { session in
                guard let storage = session as? any OutboxStorage else { return }
                let left = try storage.outboxRows(objectKeys: rows.map(\.object.primaryKey), serverIdentities: [])
                let objects = Set(rows.map { objectKey($0.object) })
                // Every row of the objects: they no longer exist on either side.
                let doomed = left.filter { objects.contains(objectKey($0.object)) && $0.state != .sending && $0.state != .uncertain }
                if !doomed.isEmpty { try storage.deleteOutboxRows(sequences: doomed.map(\.sequence)) }
            }
        } catch let error as StoreError {
            context.rollback()
            throw SyncError(.store, message: error.description, underlying: error)
        }
        for row in rows {
            report.overridden.append(problem(row, "dropped: the object was deleted on the server, and here too (remoteDeletes deleteWins)"))
        }
    }
}

// MARK: - Resolving

extension Pusher {
    /// Settles the `conflict` rows of one object (``Synchronizer/resolveConflict(entity:serverIdentity:take:)``)
    /// after one read of the server's copy; returns how many rows it settled.
    func resolve(entity name: String, serverIdentity id: String, take side: ConflictResolution) throws -> Int {
        guard let target = targets[name], let entity = model.entity(named: name) else {
            throw SyncError(.invalidValue, message: "no resource's push section covers entity \(name)", entity: name)
        }
        try write { session, _ in try lease.take(in: session, now: clock.now()) }
        defer { _ = try? write { session, _ in try lease.release(in: session) } }
        let all = try read { try $0.outboxEntries() }
        let conflicts = all.filter { $0.state == .conflict }
        let rows = conflicts.filter {
            model.entity(named: $0.object.entityName)?.rootName == entity.rootName && identityText($0.serverIdentity) == id
        }
        guard !rows.isEmpty else {
            let known = conflicts.map { "\($0.object.entityName):\(identityText($0.serverIdentity) ?? "(not created)")" }
            throw SyncError(
                .invalidValue,
                message: "the outbox holds no conflict of \(name):\(id)"
                    + (known.isEmpty ? " (it holds no conflict at all)" : " (its conflicts: \(known.joined(separator: ", ")))"),
                resource: target.resource.name, entity: name)
        }
        let operations = rows.map { Operation(row: $0, target: target, entity: model.entity(named: $0.object.entityName) ?? entity) }
        let copy = try serverCopies(of: [operations[0]], stampsOnly: false)["\(target.className)\u{0}\(id)"]
        switch (side, copy) {
        case (.server, .some(let copy)):
            try write { session, storage in
                try storage.deleteOutboxRows(sequences: rows.map(\.sequence))
                _ = try session.apply(
                    ChangeSet(updated: [try serverChange(copy, for: rows[0].object, entity: operations[0].entity, target: target, session: session)]))
            }
            for row in rows {
                report.overridden.append(
                    problem(row, "resolved for the server: its copy was written here (stamp \(copy.stamp ?? "none"))"))
            }
        case (.server, .none):
            try deleteLocally(rows)
        case (.local, .some(let copy)):
            // Sent again on the server's current stamp: a write by anyone else meanwhile is a new conflict.
            let stamp = copy.stamp
            try write { _, storage in
                try storage.updateOutboxRows(
                    rows.map { row in
                        var row = row
                        row.state = .pending
                        row.base = stamp
                        row.lastError = "resolved for the local change"
                        return row
                    })
            }
        case (.local, .none):
            try write { _, storage in
                try storage.updateOutboxRows(rows.map { row in row.operation == .delete ? row : recreated(row, entity) })
            }
        }
        return rows.count
    }
}
