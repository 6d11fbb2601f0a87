import CLibPQ
import Foundation

/// The parameters of one statement, encoded for `PQexecPrepared`: each is NULL or a byte
/// string in PostgreSQL's binary format (`send`/`recv` functions,
/// https://www.postgresql.org/docs/15/protocol-overview.html#PROTOCOL-FORMAT-CODES), or,
/// for predicates, text whose type the server infers from the column it is compared with.
///
/// All values share one byte buffer; ``withPointers(_:)`` lends libpq the pointer arrays
/// for the duration of one call, so nothing has to outlive it.
struct PostgresParameters {
    private(set) var bytes: [UInt8] = []
    /// Start of each parameter in ``bytes``; -1 for NULL.
    private(set) var offsets: [Int] = []
    private(set) var lengths: [Int32] = []
    /// 1 binary, 0 text.
    private(set) var formats: [Int32] = []
    /// The parameter types (0: inferred by the server, for text parameters).
    private(set) var types: [Oid] = []

    init() {}

    var count: Int { offsets.count }

    // MARK: - Scalars

    mutating func appendNull(type: Oid) {
        offsets.append(-1)
        lengths.append(0)
        formats.append(1)
        types.append(type)
    }

    mutating func append(_ value: Int64) {
        begin(type: PostgresType.int8)
        bytes.appendBigEndian(value)
        end()
    }

    mutating func append(_ value: Bool) {
        begin(type: PostgresType.bool)
        bytes.append(value ? 1 : 0)
        end()
    }

    /// A `text` parameter (the UTF-8 bytes).
    mutating func append(text: String) {
        begin(type: PostgresType.text)
        bytes.append(contentsOf: text.utf8)
        end()
    }

    /// A text-format parameter of unspecified type: the server reads `text` as the type the
    /// statement needs there (a predicate's value compared with a column).
    mutating func append(untyped text: String) {
        offsets.append(bytes.count)
        bytes.append(contentsOf: text.utf8)
        lengths.append(Int32(bytes.count - offsets[offsets.count - 1]))
        bytes.append(0)  // libpq reads a text-format value up to its NUL (its length is ignored)
        formats.append(0)
        types.append(0)
    }

    /// The single element of `array` as a scalar parameter of its element type (NULL for a
    /// NULL element).
    mutating func append(element array: PostgresArray) {
        guard let bytes = array.firstElementBytes else {
            appendNull(type: array.elementType)
            return
        }
        begin(type: array.elementType)
        self.bytes.append(contentsOf: bytes)
        end()
    }

    /// A one-dimensional array built by `array`.
    mutating func append(_ array: PostgresArray) {
        begin(type: array.arrayType)
        array.encode(into: &bytes)
        end()
    }

    private mutating func begin(type: Oid) {
        offsets.append(bytes.count)
        formats.append(1)
        types.append(type)
    }

    private mutating func end() {
        lengths.append(Int32(bytes.count - offsets[offsets.count - 1]))
    }

    // MARK: - Passing to libpq

    /// Calls `body` with the value pointers, lengths and formats libpq takes, valid during the call.
    func withPointers<R>(
        _ body: (
            _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ lengths: UnsafePointer<Int32>?,
            _ formats: UnsafePointer<Int32>?
        ) throws -> R
    ) rethrows -> R {
        try bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress)
            var pointers: [UnsafePointer<CChar>?] = []
            pointers.reserveCapacity(offsets.count)
            // An empty value still needs a non-NULL pointer (NULL means SQL NULL).
            let empty: StaticString = ""
            for offset in offsets {
                if offset < 0 {
                    pointers.append(nil)
                } else if let base {
                    pointers.append((base + offset).assumingMemoryBound(to: CChar.self))
                } else {
                    pointers.append(UnsafeRawPointer(empty.utf8Start).assumingMemoryBound(to: CChar.self))
                }
            }
            return try pointers.withUnsafeBufferPointer { values in
                try lengths.withUnsafeBufferPointer { lengths in
                    try formats.withUnsafeBufferPointer { formats in
                        try body(values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }
}

/// A one-dimensional PostgreSQL array in binary format (`array_send`): a header (dimensions,
/// has-NULL flag, element type, length, lower bound 1), then each element as a 4-byte
/// length (-1 for NULL) and its bytes.
struct PostgresArray {
    let elementType: Oid
    let arrayType: Oid
    private(set) var count = 0
    private var hasNull = false
    private var elements: [UInt8] = []

    init(of elementType: Oid) {
        self.elementType = elementType
        self.arrayType = PostgresType.arrayType(of: elementType)
    }

    mutating func reserve(_ elements: Int, bytesEach: Int) {
        self.elements.reserveCapacity(elements * (4 + bytesEach))
    }

    mutating func appendNull() {
        count += 1
        hasNull = true
        elements.appendBigEndian(Int32(-1))
    }

    mutating func append(_ value: Int64) {
        count += 1
        elements.appendBigEndian(Int32(8))
        elements.appendBigEndian(value)
    }

    mutating func append(_ value: Double) {
        count += 1
        elements.appendBigEndian(Int32(8))
        elements.appendBigEndian(value.bitPattern)
    }

    mutating func append(_ value: Bool) {
        count += 1
        elements.appendBigEndian(Int32(1))
        elements.append(value ? 1 : 0)
    }

    /// Appends raw element bytes (text as UTF-8, bytea, a uuid's 16 bytes, jsonb's version byte and text).
    mutating func append<C: Collection>(bytes: C) where C.Element == UInt8 {
        count += 1
        elements.appendBigEndian(Int32(bytes.count))
        elements.append(contentsOf: bytes)
    }

    /// Appends `prefix` followed by `bytes` as one element (jsonb: version 1, then the text).
    mutating func append<C: Collection>(prefix: UInt8, bytes: C) where C.Element == UInt8 {
        count += 1
        elements.appendBigEndian(Int32(bytes.count + 1))
        elements.append(prefix)
        elements.append(contentsOf: bytes)
    }

    /// The bytes of the first element (nil when NULL or absent).
    var firstElementBytes: ArraySlice<UInt8>? {
        guard count > 0, elements.count >= 4 else { return nil }
        let length = elements[0..<4].reduce(0) { $0 << 8 | Int32($1) }
        guard length >= 0 else { return nil }
        return elements[4..<(4 + Int(length))]
    }

    func encode(into out: inout [UInt8]) {
        if count == 0 {
            out.appendBigEndian(Int32(0))  // no dimensions
            out.appendBigEndian(Int32(0))
            out.appendBigEndian(Int32(bitPattern: elementType))
            return
        }
        out.reserveCapacity(out.count + 20 + elements.count)
        out.appendBigEndian(Int32(1))
        out.appendBigEndian(Int32(hasNull ? 1 : 0))
        out.appendBigEndian(Int32(bitPattern: elementType))
        out.appendBigEndian(Int32(count))
        out.appendBigEndian(Int32(1))
        out.append(contentsOf: elements)
    }
}

/// Type OIDs of the built-in types the store sends and reads (`pg_type.dat`, stable across
/// PostgreSQL versions and shared by CockroachDB and YugabyteDB).
enum PostgresType {
    static let bool: Oid = 16
    static let bytea: Oid = 17
    static let int8: Oid = 20
    static let int2: Oid = 21
    static let int4: Oid = 23
    static let text: Oid = 25
    static let float8: Oid = 701
    static let timestamptz: Oid = 1184
    static let numeric: Oid = 1700
    static let uuid: Oid = 2950
    static let jsonb: Oid = 3802

    /// The array type of `element` (`int8` → `int8[]`, 1016).
    static func arrayType(of element: Oid) -> Oid {
        switch element {
        case bool: return 1000
        case bytea: return 1001
        case int2: return 1005
        case int4: return 1007
        case int8: return 1016
        case text: return 1009
        case float8: return 1022
        case timestamptz: return 1185
        case numeric: return 1231
        case uuid: return 2951
        case jsonb: return 3807
        default: return 0
        }
    }
}

extension Array where Element == UInt8 {
    @inline(__always)
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        var big = value.bigEndian
        Swift.withUnsafeBytes(of: &big) { append(contentsOf: $0) }
    }
}
