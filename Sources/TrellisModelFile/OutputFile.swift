import Foundation

/// Writes a whole file the way a user expects `> PATH` to, but atomically where the file
/// system allows: never leaving a half-written model behind, and never replacing
/// something that is not a regular file.
///
/// What `path` names decides:
/// - a regular file, or nothing: the bytes go to a hidden temporary file in the same
///   directory (`.NAME.trellis-PID-RANDOM`, created with mode 0666 less the umask), which
///   is synced and renamed over `path` (`rename(2)` is atomic: readers see the old file or
///   the new one). A replaced file keeps its permission bits.
/// - a symbolic link: followed (to any depth up to 40 links, like the kernel's `ELOOP`
///   limit), and what it points to is written as above; the link stays a link. A link to
///   nothing creates its target.
/// - a FIFO, a character or block device, or anything else that is not a regular file or
///   directory: opened and written in place, never replaced (`/dev/null` stays a device;
///   `/dev/full` fails with `ENOSPC`).
/// - a directory, or a path ending in `/`: an ``OutputFileError``, nothing written.
///
/// Unlike `Data.write(to:options: .atomic)`, which renames its temporary file over the
/// path whatever it is (a link becomes a regular file, a device node is replaced).
package enum OutputFile {
    /// Writes `data` to `url` (see the type's rules).
    /// - Throws: ``OutputFileError`` with the reason (`it is a directory`, `the path ends
    ///   with '/'`, or the system's: `No space left on device`, `Permission denied`, …).
    static func write(_ data: Data, to url: URL) throws(OutputFileError) {
        switch try target(of: url) {
        case .replace(let path, let mode): try replace(path, with: data, mode: mode)
        case .inPlace(let path): try writeInPlace(path, data)
        }
    }

    /// Writes what `produce` hands its `write` function to `url`, chunk by chunk (see the
    /// type's rules): a regular file appears, complete, only when `produce` returns; when
    /// it throws (or a write fails), the temporary file is removed and `url` is left as it was.
    /// - Throws: ``OutputFileError`` (as ``write(_:to:)``); what `produce` throws.
    package static func write(to url: URL, _ produce: (_ write: (Data) throws -> Void) throws -> Void) throws {
        switch try target(of: url) {
        case .replace(let path, let mode):
            let (descriptor, temporary) = try createTemporary(next: path, mode: mode)
            do {
                try produce { data in
                    if let failure = writeAll(descriptor, data) { throw OutputFileError(errno: failure) }
                }
            } catch {
                close(descriptor)
                unlink(temporary)
                throw error
            }
            try commit(descriptor, temporary, path)
        case .inPlace(let path):
            let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
            guard descriptor >= 0 else { throw OutputFileError(errno: errno) }
            defer { close(descriptor) }
            try produce { data in
                if let failure = writeAll(descriptor, data) { throw OutputFileError(errno: failure) }
            }
        }
    }

    /// Creates the directory at `url` and any missing parents (`mkdir -p`, mode 0777 less
    /// the umask); an existing directory, or a link to one, is fine.
    /// - Throws: ``OutputFileError``: `it is not a directory` when `url` names something
    ///   else, or the system's reason (`Not a directory` for a file on the way, `Permission denied`).
    static func createDirectory(at url: URL) throws(OutputFileError) {
        let path = url.standardizedFileURL.path
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw OutputFileError("it is not a directory") }
            return
        }
        guard errno == ENOENT else { throw OutputFileError(errno: errno) }
        let parent = url.standardizedFileURL.deletingLastPathComponent()
        if parent.path != path {
            do {
                try createDirectory(at: parent)
            } catch {
                throw error.reason == "it is not a directory" ? OutputFileError(errno: ENOTDIR) : error
            }
        }
        if mkdir(path, 0o777) != 0 {
            let code = errno
            if code != EEXIST || !isDirectory(path) { throw OutputFileError(errno: code) }
        }
    }

    /// Creates the directory at `url` (its parent must exist) unless something is there.
    /// - Returns: `false` when `url` already names something (nothing is changed).
    /// - Throws: ``OutputFileError`` with the system's reason.
    static func createNewDirectory(at url: URL) throws(OutputFileError) -> Bool {
        if mkdir(url.path, 0o777) == 0 { return true }
        if errno == EEXIST { return false }
        throw OutputFileError(errno: errno)
    }

    // MARK: - Internals

    /// The path a symbolic link points to (relative targets resolved against its directory).
    private static func linkTarget(of path: String) throws(OutputFileError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { throw OutputFileError(errno: errno) }
        let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if target.hasPrefix("/") { return target }
        return (URL(fileURLWithPath: path).deletingLastPathComponent().path as NSString).appendingPathComponent(target)
    }

    /// Where ``write(_:to:)`` writes for `url`: a regular file (or nothing) to replace, with
    /// its permission bits, or a file to write in place.
    private enum Target {
        case replace(String, mode: mode_t?)
        case inPlace(String)
    }

    private static func target(of url: URL) throws(OutputFileError) -> Target {
        var path = url.path
        if url.hasDirectoryPath || path.hasSuffix("/") {
            throw OutputFileError(isDirectory(path) ? "it is a directory" : "the path ends with '/'")
        }
        for _ in 0..<40 {
            var status = stat()
            guard lstat(path, &status) == 0 else {
                if errno == ENOENT { return .replace(path, mode: nil) }
                throw OutputFileError(errno: errno)
            }
            switch status.st_mode & S_IFMT {
            case S_IFLNK:
                path = try linkTarget(of: path)
            case S_IFDIR:
                throw OutputFileError(path == url.path ? "it is a directory" : "it is a symbolic link to the directory '\(path)'")
            case S_IFREG:
                return .replace(path, mode: status.st_mode & 0o7777)
            default:
                return .inPlace(path)
            }
        }
        throw OutputFileError(errno: ELOOP)
    }

    /// Writes a temporary file next to `path` and renames it over `path`.
    private static func replace(_ path: String, with data: Data, mode: mode_t?) throws(OutputFileError) {
        let (descriptor, temporary) = try createTemporary(next: path, mode: mode)
        if let failure = writeAll(descriptor, data) {
            close(descriptor)
            unlink(temporary)
            throw OutputFileError(errno: failure)
        }
        try commit(descriptor, temporary, path)
    }

    /// A new hidden temporary file in `path`'s directory, open for writing, with `mode`.
    private static func createTemporary(next path: String, mode: mode_t?) throws(OutputFileError) -> (Int32, String) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var descriptor: Int32 = -1
        var temporary = ""
        for _ in 0..<100 {
            let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
            temporary = (directory as NSString).appendingPathComponent(".\(url.lastPathComponent).trellis-\(getpid())-\(random)")
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw OutputFileError(errno: errno) }
        if let mode, fchmod(descriptor, mode) != 0 {
            let failure = errno
            close(descriptor)
            unlink(temporary)
            throw OutputFileError(errno: failure)
        }
        return (descriptor, temporary)
    }

    /// Syncs and closes the written temporary file and renames it over `path` (removed on failure).
    private static func commit(_ descriptor: Int32, _ temporary: String, _ path: String) throws(OutputFileError) {
        var failure: Int32?
        if fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw OutputFileError(errno: failure)
        }
    }

    /// Opens the existing non-regular file at `path` (a FIFO, a device) and writes to it.
    private static func writeInPlace(_ path: String, _ data: Data) throws(OutputFileError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { throw OutputFileError(errno: errno) }
        var failure = writeAll(descriptor, data)
        if close(descriptor) != 0, failure == nil { failure = errno }
        if let failure { throw OutputFileError(errno: failure) }
    }

    /// Writes every byte of `data`, retrying short writes and `EINTR`; the `errno` of a failure.
    private static func writeAll(_ descriptor: Int32, _ data: Data) -> Int32? {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}

/// `write(2)` (the name is taken inside ``OutputFile``).
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// Why ``OutputFile`` could not write: `it is a directory`, `the path ends with '/'`, or
/// the system's reason (`strerror(3)`: `No space left on device`).
package struct OutputFileError: Error, Sendable, CustomStringConvertible {
    /// The reason, without the path.
    package let reason: String

    init(_ reason: String) { self.reason = reason }

    init(errno code: Int32) { self.reason = String(cString: strerror(code)) }

    package var description: String { reason }
}
