import Foundation

/// The whole contents of a file given by path, for the small files a command reads in
/// one piece (model files, bindings files, sync source files): a regular file mapped or
/// read, anything else that is not a directory (a FIFO, `/dev/null`, `/dev/stdin`, a
/// process substitution) read with read(2) to its end. `Data(contentsOf:)` alone fails on
/// those with a misleading reason (on Linux, "You don't have permission" for `/dev/null`).
package enum FileContents {
    /// Why a file could not be read.
    package enum Failure: Error, Equatable {
        /// Nothing at the path (or a symbolic link to nothing).
        case noSuchFile
        /// The path names a directory.
        case directory
        /// open(2) or read(2) failed, with the system's reason (`Permission denied`).
        case unreadable(String)
    }

    /// What is at a path, following symbolic links (stat(2)).
    package enum Kind: Equatable {
        case regular, directory
        /// A FIFO, a device, a socket: what can be read only as a stream.
        case stream
    }

    /// What is at `url`, following symbolic links; nil when nothing is (or it cannot be stat'ed).
    package static func kind(of url: URL) -> Kind? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        default: return .stream
        }
    }

    /// The bytes of the file at `url` (a file URL).
    /// - Throws: ``Failure``.
    package static func read(_ url: URL) throws(Failure) -> Data {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .noSuchFile }
            throw .unreadable(String(cString: strerror(errno)))
        }
        if info.st_mode & S_IFMT == S_IFDIR { throw .directory }
        if info.st_mode & S_IFMT == S_IFREG, let data = try? Data(contentsOf: url, options: .mappedIfSafe) { return data }
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(String(cString: strerror(errno)))
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}

/// read(2), under a name no method shadows.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
