import Foundation
import Trellis

/// Watches a store's change log for commits of other connections, on a thread and a
/// connection of its own, and wakes the listeners when the log's last sequence number moves.
///
/// The loop: (re)connect and `LISTEN` on the store's channel; read `max("seq")` of the
/// change log (wake the listeners when it differs from the last read, the first read
/// included, so a commit made while the watcher started is not missed); then wait on the
/// connection's socket until a notification arrives, ``stop()`` is called, or the poll
/// interval passes, and go round again. A notification only ends the wait early: every
/// decision comes from the change log, so a lost notification delays a delivery by one poll
/// interval at most, and a server that refuses `LISTEN` is polled every 0.05 s. A lost
/// connection is opened again on the next round (and `LISTEN` sent again).
final class CommitWatcher: @unchecked Sendable {
    // SAFETY: the connection and the last sequence read are locals of the watcher thread's
    // loop and never leave it. `stopped` and `listening` are read and written only while
    // `lock` is held; the wake pipe is written by `stop()` and closed by the thread, both
    // while holding `lock` (so it is never written after it was closed). The other stored
    // properties are immutable and Sendable.
    private let lock = NSLock()
    private var stopped = false
    private var listening = false
    /// `pipe(2)`: `stop()` writes a byte to `wake[1]`, the thread polls `wake[0]`.
    private let wake: [Int32]

    init(connection: String, table: String, channel: String, pollInterval: Double, listeners: CommitListeners) {
        var descriptors: [Int32] = [-1, -1]
        if pipe(&descriptors) != 0 { descriptors = [-1, -1] }
        wake = descriptors
        let thread = Thread { [self] in
            self.loop(connection: connection, table: table, channel: channel, pollInterval: pollInterval, listeners: listeners)
        }
        thread.name = "trellis.postgres.commit-watcher"
        thread.start()
    }

    /// Whether the watcher's connection listens for the store's notifications.
    var isListening: Bool { lock.withLock { listening } }

    /// Ends the thread (at once: the wake pipe ends its wait) and closes its connection.
    func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            if wake[1] >= 0 {
                var byte: UInt8 = 1
                _ = write(wake[1], &byte, 1)
            }
        }
    }

    /// `true` once stopped; then closes the wake pipe (the thread's last act).
    private func finishIfStopped() -> Bool {
        lock.withLock {
            guard stopped else { return false }
            listening = false
            for descriptor in wake where descriptor >= 0 { close(descriptor) }
            return true
        }
    }

    private func setListening(_ value: Bool) {
        lock.withLock { listening = value }
    }

    private func loop(connection text: String, table: String, channel: String, pollInterval: Double, listeners: CommitListeners) {
        var connection: PostgresConnection?
        var isListening = false
        /// `LISTEN` failed on this session (a server without it): do not ask again until reconnected.
        var listenRefused = false
        var last: Int64 = -1
        let select = "SELECT coalesce(max(\"seq\"), 0) FROM \(table)"
        while !finishIfStopped() {
            if connection == nil {
                connection = (try? ConnectionString(text)).flatMap { try? PostgresConnection($0, applicationName: "trellis watcher " + channel) }
            } else if let open = connection, !open.isConnected {
                isListening = false
                listenRefused = false
                setListening(false)
                try? open.reconnectIfNeeded()
            }
            if let open = connection, open.isConnected, !isListening, !listenRefused {
                do {
                    try open.listen(channel)
                    isListening = true
                } catch {
                    listenRefused = open.isConnected
                }
                setListening(isListening)
            }
            var arrived = 0
            if let open = connection, open.isConnected {
                if let now = try? open.run(select).int64(0, 0) {
                    if now != last { listeners.notify() }
                    last = now
                }
                // Notifications received during the read may be of commits after its snapshot.
                arrived = open.drainNotifications()
            }
            if arrived > 0 { continue }
            if let open = connection, open.isConnected, isListening {
                _ = open.waitForNotifications(timeout: pollInterval, wakeDescriptor: wake[0])
            } else {
                CommitWatcher.sleep(min(pollInterval, PostgresStore.pollIntervalWithoutListen), wakeDescriptor: wake[0])
            }
        }
    }

    /// Waits `seconds`, or until `wakeDescriptor` is readable.
    private static func sleep(_ seconds: Double, wakeDescriptor: Int32) {
        var descriptor = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, Int32((seconds * 1000).rounded(.up)))
    }
}
