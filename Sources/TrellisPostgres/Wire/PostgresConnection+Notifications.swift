import CLibPQ
import Foundation
import Trellis

/// LISTEN/NOTIFY on a connection (https://www.postgresql.org/docs/15/libpq-notify.html):
/// waiting on the connection's socket until a notification arrives, another descriptor
/// becomes readable, or a timeout passes. Used by the commit watcher only as a wake-up
/// (`PostgresStore+Observation.swift`); nothing depends on a notification arriving.
extension PostgresConnection {
    /// Why ``waitForNotifications(timeout:wakeDescriptor:)`` returned.
    enum WaitOutcome: Equatable {
        /// `count` notifications arrived (at least one).
        case notified(count: Int)
        /// The wake descriptor became readable.
        case woken
        /// The timeout passed (or the wait was interrupted).
        case timedOut
        /// The connection failed while waiting.
        case lost
    }

    /// `LISTEN "channel"` (outside a transaction, on this connection only).
    /// - Throws: `StoreError` when the server refuses (a server without LISTEN, such as
    ///   CockroachDB, answers with an error), or the connection is lost.
    func listen(_ channel: String) throws(StoreError) {
        try execute("LISTEN \(SQLText.identifier(channel))")
    }

    /// Removes the notifications libpq has received (while running statements, or read by
    /// ``waitForNotifications(timeout:wakeDescriptor:)``) and returns how many there were.
    @discardableResult
    func drainNotifications() -> Int {
        var count = 0
        while let notification = PQnotifies(handle) {
            PQfreemem(notification)
            count += 1
        }
        return count
    }

    /// Waits until a notification arrives on this connection, `wakeDescriptor` is readable,
    /// or `timeout` seconds pass (`poll(2)` on both descriptors), and consumes the
    /// notifications that arrived.
    func waitForNotifications(timeout: Double, wakeDescriptor: Int32) -> WaitOutcome {
        let pending = drainNotifications()
        if pending > 0 { return .notified(count: pending) }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return .lost }
        var descriptors = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        let milliseconds = Int32(max(0, min(timeout * 1000, Double(Int32.max))).rounded(.up))
        let ready = poll(&descriptors, 2, milliseconds)
        if ready <= 0 { return .timedOut }
        if descriptors[1].revents != 0 { return .woken }
        guard PQconsumeInput(handle) == 1, isConnected else { return .lost }
        let count = drainNotifications()
        return count > 0 ? .notified(count: count) : .timedOut
    }
}
