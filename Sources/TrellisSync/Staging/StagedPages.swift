import Foundation
import Trellis

/// The pages a ``PageStager`` wrote, read back in order per resource for a replay.
final class StagedPages: @unchecked Sendable {
    // SAFETY: `positions` is read and written only while `lock` is held (the page reader's
    // thread takes pages, the synchronizer's asks whether more are left); the rest is set in init.
    let directory: URL
    private var pages: [String: [URL]] = [:]
    private var positions: [String: Int] = [:]
    private let lock = NSLock()

    init(directory: URL, redactor: Redactor) throws {
        self.directory = directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SyncError(.staging, message: "\(directory.path) is not a directory of staged pages")
        }
        do {
            for resource in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
                let folder = directory.appendingPathComponent(resource, isDirectory: true)
                pages[resource] = try StagedPages.pageFiles(in: folder).map(\.url)
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.staging, message: "cannot read \(directory.path): \((error as NSError).localizedDescription)")
        }
    }

    /// The `NNNNNN.json` files of a resource's folder, by number.
    static func pageFiles(in folder: URL) throws -> [(number: Int, url: URL)] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).compactMap { name -> (Int, URL)? in
            guard name.hasSuffix(".json"), let number = Int(name.dropLast(5)) else { return nil }
            return (number, folder.appendingPathComponent(name))
        }.sorted { $0.0 < $1.0 }
    }

    /// Whether `resource` has pages not replayed yet.
    func hasMore(_ resource: String) -> Bool {
        lock.withLock { (positions[resource] ?? 0) < (pages[resource]?.count ?? 0) }
    }

    /// The next staged page of `resource`, as the response it was (its `url` is the staged
    /// page's, which may differ from `requested` when the original run started elsewhere).
    func next(for resource: String, requested: URL) -> PendingExchange {
        let pending = PendingExchange()
        let position = lock.withLock {
            let position = positions[resource] ?? 0
            positions[resource] = position + 1
            return position
        }
        guard let files = pages[resource], position < files.count else {
            // None at all: the directory is not one `--stage` wrote (raw response bodies, another resource's folder).
            let message =
                position == 0
                ? "no pages staged for this resource in \(directory.path) (a staged page is "
                    + "\(directory.appendingPathComponent(resource).path)/000001.json with its 000001.body, as 'trellis sync --stage' writes them)"
                : "no staged page left for this resource"
            pending.fulfil(.failure(SyncError(.staging, message: message, resource: resource)))
            return pending
        }
        pending.fulfil(Result { try read(files[position], resource: resource, requested: requested) })
        return pending
    }

    private func read(_ file: URL, resource: String, requested: URL) throws -> HTTPClient.Exchange {
        func bad(_ why: String) -> SyncError {
            SyncError(.staging, message: "the staged page \(file.path) cannot be read: \(why)", resource: resource)
        }
        guard let data = try? Data(contentsOf: file), let json = try? JSONReader.parse(data), case .object(let meta) = json else {
            throw bad("not a JSON object")
        }
        guard meta["format"]?.stringValue == "trellis-staged-page", meta["formatVersion"]?.intValue == 1 else {
            throw bad("not a trellis-staged-page of formatVersion 1")
        }
        guard let status = meta["status"]?.intValue, let bodyName = meta["body"]?.stringValue, !bodyName.contains("/"),
            let urlText = meta["url"]?.stringValue, let url = URL(string: urlText)
        else { throw bad("missing status, body or url") }
        guard let body = try? Data(contentsOf: file.deletingLastPathComponent().appendingPathComponent(bodyName)) else {
            throw bad("its body file \(bodyName) cannot be read")
        }
        var headers: [(name: String, value: String)] = []
        for field in meta["headers"]?.arrayValue ?? [] {
            guard let name = field[0]?.stringValue, let value = field[1]?.stringValue else { throw bad("a header is not [name, value]") }
            headers.append((name, value))
        }
        return HTTPClient.Exchange(
            response: HTTPResponse(url: url, status: status, headers: HTTPHeaders(headers), body: body),
            attempts: 1, waits: [])
    }
}

/// A transport that never reaches the network (a replay reads staged pages instead).
struct ReplayTransport: HTTPTransport {
    let pages: StagedPages

    func send(_ request: HTTPRequest, timeout: Double, completion: @escaping @Sendable (Result<HTTPResponse, TransportFailure>) -> Void) {
        completion(.failure(TransportFailure(message: "a replay does not use the network", isRetryable: false)))
    }
}
