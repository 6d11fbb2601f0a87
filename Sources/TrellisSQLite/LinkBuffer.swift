import Trellis

/// Links of new objects waiting to be written to one join table, 64 rows per statement:
/// parameter values row after row, in ``JoinLayout/insertNew``'s columns.
final class LinkBuffer {
    let join: JoinLayout
    let connection: Connection
    /// The statement of ``ChangeWriter/linksPerStatement`` rows.
    let full: Statement
    let perRow: Int
    var values: [Int64] = []

    init(join: JoinLayout, connection: Connection, full: Statement) {
        self.join = join
        self.connection = connection
        self.full = full
        perRow = join.hasPositions ? 3 : 2
        values.reserveCapacity(ChangeWriter.linksPerStatement * perRow)
    }

    var isFull: Bool { values.count >= ChangeWriter.linksPerStatement * perRow }

    /// One `INSERT INTO "J"(…) VALUES (?, ?), (?, ?), …` of the buffered rows; the buffer is emptied.
    func write() throws(StoreError) {
        if values.isEmpty { return }
        let statement = isFull ? full : try connection.cachedStatement(join.insertNew(rows: values.count / perRow))
        for (i, value) in values.enumerated() { statement.bind(value, at: Int32(i + 1)) }
        values.removeAll(keepingCapacity: true)
        try statement.run()
    }
}
