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
    /// Destinations of derived to-many relationships (the inverse side of a many-to-many,
    /// or a to-many stored by its inverse's foreign key) read in this session, by
    /// ``RelationshipLayout/derivedLinksKey`` and object key, sorted by object ID. An import
    /// fetches the same few publishers or powers in every batch, each with all their
    /// characters; this reads them once per session. ``ChangeWriter`` keeps the lists in
    /// step when it inserts objects and links, and drops them for any other write to the
    /// same storage.
    var derivedLinks: [String: [Int64: [ObjectID]]] = [:]
    /// The SQL of the secondary indexes this write session dropped for a bulk load into
    /// empty tables, recreated before commit (see `SQLiteSession+BulkLoad.swift`).
    var droppedIndexes: [DeferredIndex] = []
    /// The bulk run this write session belongs to, if any (``SQLiteStore/withBulkRun(_:)``,
    /// `SQLiteStore+DeferredIndexes.swift`).
    var bulkRun: BulkRun?
    /// Whether the first ``apply(_:)`` with inserts has looked for empty tables.
    var checkedBulkLoad = false
    /// What this session's applies changed, logged with the commit (``SQLiteStore`` as ``ObservableStore``).
    var commitRecord = StoreCommit()
    /// ``StoreSession/origin``: local changes are recorded in `trellis_outbox` (`SQLiteSession+Outbox.swift`).
    var origin: ChangeOrigin = .import
    var pushRules = PushRules()
    /// `trellis_outbox` is known to exist in this transaction.
    var outboxTableExists = false
    /// `trellis_outbox` is known to have its `base_values` column (added by a write session to a
    /// table made before it) in this transaction.
    var outboxHasBaseValues = false
    /// `trellis_tombstones` is known to exist in this transaction.
    var tombstonesTableExists = false
    /// Per table: the share of the identities the last identity fetch asked for that it found
    /// (1 until a fetch ran), for ``fetch(entity:identities:forImport:)``'s scan-or-seek choice.
    var identityHitRatio: [String: Double] = [:]

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
        try fetch(entity: entity, identities: identities, forImport: false)
    }

    /// Skips loading the to-many relationships an import never reads
    /// (``EntityLayout/importSkips``): a power's characters, a publisher's characters.
    func fetchForImport(entity: String, identities: [[AttributeValue]]) throws -> [ObjectSnapshot] {
        try fetch(entity: entity, identities: identities, forImport: true)
    }

    private func fetch(entity: String, identities: [[AttributeValue]], forImport: Bool) throws -> [ObjectSnapshot] {
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
        let asked = identities.count
        let identities = try withinStoredRange(identities, of: entityLayout)
        guard !identities.isEmpty else {
            // None can be found: the share found is 0, as if they had been sought.
            if asked >= chunkSize { identityHitRatio[entityLayout.table.name] = 0 }
            return []
        }
        let table = entityLayout.table
        let kindFilter = entityLayout.coversTable ? [] : entityLayout.kindNames
        var reader = RowReader(layout: layout, table: table)
        if identities.count >= chunkSize, try scanIsCheaper(identities.count, table) {
            // Most of the table is wanted: one sequential scan beats a seek per identity.
            try scan(entityLayout, identities: identities, kindFilter: kindFilter, into: &reader)
            let snapshots = try finish(&reader, forImport: forImport)
            identityHitRatio[table.name] = Double(snapshots.count) / Double(identities.count)
            return snapshots
        }
        let columns = entityLayout.identityColumns.map { "t.\(SQL.identifier($0))" }
        var sql: String
        if arity == 1 {
            sql = table.selectSQL + " WHERE \(columns[0]) IN (\(SQL.placeholders(chunkSize)))"
        } else {
            // `(a, b) IN (VALUES …)` scans the whole index in SQLite 3.40 (measured: 50× slower);
            // a join that starts from the VALUES rows seeks the identity index once per row.
            let row = "(\(SQL.placeholders(arity)))"
            sql =
                table.selectColumnsSQL + " FROM (VALUES \(Array(repeating: row, count: chunkSize).joined(separator: ", "))) AS v"
                + " CROSS JOIN " + table.fromSQL + " WHERE "
                + columns.enumerated().map { "\($1) = v.column\($0 + 1)" }.joined(separator: " AND ")
        }
        if !kindFilter.isEmpty { sql += " AND t.\"_entity\" IN (\(SQL.placeholders(kindFilter.count)))" }
        let statement = try connection.cachedStatement(sql)
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
                try statement.bind(kind, at: parameter)
                parameter += 1
            }
            // A composite identity listed twice joins its row twice.
            try reader.readAll(statement, deduplicate: arity > 1 || identities.count > chunkSize)
            start = end
        }
        statement.reset()
        let snapshots = try finish(&reader, forImport: forImport)
        if identities.count >= chunkSize { identityHitRatio[table.name] = Double(snapshots.count) / Double(identities.count) }
        return snapshots
    }

    /// The identities that may be stored: for an entity with ``EntityLayout/identityRangeSQL``,
    /// those between the smallest and the largest stored identity (of an empty table, whose
    /// `min`/`max` are NULL and read as 0, only identity 0, which finds nothing); otherwise all.
    /// Small batches are returned as they are (two probes are not worth saving a few seeks).
    private func withinStoredRange(_ identities: [[AttributeValue]], of entity: EntityLayout) throws(StoreError) -> [[AttributeValue]] {
        guard identities.count >= 32, let range = entity.identityRangeSQL else { return identities }
        // An aggregate always returns one row: nil never comes back.
        let high = try connection.cachedStatement(range.max).runReturningInt64() ?? 0
        let low = try connection.cachedStatement(range.min).runReturningInt64() ?? 0
        return identities.filter { identity in
            guard case .integer(let value) = identity[0] else { return true }
            return value >= low && value <= high
        }
    }

    /// A batch expected to find at least 1/`scanRatio` of a table's rows reads the whole table
    /// sequentially instead of seeking each key (measured on the 100k-character benchmark:
    /// a seek that finds its row costs ~2 µs, a scan ~0.2 µs per row).
    static let scanRatio = 8
    /// A seek that finds nothing (a new object's identity: one probe of the identity index,
    /// no row read) costs about a quarter of one that finds its row.
    static let missRatio = 2

    /// Whether scanning `table` costs less than seeking `count` identities: rows ≤ 8 × the
    /// identities expected to be found + 2 × those expected to be missing, the expected share
    /// being that of the table's previous identity fetch in the session (all, at first). A fresh
    /// import, whose identities are mostly new, then seeks instead of reading the rows of its
    /// earlier batches again and again (quadratic over the batches until the table outgrows
    /// 8 × a batch); a re-import, which finds everything, still scans.
    private func scanIsCheaper(_ count: Int, _ table: TableLayout) throws(StoreError) -> Bool {
        let hits = Int((Double(count) * (identityHitRatio[table.name] ?? 1)).rounded())
        return hits * SQLiteSession.scanRatio + (count - hits) * SQLiteSession.missRatio >= (try rowCountBound(of: table))
    }

    /// An upper bound of the table's row count, in O(log n): `max("_pk")`.
    func rowCountBound(of table: TableLayout) throws(StoreError) -> Int {
        Int(try connection.cachedStatement(table.maxKeySQL).runReturningInt64() ?? 0)
    }

    /// Reads every row of `entity`'s kinds and keeps those whose identity is wanted,
    /// comparing values as SQL `=` does (``SQLKey``).
    private func scan(
        _ entity: EntityLayout, identities: [[AttributeValue]], kindFilter: [String],
        into reader: inout RowReader
    ) throws(StoreError) {
        let positions = entity.identityColumns.map { entity.table.columnPosition($0) }
        var sql = entity.table.selectSQL
        if !kindFilter.isEmpty { sql += " WHERE t.\"_entity\" IN (\(SQL.placeholders(kindFilter.count)))" }
        let statement = try connection.cachedStatement(sql)
        for (i, kind) in kindFilter.enumerated() { try statement.bind(kind, at: Int32(i + 1)) }
        if positions.count == 1 {
            var wanted = Set<SQLKey>(minimumCapacity: identities.count)
            for identity in identities { wanted.insert(try SQLKey(identity[0])) }
            let column = positions[0]
            try reader.readAll(statement, deduplicate: false) { statement in
                wanted.contains(SQLKey(column: column, of: statement))
            }
        } else {
            var wanted = Set<[SQLKey]>(minimumCapacity: identities.count)
            for identity in identities {
                var key: [SQLKey] = []
                for value in identity { key.append(try SQLKey(value)) }
                wanted.insert(key)
            }
            try reader.readAll(statement, deduplicate: false) { statement in
                wanted.contains(positions.map { SQLKey(column: $0, of: statement) })
            }
        }
    }

    /// Runs the predicate's fetch request (``StoreSession/request(entity:matching:)``).
    func fetch(entity: String, matching predicate: StorePredicate?) throws -> [ObjectSnapshot] {
        try fetch(request(entity: entity, matching: predicate))
    }

    func fetch(ids: [ObjectID]) throws -> [ObjectSnapshot] {
        try fetch(ids: ids, skippingUnread: false)
    }

    /// Skips loading the to-many relationships no key path maps (``EntityLayout/importSkips``),
    /// as for an import.
    func fetchForExport(ids: [ObjectID]) throws -> [ObjectSnapshot] {
        try fetch(ids: ids, skippingUnread: true)
    }

    /// Attributes and to-one relationships only, every to-many slot left empty: what the outbox
    /// recorder reads of an object before a local change (its identity and stamp), without the
    /// to-many queries.
    func fetchAttributes(ids: [ObjectID]) throws -> [ObjectSnapshot] {
        try fetch(ids: ids, skippingUnread: false, attributesOnly: true)
    }

    private func fetch(ids: [ObjectID], skippingUnread: Bool, attributesOnly: Bool = false) throws -> [ObjectSnapshot] {
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
                try reader.readAll(statement, deduplicate: keys.count > chunkSize)
                start = end
            }
            statement.reset()
            // An ID naming the wrong entity for its key is absent.
            let snapshots = attributesOnly ? reader.take().0 : try finish(&reader, forImport: skippingUnread)
            result += snapshots.filter { requested.contains($0.id) }
        }
        return result
    }

    func count(entity: String, matching predicate: StorePredicate?) throws -> Int {
        try count(request(entity: entity, matching: predicate))
    }

    // MARK: - Relationships of fetched rows

    /// Loads the to-many relationships of the rows `reader` collected and returns the snapshots.
    /// `forImport`: relationships ``EntityLayout/importSkips`` marks are left empty.
    func finish(_ reader: inout RowReader, forImport: Bool = false) throws(StoreError) -> [ObjectSnapshot] {
        var (snapshots, positionsByOrdinal) = reader.take()
        guard !snapshots.isEmpty else { return snapshots }
        let table = reader.table
        // Group sources by to-many storage: one batched query per join table / inverse column.
        var groups: [String: (relationship: RelationshipLayout, members: [Member])] = [:]
        var groupOrder: [String] = []
        for (ordinal, positions) in positionsByOrdinal.enumerated() where !positions.isEmpty {
            let entityLayout = try layout.entity(table.entityNames[ordinal])
            for (slot, relationship) in entityLayout.relationships.enumerated() {
                guard let key = relationship.loadKey, !(forImport && entityLayout.importSkips[slot]) else { continue }
                if groups[key] == nil {
                    groups[key] = (relationship, [])
                    groupOrder.append(key)
                }
                for position in positions {
                    groups[key]?.members.append(Member(key: snapshots[position].id.primaryKey, position: Int32(position), slot: Int32(slot)))
                }
            }
        }
        let scanBound = groups.isEmpty ? 0 : try rowCountBound(of: table)
        for key in groupOrder {
            guard var group = groups.removeValue(forKey: key) else { continue }
            let derivedKey = group.relationship.derivedLinksKey
            if let derivedKey, let cached = derivedLinks[derivedKey] {
                group.members.removeAll { member in
                    guard let links = cached[member.key] else { return false }
                    snapshots[Int(member.position)].relationships[Int(member.slot)] = links
                    return true
                }
                if group.members.isEmpty { continue }
            }
            try loadToMany(
                group.relationship, members: &group.members, into: &snapshots,
                scan: group.members.count >= chunkSize && group.members.count * SQLiteSession.scanRatio >= scanBound)
            if let derivedKey {
                for member in group.members {
                    derivedLinks[derivedKey, default: [:]][member.key] = snapshots[Int(member.position)].relationships[Int(member.slot)]
                }
            }
        }
        return snapshots
    }

    /// A fetched object waiting for the destinations of one to-many relationship.
    struct Member {
        var key: Int64
        var position: Int32
        var slot: Int32
    }

    /// Adds the destinations of `relationship` to the members' snapshots: chunked `IN` queries
    /// ordered by source, merged with the members sorted by key (no hashing per row); or,
    /// when `scan`, one pass over the whole join table / destination table.
    private func loadToMany(
        _ relationship: RelationshipLayout, members: inout [Member],
        into snapshots: inout [ObjectSnapshot], scan: Bool
    ) throws(StoreError) {
        let select: String
        let sourceColumn: String
        let destination: TableLayout
        var isOrdered = false
        var orderSuffix: String?
        switch relationship {
        case .foreignKey:
            return
        case .inverseForeignKey(let column, let table):
            destination = table
            sourceColumn = "d.\(SQL.identifier(column))"
            select = "SELECT \(sourceColumn), d.\"_pk\"\(table.isPolymorphic ? ", d.\"_entity\"" : "") FROM \(table.quotedName) AS d"
        case .joinTable(let join) where join.membershipColumn != nil:
            // Members from the inverse's foreign key, in the join table's order (links the
            // table does not know yet come last, by key).
            let table = join.destination
            destination = table
            let fk = "d.\(SQL.identifier(join.membershipColumn ?? ""))"
            sourceColumn = fk
            select =
                "SELECT \(fk), d.\"_pk\"\(table.isPolymorphic ? ", d.\"_entity\"" : "") FROM \(table.quotedName) AS d"
                + " LEFT JOIN \(SQL.identifier(join.table)) AS j ON j.\"source\" = \(fk) AND j.\"destination\" = d.\"_pk\""
            orderSuffix = ", j.\"position\" IS NULL, j.\"position\", d.\"_pk\""
            isOrdered = true
        case .joinTable(let join):
            let table = join.destination
            destination = table
            isOrdered = join.isOrdered
            sourceColumn = "j.\(SQL.identifier(join.thisColumn))"
            let other = "j.\(SQL.identifier(join.otherColumn))"
            let entityJoin = table.isPolymorphic ? " JOIN \(table.quotedName) AS d ON d.\"_pk\" = \(other)" : ""
            select =
                "SELECT \(sourceColumn), \(other)\(table.isPolymorphic ? ", d.\"_entity\"" : "") FROM \(SQL.identifier(join.table)) AS j"
                + entityJoin
        }
        let order = " ORDER BY \(sourceColumn)" + (orderSuffix ?? (isOrdered ? ", j.\"position\"" : ""))
        members.sort { $0.key < $1.key }
        let singleEntity = destination.entityNames.first ?? ""
        // Rows arrive sorted by source; walk the sorted members alongside.
        func consume(_ statement: Statement, from start: Int, to end: Int) throws(StoreError) {
            var m = start
            while try statement.step() {
                let source = statement.int64(0)
                while m < end, members[m].key < source { m += 1 }
                guard m < end else { break }
                guard members[m].key == source else { continue }
                let entityName = destination.isPolymorphic ? layout.canonicalName(statement.string(2)) : singleEntity
                let id = ObjectID(entityName: entityName, primaryKey: statement.int64(1))
                // Members with the same key (the same object in two slots) all get the destination.
                var k = m
                while k < end, members[k].key == source {
                    snapshots[Int(members[k].position)].relationships[Int(members[k].slot)].append(id)
                    k += 1
                }
            }
            statement.reset()
        }
        if scan {
            let statement = try connection.cachedStatement(select + " WHERE \(sourceColumn) IS NOT NULL" + order)
            try consume(statement, from: 0, to: members.count)
        } else {
            let statement = try connection.cachedStatement(select + " WHERE \(sourceColumn) IN (\(SQL.placeholders(chunkSize)))" + order)
            var start = 0
            while start < members.count {
                var end = start
                var parameter: Int32 = 1
                var last: Int64?
                while end < members.count, parameter <= Int32(chunkSize) || members[end].key == last {
                    if members[end].key != last {
                        if parameter > Int32(chunkSize) { break }
                        statement.bind(members[end].key, at: parameter)
                        parameter += 1
                        last = members[end].key
                    }
                    end += 1
                }
                try consume(statement, from: start, to: end)
                start = end
            }
        }
        if !isOrdered {
            for member in members where snapshots[Int(member.position)].relationships[Int(member.slot)].count > 1 {
                if destination.isPolymorphic {
                    snapshots[Int(member.position)].relationships[Int(member.slot)].sort()
                } else {
                    snapshots[Int(member.position)].relationships[Int(member.slot)].sort { $0.primaryKey < $1.primaryKey }
                }
            }
        }
    }
}
