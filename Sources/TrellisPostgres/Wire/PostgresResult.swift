import CLibPQ
import Foundation

/// The rows of one statement (a `PGresult`, https://www.postgresql.org/docs/15/libpq-exec.html),
/// cleared when released. Columns come in binary format unless the statement was sent for
/// text results; the accessors read the binary forms the store asks for (`int8`, `float8`,
/// `bool`, `text`, `bytea`, `uuid`, `timestamptz`, `jsonb`), big-endian as on the wire.
///
/// Not thread-safe; a result lives inside one session.
final class PostgresResult {
    let handle: OpaquePointer
    let rowCount: Int
    let columnCount: Int

    init(_ handle: OpaquePointer) {
        self.handle = handle
        self.rowCount = Int(PQntuples(handle))
        self.columnCount = Int(PQnfields(handle))
    }

    deinit { PQclear(handle) }

    /// The number of rows an INSERT/UPDATE/DELETE changed (`PQcmdTuples`), 0 when not given.
    var changedRows: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    @inline(__always)
    func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(handle, Int32(row), Int32(column)) != 0
    }

    @inline(__always)
    func length(_ row: Int, _ column: Int) -> Int {
        Int(PQgetlength(handle, Int32(row), Int32(column)))
    }

    @inline(__always)
    private func pointer(_ row: Int, _ column: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(PQgetvalue(handle, Int32(row), Int32(column))!)
    }

    /// A binary integer column of 2, 4 or 8 bytes (`int2`, `int4`, `int8`).
    @inline(__always)
    func int64(_ row: Int, _ column: Int) -> Int64 {
        let p = pointer(row, column)
        switch length(row, column) {
        case 8: return Int64(bigEndian: p.loadUnaligned(as: Int64.self))
        case 4: return Int64(Int32(bigEndian: p.loadUnaligned(as: Int32.self)))
        case 2: return Int64(Int16(bigEndian: p.loadUnaligned(as: Int16.self)))
        default: return 0
        }
    }

    /// A binary `float8`.
    @inline(__always)
    func double(_ row: Int, _ column: Int) -> Double {
        Double(bitPattern: UInt64(bigEndian: pointer(row, column).loadUnaligned(as: UInt64.self)))
    }

    /// A binary `bool`.
    @inline(__always)
    func bool(_ row: Int, _ column: Int) -> Bool {
        pointer(row, column).load(as: UInt8.self) != 0
    }

    /// A `text` column (binary and text formats are both the UTF-8 bytes).
    @inline(__always)
    func string(_ row: Int, _ column: Int) -> String {
        let count = length(row, column)
        return String(unsafeUninitializedCapacity: count) { buffer in
            guard count > 0 else { return 0 }
            buffer.baseAddress!.initialize(from: pointer(row, column).assumingMemoryBound(to: UInt8.self), count: count)
            return count
        }
    }

    /// The bytes of a column (`bytea`, or any value), starting `skip` bytes in.
    func data(_ row: Int, _ column: Int, skip: Int = 0) -> Data {
        let count = length(row, column)
        guard count > skip else { return Data() }
        return Data(bytes: pointer(row, column) + skip, count: count - skip)
    }

    /// The UTF-8 text of a column after `skip` bytes (`jsonb`'s binary form is a version byte, then the text).
    func string(_ row: Int, _ column: Int, skip: Int) -> String {
        let count = length(row, column) - skip
        guard count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer(row, column) + skip, count: count), as: UTF8.self)
    }

    /// A binary `uuid`.
    func uuid(_ row: Int, _ column: Int) -> UUID {
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer(row, column), count: 16)) }
        return UUID(uuid: value)
    }

    /// The column's name (for messages).
    func columnName(_ column: Int) -> String {
        PQfname(handle, Int32(column)).map { String(cString: $0) } ?? "#\(column)"
    }
}

@available(*, unavailable, message: "a result belongs to one session")
extension PostgresResult: Sendable {}
