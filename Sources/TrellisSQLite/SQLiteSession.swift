import Trellis

/// A ``StoreSession`` over the store's connection, inside one transaction. Valid only
/// inside the `read`/`write` closure that received it; afterwards every call throws.
///
/// Every fetch is set-based: one statement per chunk of ``chunkSize`` keys (identity
/// values or primary keys) per table, then one statement per chunk per to-many
/// relationship for the objects found. Statements are cached by SQL text on the connection.
final class SQLiteSession: StoreSession {
    let connection: Connection
    let layout: StoreLayout
    let model: ObjectModel
    let isWritable: Bool
    let chunkSize: Int
    private(set) var isValid = true

    init(connection: Connection, layout: StoreLayout, model: ObjectModel, isWritable: Bool, chunkSize: Int) {
        self.connection = connection
        self.layout = layout
        self.model = model
        self.isWritable = isWritable
        self.chunkSize = chunkSize
    }

    func invalidate() { isValid = false }

    func checkValid() throws(StoreError) {
        guard isValid else {
            throw StoreError(.engine, message: "a store session was used after its read or write closure returned")
        }
    }

    // MARK: - StoreSession

    func fetch(entity: String, identities: [[AttributeValue]]) throws -> [ObjectSnapshot] {
        try checkValid()
        let entityLayout = try layout.entity(entity)
        let arity = entityLayout.identityColumns.count
        guard arity > 0 else {
            throw StoreError(.unknownObject, message: "entity \(entity) has no identity attributes to fetch by")
        }
        guard !identities.isEmpty else { return [] }
        for identity in identities where identity.count != arity {
            throw StoreError(.unknownObject, message: "an identity of entity \(entity) needs \(arity) values, got \(identity.count)")
        }
        let table = entityLayout.table
        let columns = entityLayout.identityColumns.map { "t.\(SQL.identifier($0))" }
        var sql = table.selectSQL + " WHERE "
        if arity == 1 {
            sql += "\(columns[0]) IN (\(SQL.placeholders(chunkSize)))"
        } else {
            let row = "(\(SQL.placeholders(arity)))"
            sql += "(\(columns.joined(separator: ", "))) IN (VALUES \(Array(repeating: row, count: chunkSize).joined(separator: ", ")))"
        }
        let kindFilter = entityLayout.coversTable ? [] : entityLayout.kindNames
        if !kindFilter.isEmpty { sql += " AND t.\"_entity\" IN (\(SQL.placeholders(kindFilter.count)))" }
        let statement = try connection.cachedStatement(sql)
        var reader = RowReader(layout: layout, table: table)
        var start = 0
        while start < identities.count {
            let end = min(start + chunkSize, identities.count)
            statement.reset()
            var parameter: Int32 = 1
            for i in start..<end {
                for value in identities[i] {
                    try statement.bind(value, at: parameter)
                    parameter += 1
                }
            }
            parameter = Int32(chunkSize * arity) + 1
            for kind in kindFilter {
                statement.bind(kind, at: parameter)
                parameter += 1
            }
            try reader.readAll(statement)
            start = end
        }
        statement.reset()
        return try finish(reader)
    }

    func fetch(entity: String, matching predicate: StorePredicate?) throws -> [ObjectSnapshot] {
        try checkValid()
        let entityLayout = try layout.entity(entity)
        var binder = PredicateBinder()
        let whereSQL = try condition(for: entityLayout, predicate: predicate, binder: &binder)
        let statement = try connection.cachedStatement(
            entityLayout.table.selectSQL + " WHERE \(whereSQL) ORDER BY t.\"_entity\", t.\"_pk\"")
        try binder.bind(statement)
        var reader = RowReader(layout: layout, table: entityLayout.table)
        try reader.readAll(statement)
        statement.reset()
        return try finish(reader)
    }

    func fetch(ids: [ObjectID]) throws -> [ObjectSnapshot] {
        try checkValid()
        var keysByTable: [String: [Int64]] = [:]
        var tableOrder: [TableLayout] = []
        for id in ids {
            let entityLayout = try layout.entity(id.entityName)
            if keysByTable[entityLayout.table.name] == nil { tableOrder.append(entityLayout.table) }
            keysByTable[entityLayout.table.name, default: []].append(id.primaryKey)
        }
        let requested = Set(ids)
        var result: [ObjectSnapshot] = []
        for table in tableOrder {
            let keys = keysByTable[table.name] ?? []
            let statement = try connection.cachedStatement(table.selectSQL + " WHERE t.\"_pk\" IN (\(SQL.placeholders(chunkSize)))")
            var reader = RowReader(layout: layout, table: table)
            var start = 0
            while start < keys.count {
                let end = min(start + chunkSize, keys.count)
                statement.reset()
                for i in start..<end { statement.bind(keys[i], at: Int32(i - start + 1)) }
                try reader.readAll(statement)
                start = end
            }
            statement.reset()
            // An ID naming the wrong entity for its key is absent.
            result += try finish(reader).filter { requested.contains($0.id) }
        }
        return result
    }

    func count(entity: String, matching predicate: StorePredicate?) throws -> Int {
        try checkValid()
        let entityLayout = try layout.entity(entity)
        var binder = PredicateBinder()
        let whereSQL = try condition(for: entityLayout, predicate: predicate, binder: &binder)
        let statement = try connection.cachedStatement(
            "SELECT count(*) FROM \(entityLayout.table.quotedName) AS t WHERE \(whereSQL)")
        try binder.bind(statement)
        return Int(try statement.runReturningInt64() ?? 0)
    }

    // MARK: - Relationships of fetched rows

    /// Loads the to-many relationships of the rows `reader` collected and returns the snapshots.
    func finish(_ reader: RowReader) throws(StoreError) -> [ObjectSnapshot] {
        var snapshots = reader.snapshots
        guard !snapshots.isEmpty else { return snapshots }
        // Group sources by to-many storage: one batched query per join table / inverse column.
        var groups: [String: (relationship: RelationshipLayout, members: [(position: Int, slot: Int)])] = [:]
        var groupOrder: [String] = []
        for (entityName, positions) in reader.positionsByEntity {
            let entityLayout = try layout.entity(entityName)
            for (slot, relationship) in entityLayout.relationships.enumerated() {
                let key: String
                switch relationship {
                case .foreignKey: continue
                case .inverseForeignKey(let column, let destination): key = "inverse \(destination.name) \(column)"
                case .joinTable(let table, _, _, _): key = "join \(table)"
                }
                if groups[key] == nil {
                    groups[key] = (relationship, [])
                    groupOrder.append(key)
                }
                for position in positions { groups[key]?.members.append((position, slot)) }
            }
        }
        for key in groupOrder {
            guard let group = groups[key] else { continue }
            try loadToMany(group.relationship, members: group.members, into: &snapshots)
        }
        return snapshots
    }

    private func loadToMany(_ relationship: RelationshipLayout, members: [(position: Int, slot: Int)],
                            into snapshots: inout [ObjectSnapshot]) throws(StoreError) {
        let sql: String
        let destination: TableLayout
        var isOrdered = false
        switch relationship {
        case .foreignKey:
            return
        case .inverseForeignKey(let column, let table):
            destination = table
            let c = "d.\(SQL.identifier(column))"
            sql = "SELECT \(c), d.\"_pk\"\(table.isPolymorphic ? ", d.\"_entity\"" : "") FROM \(table.quotedName) AS d"
                + " WHERE \(c) IN (\(SQL.placeholders(chunkSize)))"
        case .joinTable(let name, let table, let ordered, _):
            destination = table
            isOrdered = ordered
            let join = table.isPolymorphic ? " JOIN \(table.quotedName) AS d ON d.\"_pk\" = j.\"destination\"" : ""
            sql = "SELECT j.\"source\", j.\"destination\"\(table.isPolymorphic ? ", d.\"_entity\"" : "") FROM \(SQL.identifier(name)) AS j"
                + join + " WHERE j.\"source\" IN (\(SQL.placeholders(chunkSize)))"
                + (ordered ? " ORDER BY j.\"source\", j.\"position\"" : "")
        }
        var memberByKey: [Int64: (position: Int, slot: Int)] = [:]
        memberByKey.reserveCapacity(members.count)
        var keys: [Int64] = []
        keys.reserveCapacity(members.count)
        for member in members {
            let key = snapshots[member.position].id.primaryKey
            if memberByKey.updateValue(member, forKey: key) == nil { keys.append(key) }
        }
        let statement = try connection.cachedStatement(sql)
        let singleEntity = destination.entityNames.first ?? ""
        var start = 0
        while start < keys.count {
            let end = min(start + chunkSize, keys.count)
            statement.reset()
            for i in start..<end { statement.bind(keys[i], at: Int32(i - start + 1)) }
            while try statement.step() {
                guard let member = memberByKey[statement.int64(0)] else { continue }
                let entityName = destination.isPolymorphic ? layout.canonicalName(statement.string(2)) : singleEntity
                snapshots[member.position].relationships[member.slot].append(
                    ObjectID(entityName: entityName, primaryKey: statement.int64(1)))
            }
            start = end
        }
        statement.reset()
        if !isOrdered {
            for member in memberByKey.values where snapshots[member.position].relationships[member.slot].count > 1 {
                if destination.isPolymorphic {
                    snapshots[member.position].relationships[member.slot].sort()
                } else {
                    snapshots[member.position].relationships[member.slot].sort { $0.primaryKey < $1.primaryKey }
                }
            }
        }
    }

    // MARK: - Predicates

    /// The WHERE condition for `entity` (its kinds) and `predicate`, collecting the values to bind.
    func condition(for entity: EntityLayout, predicate: StorePredicate?,
                   binder: inout PredicateBinder) throws(StoreError) -> String {
        var parts: [String] = []
        if !entity.coversTable {
            parts.append("t.\"_entity\" IN (\(entity.kindNames.map { binder.add(.string($0)) }.joined(separator: ", ")))")
        }
        if let predicate { parts.append(try sql(for: predicate, entity: entity, binder: &binder)) }
        return parts.isEmpty ? "1" : parts.joined(separator: " AND ")
    }

    private func sql(for predicate: StorePredicate, entity: EntityLayout,
                     binder: inout PredicateBinder) throws(StoreError) -> String {
        func column(_ attribute: String) throws(StoreError) -> String {
            guard let index = entity.entity.attributeIndex(of: attribute) else {
                throw StoreError(.unknownObject, message: "entity \(entity.entity.name) has no attribute '\(attribute)'")
            }
            return "t.\(SQL.identifier(entity.attributeColumns[index]))"
        }
        switch predicate {
        case .equals(let attribute, let value):
            let c = try column(attribute)
            guard let value else { return "\(c) IS NULL" }
            return "\(c) = \(binder.add(value))"
        case .oneOf(let attribute, let values):
            let c = try column(attribute)
            if values.isEmpty { return "0" }
            return "\(c) IN (\(values.map { binder.add($0) }.joined(separator: ", ")))"
        case .relatedTo(let name, let destination):
            guard let index = entity.entity.relationshipIndex(of: name),
                  case .foreignKey(let fk, _) = entity.relationships[index] else {
                throw StoreError(.unknownObject, message: "entity \(entity.entity.name) has no to-one relationship '\(name)'")
            }
            guard let destination else { return "t.\(SQL.identifier(fk)) IS NULL" }
            return "t.\(SQL.identifier(fk)) = \(binder.add(.integer(destination.primaryKey)))"
        case .and(let predicates):
            if predicates.isEmpty { return "1" }
            var parts: [String] = []
            for p in predicates { parts.append(try sql(for: p, entity: entity, binder: &binder)) }
            return "(" + parts.joined(separator: " AND ") + ")"
        case .or(let predicates):
            if predicates.isEmpty { return "0" }
            var parts: [String] = []
            for p in predicates { parts.append(try sql(for: p, entity: entity, binder: &binder)) }
            return "(" + parts.joined(separator: " OR ") + ")"
        case .not(let p):
            return "NOT (\(try sql(for: p, entity: entity, binder: &binder)))"
        }
    }
}

/// Values collected while building a predicate's SQL, bound in order afterwards.
struct PredicateBinder {
    private(set) var values: [AttributeValue] = []

    /// Registers `value` and returns its parameter (`?3`).
    mutating func add(_ value: AttributeValue) -> String {
        values.append(value)
        return "?\(values.count)"
    }

    func bind(_ statement: Statement) throws(StoreError) {
        for (i, value) in values.enumerated() { try statement.bind(value, at: Int32(i + 1)) }
    }
}

/// Turns rows of a table's ``TableLayout/selectSQL`` into snapshots (attributes and to-ones).
struct RowReader {
    let layout: StoreLayout
    let table: TableLayout
    private(set) var snapshots: [ObjectSnapshot] = []
    /// Positions in ``snapshots`` per concrete entity.
    private(set) var positionsByEntity: [String: [Int]] = [:]
    private var seen: Set<Int64> = []

    init(layout: StoreLayout, table: TableLayout) {
        self.layout = layout
        self.table = table
    }

    mutating func readAll(_ statement: Statement) throws(StoreError) {
        while try statement.step() {
            let key = statement.int64(0)
            guard seen.insert(key).inserted else { continue }
            let entityName = table.isPolymorphic ? layout.canonicalName(statement.string(1)) : table.entityNames[0]
            guard let plan = table.readPlan(for: entityName) else {
                throw StoreError(.unknownObject, message: "a row of table \(table.name) has the unknown entity '\(entityName)'")
            }
            var attributes: [AttributeValue?] = []
            attributes.reserveCapacity(plan.attributePositions.count)
            for (position, type) in zip(plan.attributePositions, plan.attributeTypes) {
                attributes.append(try statement.value(position, as: type))
            }
            var relationships = [[ObjectID]](repeating: [], count: plan.relationshipCount)
            for toOne in plan.toOnes where !statement.isNull(toOne.column) {
                let destinationEntity = toOne.entityColumn.map { layout.canonicalName(statement.string($0)) } ?? toOne.destinationEntity
                relationships[toOne.slot] = [ObjectID(entityName: destinationEntity, primaryKey: statement.int64(toOne.column))]
            }
            positionsByEntity[entityName, default: []].append(snapshots.count)
            snapshots.append(ObjectSnapshot(id: ObjectID(entityName: entityName, primaryKey: key),
                                            isPlaceholder: statement.int64(2) != 0,
                                            attributes: attributes, relationships: relationships))
        }
        statement.reset()
    }
}
