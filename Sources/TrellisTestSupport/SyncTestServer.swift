import Foundation
import Trellis

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The loopback server of the sync tests (`Tests/TrellisSyncTests/Servers/sync_test_server.py`:
/// a Parse emulator, the recorded GitHub pages, a positional list, fault injection), started on
/// a free port of 127.0.0.1 and stopped when released (its stdin closes; it is terminated too).
public final class TestServer: @unchecked Sendable {
    // SAFETY: every property is set in init and never changed; Process and Pipe are used
    // only in init and deinit.
    let process: Process
    let input: Pipe
    /// The port it listens on.
    public let port: Int
    /// `http://HOST:PORT` of the second listener: another origin (127.0.0.2, or another port
    /// of 127.0.0.1 where the loopback lacks it), serving the same routes, logged apart.
    public let foreignBase: String

    /// The repository root.
    public static let root = Fixtures.repositoryRoot()
    static let script = root.appendingPathComponent("Tests/TrellisSyncTests/Servers/sync_test_server.py").path
    static let github = Fixtures.url("sync/github/paginate-issues.json").path
    static let nytimes = root.appendingPathComponent("Examples/nytimes/recorded").path

    /// Starts the server with `arguments` (`--heroes 100`…).
    public init(_ arguments: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestServer.script, "--port", "0", "--github", TestServer.github, "--nytimes", TestServer.nytimes] + arguments
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        // "listening on PORT foreign HOST:PORT"
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard words.count == 5, let port = Int(words[2]) else {
            process.terminate()
            throw TestServerError(message: "the test server did not start: \(text)")
        }
        self.process = process
        self.input = input
        self.port = port
        self.foreignBase = "http://" + words[4]
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// `http://127.0.0.1:PORT`.
    public var base: String { "http://127.0.0.1:\(port)" }

    // MARK: - Control

    public func faults(_ faults: JSONValue) throws { _ = try request("/control/faults", body: faults) }
    public func mutate(_ operations: JSONValue) throws { _ = try request("/control/mutate", body: operations) }
    public func resetLog() throws { _ = try request("/control/reset-log", body: .null) }
    /// Sets `parseMaxLimit` (Parse's silent cap on `limit`), `itemsMaxLimit` (offset pages
    /// clamping `limit`); `null` removes a cap.
    public func configure(_ settings: JSONValue) throws { _ = try request("/control/config", body: settings) }

    /// Every object the server holds of `className` (`items` for the positional list).
    public func data(_ className: String) throws -> [JSONValue] {
        try request("/control/data?class=\(className)", body: nil).arrayValue ?? []
    }

    /// The Parse writes the server applied, in order: `[{method, path, objectId, requestId}]`
    /// (`path` after the mount path: `classes/Hero/h00001`).
    public func writes() throws -> [JSONValue] {
        try request("/control/writes", body: nil).arrayValue ?? []
    }

    /// One request to the Parse mount as another client would send it (`method`, `path`
    /// after `/parse/`, a JSON body, extra headers; the application id is sent): its status
    /// and JSON body.
    public func parse(
        _ method: String, _ path: String, body: JSONValue? = nil,
        headers: [String: String] = [:]
    ) throws -> (status: Int, body: JSONValue) {
        var request = URLRequest(url: URL(string: base + "/parse/" + path)!)
        request.httpMethod = method
        request.setValue("test-app", forHTTPHeaderField: "X-Parse-Application-Id")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = try JSONWriter.data(for: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.set(data, error)
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            done.signal()
        }.resume()
        done.wait()
        guard let data = box.data else { throw TestServerError(message: "\(method) \(path) failed: \(box.error.map { "\($0)" } ?? "?")") }
        return (box.status, data.isEmpty ? .null : try JSONReader.parse(data))
    }

    /// One request to the generic REST mode (`method`, `path` after `/rest/`, a JSON body,
    /// extra headers) as another client would send it: its status, JSON body (`null` when
    /// empty) and `ETag` header.
    public func rest(
        _ method: String, _ path: String, body: JSONValue? = nil, headers: [String: String] = [:]
    ) throws -> (status: Int, body: JSONValue, etag: String?) {
        var request = URLRequest(url: URL(string: base + "/rest/" + path)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = try JSONWriter.data(for: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.set(data, error)
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            box.etag = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag")
            done.signal()
        }.resume()
        done.wait()
        guard let data = box.data else { throw TestServerError(message: "\(method) \(path) failed: \(box.error.map { "\($0)" } ?? "?")") }
        return (box.status, data.isEmpty ? .null : try JSONReader.parse(data), box.etag)
    }

    /// The paths (with queries) of the requests served so far, in order.
    public func requestedPaths() throws -> [String] {
        (try request("/control/log", body: nil).arrayValue ?? []).compactMap { $0["path"]?.stringValue }
    }

    /// The requests served so far, in order: `{path, headers, method}` (`method` for writes only).
    public func requestLog() throws -> [JSONValue] {
        try request("/control/log", body: nil).arrayValue ?? []
    }

    /// The headers of the requests served so far.
    public func requestedHeaders() throws -> [JSONObject] {
        (try request("/control/log", body: nil).arrayValue ?? []).compactMap { $0["headers"]?.objectValue }
    }

    /// The paths and headers of the requests the foreign listener served so far.
    public func foreignRequests() throws -> [(path: String, headers: JSONObject)] {
        (try request("/control/log?server=foreign", body: nil).arrayValue ?? []).compactMap { entry in
            guard let path = entry["path"]?.stringValue, let headers = entry["headers"]?.objectValue else { return nil }
            return (path, headers)
        }
    }

    private func request(_ path: String, body: JSONValue?) throws -> JSONValue {
        var request = URLRequest(url: URL(string: base + path)!)
        if let body {
            request.httpMethod = "POST"
            request.httpBody = try JSONWriter.data(for: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        URLSession.shared.dataTask(with: request) { data, _, error in
            box.set(data, error)
            done.signal()
        }.resume()
        done.wait()
        guard let data = box.data else { throw TestServerError(message: "control request \(path) failed: \(box.error.map { "\($0)" } ?? "?")") }
        return try JSONReader.parse(data)
    }
}

private final class ResultBox: @unchecked Sendable {
    // SAFETY: written once by the completion handler before the semaphore is signalled, read after.
    var data: Data?
    var error: (any Error)?
    var status = 0
    var etag: String?
    func set(_ data: Data?, _ error: (any Error)?) {
        self.data = data
        self.error = error
    }
}

public struct TestServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
