import Foundation
import Trellis

/// Where a resource's sync stands, kept in the store's metadata under `sync/NAME` and
/// written in the same transaction as each page's objects: after a crash the store and the
/// checkpoint agree, so the next run resumes at the first page not committed.
///
/// Stored as JSON (`docs/Sync.md`, "Checkpoints"); URLs in it never hold secrets (an API key
/// sent as a query parameter is added to each request, not stored).
public struct SyncCheckpoint: Sendable, Equatable {
    /// The greatest stamp of the last completed walk (nil before one completed).
    public var watermark: Watermark?
    /// The walk in progress (interrupted or stopped by `--max-pages`), if any.
    public var walk: WalkState?
    /// ETags of the pages of the last walks, by URL, with the next page each led to.
    public var pageTags: [String: PageTag] = [:]
    /// The last run.
    public var lastRun: RunRecord?
    /// Pages and records fetched by every run so far.
    public var totalPages = 0
    public var totalRecords = 0

    /// An empty checkpoint (a resource never synced).
    public init() {}

    /// A walk of a resource's pages from its first to its last.
    public struct WalkState: Sendable, Equatable {
        /// The incremental start value the walk began with (nil: the whole resource).
        public var start: Watermark?
        /// The next page to fetch (nil when the walk has just ended).
        public var next: String?
        /// Pages and records committed so far in this walk.
        public var pages: Int
        public var records: Int
        /// The greatest stamp seen in the walk, promoted to the watermark at its end.
        public var greatest: Watermark?
        /// The server's clock when the walk began (the first response's `Date`), for the
        /// settle rule of positional walks.
        public var serverStart: SyncInstant?
        /// Evidence the pages shifted while walking (a record seen twice, a stamp after
        /// ``serverStart``): the walk is repeated before its watermark is promoted.
        public var unsettled: Bool
        /// Walks already repeated from the same start.
        public var repeats: Int
        /// The walk went on in a later run than the one it started in (its first pages are
        /// not in this run's memory, so its deletions are decided by a scan).
        public var resumed: Bool
    }

    /// A page's validator, for a conditional request next time.
    public struct PageTag: Sendable, Equatable {
        /// The `ETag` the page came with.
        public var etag: String
        /// The URL of the page after it (nil: it was the last).
        public var next: String?
    }

    /// How a run ended (stored as its raw value).
    public enum RunStatus: String, Sendable, Equatable, CustomStringConvertible {
        /// Running now, or a run that was killed (nothing marked it otherwise).
        case running
        /// The walk reached its end.
        case completed
        /// `--max-pages` stopped the walk; the next run resumes it.
        case stopped
        /// An error ended the run (``RunRecord/message`` says which).
        case failed

        public var description: String { rawValue }
    }

    /// What a run did, for `trellis sync --status`.
    public struct RunRecord: Sendable, Equatable {
        /// How it ended (or that it is still running).
        public var status: RunStatus
        public var startedAt: SyncInstant
        public var finishedAt: SyncInstant?
        public var pages: Int
        public var pagesChanged: Int
        public var records: Int
        /// The error of a failed run (no secrets).
        public var message: String?
    }

    /// The metadata key of `resource`'s checkpoint.
    public static func key(for resource: String) -> String { "sync/\(resource)" }

    static let formatVersion = 1
    /// At most this many page tags are kept (the most recent walk's first).
    static let maximumPageTags = 10_000

    // MARK: - JSON

    /// The stored text.
    var text: String {
        var o = JSONObject()
        o.append(key: "formatVersion", value: .number(JSONNumber(Int64(SyncCheckpoint.formatVersion))))
        o.append(key: "watermark", value: watermark?.json ?? .null)
        if let walk {
            var w = JSONObject()
            w.append(key: "start", value: walk.start?.json ?? .null)
            w.append(key: "next", value: walk.next.map(JSONValue.string) ?? .null)
            w.append(key: "pages", value: JSONValue(walk.pages))
            w.append(key: "records", value: JSONValue(walk.records))
            w.append(key: "greatest", value: walk.greatest?.json ?? .null)
            w.append(key: "serverStart", value: walk.serverStart.map { .string($0.exactText) } ?? .null)
            w.append(key: "unsettled", value: .bool(walk.unsettled))
            w.append(key: "repeats", value: JSONValue(walk.repeats))
            w.append(key: "resumed", value: .bool(walk.resumed))
            o.append(key: "walk", value: .object(w))
        } else {
            o.append(key: "walk", value: .null)
        }
        var tags = JSONObject()
        for (url, tag) in pageTags.sorted(by: { $0.key < $1.key }) {
            tags.append(key: url, value: ["etag": .string(tag.etag), "next": tag.next.map(JSONValue.string) ?? .null])
        }
        o.append(key: "pageTags", value: .object(tags))
        if let run = lastRun {
            var r = JSONObject()
            r.append(key: "status", value: .string(run.status.rawValue))
            r.append(key: "startedAt", value: .string(run.startedAt.rfc3339))
            r.append(key: "finishedAt", value: run.finishedAt.map { .string($0.rfc3339) } ?? .null)
            r.append(key: "pages", value: JSONValue(run.pages))
            r.append(key: "pagesChanged", value: JSONValue(run.pagesChanged))
            r.append(key: "records", value: JSONValue(run.records))
            r.append(key: "message", value: run.message.map(JSONValue.string) ?? .null)
            o.append(key: "lastRun", value: .object(r))
        } else {
            o.append(key: "lastRun", value: .null)
        }
        o.append(key: "totalPages", value: JSONValue(totalPages))
        o.append(key: "totalRecords", value: JSONValue(totalRecords))
        return (try? JSONWriter.string(for: .object(o))) ?? "{}"
    }

    /// Reads a stored checkpoint of `resource` (the metadata value under ``key(for:)``).
    /// - Throws: ``SyncError`` `.invalidCheckpoint` for text this version cannot read.
    public init(text: String, resource: String) throws {
        func bad(_ why: String) -> SyncError {
            SyncError(
                .invalidCheckpoint, message: "the stored checkpoint \(SyncCheckpoint.key(for: resource)) cannot be read: \(why)",
                resource: resource)
        }
        guard let json = try? JSONReader.parse(text), case .object(let o) = json else { throw bad("not a JSON object") }
        guard o["formatVersion"]?.intValue == SyncCheckpoint.formatVersion else {
            throw bad("formatVersion \(o["formatVersion"].map { "\($0)" } ?? "missing"); this version of Trellis reads \(SyncCheckpoint.formatVersion)")
        }
        func watermark(_ value: JSONValue?, _ name: String) throws -> Watermark? {
            guard let value, !value.isNull else { return nil }
            guard let w = Watermark(checkpoint: value) else { throw bad("\(name) is not a watermark") }
            return w
        }
        self.init()
        self.watermark = try watermark(o["watermark"], "watermark")
        if case .object(let w)? = o["walk"] {
            walk = WalkState(
                start: try watermark(w["start"], "walk.start"), next: w["next"]?.stringValue,
                pages: w["pages"]?.intValue ?? 0, records: w["records"]?.intValue ?? 0,
                greatest: try watermark(w["greatest"], "walk.greatest"),
                serverStart: w["serverStart"]?.stringValue.flatMap { SyncInstant(exactText: $0) },
                unsettled: w["unsettled"]?.boolValue ?? false, repeats: w["repeats"]?.intValue ?? 0,
                resumed: w["resumed"]?.boolValue ?? false)
        }
        if case .object(let tags)? = o["pageTags"] {
            for (url, tag) in tags {
                guard let etag = tag["etag"]?.stringValue else { throw bad("pageTags[\(url)] has no etag") }
                pageTags[url] = PageTag(etag: etag, next: tag["next"]?.stringValue)
            }
        }
        if case .object(let r)? = o["lastRun"] {
            guard let text = r["status"]?.stringValue, let started = r["startedAt"]?.stringValue.flatMap(SyncInstant.init(rfc3339:)) else {
                throw bad("lastRun has no status or startedAt")
            }
            guard let status = RunStatus(rawValue: text) else {
                throw bad("lastRun.status \(JSONWriter.quoted(text)) is none of running, completed, stopped, failed")
            }
            lastRun = RunRecord(
                status: status, startedAt: started, finishedAt: r["finishedAt"]?.stringValue.flatMap(SyncInstant.init(rfc3339:)),
                pages: r["pages"]?.intValue ?? 0, pagesChanged: r["pagesChanged"]?.intValue ?? 0,
                records: r["records"]?.intValue ?? 0, message: r["message"]?.stringValue)
        }
        totalPages = o["totalPages"]?.intValue ?? 0
        totalRecords = o["totalRecords"]?.intValue ?? 0
    }

    // MARK: - Store

    /// The checkpoint of `resource` in the session's store (empty when none).
    static func read(resource: String, in session: any StoreSession) throws -> SyncCheckpoint {
        guard let text = try session.metadataValue(forKey: key(for: resource)) else { return SyncCheckpoint() }
        return try SyncCheckpoint(text: text, resource: resource)
    }

    /// Writes this checkpoint of `resource` in the session's transaction.
    func write(resource: String, in session: any StoreSession) throws {
        try session.setMetadataValue(text, forKey: SyncCheckpoint.key(for: resource))
    }
}
