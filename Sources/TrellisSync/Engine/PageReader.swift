import Foundation
import Trellis

/// Fetches and reads one page of a walk on another thread, while the caller imports the
/// page before it: the JSON is parsed, Parse's typed values converted, stamps, identities
/// and record keys read, and the paginator's continuation taken (``WalkPlanner``). The
/// caller asks for page N + 1 as soon as ``WalkMachine`` decided it (before committing page
/// N), and for no other, so at most two pages are in flight (fetched, not committed) and
/// memory stays bounded whatever the walk's length.
struct PageReader: Sendable {
    /// A page, read.
    struct Page: Sendable {
        var url: URL
        var exchange: HTTPClient.Exchange
        var decoded: DecodedPage
        /// Records with Parse's typed values converted (``DecodedPage/records`` otherwise).
        var records: [JSONValue]
        /// What the walk's decisions need (``WalkMachine/record(_:)``).
        var facts: PageFacts
        /// Parse values skipped or left as they were.
        var remarks: [ParseDialect.Remark]
    }

    var resource: ResourceConfiguration
    var planner: WalkPlanner
    var isParse: Bool
    /// Reads identities (tombstones, full scans, positional walks, record keys).
    var identities: IdentityReader?
    /// Reads a key per record, for the repeated-page and stale-page rules (every paginator
    /// but Parse's keyset, which cannot repeat a page, and `none`).
    var readsKeys: Bool
    var now: @Sendable () -> Date
    /// Gets one response (the network, with retries; or the next staged page).
    var fetch: @Sendable (URL, HTTPHeaders) throws -> HTTPClient.Exchange
    /// Replay: whether staged pages are left after the one just fetched.
    var stagedHasMore: (@Sendable () -> Bool)?

    /// Whether the resource's walks need a key per record.
    static func readsKeys(_ paginator: PaginatorConfiguration) -> Bool {
        switch paginator {
        case .parse, .none: return false
        default: return true
        }
    }

    /// Starts fetching and reading `url` (with `If-None-Match` from `tag`). `firstOfWalk`:
    /// the page starts a walk; a positional walk then reads the server's `Date` and digests
    /// the body, to tell at its end whether its pages shifted.
    func start(_ url: URL, tag: SyncCheckpoint.PageTag?, firstOfWalk: Bool) -> PendingResult<Page, SyncError> {
        let pending = PendingResult<Page, SyncError>()
        DispatchQueue.global().async { [self] in
            pending.fulfil(Result { () throws(SyncError) -> Page in try read(url, tag: tag, firstOfWalk: firstOfWalk) })
        }
        return pending
    }

    private func read(_ requested: URL, tag: SyncCheckpoint.PageTag?, firstOfWalk: Bool) throws(SyncError) -> Page {
        var url = requested
        do {
            var headers = HTTPHeaders()
            if let tag { headers.set("If-None-Match", tag.etag) }
            let exchange: HTTPClient.Exchange
            do { exchange = try fetch(url, headers) } catch let error as SyncError { throw error } catch {
                throw SyncError(.transport, message: "\(error)")
            }
            if stagedHasMore != nil { url = exchange.response.url }
            let decoded = try PageDecoder.decode(exchange.response, records: resource.records)
            let continuation: Continuation =
                decoded.notModified
                ? .link(nil)
                : try planner.continuation(
                    after: url, response: exchange.response, body: decoded.body, records: decoded.records,
                    recordsPath: decoded.recordsPath)
            var page = try readRecords(exchange: exchange, decoded: decoded, url: url, continuation: continuation)
            if decoded.notModified {
                page.facts.notModified = true
                page.facts.storedNext = tag?.next.flatMap(URL.init(string:))
            }
            page.facts.etag = exchange.response.headers["etag"]
            if firstOfWalk, resource.paginator.isPositional, !decoded.notModified {
                page.facts.digest = PageReader.digest(exchange.response.body)
                page.facts.serverDate = exchange.response.headers["date"].flatMap(HTTPDate.parse).map(SyncInstant.init) ?? SyncInstant(now())
            }
            page.facts.stagedHasMore = stagedHasMore?()
            return page
        } catch {
            let failure = (error as? SyncError) ?? SyncError(.transport, message: "\(error)")
            throw failure.redacted(by: planner.client.redactor).located(resource: resource.name, pageURL: planner.client.printable(url))
        }
    }

    /// Converts typed values, reads stamps, identities and record keys.
    private func readRecords(exchange: HTTPClient.Exchange, decoded: DecodedPage, url: URL, continuation: Continuation) throws(SyncError) -> Page {
        var records = decoded.records
        var remarks: [ParseDialect.Remark] = []
        var greatest: Watermark?
        var latest: SyncInstant?
        var identities: [[AttributeValue]?]? = identities == nil ? nil : []
        identities?.reserveCapacity(records.count)
        var keys: [Int]? = readsKeys ? [] : nil
        keys?.reserveCapacity(records.count)
        // Typed values are looked for only in a body that mentions `__type` at all.
        let typed = isParse && PageReader.contains(exchange.response.body, "\"__type\"")
        for i in records.indices {
            if typed, let converted = ParseDialect.convert(records[i], at: decoded.recordsPath.appending(index: i), remarks: &remarks) {
                records[i] = converted
            }
            let record = records[i]
            var stamp: Watermark?
            if let incremental = resource.incremental {
                guard let value = incremental.cursor.lookup(in: record).value, !value.isNull else {
                    throw SyncError(
                        .invalidCursor, message: "the record has no '\(incremental.cursor)' (the incremental cursor)",
                        path: decoded.recordsPath.appending(index: i).appending(keyPath: incremental.cursor))
                }
                guard let parsed = Watermark(json: value, tieBreaker: isParse ? record["objectId"]?.stringValue : nil) else {
                    throw SyncError(
                        .invalidCursor, message: "the incremental cursor \(SourceFields.snippet(value)) is neither an RFC 3339 date-time nor a number",
                        path: decoded.recordsPath.appending(index: i).appending(keyPath: incremental.cursor))
                }
                if greatest.map({ $0 < parsed }) ?? true { greatest = parsed }
                if case .instant(let instant) = parsed.value, latest.map({ $0 < instant }) ?? true { latest = instant }
                stamp = parsed
            }
            let identity = self.identities?.identity(of: record)
            if self.identities != nil { identities?.append(identity) }
            if keys != nil {
                var hasher = Hasher()
                if let identity { hasher.combine(identity) } else { hasher.combine(record) }
                if let stamp { hasher.combine(stamp.value) }
                keys?.append(hasher.finalize())
            }
        }
        var facts = PageFacts(url: url, recordCount: records.count, continuation: continuation)
        facts.recordKeys = keys
        facts.identities = identities
        facts.greatest = greatest
        facts.latestInstant = latest
        return Page(url: url, exchange: exchange, decoded: decoded, records: records, facts: facts, remarks: remarks)
    }

    /// FNV-1a, 64 bits, of a page body (a fingerprint, not a security hash).
    static func digest(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// Whether `data` holds the bytes of `needle` (a linear scan for its first byte, then a compare).
    static func contains(_ data: Data, _ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard let first = pattern.first, data.count >= pattern.count else { return false }
        return data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            let bytes = raw.bindMemory(to: UInt8.self)
            var i = 0
            let last = bytes.count - pattern.count
            while i <= last {
                if bytes[i] == first {
                    var j = 1
                    while j < pattern.count && bytes[i + j] == pattern[j] { j += 1 }
                    if j == pattern.count { return true }
                }
                i += 1
            }
            return false
        }
    }
}
