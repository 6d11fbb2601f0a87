import Foundation
import Trellis

/// The decisions of one resource's walk, as a pure state machine (PostgresNIO's
/// `ConnectionStateMachine` style): ``record(_:)`` takes what one page says
/// (``PageFacts``) and returns what happens next (``Transition``): fetch the next page, stop
/// at `--max-pages`, ask for the first page again, walk again, complete, replay more, fail.
/// The requests and the commits are the caller's (``Synchronizer``); nothing here does I/O,
/// reads a clock or throws after init, so every rule is tested with hand-written pages.
///
/// Rules (`docs/Sync.md`, "The end of a walk" and "Walks over a changing sort key"):
/// - the end of a walk is decided by evidence the API gives (``EndEvidence``); a short page
///   ends only an offset walk without a total (at the page size learned from its first
///   page), and never a walk that decides full-scan deletions (``Configuration/needsCompleteness``);
/// - a page repeating an earlier one of the walk ends it (or fails it), and so do
///   `maxStalePages` pages in a row bringing no record new to the walk;
/// - a next page already fetched in the walk, or on another origin, fails it;
/// - a positional walk whose pages shifted is walked again from the same start (at most
///   ``maximumRepeats`` times); only a settled walk promotes its watermark.
struct WalkMachine: Sendable {
    /// Walk to import (or delete tombstones), or scan identities for deletions.
    enum Purpose: Sendable { case walk, scan }

    /// What does not change during a walk.
    struct Configuration: Sendable {
        var resource: ResourceConfiguration
        var planner: WalkPlanner
        var origins: OriginPolicy
        var purpose: Purpose = .walk
        /// The walk's identities may decide full-scan deletions: only evidence that the
        /// resource is exhausted ends it (a short page does not).
        var needsCompleteness = false
        /// Pages this run may fetch at most (`--max-pages`), nil: no limit.
        var maximumPages: Int?
        /// `--full`: start at `initial` (or the beginning), and let the walk's greatest stamp
        /// replace the watermark even when it is lower.
        var full = false
        /// A replay of staged pages (no first page is asked for again; staged pages decide stops).
        var isReplay = false
    }

    /// How a walk ended, for the run that ends it.
    struct Completion: Sendable, Equatable {
        var evidence: EndEvidence
        /// The pages did not shift (always true for walks that cannot shift).
        var settled: Bool
        /// The walk began in an earlier run.
        var resumed: Bool
        /// The walk began at an incremental start (it saw only what changed).
        var incremental: Bool
        /// Every identity of the walk, when it began in this run at no start and read every
        /// page (no `304`); nil otherwise (deletions then need a scan).
        var identities: Set<[AttributeValue]>?
    }

    /// Positional walks are repeated at most this many times when their pages shift.
    static let maximumRepeats = 2

    let configuration: Configuration
    /// The walk in progress, as the checkpoint keeps it (nil once it ended).
    private(set) var walk: SyncCheckpoint.WalkState?
    /// The watermark (the checkpoint's, promoted when a settled walk ends).
    private(set) var watermark: Watermark?
    /// The URL to fetch first (a resumed walk's next page, or the first page).
    private(set) var firstURL: URL
    /// Set when a walk completed (the last one of the run, in a replay).
    private(set) var completion: Completion?
    /// Pages recorded in this run (every walk of it).
    private(set) var pagesThisRun = 0
    /// URLs fetched in every walk of this run (their page tags are kept).
    private(set) var allURLs = Set<String>()

    // The current walk's memory (the checkpoint keeps the rest).
    private var state: WalkState

    private struct WalkState: Sendable {
        var urls = Set<String>()
        var seenKeys = Set<Int>()
        var fingerprints: [Int: Int] = [:]
        var staleStreak = 0
        var pageSize: Int?
        var seenInWalk = Set<[AttributeValue]>()
        var identities: Set<[AttributeValue]>?
        var firstPage: FirstPage?
        var pendingEvidence: EndEvidence?
        var stagedHasMore: Bool?
    }

    private var notes: [String] = []

    /// A walk of `configuration.resource` from `checkpoint`: its pending walk when
    /// `resuming` (and there is one), otherwise a new walk from the start value.
    /// - Throws: ``SyncError`` `.invalidValue` (a `where` that is not an object, a path that
    ///   makes no URL), `.foreignLink` for a stored next page on another origin.
    init(_ configuration: Configuration, checkpoint: SyncCheckpoint, resuming: Bool) throws {
        self.configuration = configuration
        watermark = checkpoint.watermark
        if resuming, let pending = checkpoint.walk, let next = pending.next.flatMap(URL.init(string:)) {
            if let reason = configuration.origins.refusal(of: next) {
                throw SyncError(
                    .foreignLink,
                    message:
                        "the stored next page \(configuration.planner.client.printable(next)) is not followed: \(configuration.planner.client.redactor.redact(reason))"
                )
            }
            var resumed = pending
            resumed.resumed = true
            walk = resumed
            firstURL = next
            state = WalkState()
        } else {
            let start = WalkMachine.startValue(configuration, watermark: checkpoint.watermark)
            let first = try configuration.planner.firstURL(start: start, keysOnly: configuration.purpose == .scan && configuration.resource.paginator == .parse)
            walk = SyncCheckpoint.WalkState(
                start: start, next: first.absoluteString, pages: 0, records: 0, greatest: nil,
                serverStart: nil, unsettled: false, repeats: 0, resumed: false)
            firstURL = first
            state = WalkState()
        }
        state.identities = startsFullWalk ? [] : nil
    }

    // MARK: - Recording pages

    /// What happens after `page`, the page the last transition asked for.
    mutating func record(_ page: PageFacts) -> Transition {
        guard var walk else { return .complete(completion?.evidence ?? .singlePage) }
        let resource = configuration.resource
        let positional = resource.paginator.isPositional && configuration.purpose == .walk
        pagesThisRun += 1
        state.urls.insert(page.url.absoluteString)
        allURLs.insert(page.url.absoluteString)
        walk.pages += 1
        walk.records += page.recordCount
        state.stagedHasMore = page.stagedHasMore
        if walk.pages == 1, walk.serverStart == nil, positional { walk.serverStart = page.serverDate }
        if let greatest = page.greatest, walk.greatest.map({ $0 < greatest }) ?? true { walk.greatest = greatest }
        if let latest = page.latestInstant, let start = walk.serverStart, latest > start { walk.unsettled = true }
        if walk.pages == 1, positional, !page.notModified, !configuration.isReplay, let digest = page.digest {
            state.firstPage = FirstPage(url: page.url, etag: page.etag, digest: digest)
        }
        self.walk = walk

        // A page repeating an earlier one, and stale pages (nothing new to the walk).
        var stale = false
        if page.notModified {
            state.identities = nil  // its records are not read: the walk cannot decide deletions
        } else if let keys = page.recordKeys, !keys.isEmpty {
            var hasher = Hasher()
            for key in keys { hasher.combine(key) }
            let fingerprint = hasher.finalize()
            if let earlier = state.fingerprints[fingerprint] {
                if resource.pageRules.repeatedPage == .error { return .fail(.repeatedPage(earlier: earlier)) }
                notes.append("page \(walk.pages) repeats page \(earlier) of the walk: the walk ends there")
                return end(.repeatedPage)
            }
            state.fingerprints[fingerprint] = walk.pages
            stale = true
            for key in keys where state.seenKeys.insert(key).inserted { stale = false }
        } else if page.recordCount == 0 {
            stale = true
        }
        for identity in page.identities ?? [] {
            guard let identity else { continue }
            // A record seen twice means the pages shifted, unless the whole page came before
            // (a stale page: a server answering past the end, counted below).
            if positional, !state.seenInWalk.insert(identity).inserted, !stale { self.walk?.unsettled = true }
            state.identities?.insert(identity)
        }

        // Where the walk goes on, or the evidence that it ended.
        let next: URL
        switch nextPage(after: page) {
        case .next(let url): next = url
        case .end(let evidence): return end(evidence)
        case .fail(let failure): return .fail(failure)
        }
        if stale {
            state.staleStreak += 1
            if state.staleStreak >= resource.pageRules.maxStalePages {
                if resource.pageRules.repeatedPage == .error { return .fail(.stalePages(count: state.staleStreak)) }
                notes.append("\(state.staleStreak) pages in a row brought no record new to this walk (maxStalePages): the walk ends there")
                return end(.stalePages)
            }
        } else if !page.notModified {
            state.staleStreak = 0
        }
        if let reason = configuration.origins.refusal(of: next) { return .fail(.foreignLink(next: next, reason: reason)) }
        if state.urls.contains(next.absoluteString) { return .fail(.loop(next: next)) }
        self.walk?.next = next.absoluteString
        if page.stagedHasMore == false { return .stop(next: next) }
        if let maximum = configuration.maximumPages, pagesThisRun >= maximum { return .stop(next: next) }
        return .fetch(next)
    }

    /// The answer to ``Transition/verifyFirstPage(_:)``: whether the first page changed.
    mutating func recordFirstPage(changed: Bool) -> Transition {
        if changed { walk?.unsettled = true }
        return finish(state.pendingEvidence ?? .noNextLink)
    }

    /// Diagnostics since the last call (a repeated page, shifting pages, a learned page size).
    mutating func takeNotes() -> [String] {
        defer { notes = [] }
        return notes
    }

    // MARK: - Internals

    private enum Step {
        case next(URL)
        case end(EndEvidence)
        case fail(WalkFailure)
    }

    /// The next page by the paginator's continuation, or the evidence that the walk ended.
    private mutating func nextPage(after page: PageFacts) -> Step {
        if page.notModified {
            return page.storedNext.map(Step.next) ?? .end(.unchangedLastPage)
        }
        let count = page.recordCount
        switch page.continuation {
        case .single:
            return .end(.singlePage)
        case .link(let url), .keyset(let url):
            if case .keyset = page.continuation, count == 0 { return .end(.keysetExhausted) }
            return url.map(Step.next) ?? .end(.noNextLink)
        case .offset(let offset, let total):
            guard count > 0 else { return .end(.emptyPage) }
            let nextOffset = ServerNumber.adding(offset, count)
            if let total {
                if nextOffset >= total { return .end(.totalReached) }
            } else {
                let size = max(state.pageSize ?? 0, count)
                if state.pageSize == nil, case .offset(let limit, _, _, _) = configuration.resource.paginator, count < limit {
                    notes.append("the first page has \(count) records of the \(limit) asked for: \(count) is taken as the server's page size")
                }
                let short = state.pageSize.map { count < $0 } ?? false
                state.pageSize = size
                if short, !configuration.needsCompleteness { return .end(.shortPage) }
            }
            guard nextOffset <= ServerNumber.maximumCount, let url = configuration.planner.url(page.url, offset: nextOffset) else {
                return .fail(.outOfRange("the next offset (\(nextOffset)) is beyond 2^53"))
            }
            return .next(url)
        case .pageNumber(let number):
            guard count > 0 else { return .end(.emptyPage) }
            if case .pageNumber(_, let first, let maxPages?) = configuration.resource.paginator,
                ServerNumber.adding(number, -first) >= maxPages - 1
            {
                return .end(.pageLimit)
            }
            guard number < ServerNumber.maximumCount, let url = configuration.planner.url(page.url, page: number + 1) else {
                return .fail(.outOfRange("the next page number (\(number) + 1) is beyond 2^53"))
            }
            return .next(url)
        }
    }

    /// The walk reached its end (with `evidence`): a positional walk of several pages asks
    /// for its first page again first.
    private mutating func end(_ evidence: EndEvidence) -> Transition {
        if let walk, walk.pages > 1, !walk.unsettled, let first = state.firstPage {
            state.pendingEvidence = evidence
            state.firstPage = nil
            return .verifyFirstPage(first)
        }
        return finish(evidence)
    }

    private mutating func finish(_ evidence: EndEvidence) -> Transition {
        guard let walk else { return .complete(evidence) }
        let positional = configuration.resource.paginator.isPositional && configuration.purpose == .walk
        if positional, walk.unsettled, walk.repeats < WalkMachine.maximumRepeats, let again = try? configuration.planner.firstURL(start: walk.start) {
            notes.append("the pages shifted while walking (a record changed or appeared twice); walking again from the same start")
            self.walk = SyncCheckpoint.WalkState(
                start: walk.start, next: again.absoluteString, pages: 0, records: 0, greatest: walk.greatest,
                serverStart: nil, unsettled: false, repeats: walk.repeats + 1, resumed: walk.resumed)
            restartMemory()
            return .walkAgain(again)
        }
        let settled = !(positional && walk.unsettled)
        if !settled {
            notes.append("the pages kept shifting in \(walk.repeats + 1) walks; the watermark stays where it was")
        } else if configuration.purpose == .walk, let greatest = walk.greatest, configuration.full || watermark.map({ $0 < greatest }) ?? true {
            watermark = greatest
        }
        completion = Completion(
            evidence: evidence, settled: settled, resumed: walk.resumed, incremental: walk.start != nil,
            identities: state.identities)
        self.walk = nil
        if state.stagedHasMore == true, let first = beginNextWalk() { return .replayMore(first) }
        return .complete(evidence)
    }

    /// Replay: staged pages of a later walk follow the one that completed; it starts from
    /// the (promoted) watermark.
    mutating func beginNextWalk() -> URL? {
        let start = WalkMachine.startValue(configuration, watermark: watermark)
        guard let first = try? configuration.planner.firstURL(start: start) else { return nil }
        walk = SyncCheckpoint.WalkState(
            start: start, next: first.absoluteString, pages: 0, records: 0, greatest: nil,
            serverStart: nil, unsettled: false, repeats: 0, resumed: false)
        restartMemory()
        return first
    }

    private mutating func restartMemory() {
        state = WalkState()
        state.identities = startsFullWalk ? [] : nil
    }

    /// The walk is a full walk begun in this run whose identities may decide full-scan deletions.
    private var startsFullWalk: Bool {
        guard
            configuration.purpose == .scan
                || {
                    if case .fullScan = configuration.resource.deletions { return true }
                    return false
                }()
        else {
            return false
        }
        return walk?.start == nil && walk?.resumed == false
    }

    /// Where a new walk starts: `--full` → the `initial` value; otherwise the watermark
    /// (moved back by `lagSeconds`), or `initial` before the first completed walk. A scan
    /// starts at the beginning.
    static func startValue(_ configuration: Configuration, watermark: Watermark?) -> Watermark? {
        guard configuration.purpose == .walk, let incremental = configuration.resource.incremental else { return nil }
        let initial = incremental.initial.flatMap { text in Watermark.Value(text: text).map { Watermark(text: text, value: $0) } }
        guard !configuration.full, let watermark else { return initial }
        return watermark.lagged(by: incremental.lagSeconds)
    }
}
