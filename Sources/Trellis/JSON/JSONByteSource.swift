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
