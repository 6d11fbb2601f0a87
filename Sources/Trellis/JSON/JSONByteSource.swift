import Foundation

/// Where the streaming readers (``JSONArrayStream``, ``JSONLinesReader``) get their
/// bytes: a file descriptor (a file, a pipe, standard input) or bytes in memory, read in
/// chunks.
final class JSONByteSource {
    private enum Kind {
        case fileDescriptor(Int32, closes: Bool)
        case memory([UInt8], chunkSize: Int, offset: Int)
    }

    private var kind: Kind
    /// The input's size in bytes when known (a regular file, or bytes in memory).
    let totalBytes: Int?

    /// Reads from `fileDescriptor` (not seeked: reading starts at its current offset);
    /// closes it on deinit when `closes`.
    init(fileDescriptor: Int32, closes: Bool) {
        kind = .fileDescriptor(fileDescriptor, closes: closes)
        var info = stat()
        if fstat(fileDescriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            let offset = lseek(fileDescriptor, 0, SEEK_CUR)
            totalBytes = Int(info.st_size) - (offset > 0 ? Int(offset) : 0)
        } else {
            totalBytes = nil
        }
    }

    /// Hands out `bytes` at most `chunkSize` at a time.
    init(bytes: [UInt8], chunkSize: Int) {
        kind = .memory(bytes, chunkSize: max(1, chunkSize), offset: 0)
        totalBytes = bytes.count
    }

    /// Opens `path` for reading.
    /// - Throws: ``JSONParseError`` `.readFailed` naming the path and the system's reason.
    convenience init(path: String) throws(JSONParseError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw JSONParseError(code: .readFailed, message: "cannot open \(path): \(reason)", byteOffset: 0, line: 1, column: 1)
        }
        self.init(fileDescriptor: fd, closes: true)
    }

    deinit {
        if case .fileDescriptor(let fd, true) = kind { close(fd) }
    }

    /// Reads up to `buffer.count` bytes into `buffer`; 0 at the end of input.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(JSONSourceError) -> Int {
        guard let address = buffer.baseAddress, buffer.count > 0 else { return 0 }
        switch kind {
        case .fileDescriptor(let fd, _):
            while true {
                let n = Foundation.read(fd, address, buffer.count)
                if n >= 0 { return n }
                if errno == EINTR { continue }
                throw JSONSourceError(reason: String(cString: strerror(errno)))
            }
        case .memory(let bytes, let chunkSize, let offset):
            let n = min(chunkSize, buffer.count, bytes.count - offset)
            guard n > 0 else { return 0 }
            bytes.withUnsafeBytes { source in
                if let from = source.baseAddress { address.copyMemory(from: from + offset, byteCount: n) }
            }
            kind = .memory(bytes, chunkSize: chunkSize, offset: offset + n)
            return n
        }
    }
}

/// A failed read(2), with the system's reason.
struct JSONSourceError: Error {
    var reason: String
}

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
