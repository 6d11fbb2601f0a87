import Foundation
import Trellis

/// Checks an input exists and is a readable regular file before anything is imported.
enum InputCheck {
    static func check(_ input: InputFile) throws {
        guard let url = input.url else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CommandError(.invalidInput, "\(input.name): no such file")
        }
        if isDirectory.boolValue { throw CommandError(.invalidInput, "\(input.name): is a directory, not a JSON file") }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw CommandError(.invalidInput, "\(input.name): permission denied")
        }
    }
}

/// Checks a store path can be opened or created, with a message naming what is wrong.
enum StoreLocation {
    static func check(_ url: URL, path: String) throws {
        try checkFilePath(path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            try checkExisting(url, path: path)
            return
        }
        if let dangling = danglingLink(url) {
            throw CommandError(.store, "\(path): cannot create the store: \(dangling)")
        }
        let parent = url.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory) else {
            throw CommandError(.store, "\(path): cannot create the store: directory '\(parent.relativePath)' does not exist")
        }
        guard isDirectory.boolValue else {
            throw CommandError(.store, "\(path): cannot create the store: '\(parent.relativePath)' is not a directory")
        }
    }

    /// A store that exists must be a regular file: a directory, or a device, FIFO or socket
    /// (`--store /dev/null`, which SQLite would open and fail to commit to with "disk I/O error"),
    /// is an error naming it.
    static func checkExisting(_ url: URL, path: String) throws {
        switch FileContents.kind(of: url) {
        case .directory: throw CommandError(.store, "\(path): is a directory, not a store")
        case .stream: throw CommandError(.store, "\(path): not a store file: it is a device, a FIFO or a socket, not a regular file")
        case .regular, nil: return
        }
    }

    /// `it is a symbolic link to 'DEST', which does not exist` when `url` is a symbolic link
    /// whose destination does not exist (or a loop of links); nil otherwise. Call it once
    /// `fileExists` (which follows links) said false. A store is not created through such a
    /// link: its staged copy could never be published at the link's path.
    static func danglingLink(_ url: URL) -> String? {
        guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path) else { return nil }
        return "it is a symbolic link to '\(destination)', which does not exist"
    }

    /// A store path ending with `/` names a directory; `URL` would drop the slash and SQLite
    /// open or create a file named like the directory.
    static func checkFilePath(_ path: String) throws {
        if path.hasSuffix("/") { throw CommandError(.store, "\(path): not a store file: the path ends with '/'") }
    }
}
