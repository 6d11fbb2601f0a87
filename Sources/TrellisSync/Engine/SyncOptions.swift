import Foundation
import Trellis

/// What a run of ``Synchronizer`` does: `trellis sync`'s options.
///
///     var options = SyncOptions()
///     options.resources = ["heroes"]   // --resource heroes
///     options.maxPages = 10            // --max-pages 10
public struct SyncOptions: Sendable {
    /// The resources to sync, by name (nil: all, in source order).
    public var resources: [String]?
    /// Ignore the watermarks (walk every resource from its `initial` value or its start),
    /// and confirm full-scan deletions beyond `maxFraction`.
    public var full = false
    /// Fetch and import every page, report what would change, keep nothing (no objects, no
    /// checkpoints).
    public var dryRun = false
    /// Pages fetched per resource in this run at most; the walk resumes there next run.
    public var maxPages: Int?
    /// Write every fetched page here before importing it (``PageStager``).
    public var stageDirectory: URL?
    /// The import options of each page (null and to-many policies, batch size). IDs are
    /// never collected; `dryRun` and `deleteMissing` are the sync's own.
    public var importOptions = ImportOptions()

    /// Push even through resources whose `createKey` is `none`: a create whose answer was lost
    /// is sent again, and may then exist twice on the server (`--at-least-once`). Default false:
    /// such creates are refused (``SyncError/Code/pushRefused``).
    public var atLeastOnce = false

    /// Run as one of several workers sharing the store (nil: sync every resource here):
    /// each resource is claimed through a lease in the store (``LeasingStore``, PostgreSQL),
    /// renewed in every page's transaction.
    public var worker: SyncWorker?

    /// A run of every resource, incremental, with nothing staged.
    public init() {}
}

/// One sync worker among several sharing a store (`trellis sync --workers N`, or several
/// `trellis sync` processes on one PostgreSQL store, on one machine or several).
///
/// The worker claims the resources one at a time (``LeasingStore/claimLease(among:holder:seconds:notFinishedSince:)``),
/// in source order, skipping those another live worker holds and those any worker finished
/// since this one started; it ends when every resource was finished since it started. Each
/// page's transaction renews the lease: a worker whose lease expired and was taken over
/// cannot commit another page of that resource (the page rolls back; the new holder resumes
/// from the last committed page's checkpoint). A killed worker's resource is taken over
/// once its lease expires (at once by a worker on the same machine, which sees the process is gone).
public struct SyncWorker: Sendable, Equatable {
    /// The holder name in the lease rows (``Lease/holderName(worker:)``: `host:pid`, `host:pid#2`).
    public var holder: String
    /// How long a lease lasts unless renewed, in seconds (renewed with every page). Default 30.
    public var leaseSeconds: Double
    /// How long to wait, in seconds, before claiming again while every resource left is held
    /// by another worker. Default 1.
    public var pollInterval: Double

    public init(holder: String = Lease.holderName(), leaseSeconds: Double = 30, pollInterval: Double = 1) {
        self.holder = holder
        self.leaseSeconds = leaseSeconds
        self.pollInterval = pollInterval
    }
}
