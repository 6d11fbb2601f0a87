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

    /// A run of every resource, incremental, with nothing staged.
    public init() {}
}
