/// The unconsumed bytes of a ``JSONByteSource``, kept contiguous for the parser, and the
/// text position of the first byte held, so errors are located in the whole input.
///
/// Memory stays bounded: the buffer holds the unconsumed part of the input, which
/// grows (by doubling) only while one value or line does not fit.
final class JSONStreamBuffer {
    let source: JSONByteSource
    private(set) var storage: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// First unconsumed byte.
    var start = 0
    /// End of the bytes read.
    private(set) var end = 0
    private(set) var isAtEndOfInput = false
    /// Position in the whole input of `storage[0]`.
    private(set) var origin = JSONTextPosition()

    /// Consumed bytes kept before the window when compacting (for error excerpts).
    static let contextBytes = 80

    init(source: JSONByteSource, chunkSize: Int) {
        self.source = source
        capacity = max(16, chunkSize) + JSONStreamBuffer.contextBytes
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The unconsumed bytes.
    var window: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage + start, count: end - start) }

    /// Bytes of the input consumed so far.
    var bytesConsumed: Int { origin.byteOffset + start }

    /// Moves the unconsumed bytes to the front and reads until the unconsumed part has
    /// at least doubled (or the input ends), growing the storage as needed.
    func refill() throws(JSONParseError) {
        // Keep a little of the consumed text before `start`, for error excerpts.
        let kept = min(start, JSONStreamBuffer.contextBytes)
        if start > kept {
            let dropped = start - kept
            origin = origin.advanced(over: UnsafeRawBufferPointer(start: storage, count: dropped))
            let remaining = end - dropped
            if remaining > 0 { storage.copyMemory(from: storage + dropped, byteCount: remaining) }
            end = remaining
            start = kept
        }
        let unconsumed = end - start
        let target = start + max(unconsumed * 2, unconsumed + 1)
        if target > capacity {
            let newCapacity = max(capacity * 2, target)
            let newStorage = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
            newStorage.copyMemory(from: storage, byteCount: end)
            storage.deallocate()
            storage = newStorage
            capacity = newCapacity
        }
        while end < target, !isAtEndOfInput {
            let n: Int
            do {
                n = try source.read(into: UnsafeMutableRawBufferPointer(start: storage + end, count: capacity - end))
            } catch {
                throw JSONParseError(
                    code: .readFailed, message: "reading the input failed: \(error.reason)",
                    byteOffset: bytesConsumed, line: origin.line, column: origin.column)
            }
            if n == 0 { isAtEndOfInput = true }
            end += n
        }
    }

    /// A located error for a parser failure at `offset` from the window's start.
    func error(_ failure: JSONParser.Failure) -> JSONParseError {
        JSONTextPosition.error(
            code: failure.code, message: failure.message, offset: start + failure.offset,
            in: UnsafeRawBufferPointer(start: storage, count: end), origin: origin)
    }
}
