import Trellis

/// Turns rows of a table's ``TableLayout/selectSQL`` into snapshots (attributes and to-ones).
struct RowReader {
    let layout: StoreLayout
    let table: TableLayout
    private var snapshots: [ObjectSnapshot] = []
    /// Positions in `snapshots`, per entity ordinal in the table.
    private var positions: [[Int]]
    private var seen: Set<Int64> = []

    init(layout: StoreLayout, table: TableLayout) {
        self.layout = layout
        self.table = table
        self.positions = Array(repeating: [], count: table.entityNames.count)
    }

    /// The snapshots read so far and their positions per entity ordinal; the reader is emptied.
    mutating func take() -> ([ObjectSnapshot], [[Int]]) {
        defer {
            snapshots = []
            positions = Array(repeating: [], count: table.entityNames.count)
        }
        return (snapshots, positions)
    }

    /// Reads every row of `statement` (then resets it), skipping rows `keep` rejects and,
    /// when `deduplicate`, rows already read.
    mutating func readAll(
        _ statement: Statement, deduplicate: Bool,
        keep: ((Statement) -> Bool)? = nil
    ) throws(StoreError) {
        defer { statement.reset() }
        while try statement.step() {
            if let keep, !keep(statement) { continue }
            try readRow(statement, deduplicate: deduplicate)
        }
    }

    /// Reads the next rows of `statement`, at most `limit`, leaving the statement where it
    /// stopped (not reset); `false` once the statement has no more rows.
    mutating func readRows(_ statement: Statement, limit: Int) throws(StoreError) -> Bool {
        var read = 0
        while read < limit {
            guard try statement.step() else { return false }
            try readRow(statement, deduplicate: false)
            read += 1
        }
        return true
    }

    /// Reads the row `statement` is on.
    private mutating func readRow(_ statement: Statement, deduplicate: Bool) throws(StoreError) {
        let key = statement.int64(0)
        if deduplicate, !seen.insert(key).inserted { return }
        let plan: ReadPlan
        let entityName: String
        if table.isPolymorphic {
            guard let found = table.readPlan(for: statement.string(1)) else {
                throw StoreError(.unknownObject, message: "a row of table \(table.name) has an entity the model does not have")
            }
            plan = found
            entityName = table.entityNames[plan.ordinal]
        } else {
            guard let found = table.singlePlan else { return }
            plan = found
            entityName = table.entityNames[0]
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
        positions[plan.ordinal].append(snapshots.count)
        snapshots.append(
            ObjectSnapshot(
                id: ObjectID(entityName: entityName, primaryKey: key),
                isPlaceholder: statement.int64(2) != 0,
                attributes: attributes, relationships: relationships))
    }
}
