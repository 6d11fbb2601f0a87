import Foundation
import Trellis

/// What ``WalkMachine/record(_:)`` learns from one page: everything the walk's decisions
/// need, read from the response by ``PageReader`` (or written by hand in a test).
struct PageFacts: Sendable {
    /// The page's URL (as stored: no credentials).
    var url: URL
    /// The server answered `304 Not Modified`: the page is as it was; ``storedNext`` is the
    /// page it led to then.
    var notModified = false
    var storedNext: URL?
    /// Records on the page.
    var recordCount: Int
    /// What the page gives for the next one.
    var continuation: Continuation
    /// One key per record, its identity and stamp hashed (its whole JSON when the entity
    /// has no identity attributes); nil where the paginator needs none (Parse's keyset).
    var recordKeys: [Int]?
    /// Each record's identity (nil entries where one cannot be read), when read.
    var identities: [[AttributeValue]?]?
    /// The page's greatest stamp, and its latest instant (dates only).
    var greatest: Watermark?
    var latestInstant: SyncInstant?
    /// The server's clock at the response (its `Date`).
    var serverDate: SyncInstant?
    /// The page's `ETag` and an FNV-1a digest of its body (the digest only when asked for:
    /// the first page of a positional walk).
    var etag: String?
    var digest: UInt64?
    /// Replay: whether staged pages follow this one (nil: not a replay).
    var stagedHasMore: Bool?

    init(url: URL, recordCount: Int, continuation: Continuation) {
        self.url = url
        self.recordCount = recordCount
        self.continuation = continuation
    }
}

/// The first page of a positional walk, asked for again at the walk's end.
struct FirstPage: Sendable, Equatable {
    var url: URL
    var etag: String?
    var digest: UInt64
}

/// Why a walk ended (`docs/Sync.md`, "The end of a walk").
enum EndEvidence: String, Sendable, Equatable {
    /// The `none` paginator: one request.
    case singlePage
    /// A page without records (offset, page numbers).
    case emptyPage
    /// No `Link: rel="next"`, no next URL in the body, no cursor.
    case noNextLink
    /// The offset reached the total at `totalPath`.
    case totalReached
    /// Parse: nothing after the last key.
    case keysetExhausted
    /// A `304 Not Modified` for a page that was the last one when it was fetched.
    case unchangedLastPage
    /// A page repeating an earlier page of the walk (page numbers past the end answered
    /// with the last page, or the first).
    case repeatedPage
    /// A page shorter than the server's page size (an offset paginator without a total; the
    /// size is learned from the first page, since a server may cap `limit`).
    case shortPage
    /// The paginator's `maxPages`.
    case pageLimit
    /// `maxStalePages` pages in a row brought no record new to the walk.
    case stalePages

    /// Whether the walk is known to have seen the whole resource: only then may its
    /// identities decide full-scan deletions. A short page, `maxPages` or a stale streak
    /// is not such evidence.
    var provesCompleteness: Bool {
        switch self {
        case .shortPage, .pageLimit, .stalePages: return false
        default: return true
        }
    }

    /// For messages: `an empty page`, `no next link`.
    var phrase: String {
        switch self {
        case .singlePage: return "a single page"
        case .emptyPage: return "an empty page"
        case .noNextLink: return "no next page given"
        case .totalReached: return "the total reached"
        case .keysetExhausted: return "nothing after the last key"
        case .unchangedLastPage: return "the last page unchanged (304)"
        case .repeatedPage: return "a page repeating an earlier one"
        case .shortPage: return "a short page"
        case .pageLimit: return "the paginator's maxPages"
        case .stalePages: return "pages bringing no new record"
        }
    }
}

/// What a walk does after a page (``WalkMachine/record(_:)``).
enum Transition: Sendable, Equatable {
    /// Fetch this page next (the walk goes on).
    case fetch(URL)
    /// `--max-pages` (or the end of the staged pages): the run stops here; the next run
    /// resumes at this page.
    case stop(next: URL)
    /// Ask for the walk's first page again (``WalkMachine/recordFirstPage(changed:)`` gives
    /// the next transition): a positional walk checks that its pages did not shift.
    case verifyFirstPage(FirstPage)
    /// The pages shifted while walking: walk again from the same start, from this URL.
    case walkAgain(URL)
    /// The walk ended (``WalkMachine/completion`` says how).
    case complete(EndEvidence)
    /// Replay: the walk ended and staged pages of a later walk follow, from this URL.
    case replayMore(URL)
    /// The walk cannot go on (the page is not committed).
    case fail(WalkFailure)

    /// Whether the run's walking ends with this page (it completed, stopped or failed).
    var endsRun: Bool {
        switch self {
        case .complete, .stop, .fail: return true
        case .fetch, .verifyFirstPage, .walkAgain, .replayMore: return false
        }
    }
}

/// Why a walk cannot go on.
enum WalkFailure: Sendable, Equatable {
    /// The next page was already fetched in this walk.
    case loop(next: URL)
    /// The next page is on another origin that `allowedHosts` does not list.
    case foreignLink(next: URL, reason: String)
    /// `repeatedPage: error`: the page repeats page `earlier` of the walk.
    case repeatedPage(earlier: Int)
    /// `repeatedPage: error`: `count` pages in a row brought no new record.
    case stalePages(count: Int)
    /// The next page number or offset would not fit (a page URL at 2⁵³).
    case outOfRange(String)

    /// The error, with `printable` making URLs safe to print.
    func error(printable: (URL) -> String) -> SyncError {
        switch self {
        case .loop(let next):
            return SyncError(.paginationLoop, message: "the next page \(printable(next)) was already fetched in this walk (the walk would never end)")
        case .foreignLink(let next, let reason):
            return SyncError(.foreignLink, message: "the next page \(printable(next)) is not followed: \(reason)")
        case .repeatedPage(let earlier):
            return SyncError(
                .paginationLoop,
                message: "the page repeats page \(earlier) of this walk (the same records, identities and "
                    + "stamps): the server answers pages past the end with earlier ones (repeatedPage: error)")
        case .stalePages(let count):
            return SyncError(
                .paginationLoop,
                message: "\(count) pages in a row brought no record new to this walk (maxStalePages \(count), "
                    + "repeatedPage: error): the server answers pages past the end with earlier records")
        case .outOfRange(let message):
            return SyncError(.invalidCursor, message: message)
        }
    }
}
