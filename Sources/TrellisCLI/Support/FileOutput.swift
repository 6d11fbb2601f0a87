import Foundation

/// A `TextOutputStream` over a file descriptor (1 = standard output, 2 = standard error),
/// written with write(2) so nothing is buffered when the process exits (there is nothing
/// to flush: every failure is known when ``write(_:)`` returns).
///
/// A failed write (`ENOSPC`, `EPIPE`, `EIO`, …) is recorded in ``writeError`` and later
/// writes are dropped, so a cut-short output is never silently taken for a whole one:
/// ``TrellisCommand/main(arguments:)`` turns it into exit status 1.
public struct FileOutput: TextOutputStream, Sendable {
    /// The descriptor written to.
    public let fileDescriptor: Int32
    /// The `errno` of the first write that failed, nil while every write succeeded.
    public private(set) var writeError: Int32?
    /// Standard output (descriptor 1).
    public static var standardOutput: FileOutput { FileOutput(fileDescriptor: 1) }
    /// Standard error (descriptor 2).
    public static var standardError: FileOutput { FileOutput(fileDescriptor: 2) }

    /// An output writing to `fileDescriptor` (not closed).
    public init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// Writes all of `string` (UTF-8), retrying short writes and `EINTR`; on failure sets
    /// ``writeError`` (`EIO` for a write that took no bytes) and drops this and later text.
    public mutating func write(_ string: String) {
        guard writeError == nil else { return }
        var string = string
        let descriptor = fileDescriptor
        let failure: Int32? = string.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let n = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    return n < 0 ? errno : EIO
                }
            }
            return nil
        }
        if let failure { writeError = failure }
    }
}
