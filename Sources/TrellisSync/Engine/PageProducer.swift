import Foundation
import Trellis

/// Fetches and reads the pages of one walk on its own thread, ahead of the thread that
/// imports them: while page N is imported, page N + 1 is fetched and decoded (JSON parsed,
/// Parse's typed values converted, stamps and identities read). Page N + 2 is asked for only
/// once page N + 1 is taken, so at most two pages are in flight (fetched, not committed) and
/// memory stays bounded whatever the walk's length.
///
/// The pages come out in order; an error (a failed request, a body that is not JSON, a loop)
/// is delivered in its place, after every page before it, and ends the walk.
final class PageProducer: @unchecked Sendable {
    // SAFETY: `queue`, `finished` and `cancelled` are read and written only while `condition`
    // is held; everything else is immutable after init or confined to the producing thread.

    /// A page, read.
    struct Page: @unchecked Sendable {
        // SAFETY: a value handed from the producing thread to the consumer once; JSONValue,
        // URL and the rest are immutable values.
        var url: URL
        var exchange: HTTPClient.Exchange
        var decoded: DecodedPage
        /// Records with Parse's typed values converted (``DecodedPage/records`` otherwise).
        var records: [JSONValue]
        /// What the paginator gives next (nil: the last page).
        var next: URL?
        /// The producer stops here although ``next`` is set (`--max-pages`, the end of the
        /// staged pages).
        var stopsHere: Bool
        /// The greatest stamp of the page, and its latest instant (dates only).
        var greatest: Watermark?
        var latestInstant: SyncInstant?
        /// Each record's identity (nil entries where one cannot be read), when asked for.
        var identities: [[AttributeValue]?]?
        /// Parse values skipped or left as they were.
        var remarks: [ParseDialect.Remark]
        /// The server's clock at the response.
        var serverDate: SyncInstant
    }

    /// What reading a page needs.
    struct Reader: Sendable {
        var resource: ResourceConfiguration
        var planner: WalkPlanner
        var isParse: Bool
        var identities: IdentityReader?
        /// Conditional request headers by URL (the stored ETags).
        var tags: [String: SyncCheckpoint.PageTag]
        var now: @Sendable () -> Date
    }

    static let capacity = 1

    private let condition = NSCondition()
    private var queue: [Result<Page, SyncError>] = []
    private var finished = false
    private var cancelled = false

    /// Starts producing from `first`; `fetch` starts one request (network or staged pages).
    /// - Parameter maximumPages: pages to produce at most (the rest of `--max-pages`).
    init(first: URL, reader: Reader, maximumPages: Int?, stagedHasMore: (@Sendable () -> Bool)?,
         fetch: @escaping @Sendable (URL, HTTPHeaders) -> PendingExchange) {
        let thread = Thread { [self] in
            self.produce(first: first, reader: reader, maximumPages: maximumPages, stagedHasMore: stagedHasMore, fetch: fetch)
        }
        thread.name = "trellis-sync-pages"
        thread.start()
    }

    /// The next page in order, or nil after the last; blocks until it is read.
    /// - Throws: the ``SyncError`` that ended the walk, in its place.
    func next() throws(SyncError) -> Page? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished { condition.wait() }
        guard !queue.isEmpty else { return nil }
        let item = queue.removeFirst()
        condition.broadcast()
        return try item.get()
    }

    /// Stops producing (the consumer failed or is done); pages in flight are dropped.
    func cancel() {
        condition.withLock {
            cancelled = true
            queue.removeAll()
            condition.broadcast()
        }
    }

    deinit { cancel() }

    // MARK: - Producing thread

    private func produce(first: URL, reader: Reader, maximumPages: Int?, stagedHasMore: (@Sendable () -> Bool)?,
                         fetch: @escaping @Sendable (URL, HTTPHeaders) -> PendingExchange) {
        var url = first
        var fetched = Set<String>()
        var produced = 0
        var pending = fetch(url, headers(for: url, reader))
        while true {
            let pageURL = reader.planner.client.printable(url)
            do {
                let exchange: HTTPClient.Exchange
                do { exchange = try pending.wait() } catch let error as SyncError { throw error } catch {
                    throw SyncError(.transport, message: "\(error)")
                }
                if stagedHasMore != nil { url = exchange.response.url }
                fetched.insert(url.absoluteString)
                let decoded = try PageDecoder.decode(exchange.response, records: reader.resource.records)
                var next: URL?
                if decoded.notModified {
                    next = reader.tags[url.absoluteString]?.next.flatMap(URL.init(string:))
                } else {
                    next = try reader.planner.nextURL(after: url, response: exchange.response, body: decoded.body,
                                                      records: decoded.records, recordsPath: decoded.recordsPath)
                }
                if let n = next, fetched.contains(n.absoluteString) {
                    throw SyncError(.paginationLoop, message: "the next page \(reader.planner.client.printable(n)) was already fetched "
                                        + "in this walk (the walk would never end)")
                }
                produced += 1
                let stops = next != nil && ((maximumPages.map { produced >= $0 } ?? false) || stagedHasMore?() == false)
                var page = try read(exchange: exchange, decoded: decoded, url: url, reader: reader)
                page.next = next
                page.stopsHere = stops
                // The next page is fetched once this one is being imported, not before: at most
                // two pages are in flight (one imported, one fetched), so a run killed at any
                // moment fetches at most those two again.
                guard deliver(.success(page)), waitUntilTaken() else { return }
                guard let next, !stops else { break }
                pending = fetch(next, headers(for: next, reader))
                url = next
            } catch {
                let failure = (error as? SyncError) ?? SyncError(.transport, message: "\(error)")
                let located = failure.located(resource: reader.resource.name, pageURL: pageURL)
                _ = deliver(.failure(located))
                break
            }
        }
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    private func headers(for url: URL, _ reader: Reader) -> HTTPHeaders {
        var headers = HTTPHeaders()
        if let tag = reader.tags[url.absoluteString] { headers.set("If-None-Match", tag.etag) }
        return headers
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

    /// Waits until the consumer took every queued page; false when cancelled.
    private func waitUntilTaken() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !queue.isEmpty && !cancelled { condition.wait() }
        return !cancelled
    }

    /// Waits for room, then queues `item`; false when cancelled.
    private func deliver(_ item: Result<Page, SyncError>) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= PageProducer.capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        queue.append(item)
        condition.broadcast()
        return true
    }

    /// Converts typed values, reads stamps and identities.
    private func read(exchange: HTTPClient.Exchange, decoded: DecodedPage, url: URL, reader: Reader) throws(SyncError) -> Page {
        var records = decoded.records
        var remarks: [ParseDialect.Remark] = []
        var greatest: Watermark?
        var latest: SyncInstant?
        var identities: [[AttributeValue]?]? = reader.identities == nil ? nil : []
        identities?.reserveCapacity(records.count)
        // Typed values are looked for only in a body that mentions `__type` at all.
        let typed = reader.isParse && PageProducer.contains(exchange.response.body, "\"__type\"")
        for i in records.indices {
            if typed, let converted = ParseDialect.convert(records[i], at: decoded.recordsPath.appending(index: i), remarks: &remarks) {
                records[i] = converted
            }
            let record = records[i]
            if let incremental = reader.resource.incremental {
                guard let value = incremental.cursor.lookup(in: record).value, !value.isNull else {
                    throw SyncError(.invalidCursor, message: "the record has no '\(incremental.cursor)' (the incremental cursor)",
                                    path: decoded.recordsPath.appending(index: i).appending(keyPath: incremental.cursor))
                }
                guard let stamp = Watermark(json: value, tieBreaker: reader.isParse ? record["objectId"]?.stringValue : nil) else {
                    throw SyncError(.invalidCursor, message: "the incremental cursor \(SourceFields.snippet(value)) is neither an RFC 3339 date-time nor a number",
                                    path: decoded.recordsPath.appending(index: i).appending(keyPath: incremental.cursor))
                }
                if greatest.map({ $0 < stamp }) ?? true { greatest = stamp }
                if case .instant(let instant) = stamp.value, latest.map({ $0 < instant }) ?? true { latest = instant }
            }
            if let reader = reader.identities { identities?.append(reader.identity(of: record)) }
        }
        let serverDate = exchange.response.headers["date"].flatMap(HTTPDate.parse).map(SyncInstant.init) ?? SyncInstant(reader.now())
        return Page(url: url, exchange: exchange, decoded: decoded, records: records, next: nil, stopsHere: false, greatest: greatest,
                    latestInstant: latest, identities: identities, remarks: remarks, serverDate: serverDate)
    }
}
