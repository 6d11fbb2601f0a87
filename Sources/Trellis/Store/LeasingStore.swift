import Foundation

/// A store that hands out named pieces of work to one holder at a time, for a limited time:
/// the leases several sync workers split a source's resources with (`trellis sync --workers`,
/// several `trellis sync` processes on one PostgreSQL store). A lease is a row, not a held
/// lock: a holder that dies loses it when it expires, and another takes the work over. Times
/// are the store's clock (the database server's), never the holders', so holders on several
/// machines agree.
///
/// The PostgreSQL store implements it (`trellis_sync_leases`, claimed with `FOR UPDATE SKIP
/// LOCKED`, https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE).
public protocol LeasingStore: PersistentStore {
    /// The store's clock now (for ``claimLease(among:holder:seconds:notFinishedSince:)``'s
    /// `notFinishedSince`: a worker's start).
    /// - Throws: `StoreError` as a read session does.
    func leaseClock() throws -> Date

    /// Claims the first of `names` (in their order) that no live holder leases and that no
    /// holder finished at or after `notFinishedSince`, for `seconds` from now. A lease whose
    /// holder ran on this machine in a process that no longer exists is free at once; any
    /// other holder's lease is free once it expired.
    ///
    /// - Returns: ``LeaseClaim/claimed(_:previousHolder:)`` with the name and the holder
    ///   whose expired lease it took over (nil when none); `.waiting` when every name not yet
    ///   finished is leased by a live holder; `.done` when every name was finished at or
    ///   after `notFinishedSince`.
    /// - Throws: `StoreError` (`.unavailable`, `.readOnly`, `.engine`).
    func claimLease(among names: [String], holder: String, seconds: Double, notFinishedSince: Date) throws -> LeaseClaim

    /// Ends `holder`'s lease of `name`: with `finished`, records that `holder` finished the
    /// work now; otherwise only frees it (the work failed and may be claimed again).
    /// - Throws: `StoreError`.
    func endLease(_ name: String, holder: String, finished: Bool) throws

    /// Every lease row, by name.
    /// - Throws: `StoreError`.
    func leases() throws -> [Lease]
}

/// A write session of a ``LeasingStore``: renewing a lease inside the transaction whose
/// work it covers, so that work done by a holder that lost its lease never commits.
public protocol LeasingSession: StoreSession {
    /// Extends `holder`'s lease of `name` to `seconds` from now, in this transaction.
    /// - Returns: false when `holder` does not hold it any more (it expired and another
    ///   holder claimed it): the caller then throws, and the transaction rolls back.
    /// - Throws: `StoreError`.
    func renewLease(_ name: String, holder: String, seconds: Double) throws -> Bool
}

/// What ``LeasingStore/claimLease(among:holder:seconds:notFinishedSince:)`` found.
public enum LeaseClaim: Sendable, Equatable {
    /// The caller now holds the lease of the name; `previousHolder` held it before and let it expire.
    case claimed(String, previousHolder: String?)
    /// Names are left, each leased by a live holder: claim again after a while.
    case waiting
    /// Every name was finished since the given time.
    case done
}

/// One lease row (``LeasingStore/leases()``).
public struct Lease: Sendable, Equatable {
    /// The work's name (a sync resource).
    public var name: String
    /// Who holds it (`host:pid`, `host:pid#2` for the second worker of a process), nil when free.
    public var holder: String?
    /// When the holder's lease ends unless renewed (the store's clock).
    public var expiresAt: Date?
    /// When the work was last finished, and by whom.
    public var finishedAt: Date?
    public var finishedBy: String?

    public init(name: String, holder: String?, expiresAt: Date?, finishedAt: Date?, finishedBy: String?) {
        self.name = name
        self.holder = holder
        self.expiresAt = expiresAt
        self.finishedAt = finishedAt
        self.finishedBy = finishedBy
    }

    /// The holder name of worker `index` (0-based) of this process: `host:pid`, then `host:pid#2`, ….
    public static func holderName(worker index: Int = 0) -> String {
        let host = ProcessInfo.processInfo.hostName
        let base = "\(host):\(getpid())"
        return index == 0 ? base : "\(base)#\(index + 1)"
    }

    /// Whether `holder` names a process of this machine that no longer runs (`kill(pid, 0)`
    /// fails with `ESRCH`): its lease need not wait for its expiry.
    public static func isDeadLocalHolder(_ holder: String) -> Bool {
        let host = ProcessInfo.processInfo.hostName
        guard holder.hasPrefix(host + ":") else { return false }
        let rest = holder.dropFirst(host.count + 1)
        guard let pid = Int32(rest.prefix { $0 != "#" }), pid > 0 else { return false }
        if pid == getpid() { return false }
        return kill(pid, 0) == -1 && errno == ESRCH
    }
}
