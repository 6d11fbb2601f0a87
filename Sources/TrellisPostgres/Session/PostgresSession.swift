import Trellis

/// A ``StoreSession`` over the store's connection, inside one transaction. Valid only inside
/// the `read`/`write` closure that received it; afterwards every call throws.
///
/// Every fetch is one round trip: the rows (`WHERE t."id" = ANY($1::text[])`, or a semi-join
/// on `unnest` for a composite identity), and in the same pipeline one statement per to-many
/// relationship, selecting the links of the same rows (`WHERE j."source" IN (SELECT t."_pk"
/// … same condition)`).
final class PostgresSession: StoreSession {
    let connection: PostgresConnection
    let layout: PostgresLayout
    let model: ObjectModel
    let isWritable: Bool
    private(set) var isValid = true
    /// The error of a failed ``apply(_:)``: the write session then rolls back even if the
    /// closure catches it (as with the other stores).
    var failure: (any Error)?
    /// What this session's applies changed, for the change log (`PostgresStore+Observation.swift`).
    var commitRecord = StoreCommit()
    /// ``StoreSession/origin``: local changes are recorded in `trellis_outbox` (`PostgresSession+Outbox.swift`).
    var origin: ChangeOrigin = .import
    var pushRules = PushRules()
    /// `search_path` names the store's schema for the rest of the transaction (compiled fetch requests).
    var schemaIsSearched = false
    /// Cursors of ``fetch(_:batchSize:_:)`` open now (one per nested call), which names the next.
    var openCursors = 0

    init(connection: PostgresConnection, layout: PostgresLayout, model: ObjectModel, isWritable: Bool) {
        self.connection = connection
        self.layout = layout
        self.model = model
        self.isWritable = isWritable
    }

    func invalidate() { isValid = false }

    func checkValid() throws(StoreError) {
        guard isValid else {
            throw StoreError(.engine, message: "a store session was used after its read or write closure returned")
        }
    }

    // MARK: - StoreSession

    func fetch(entity: String, identities: [[AttributeValue]]) throws -> [ObjectSnapshot] {
        try fetch(entity: entity, identities: identities, forImport: false)
    }

    /// Skips loading the to-many relationships an import never reads (``PostgresEntityLayout/importSkips``).
    func fetchForImport(entity: String, identities: [[AttributeValue]]) throws -> [ObjectSnapshot] {
        try fetch(entity: entity, identities: identities, forImport: true)
    }

    private func fetch(entity: String, identities: [[AttributeValue]], forImport: Bool) throws(StoreError) -> [ObjectSnapshot] {
        try checkValid()
        let entityLayout = try layout.entity(entity)
        let arity = entityLayout.identityIndexes.count
        guard arity > 0 else {
            throw StoreError(.unknownObject, message: "entity \(entity) has no identity attributes to fetch by")
        }
        guard !identities.isEmpty else { return [] }
        var arrays = entityLayout.identityIndexes.map { PostgresArray(of: PostgresValues.elementType(for: entityLayout.attributeTypes[$0]).oid) }
        for identity in identities {
            guard identity.count == arity else {
                throw StoreError(.unknownObject, message: "an identity of entity \(entity) needs \(arity) values, got \(identity.count)")
            }
            for (n, value) in identity.enumerated() {
                let index = entityLayout.identityIndexes[n]
                do {
                    try PostgresValues.append(value, as: entityLayout.attributeTypes[index], to: &arrays[n])
                } catch {
                    throw StoreError(
                        error.code,
                        message: "entity \(entity), attribute \(entityLayout.entity.attributes[index].name): "
                            + error.message)
                }
            }
        }
        var parameters = PostgresParameters()
        for array in arrays { parameters.append(array) }
        var condition = entityLayout.identityCondition(columns: entityLayout.identityIndexes, first: 1)
        if let kinds = entityLayout.kindCondition(parameter: arity + 1) {
            condition += " AND " + kinds
            parameters.append(PostgresSession.textArray(entityLayout.kindNames))
        }
        return try select(
            entityLayout.table, condition: condition, parameters: parameters,
            relationshipsOf: entityLayout.kindNames, forImport: forImport)
    }

    /// Runs the predicate's fetch request (``StoreSession/request(entity:matching:)``).
    func fetch(entity: String, matching predicate: StorePredicate?) throws -> [ObjectSnapshot] {
        try fetch(request(entity: entity, matching: predicate))
    }

    func fetch(ids: [ObjectID]) throws -> [ObjectSnapshot] {
        try fetch(ids: ids, skippingUnread: false)
    }

    /// Skips loading the to-many relationships no key path maps (`importSkips`), as for an import.
    func fetchForExport(ids: [ObjectID]) throws -> [ObjectSnapshot] {
        try fetch(ids: ids, skippingUnread: true)
    }

    private func fetch(ids: [ObjectID], skippingUnread: Bool) throws -> [ObjectSnapshot] {
        try checkValid()
        var keysByTable: [String: [Int64]] = [:]
        var tableOrder: [PostgresTableLayout] = []
        for id in ids {
            let entityLayout = try layout.entity(id.entityName)
            if keysByTable[entityLayout.table.name] == nil { tableOrder.append(entityLayout.table) }
            keysByTable[entityLayout.table.name, default: []].append(id.primaryKey)
        }
        let requested = Set(ids)
        var result: [ObjectSnapshot] = []
        for table in tableOrder {
            var keys = PostgresArray(of: PostgresType.int8)
            for key in keysByTable[table.name] ?? [] { keys.append(key) }
            var parameters = PostgresParameters()
            parameters.append(keys)
            // An ID naming the wrong entity for its key is absent.
            result += try select(
                table, condition: "t.\"_pk\" = ANY($1::bigint[])", parameters: parameters,
                relationshipsOf: table.entityNames, forImport: skippingUnread
            ).filter { requested.contains($0.id) }
        }
        return result
    }

    func count(entity: String, matching predicate: StorePredicate?) throws -> Int {
        try count(request(entity: entity, matching: predicate))
    }

    /// Locks the scope's row in `trellis_locks` (`FOR SHARE`, or `FOR UPDATE` when
    /// `exclusive`) until the transaction ends; the row is inserted the first time a scope is
    /// locked. Row locks, unlike advisory locks, work alike on PostgreSQL, CockroachDB and YugabyteDB.
    func lock(scope: String, exclusive: Bool) throws {
        try checkValid()
        guard isWritable else { throw StoreError(.readOnly, message: "cannot lock a scope in a read session") }
        let table = layout.qualified(PostgresSchema.locksTable)
        var parameters = PostgresParameters()
        parameters.append(text: scope)
        let select = "SELECT 1 FROM \(table) WHERE \"scope\" = $1 FOR \(exclusive ? "UPDATE" : "SHARE")"
        if try connection.run(select, parameters).rowCount > 0 { return }
        try connection.run("INSERT INTO \(table) (\"scope\") VALUES ($1) ON CONFLICT DO NOTHING", parameters)
        try connection.run(select, parameters)
    }

    // MARK: - Reading rows

    /// The rows of `table` matching `condition` (on `t`, with `parameters`) with their
    /// to-many relationships (those of the entities `kinds`, minus the import's skips),
    /// in one pipeline.
    func select(
        _ table: PostgresTableLayout, joins: String = "", condition: String, suffix: String = "",
        parameters: PostgresParameters, relationshipsOf kinds: [String], forImport: Bool
    ) throws(StoreError) -> [ObjectSnapshot] {
        let groups = toManyGroups(of: table, kinds: kinds, forImport: forImport)
        let sources = "IN (SELECT t.\"_pk\" FROM \(table.qualifiedName) AS t\(joins) WHERE \(condition)\(suffix))"
        var queries = [
            PostgresConnection.Query(
                sql: "SELECT \(table.selectList) FROM \(table.fromSQL)\(joins) WHERE \(condition)\(suffix)",
                parameters: parameters)
        ]
        for group in groups {
            queries.append(
                PostgresConnection.Query(
                    sql: PostgresSession.linksSQL(group.relationship, sources: sources),
                    parameters: parameters))
        }
        let results = try connection.pipeline(queries)
        var snapshots = try readRows(results[0], table: table)
        addLinks(results.dropFirst(), of: groups, to: &snapshots)
        return snapshots
    }

    /// The to-many relationships of `snapshots` (rows of `table`, of the entities `kinds`),
    /// read by their keys (`= ANY($1::bigint[])`) in one pipeline, one statement per storage:
    /// for rows read without them (a cursor's batch, ``fetch(_:batchSize:_:)``).
    func loadToMany(
        of snapshots: inout [ObjectSnapshot], table: PostgresTableLayout, kinds: [String],
        forImport: Bool
    ) throws(StoreError) {
        let groups = toManyGroups(of: table, kinds: kinds, forImport: forImport)
        guard !groups.isEmpty, !snapshots.isEmpty else { return }
        var keys = PostgresArray(of: PostgresType.int8)
        for snapshot in snapshots { keys.append(snapshot.id.primaryKey) }
        var parameters = PostgresParameters()
        parameters.append(keys)
        let queries = groups.map { group in
            PostgresConnection.Query(sql: PostgresSession.linksSQL(group.relationship, sources: "= ANY($1::bigint[])"), parameters: parameters)
        }
        addLinks(try connection.pipeline(queries)[...], of: groups, to: &snapshots)
    }

    /// The to-many storages the rows' entities read, each once: (storage, [entity: slot]).
    private func toManyGroups(
        of table: PostgresTableLayout, kinds: [String],
        forImport: Bool
    ) -> [(relationship: PostgresRelationshipLayout, slots: [String: Int])] {
        var groups: [(relationship: PostgresRelationshipLayout, slots: [String: Int])] = []
        var groupIndex: [String: Int] = [:]
        for kind in kinds {
            guard let entityLayout = layout.entities[kind], entityLayout.table === table else { continue }
            for (slot, relationship) in entityLayout.relationships.enumerated() {
                guard let key = PostgresSession.loadKey(relationship), !(forImport && entityLayout.importSkips[slot]) else { continue }
                if let index = groupIndex[key] {
                    groups[index].slots[kind] = slot
                } else {
                    groupIndex[key] = groups.count
                    groups.append((relationship, [kind: slot]))
                }
            }
        }
        return groups
    }

    /// Adds the links of `results` (one per group, rows sorted by source) to `snapshots`.
    private func addLinks(
        _ results: ArraySlice<PostgresResult>, of groups: [(relationship: PostgresRelationshipLayout, slots: [String: Int])],
        to snapshots: inout [ObjectSnapshot]
    ) {
        guard !groups.isEmpty, !snapshots.isEmpty else { return }
        var positionOfKey: [Int64: Int] = [:]
        positionOfKey.reserveCapacity(snapshots.count)
        for (position, snapshot) in snapshots.enumerated() { positionOfKey[snapshot.id.primaryKey] = position }
        for (group, links) in zip(groups, results) {
            let destination = PostgresSession.destinationTable(group.relationship)
            let singleEntity = destination.entityNames.first ?? ""
            for row in 0..<links.rowCount {
                guard let position = positionOfKey[links.int64(row, 0)],
                    let slot = group.slots[snapshots[position].id.entityName]
                else { continue }
                let entityName = destination.isPolymorphic ? layout.canonicalName(links.string(row, 2)) : singleEntity
                snapshots[position].relationships[slot].append(ObjectID(entityName: entityName, primaryKey: links.int64(row, 1)))
            }
            if destination.isPolymorphic, !PostgresSession.isOrdered(group.relationship) {
                for position in snapshots.indices {
                    guard let slot = group.slots[snapshots[position].id.entityName],
                        snapshots[position].relationships[slot].count > 1
                    else { continue }
                    snapshots[position].relationships[slot].sort()
                }
            }
        }
    }

    /// Snapshots (attributes and to-ones) from rows of a table's select list.
    func readRows(_ result: PostgresResult, table: PostgresTableLayout) throws(StoreError) -> [ObjectSnapshot] {
        var snapshots: [ObjectSnapshot] = []
        snapshots.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount {
            let plan: PostgresReadPlan
            let entityName: String
            if table.isPolymorphic {
                guard let found = table.readPlan(for: result.string(row, 1)) else {
                    throw StoreError(.unknownObject, message: "a row of table \(table.name) has an entity the model does not have")
                }
                plan = found
                entityName = table.entityNames[plan.ordinal]
            } else {
                guard let found = table.singlePlan else { continue }
                plan = found
                entityName = table.entityNames[0]
            }
            var attributes: [AttributeValue?] = []
            attributes.reserveCapacity(plan.attributePositions.count)
            for (position, type) in zip(plan.attributePositions, plan.attributeTypes) {
                attributes.append(try PostgresValues.value(result, row, position, as: type))
            }
            var relationships = [[ObjectID]](repeating: [], count: plan.relationshipCount)
            for toOne in plan.toOnes where !result.isNull(row, toOne.column) {
                let destinationEntity = toOne.entityColumn.map { layout.canonicalName(result.string(row, $0)) } ?? toOne.destinationEntity
                relationships[toOne.slot] = [ObjectID(entityName: destinationEntity, primaryKey: result.int64(row, toOne.column))]
            }
            snapshots.append(
                ObjectSnapshot(
                    id: ObjectID(entityName: entityName, primaryKey: result.int64(row, 0)),
                    isPlaceholder: result.bool(row, 2), attributes: attributes, relationships: relationships))
        }
        return snapshots
    }

    // MARK: - To-many SQL

    /// Identifies the storage a to-many is read from; nil for a to-one.
    static func loadKey(_ relationship: PostgresRelationshipLayout) -> String? {
        switch relationship {
        case .foreignKey: return nil
        case .inverseForeignKey(let column, let destination): return "inverse \(destination.name) \(column)"
        case .joinTable(let join): return "join \(join.table) \(join.thisColumn)"
        }
    }

    static func destinationTable(_ relationship: PostgresRelationshipLayout) -> PostgresTableLayout {
        switch relationship {
        case .foreignKey(_, let destination), .inverseForeignKey(_, let destination): return destination
        case .joinTable(let join): return join.destination
        }
    }

    static func isOrdered(_ relationship: PostgresRelationshipLayout) -> Bool {
        if case .joinTable(let join) = relationship { return join.isOrdered || join.membershipColumn != nil }
        return false
    }

    /// `SELECT source, destination[, destination entity] … WHERE source <sources> ORDER BY …`
    /// for one to-many storage, rows sorted by source (then position, or key).
    static func linksSQL(_ relationship: PostgresRelationshipLayout, sources: String) -> String {
        switch relationship {
        case .foreignKey:
            return ""
        case .inverseForeignKey(let column, let table):
            let fk = "d.\(SQLText.identifier(column))"
            return "SELECT \(fk), d.\"_pk\"\(table.isPolymorphic ? ", d.\"_entity\"" : "") FROM \(table.qualifiedName) AS d "
                + "WHERE \(fk) \(sources) ORDER BY \(fk), d.\"_pk\""
        case .joinTable(let join) where join.membershipColumn != nil:
            // Members from the inverse's foreign key, in the join table's order (links the
            // table does not know yet come last, by key).
            let table = join.destination
            let fk = "d.\(SQLText.identifier(join.membershipColumn ?? ""))"
            return "SELECT \(fk), d.\"_pk\"\(table.isPolymorphic ? ", d.\"_entity\"" : "") FROM \(table.qualifiedName) AS d "
                + "LEFT JOIN \(join.qualifiedName) AS j ON j.\"source\" = \(fk) AND j.\"destination\" = d.\"_pk\" "
                + "WHERE \(fk) \(sources) ORDER BY \(fk), j.\"position\" IS NULL, j.\"position\", d.\"_pk\""
        case .joinTable(let join):
            let table = join.destination
            let this = "j.\(SQLText.identifier(join.thisColumn))"
            let other = "j.\(SQLText.identifier(join.otherColumn))"
            let entityJoin = table.isPolymorphic ? " JOIN \(table.qualifiedName) AS d ON d.\"_pk\" = \(other)" : ""
            return "SELECT \(this), \(other)\(table.isPolymorphic ? ", d.\"_entity\"" : "") FROM \(join.qualifiedName) AS j\(entityJoin) "
                + "WHERE \(this) \(sources) ORDER BY \(this), " + (join.isOrdered ? "j.\"position\"" : other)
        }
    }

    static func textArray(_ values: [String]) -> PostgresArray {
        var array = PostgresArray(of: PostgresType.text)
        for value in values { array.append(bytes: value.utf8) }
        return array
    }
}
