import Foundation
import Testing
import Trellis

@testable import TrellisSync

/// The walk's decisions without a server: hand-written pages through ``WalkMachine``, one
/// table row per rule (every paginator's end, capped pages, repeated and stale pages, foreign
/// links, the loop guard, `--max-pages`, shifting pages, resumption, `304`s, replay).
@Suite struct WalkMachineTests {
    static let base = URL(string: "http://api.test/v1/")!

    /// A transport the machine never uses (it does no I/O).
    struct NoTransport: HTTPTransport {
        func send(_ request: HTTPRequest, timeout: Double, completion: @escaping @Sendable (Result<HTTPResponse, TransportFailure>) -> Void) {
            completion(.failure(TransportFailure(message: "no I/O in a state machine test", isRetryable: false)))
        }
    }

    static func resource(
        _ paginator: PaginatorConfiguration, rules: PageRules = PageRules(), incremental: Bool = false,
        fullScan: Bool = false, params: [(name: String, value: String)] = []
    ) -> ResourceConfiguration {
        ResourceConfiguration(
            name: "items", entity: "Item", path: "items", params: params, paginator: paginator, pageRules: rules,
            incremental: incremental ? IncrementalConfiguration(cursor: "updated_at", parameter: "since") : nil,
            deletions: fullScan ? .fullScan(maxFraction: 0.5, scope: nil) : .none)
    }

    static func machine(
        _ resource: ResourceConfiguration, checkpoint: SyncCheckpoint = SyncCheckpoint(), completeness: Bool = false,
        maxPages: Int? = nil, replay: Bool = false, allowedHosts: [String] = [], purpose: WalkMachine.Purpose = .walk,
        dialect: ClientConfiguration.Dialect? = nil
    ) throws -> WalkMachine {
        let client = HTTPClient(
            configuration: ClientConfiguration(baseURL: base, dialect: dialect, allowedHosts: allowedHosts),
            redactor: Redactor(secrets: []), transport: NoTransport())
        var configuration = WalkMachine.Configuration(
            resource: resource, planner: WalkPlanner(resource: resource, client: client),
            origins: client.origins)
        configuration.needsCompleteness = completeness
        configuration.maximumPages = maxPages
        configuration.isReplay = replay
        configuration.purpose = purpose
        return try WalkMachine(configuration, checkpoint: checkpoint, resuming: true)
    }

    /// A page of records with these ids (identity = id, key = id, stamps from `stamps`).
    static func page(_ url: String, ids: [Int], _ continuation: Continuation, stamps: [String]? = nil, digest: UInt64? = nil) -> PageFacts {
        var facts = PageFacts(url: URL(string: url)!, recordCount: ids.count, continuation: continuation)
        facts.recordKeys = ids
        facts.identities = ids.map { [.integer(Int64($0))] }
        if let stamps {
            let marks = stamps.compactMap { Watermark(json: .string($0)) }
            facts.greatest = marks.max()
            if case .instant(let latest)? = marks.max()?.value { facts.latestInstant = latest }
        }
        facts.digest = digest
        return facts
    }

    static func url(_ text: String) -> URL { URL(string: text)! }

    // MARK: - The end of a walk, per paginator

    struct EndCase: CustomStringConvertible, Sendable {
        let description: String
        let resource: ResourceConfiguration
        var completeness = false
        let pages: [PageFacts]
        let transitions: [Transition]
        let evidence: EndEvidence
    }

    static let offset7 = PaginatorConfiguration.offset(limit: 7, offsetParameter: "offset", limitParameter: "limit", totalPath: nil)
    static let offset7Total = PaginatorConfiguration.offset(limit: 7, offsetParameter: "offset", limitParameter: "limit", totalPath: "total")
    static let first = "http://api.test/v1/items?offset=0&limit=7"

    static let ends: [EndCase] = [
        EndCase(
            description: "offset with a total: pages capped at 5 of 7 go on to the total",
            resource: resource(offset7Total),
            pages: [
                page(first, ids: Array(1...5), .offset(0, total: 12)),
                page("http://api.test/v1/items?offset=5&limit=7", ids: Array(6...10), .offset(5, total: 12)),
                page("http://api.test/v1/items?offset=10&limit=7", ids: [11, 12], .offset(10, total: 12)),
            ],
            transitions: [
                .fetch(url("http://api.test/v1/items?offset=5&limit=7")), .fetch(url("http://api.test/v1/items?offset=10&limit=7")),
                .verifyFirstPage(FirstPage(url: url(first), etag: nil, digest: 7)), .complete(.totalReached),
            ],
            evidence: .totalReached),
        EndCase(
            description: "offset without a total: the page size is learned from the first page; a shorter page ends",
            resource: resource(offset7),
            pages: [
                page(first, ids: Array(1...5), .offset(0, total: nil)),
                page("http://api.test/v1/items?offset=5&limit=7", ids: Array(6...10), .offset(5, total: nil)),
                page("http://api.test/v1/items?offset=10&limit=7", ids: [11, 12], .offset(10, total: nil)),
            ],
            transitions: [
                .fetch(url("http://api.test/v1/items?offset=5&limit=7")), .fetch(url("http://api.test/v1/items?offset=10&limit=7")),
                .verifyFirstPage(FirstPage(url: url(first), etag: nil, digest: 7)), .complete(.shortPage),
            ],
            evidence: .shortPage),
        EndCase(
            description: "offset without a total, deciding deletions: only an empty page ends",
            resource: resource(offset7, fullScan: true), completeness: true,
            pages: [
                page(first, ids: Array(1...5), .offset(0, total: nil)),
                page("http://api.test/v1/items?offset=5&limit=7", ids: [6, 7], .offset(5, total: nil)),
                page("http://api.test/v1/items?offset=7&limit=7", ids: [], .offset(7, total: nil)),
            ],
            transitions: [
                .fetch(url("http://api.test/v1/items?offset=5&limit=7")), .fetch(url("http://api.test/v1/items?offset=7&limit=7")),
                .verifyFirstPage(FirstPage(url: url(first), etag: nil, digest: 7)), .complete(.emptyPage),
            ],
            evidence: .emptyPage),
        EndCase(
            description: "page numbers: an empty page ends",
            resource: resource(.pageNumber(parameter: "page", start: 1, maxPages: nil)),
            pages: [
                page("http://api.test/v1/items?page=1", ids: [1, 2], .pageNumber(1)),
                page("http://api.test/v1/items?page=2", ids: [], .pageNumber(2)),
            ],
            transitions: [
                .fetch(url("http://api.test/v1/items?page=2")), .verifyFirstPage(FirstPage(url: url("http://api.test/v1/items?page=1"), etag: nil, digest: 7)),
                .complete(.emptyPage),
            ],
            evidence: .emptyPage),
        EndCase(
            description: "page numbers: a page answered again past the end ends (the last page)",
            resource: resource(.pageNumber(parameter: "page", start: 1, maxPages: nil)),
            pages: [
                page("http://api.test/v1/items?page=1", ids: [1, 2], .pageNumber(1)),
                page("http://api.test/v1/items?page=2", ids: [3], .pageNumber(2)),
                page("http://api.test/v1/items?page=3", ids: [3], .pageNumber(3)),
            ],
            transitions: [
                .fetch(url("http://api.test/v1/items?page=2")), .fetch(url("http://api.test/v1/items?page=3")),
                .verifyFirstPage(FirstPage(url: url("http://api.test/v1/items?page=1"), etag: nil, digest: 7)), .complete(.repeatedPage),
            ],
            evidence: .repeatedPage),
        EndCase(
            description: "page numbers: page 1 answered again past the end ends",
            resource: resource(.pageNumber(parameter: "page", start: 1, maxPages: nil)),
            pages: [
                page("http://api.test/v1/items?page=1", ids: [1, 2], .pageNumber(1)),
                page("http://api.test/v1/items?page=2", ids: [3], .pageNumber(2)),
                page("http://api.test/v1/items?page=3", ids: [1, 2], .pageNumber(3)),
            ],
            transitions: [
                .fetch(url("http://api.test/v1/items?page=2")), .fetch(url("http://api.test/v1/items?page=3")),
                .verifyFirstPage(FirstPage(url: url("http://api.test/v1/items?page=1"), etag: nil, digest: 7)), .complete(.repeatedPage),
            ],
            evidence: .repeatedPage),
        EndCase(
            description: "page numbers: stale pages (earlier records in another order) end after maxStalePages",
            resource: resource(.pageNumber(parameter: "page", start: 1, maxPages: nil), rules: PageRules(maxStalePages: 2)),
            pages: [
                page("http://api.test/v1/items?page=1", ids: [1, 2], .pageNumber(1)),
                page("http://api.test/v1/items?page=2", ids: [3, 4], .pageNumber(2)),
                page("http://api.test/v1/items?page=3", ids: [2, 1], .pageNumber(3)),
                page("http://api.test/v1/items?page=4", ids: [4, 3], .pageNumber(4)),
            ],
            transitions: [
                .fetch(url("http://api.test/v1/items?page=2")), .fetch(url("http://api.test/v1/items?page=3")),
                .fetch(url("http://api.test/v1/items?page=4")),
                .verifyFirstPage(FirstPage(url: url("http://api.test/v1/items?page=1"), etag: nil, digest: 7)), .complete(.stalePages),
            ],
            evidence: .stalePages),
        EndCase(
            description: "page numbers: maxPages ends",
            resource: resource(.pageNumber(parameter: "page", start: 0, maxPages: 2)),
            pages: [
                page("http://api.test/v1/items?page=0", ids: [1], .pageNumber(0)),
                page("http://api.test/v1/items?page=1", ids: [2], .pageNumber(1)),
            ],
            transitions: [
                .fetch(url("http://api.test/v1/items?page=1")),
                .verifyFirstPage(FirstPage(url: url("http://api.test/v1/items?page=0"), etag: nil, digest: 7)), .complete(.pageLimit),
            ],
            evidence: .pageLimit),
        EndCase(
            description: "link header: no next link ends",
            resource: resource(.linkHeader),
            pages: [
                page("http://api.test/v1/items", ids: [1], .link(url("http://api.test/v1/items?page=2"))),
                page("http://api.test/v1/items?page=2", ids: [2], .link(nil)),
            ],
            transitions: [
                .fetch(url("http://api.test/v1/items?page=2")),
                .verifyFirstPage(FirstPage(url: url("http://api.test/v1/items"), etag: nil, digest: 7)), .complete(.noNextLink),
            ],
            evidence: .noNextLink),
        EndCase(
            description: "cursor: no cursor ends (a cursor walk does not shift: no first page asked again)",
            resource: resource(.cursor(path: "next", parameter: "cursor")),
            pages: [
                page("http://api.test/v1/items", ids: [1], .link(url("http://api.test/v1/items?cursor=a"))),
                page("http://api.test/v1/items?cursor=a", ids: [2], .link(nil)),
            ],
            transitions: [.fetch(url("http://api.test/v1/items?cursor=a")), .complete(.noNextLink)],
            evidence: .noNextLink),
        EndCase(
            description: "cursor: empty pages with new cursors are stale and end",
            resource: resource(.cursor(path: "next", parameter: "cursor"), rules: PageRules(maxStalePages: 2)),
            pages: [
                page("http://api.test/v1/items", ids: [1], .link(url("http://api.test/v1/items?cursor=a"))),
                page("http://api.test/v1/items?cursor=a", ids: [], .link(url("http://api.test/v1/items?cursor=b"))),
                page("http://api.test/v1/items?cursor=b", ids: [], .link(url("http://api.test/v1/items?cursor=c"))),
            ],
            transitions: [.fetch(url("http://api.test/v1/items?cursor=a")), .fetch(url("http://api.test/v1/items?cursor=b")), .complete(.stalePages)],
            evidence: .stalePages),
        EndCase(
            description: "Parse keyset: a short page goes on; nothing after the last key ends",
            resource: resource(.parse, params: [("limit", "100")]),
            pages: [
                page("http://api.test/v1/items?limit=100", ids: Array(1...40), .keyset(url("http://api.test/v1/items?where=a"))),
                page("http://api.test/v1/items?where=a", ids: [], .keyset(nil)),
            ],
            transitions: [.fetch(url("http://api.test/v1/items?where=a")), .complete(.keysetExhausted)],
            evidence: .keysetExhausted),
        EndCase(
            description: "none: one page",
            resource: resource(.none),
            pages: [page("http://api.test/v1/items", ids: [1], .single)],
            transitions: [.complete(.singlePage)],
            evidence: .singlePage),
    ]

    @Test(arguments: ends)
    func everyPaginatorEndsOnItsEvidence(_ end: EndCase) throws {
        var machine = try Self.machine(end.resource, completeness: end.completeness)
        var transitions: [Transition] = []
        for (i, page) in end.pages.enumerated() {
            var facts = page
            if i == 0 { facts.digest = 7 }
            var transition = machine.record(facts)
            transitions.append(transition)
            if case .verifyFirstPage = transition {
                transition = machine.recordFirstPage(changed: false)
                transitions.append(transition)
            }
        }
        #expect(transitions == end.transitions)
        #expect(machine.completion?.evidence == end.evidence)
        #expect(machine.completion?.settled == true)
        #expect(machine.walk == nil)
        #expect(end.evidence.provesCompleteness == ![.shortPage, .pageLimit, .stalePages].contains(end.evidence))
    }

    // MARK: - Failures

    @Test func aRepeatedPageFailsWhenTheSourceAsksForStrictness() throws {
        var machine = try Self.machine(Self.resource(.pageNumber(parameter: "page", start: 1, maxPages: nil), rules: PageRules(repeatedPage: .error)))
        #expect(
            machine.record(Self.page("http://api.test/v1/items?page=1", ids: [1, 2], .pageNumber(1))) == .fetch(Self.url("http://api.test/v1/items?page=2")))
        #expect(machine.record(Self.page("http://api.test/v1/items?page=2", ids: [1, 2], .pageNumber(2))) == .fail(.repeatedPage(earlier: 1)))
        let error = WalkFailure.repeatedPage(earlier: 1).error(printable: \.absoluteString)
        #expect(error.code == .paginationLoop)
        #expect(
            error.message == "the page repeats page 1 of this walk (the same records, identities and stamps): the server answers pages past "
                + "the end with earlier ones (repeatedPage: error)")
        // Stale streaks too.
        var stale = try Self.machine(Self.resource(.linkHeader, rules: PageRules(repeatedPage: .error, maxStalePages: 1)))
        _ = stale.record(Self.page("http://api.test/v1/items", ids: [1, 2], .link(Self.url("http://api.test/v1/items?p=2"))))
        #expect(
            stale.record(Self.page("http://api.test/v1/items?p=2", ids: [2, 1], .link(Self.url("http://api.test/v1/items?p=3"))))
                == .fail(.stalePages(count: 1)))
    }

    struct LinkCase: CustomStringConvertible, Sendable {
        let description: String
        let next: String
        let allowedHosts: [String]
        let transition: Transition
    }

    static let links: [LinkCase] = [
        LinkCase(
            description: "another host", next: "http://evil.test/v1/items?page=2", allowedHosts: [],
            transition: .fail(
                .foreignLink(
                    next: url("http://evil.test/v1/items?page=2"),
                    reason: "it is on another origin (http://evil.test:80) than the base URL (http://api.test:80); credentials "
                        + "are never sent there, and it is followed only when client.allowedHosts lists its host"))),
        LinkCase(
            description: "another port", next: "http://api.test:8080/v1/items?page=2", allowedHosts: ["evil.test"],
            transition: .fail(
                .foreignLink(
                    next: url("http://api.test:8080/v1/items?page=2"),
                    reason: "it is on another origin (http://api.test:8080) than the base URL (http://api.test:80); credentials "
                        + "are never sent there, and it is followed only when client.allowedHosts lists its host"))),
        LinkCase(
            description: "another scheme", next: "ftp://api.test/v1/items?page=2", allowedHosts: ["api.test"],
            transition: .fail(.foreignLink(next: url("ftp://api.test/v1/items?page=2"), reason: "it is not an http or https URL"))),
        LinkCase(
            description: "an allowed host", next: "http://cdn.test/v1/items?page=2", allowedHosts: ["cdn.test"],
            transition: .fetch(url("http://cdn.test/v1/items?page=2"))),
        LinkCase(
            description: "an allowed host and port", next: "https://cdn.test:8443/v1/items?page=2", allowedHosts: ["cdn.test:8443"],
            transition: .fetch(url("https://cdn.test:8443/v1/items?page=2"))),
        LinkCase(
            description: "the same page again", next: "http://api.test/v1/items", allowedHosts: [],
            transition: .fail(.loop(next: url("http://api.test/v1/items")))),
    ]

    @Test(arguments: links)
    func nextLinksLeaveTheOriginOnlyToAllowedHostsAndNeverLoop(_ link: LinkCase) throws {
        for paginator in [PaginatorConfiguration.linkHeader, .nextURL(path: "next"), .cursor(path: "next", parameter: "c")] {
            var machine = try Self.machine(Self.resource(paginator), allowedHosts: link.allowedHosts)
            #expect(machine.record(Self.page("http://api.test/v1/items", ids: [1], .link(Self.url(link.next)))) == link.transition)
        }
    }

    @Test func aStoredNextPageOnAnotherOriginIsRefused() throws {
        var checkpoint = SyncCheckpoint()
        checkpoint.walk = SyncCheckpoint.WalkState(
            start: nil, next: "http://evil.test/items?page=4", pages: 3, records: 21, greatest: nil,
            serverStart: nil, unsettled: false, repeats: 0, resumed: false)
        let error = try #require(throws: SyncError.self) { try Self.machine(Self.resource(.linkHeader), checkpoint: checkpoint) }
        #expect(error.code == .foreignLink)
        #expect(error.message.hasPrefix("the stored next page http://evil.test/items?page=4 is not followed: it is on another origin"))
    }

    @Test func pageNumbersAndOffsetsAtTheirBoundFailInsteadOfOverflowing() throws {
        var pages = try Self.machine(Self.resource(.pageNumber(parameter: "page", start: 1, maxPages: nil)))
        let top = ServerNumber.maximumCount
        #expect(
            pages.record(Self.page("http://api.test/v1/items?page=\(top)", ids: [1], .pageNumber(top)))
                == .fail(.outOfRange("the next page number (\(top) + 1) is beyond 2^53")))
        var offsets = try Self.machine(Self.resource(Self.offset7Total))
        #expect(
            offsets.record(Self.page(Self.first, ids: [1], .offset(Int.max, total: nil)))
                == .fail(.outOfRange("the next offset (\(Int.max)) is beyond 2^53")))
    }

    // MARK: - Max pages, shifting pages, resumption, 304s, replay

    @Test func maxPagesStopsWithTheNextPage() throws {
        var machine = try Self.machine(Self.resource(.linkHeader), maxPages: 2)
        #expect(
            machine.record(Self.page("http://api.test/v1/items", ids: [1], .link(Self.url("http://api.test/v1/items?p=2"))))
                == .fetch(Self.url("http://api.test/v1/items?p=2")))
        #expect(
            machine.record(Self.page("http://api.test/v1/items?p=2", ids: [2], .link(Self.url("http://api.test/v1/items?p=3"))))
                == .stop(next: Self.url("http://api.test/v1/items?p=3")))
        #expect(machine.walk?.next == "http://api.test/v1/items?p=3")
        #expect(machine.walk?.pages == 2)
        #expect(machine.completion == nil)
    }

    @Test func pagesThatShiftAreWalkedAgainAndOnlyASettledWalkPromotesItsWatermark() throws {
        var checkpoint = SyncCheckpoint()
        checkpoint.watermark = Watermark(json: "2024-01-01T00:00:00Z")
        var machine = try Self.machine(Self.resource(.linkHeader, incremental: true), checkpoint: checkpoint)
        let first = Self.url("http://api.test/v1/items?since=2024-01-01T00%3A00%3A00Z")
        #expect(machine.firstURL == first)
        // Item 2 comes twice: a record moved while walking.
        _ = machine.record(
            Self.page(
                first.absoluteString, ids: [1, 2], .link(Self.url("http://api.test/v1/items?p=2")),
                stamps: ["2024-01-02T00:00:00Z"], digest: 1))
        #expect(
            machine.record(Self.page("http://api.test/v1/items?p=2", ids: [2, 3], .link(nil), stamps: ["2024-01-03T00:00:00Z"]))
                == .walkAgain(first))
        #expect(machine.takeNotes() == ["the pages shifted while walking (a record changed or appeared twice); walking again from the same start"])
        #expect(machine.walk?.repeats == 1)
        #expect(machine.watermark?.text == "2024-01-01T00:00:00Z")
        // Again, settled: the first page asked for again is unchanged.
        _ = machine.record(
            Self.page(
                first.absoluteString, ids: [2, 1], .link(Self.url("http://api.test/v1/items?p=2")),
                stamps: ["2024-01-03T00:00:00Z"], digest: 1))
        #expect(
            machine.record(Self.page("http://api.test/v1/items?p=2", ids: [3], .link(nil), stamps: ["2024-01-02T00:00:00Z"]))
                == .verifyFirstPage(FirstPage(url: first, etag: nil, digest: 1)))
        #expect(machine.recordFirstPage(changed: false) == .complete(.noNextLink))
        #expect(machine.watermark?.text == "2024-01-03T00:00:00Z")
        #expect(machine.completion == WalkMachine.Completion(evidence: .noNextLink, settled: true, resumed: false, incremental: true, identities: nil))
    }

    @Test func pagesThatKeepShiftingLeaveTheWatermark() throws {
        var machine = try Self.machine(Self.resource(.linkHeader, incremental: true))
        let first = machine.firstURL
        for walk in 0...WalkMachine.maximumRepeats {
            _ = machine.record(Self.page(first.absoluteString, ids: [1, 2], .link(Self.url("http://api.test/v1/items?p=2")), stamps: ["2024-01-02T00:00:00Z"]))
            let transition = machine.record(Self.page("http://api.test/v1/items?p=2", ids: [2, 3], .link(nil), stamps: ["2024-01-02T00:00:00Z"]))
            #expect(transition == (walk < WalkMachine.maximumRepeats ? .walkAgain(first) : .complete(.noNextLink)))
        }
        #expect(machine.completion?.settled == false)
        #expect(machine.watermark == nil)
        #expect(machine.takeNotes().last == "the pages kept shifting in 3 walks; the watermark stays where it was")
    }

    @Test func aChangedFirstPageMeansThePagesShifted() throws {
        var machine = try Self.machine(Self.resource(.pageNumber(parameter: "page", start: 1, maxPages: nil)))
        _ = machine.record(Self.page(machine.firstURL.absoluteString, ids: [1], .pageNumber(1), digest: 9))
        #expect(
            machine.record(Self.page("http://api.test/v1/items?page=2", ids: [], .pageNumber(2)))
                == .verifyFirstPage(FirstPage(url: machine.firstURL, etag: nil, digest: 9)))
        #expect(machine.recordFirstPage(changed: true) == .walkAgain(Self.url("http://api.test/v1/items?page=1")))
    }

    @Test func aResumedWalkStartsAtItsNextPageAndLeavesDeletionsToAScan() throws {
        var checkpoint = SyncCheckpoint()
        checkpoint.walk = SyncCheckpoint.WalkState(
            start: nil, next: "http://api.test/v1/items?where=k3", pages: 3, records: 150, greatest: nil,
            serverStart: nil, unsettled: false, repeats: 0, resumed: false)
        var machine = try Self.machine(Self.resource(.parse, fullScan: true, params: [("limit", "50")]), checkpoint: checkpoint, completeness: true)
        #expect(machine.firstURL == Self.url("http://api.test/v1/items?where=k3"))
        _ = machine.record(Self.page("http://api.test/v1/items?where=k3", ids: Array(151...200), .keyset(Self.url("http://api.test/v1/items?where=k4"))))
        #expect(machine.record(Self.page("http://api.test/v1/items?where=k4", ids: [], .keyset(nil))) == .complete(.keysetExhausted))
        #expect(machine.completion == WalkMachine.Completion(evidence: .keysetExhausted, settled: true, resumed: true, incremental: false, identities: nil))
        // A full walk begun in this run knows its identities.
        var fresh = try Self.machine(Self.resource(.parse, fullScan: true, params: [("limit", "50")]), completeness: true)
        _ = fresh.record(Self.page(fresh.firstURL.absoluteString, ids: [1, 2], .keyset(Self.url("http://api.test/v1/items?where=k1"))))
        _ = fresh.record(Self.page("http://api.test/v1/items?where=k1", ids: [], .keyset(nil)))
        #expect(fresh.completion?.identities == [[.integer(1)], [.integer(2)]])
    }

    @Test func notModifiedPagesFollowTheirStoredNextAndAreNeverStale() throws {
        var machine = try Self.machine(Self.resource(.linkHeader, rules: PageRules(maxStalePages: 1), fullScan: true), completeness: true)
        var unchanged = PageFacts(url: machine.firstURL, recordCount: 0, continuation: .link(nil))
        unchanged.notModified = true
        unchanged.storedNext = Self.url("http://api.test/v1/items?p=2")
        #expect(machine.record(unchanged) == .fetch(Self.url("http://api.test/v1/items?p=2")))
        var last = PageFacts(url: Self.url("http://api.test/v1/items?p=2"), recordCount: 0, continuation: .link(nil))
        last.notModified = true
        #expect(machine.record(last) == .complete(.unchangedLastPage))
        // Their records were not read: the walk's identities cannot decide deletions.
        #expect(machine.completion?.identities == nil)
    }

    @Test func aReplayStopsWhereTheStagedPagesEndAndReplaysTheNextWalk() throws {
        var machine = try Self.machine(Self.resource(.linkHeader), replay: true)
        var page = Self.page("http://api.test/v1/items", ids: [1], .link(Self.url("http://api.test/v1/items?p=2")))
        page.stagedHasMore = false
        #expect(machine.record(page) == .stop(next: Self.url("http://api.test/v1/items?p=2")))
        var again = try Self.machine(Self.resource(.linkHeader), replay: true)
        var last = Self.page("http://api.test/v1/items", ids: [1], .link(nil))
        last.stagedHasMore = true
        #expect(again.record(last) == .replayMore(Self.url("http://api.test/v1/items")))
        #expect(again.completion?.evidence == .noNextLink)
        #expect(again.walk?.pages == 0)
    }

    @Test func aScanStartsAtTheBeginningAndAsksParseForKeysOnly() throws {
        var checkpoint = SyncCheckpoint()
        checkpoint.watermark = Watermark(json: "2024-01-01T00:00:00Z")
        let machine = try Self.machine(
            Self.resource(.parse, incremental: true, fullScan: true, params: [("limit", "50")]), checkpoint: checkpoint,
            purpose: .scan, dialect: .parse)
        let items = QueryString.items(of: machine.firstURL)
        #expect(items.map(\.name) == ["limit", "order", "keys"])
        #expect(items.first { $0.name == "keys" }?.value == "objectId,updated_at")
    }
}
