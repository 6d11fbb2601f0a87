// libFuzzer target: response status lines, headers and bodies from a server that does not
// behave, through a whole `Synchronizer` run (the HTTP client's retries, waits and rate
// limits, page decoding, every paginator, the walk's state machine, the import).
//
// The input is a raw HTTP response (`HTTP/1.1 429 Too Many Requests\r\nRetry-After: …\r\n\r\nbody`);
// its first byte picks the paginator and options. The fake transport answers *every* request
// with it (a server repeating itself forever), on the API's host and on an allowed second
// host. Checks, besides "no crash, no leak, no hang":
// - the run returns, or throws a `SyncError` (no other error, no trap on any number);
// - every wait is finite, at least 0 and at most maxRateLimitWaitSeconds (the client never
//   sleeps past its bound, whatever `Retry-After` or `x-ratelimit-reset` say);
// - the walk ends: at most `requestBound` requests, whatever the pages repeat;
// - requests go only to the API's origin or the allowed host, and credentials (the bearer
//   token, the API-key header, secrets in the query) only to the API's origin;
// - no secret appears in an error's description.
import Foundation
import FuzzSupport
import Trellis
import TrellisSync

let token = "t0k3n-s3cr3t"
let apiKey = "k3y-s3cr3t"
let requestBound = 400

let model: ObjectModel = {
    do {
        return try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    AttributeDescription(name: "id", type: .integer64, userInfo: ["JSONKeyPath": "id"]),
                    AttributeDescription(name: "name", type: .string, userInfo: ["JSONKeyPath": "name"]),
                    AttributeDescription(name: "objectId", type: .string, userInfo: ["JSONKeyPath": "objectId"]),
                    AttributeDescription(name: "updatedAt", type: .date, userInfo: ["JSONKeyPath": "updated_at"]),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
    } catch {
        fatalError("the fuzz target's model: \(error)")
    }
}()

let paginators = [
    #"{"type": "linkHeader"}"#,
    #"{"type": "nextURL", "path": "next"}"#,
    #"{"type": "offset", "limit": 3, "totalPath": "total"}"#,
    #"{"type": "offset", "limit": 3}"#,
    #"{"type": "pageNumber", "maxPages": 50}"#,
    #"{"type": "cursor", "path": "cursor", "parameter": "cursor"}"#,
    #"{"type": "parse"}"#,
    #"{"type": "none"}"#,
]

/// A response parsed from raw text (status line, header lines, a blank line, the body).
func response(from bytes: ArraySlice<UInt8>, url: URL) -> HTTPResponse {
    let data = Data(bytes)
    var head = data
    var body = Data()
    for separator in [Data("\r\n\r\n".utf8), Data("\n\n".utf8)] {
        if let range = data.range(of: separator) {
            head = data[..<range.lowerBound]
            body = data[range.upperBound...]
            break
        }
    }
    var lines = String(decoding: head, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" })
        .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
    let statusLine = lines.isEmpty ? "" : lines.removeFirst()
    let words = statusLine.split(separator: " ")
    let status = words.count > 1 ? Int(words[1]) ?? 200 : 200
    var headers: [(name: String, value: String)] = []
    for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    }
    return HTTPResponse(url: url, status: status, headers: HTTPHeaders(headers), body: Data(body))
}

/// Answers every request with the fuzzed response and checks what each request carries.
final class RepeatingTransport: HTTPTransport, @unchecked Sendable {
    // SAFETY: `requests` is read and written only while `lock` is held.
    let bytes: ArraySlice<UInt8>
    private let lock = NSLock()
    private var requests = 0

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var count: Int { lock.withLock { requests } }

    func send(_ request: HTTPRequest, timeout: Double, completion: @escaping @Sendable (Result<HTTPResponse, TransportFailure>) -> Void) {
        let n = lock.withLock { () -> Int in
            requests += 1
            return requests
        }
        let host = request.url.host ?? ""
        check(host == "api.test" || host == "other.test", "a request went to \(request.url)")
        if host != "api.test" {
            for field in request.headers {
                check(!field.value.contains(token) && !field.value.contains(apiKey), "a credential went to \(request.url): \(field.name)")
            }
            check(!request.url.absoluteString.contains(apiKey), "a secret went to \(request.url) in its query")
        }
        guard n <= requestBound else {
            completion(.failure(TransportFailure(message: "request bound reached", isRetryable: false)))
            return
        }
        completion(.success(response(from: bytes, url: request.url)))
    }
}

final class Sleeps: @unchecked Sendable {
    // SAFETY: `waits` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var waits: [Double] = []
    func add(_ seconds: Double) { lock.withLock { waits.append(seconds) } }
    var all: [Double] { lock.withLock { waits } }
}

@main
enum Target {
    static func main() {
        _ = model
        runLibFuzzer { start, count in fuzzResponse(fuzzInput(start, count)) }
    }
}

func fuzzResponse(_ input: [UInt8]) -> CInt {
    guard let selector = input.first else { return 0 }
    let paginator = paginators[Int(selector) % paginators.count]
    let incremental = selector & 0x10 != 0 ? #""incremental": {"cursor": "updated_at", "parameter": "since"},"# : ""
    let deletions = selector & 0x20 != 0 ? #""deletions": {"type": "fullScan", "maxFraction": 1},"# : ""
    let strict = selector & 0x40 != 0 && !paginator.contains("none") ? paginator.replacingOccurrences(of: "}", with: #", "repeatedPage": "error"}"#) : paginator
    let parse = paginator.contains("parse")
    let text = """
        {"format": "trellis-source", "formatVersion": 1,
         "client": {"baseURL": "http://api.test/", "auth": {"type": "bearer", "token": "\(token)"},
                    "headers": {"X-Api-Key": "\(apiKey)"}, \(parse ? #""dialect": "parse","# : "")
                    "maxAttempts": 2, "maxRateLimitWaitSeconds": 900, "allowedHosts": ["other.test"]},
         "resources": [{"name": "items", "entity": "Item", "path": "items", "records": "\(parse ? "results" : "data")",
                        "params": {"key": "${env:KEY}"}, \(incremental) \(deletions)
                        "paginator": \(strict)}]}
        """
    let source: SyncSource
    do {
        source = try SyncSource(json: try JSONReader.parse(Array(text.utf8)), environment: ["KEY": apiKey])
    } catch {
        fail("the fuzz target's source does not read: \(error)")
    }
    let transport = RepeatingTransport(input.dropFirst())
    let sleeps = Sleeps()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let clock = ClientClock(now: { now }, sleep: { sleeps.add($0) }, random: { 0.5 })
    let synchronizer = Synchronizer(source: source, context: ObjectContext(store: InMemoryStore(model: model)), transport: transport, clock: clock)
    do {
        _ = try synchronizer.run()
    } catch let error as SyncError {
        let text = error.description
        check(!text.contains(token) && !text.contains(apiKey), "a secret in the error: \(text)")
    } catch {
        fail("the run threw a \(type(of: error)): \(error)")
    }
    for wait in sleeps.all {
        check(wait.isFinite && wait >= 0 && wait <= 900, "a wait of \(wait) s")
    }
    check(transport.count <= requestBound, "the walk did not end: \(transport.count) requests")
    return 0
}

/// Stops the fuzzer with `message` (printed also in optimized builds, unlike a precondition's).
func fail(_ message: String) -> Never {
    fatalError(message)
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}
