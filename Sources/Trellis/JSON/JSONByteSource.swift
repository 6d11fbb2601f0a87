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
    /// Bytes already read by ``firstSignificantByte()``, handed out again first.
    private var pushedBack: [UInt8] = []
    private var pushedBackOffset = 0
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

    /// The first byte of the input that is not JSON whitespace or part of a leading UTF-8
    /// byte order mark, nil for an input of only those; reads as little as it can, and
    /// the bytes read are handed out again by ``read(into:)`` (nothing is seeked, so pipes work).
    func firstSignificantByte() throws(JSONSourceError) -> UInt8? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        var scanned = 0
        while true {
            while scanned < pushedBack.count {
                let byte = pushedBack[scanned]
                let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
                let inByteOrderMark = scanned < 3 && byte == mark[scanned] && pushedBack.prefix(scanned).elementsEqual(mark.prefix(scanned))
                if !(byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || inByteOrderMark) { return byte }
                scanned += 1
            }
            let n: Int
            do {
                n = try chunk.withUnsafeMutableBytes { buffer in try readFromKind(into: buffer) }
            } catch let error as JSONSourceError {
                throw error
            } catch {
                throw JSONSourceError(reason: "\(error)")
            }
            if n == 0 { return nil }
            pushedBack.append(contentsOf: chunk[0..<n])
        }
    }

    /// Reads up to `buffer.count` bytes into `buffer`; 0 at the end of input.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(JSONSourceError) -> Int {
        guard let address = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if pushedBackOffset < pushedBack.count {
            let n = min(buffer.count, pushedBack.count - pushedBackOffset)
            pushedBack.withUnsafeBytes { source in
                if let from = source.baseAddress { address.copyMemory(from: from + pushedBackOffset, byteCount: n) }
            }
            pushedBackOffset += n
            if pushedBackOffset == pushedBack.count {
                pushedBack = []
                pushedBackOffset = 0
            }
            return n
        }
        return try readFromKind(into: buffer)
    }

    private func readFromKind(into buffer: UnsafeMutableRawBufferPointer) throws(JSONSourceError) -> Int {
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
