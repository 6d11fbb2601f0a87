import Foundation

/// A new store built under a private name next to `--store`, then published at `--store`
/// in one step, so that a store path only ever names a store whose first import committed.
///
/// Why: a command that creates the store and then fails must not leave it behind, but
/// deleting a database file is only safe when no other process has it open
/// (https://sqlite.org/howtocorrupt.html#_unlinking_or_renaming_a_database_file_while_in_use).
/// Once a store is visible at its path, a concurrent `trellis import` may open it, wait
/// for the write lock and commit into it; removing it then loses that import, or the
/// other process goes on writing into a file no path names. So the first import writes to
/// `.<name>.creating-<pid>-<random>` (hidden, in the same directory), and on success the
/// file is hard-linked to the store path (`link(2)` fails rather than replace a store
/// another process published meanwhile) and its private name unlinked. On failure only
/// the private files are removed. A process killed while creating leaves its private
/// files behind; ``removeAbandoned(for:)`` deletes those of processes that no longer run.
struct StagedStore {
    /// The store path (`--store`, resolved).
    let destination: URL
    /// The private path the store is built at.
    let url: URL

    /// A private path for a new store to be published at `destination`.
    init(for destination: URL) {
        self.destination = destination
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        url = destination.deletingLastPathComponent()
            .appendingPathComponent(StagedStore.prefix(for: destination) + "\(getpid())-\(random)")
    }

    /// Thrown by ``publish()`` when another process published a store at the path first.
    struct DestinationExists: Error {}

    /// Makes the built store visible at ``destination``, atomically, and drops the private name.
    ///
    /// The store must be closed (its SQLite connection gone, so its WAL was checkpointed
    /// into the file and removed: the file alone holds every committed page).
    /// - Throws: ``DestinationExists`` when a store appeared at the path meanwhile (the
    ///   private files are left for the caller to remove); ``CommandError`` `.store` when
    ///   the store could not be completed or linked.
    func publish(path: String) throws {
        let fileManager = FileManager.default
        if let attributes = try? fileManager.attributesOfItem(atPath: url.path + "-wal"),
            (attributes[.size] as? NSNumber)?.intValue ?? 0 > 0
        {
            throw CommandError(
                .store,
                "\(path): cannot create the store: SQLite left its write-ahead log "
                    + "\(url.lastPathComponent)-wal behind after closing the new store")
        }
        if link(url.path, destination.path) == 0 {
            remove()
            return
        }
        let linkError = errno
        if linkError == EEXIST { throw DestinationExists() }
        // A file system without hard links: rename when nothing is there yet (two processes
        // creating the same store at the same moment may then race; the later rename wins).
        if linkError == EPERM || linkError == ENOTSUP || linkError == EOPNOTSUPP || linkError == EXDEV {
            if fileManager.fileExists(atPath: destination.path) { throw DestinationExists() }
            if rename(url.path, destination.path) == 0 {
                remove()
                return
            }
        }
        throw CommandError(.store, "\(path): cannot create the store: \(String(cString: strerror(errno)))")
    }

    /// Removes the private files (the database and SQLite's `-wal`, `-shm`, `-journal`).
    func remove() {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    /// Removes the private files that processes killed while creating the store at
    /// `destination` left behind: those named with the ID of a process that no longer
    /// exists (`kill(pid, 0)` fails with `ESRCH`). Files of running processes are kept.
    static func removeAbandoned(for destination: URL) {
        let directory = destination.deletingLastPathComponent()
        let prefix = StagedStore.prefix(for: destination)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
        }
    }

    /// `.trellis.sqlite.creating-`.
    private static func prefix(for destination: URL) -> String {
        ".\(destination.lastPathComponent).creating-"
    }
}
