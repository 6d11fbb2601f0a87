import Foundation

/// Spaces the starts of requests to one host by at least `interval` seconds, and holds
/// requests while a host's rate limit is exhausted. Shared by every thread of a client.
final class HostPacer: @unchecked Sendable {
    // SAFETY: `nextStart` and `blockedUntil` are read and written only while `lock` is held.
    private let lock = NSLock()
    private var nextStart: [String: Date] = [:]
    private var blockedUntil: [String: Date] = [:]
    let interval: Double

    init(interval: Double) {
        self.interval = interval
    }

    /// Reserves the next start for `host` and returns how long to wait for it (0: now).
    func reserve(_ host: String, now: Date) -> Double {
        lock.withLock {
            var start = now
            if let next = nextStart[host], next > start { start = next }
            if let blocked = blockedUntil[host], blocked > start { start = blocked }
            nextStart[host] = start.addingTimeInterval(interval)
            return start.timeIntervalSince(now)
        }
    }

    /// When the host's rate limit resets, if a request would have to wait for it.
    func blocked(_ host: String, now: Date) -> Date? {
        lock.withLock {
            guard let until = blockedUntil[host], until > now else { return nil }
            return until
        }
    }

    /// The caller waited until `date` (a retry's wait): a rate-limit hold ending by then is over.
    func waited(_ host: String, until date: Date) {
        lock.withLock {
            if let blocked = blockedUntil[host], blocked <= date { blockedUntil[host] = nil }
        }
    }

    /// No request to `host` starts before `date` (`x-ratelimit-remaining: 0`).
    func block(_ host: String, until date: Date) {
        lock.withLock { blockedUntil[host] = max(blockedUntil[host] ?? date, date) }
    }
}
