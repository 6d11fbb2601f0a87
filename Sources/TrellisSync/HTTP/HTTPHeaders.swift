import Foundation

/// Header fields in the order received, looked up case-insensitively (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Hashable, Sequence {
    /// The fields, in order (a name may repeat).
    public private(set) var fields: [Field]

    /// One header field.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Headers with these fields.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields.map { Field(name: $0.name, value: $0.value) }
    }

    /// The first value of `name` (any case), or nil.
    public subscript(name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        let lowered = name.lowercased()
        return fields.filter { $0.name.lowercased() == lowered }.map(\.value)
    }

    /// Sets `name` to `value`, replacing its fields (or appending one).
    public mutating func set(_ name: String, _ value: String) {
        let lowered = name.lowercased()
        if let i = fields.firstIndex(where: { $0.name.lowercased() == lowered }) {
            fields[i].value = value
            fields = fields.enumerated().filter { $0.offset == i || $0.element.name.lowercased() != lowered }.map(\.element)
        } else {
            fields.append(Field(name: name, value: value))
        }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Whether `name` is an RFC 9110 §5.1 token.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy { s in
                s.isASCII && (CharacterSet.alphanumerics.contains(s) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(s))
            }
    }
}

/// One request: a page's GET, or a push's write (`POST`, `PUT`, `DELETE` with a JSON body).
public struct HTTPRequest: Sendable, Hashable {
    /// The URL, query included.
    public var url: URL
    /// Headers (the client adds its own and the credentials).
    public var headers: HTTPHeaders
    /// The method, upper case. Default `GET`.
    public var method: String
    /// The body (nil: none), sent as it is; its `Content-Type` is in ``headers``.
    public var body: Data?

    public init(url: URL, headers: HTTPHeaders = HTTPHeaders(), method: String = "GET", body: Data? = nil) {
        self.url = url
        self.headers = headers
        self.method = method
        self.body = body
    }
}

/// One response, its body complete (decompressed when sent with `Content-Encoding: gzip`).
public struct HTTPResponse: Sendable, Hashable {
    /// The URL that answered (after same-host redirects).
    public var url: URL
    /// The status code.
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public init(url: URL, status: Int, headers: HTTPHeaders, body: Data) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A failure below HTTP: no complete response arrived.
public struct TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why (`connection reset by peer`, `timed out after 60 s`, `the body ended 994 bytes early`).
    public var message: String
    /// Whether a retry may help (false for a malformed URL or an unsupported scheme).
    public var isRetryable: Bool

    public init(message: String, isRetryable: Bool = true) {
        self.message = message
        self.isRetryable = isRetryable
    }

    public var description: String { message }
}

/// Sends requests: ``URLSessionTransport`` over the network, ``ReplayTransport`` from staged
/// pages, or a test double.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and calls `completion` once, on any thread, with the response (any
    /// status) or the failure.
    /// - Parameter timeout: seconds without data before the request fails.
    func send(_ request: HTTPRequest, timeout: Double, completion: @escaping @Sendable (Result<HTTPResponse, TransportFailure>) -> Void)
}
