import Trellis

/// A sync that could not go on, located as precisely as the failure allows: the source
/// file and JSON path of a bad source key; the resource, the page URL (secrets replaced by
/// `***`), the HTTP status and the body's message of a failed request; the JSON path (and
/// line:column), entity and attribute of a record that does not fit the model.
///
///     catch let error as SyncError where error.code == .httpStatus {
///         print(error)   // resource heroes, page http://127.0.0.1:8080/parse/classes/Hero?limit=1000: HTTP 404: Object not found. (Parse error 101)
///     }
///
/// Pages committed before the error stay committed with their checkpoint; the page that
/// failed (and everything after it) is not, so the next run resumes there.
public struct SyncError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; extensible.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name (stable across versions).
        public let rawValue: String
        /// A code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The source file cannot be read, or is not JSON (line and column given).
        public static let unreadableSource = Code(rawValue: "unreadableSource")
        /// A sync worker's lease of the resource expired and another worker took it over
        /// (``SyncWorker``): the page being written rolled back; the other worker goes on.
        public static let leaseLost = Code(rawValue: "leaseLost")
        /// A source file key that is not allowed there.
        public static let unknownKey = Code(rawValue: "unknownKey")
        /// A required source file key is missing.
        public static let missingKey = Code(rawValue: "missingKey")
        /// A source file value of the wrong JSON type.
        public static let wrongType = Code(rawValue: "wrongType")
        /// A source file value of the right type that is not allowed (a negative timeout, an
        /// unknown paginator type, a relative base URL, an entity the model lacks).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// `${env:NAME}` names a variable that is not set.
        public static let missingEnvironmentVariable = Code(rawValue: "missingEnvironmentVariable")
        /// The request failed below HTTP (connection refused or reset, timeout, body cut short)
        /// on every attempt.
        public static let transport = Code(rawValue: "transport")
        /// The server answered with a status that is not a success (after the retries the
        /// status allows).
        public static let httpStatus = Code(rawValue: "httpStatus")
        /// A rate limit would need a longer wait than allowed; the message says when to retry.
        public static let rateLimited = Code(rawValue: "rateLimited")
        /// A redirect to another host (or scheme or port) was refused.
        public static let redirectRefused = Code(rawValue: "redirectRefused")
        /// A next URL or cursor seen before in the same walk (the walk would loop forever); with
        /// `"repeatedPage": "error"`, also a page repeating an earlier page of the walk, or
        /// `maxStalePages` pages in a row bringing no record new to the walk.
        public static let paginationLoop = Code(rawValue: "paginationLoop")
        /// A URL on another origin (scheme, host, port) than the base URL, that
        /// `client.allowedHosts` does not list: a next link, a cursor that is a URL, a resumed
        /// page. It is not requested; credentials never go to another origin.
        public static let foreignLink = Code(rawValue: "foreignLink")
        /// A page body that is not JSON (an HTML error page, a body cut short).
        public static let malformedPage = Code(rawValue: "malformedPage")
        /// The `records` key path selects nothing (or not an array) in a page.
        public static let recordsNotFound = Code(rawValue: "recordsNotFound")
        /// A record lacks its incremental cursor or tie-breaker, or the cursor is neither a
        /// date nor a number.
        public static let invalidCursor = Code(rawValue: "invalidCursor")
        /// A record does not fit the model (the underlying ``ImportError`` is in ``underlying``).
        public static let importFailed = Code(rawValue: "importFailed")
        /// A full-scan deletion would delete more than `maxFraction` of the stored objects.
        public static let deletionRefused = Code(rawValue: "deletionRefused")
        /// A stored checkpoint cannot be read (written by a newer Trellis, or damaged).
        public static let invalidCheckpoint = Code(rawValue: "invalidCheckpoint")
        /// Staged pages cannot be written or read (`--stage`, `--replay`).
        public static let staging = Code(rawValue: "staging")
        /// The store failed (the underlying ``StoreError`` is in ``underlying``).
        public static let store = Code(rawValue: "store")
        /// A resource named by the caller (`--resource`) is not in the source file.
        public static let unknownResource = Code(rawValue: "unknownResource")
        /// A typed request or response model could not be written or read.
        public static let mapping = Code(rawValue: "mapping")
        /// A push was refused before sending: creates of a resource with `createKey: none`
        /// without `--at-least-once` (``SyncOptions/atLeastOnce``).
        public static let pushRefused = Code(rawValue: "pushRefused")
        /// Another push holds the store's push lease (its holder and the lease's end are in the message).
        public static let pushBusy = Code(rawValue: "pushBusy")
        /// A push's answer is not JSON, or lacks a result per operation of its batch; the
        /// batch's creates are left `uncertain`, reconciled by the next push.
        public static let malformedResponse = Code(rawValue: "malformedResponse")

        /// Matches a thrown `SyncError` with this code, for `catch` patterns.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SyncError)?.code == code
        }
    }

    /// What went wrong.
    public let code: Code
    /// The message, without the location prefix (and without secrets).
    public let message: String
    /// The source file, for errors in it.
    public var file: String?
    /// The JSON path in the source file, or in the page body.
    public var path: JSONPath?
    /// Line and column in the source file or the page body, when Trellis parsed the text.
    public var line: Int?
    public var column: Int?
    /// The resource being synced.
    public var resource: String?
    /// The page's URL, with secrets replaced by `***`.
    public var pageURL: String?
    /// The HTTP status of the failed response.
    public var status: Int?
    /// The entity and attribute (or relationship) of a record that does not fit the model.
    public var entity: String?
    public var attribute: String?
    /// How many HTTP requests went out for the failed exchange (its first attempt and every
    /// retry), when the error ended one: a run's report counts them in `requests` and
    /// `retries` even though no page arrived. Nil for errors before any request.
    public var attempts: Int?
    /// The error this one wraps (an ``ImportError``, a `StoreError`), when there is one.
    public var underlying: (any Error & Sendable)?

    /// An error of `code` with `message`; the location is filled in by the fields.
    public init(
        _ code: Code, message: String, file: String? = nil, path: JSONPath? = nil, line: Int? = nil,
        column: Int? = nil, resource: String? = nil, pageURL: String? = nil, status: Int? = nil,
        entity: String? = nil, attribute: String? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.file = file
        self.path = path
        self.line = line
        self.column = column
        self.resource = resource
        self.pageURL = pageURL
        self.status = status
        self.entity = entity
        self.attribute = attribute
        self.underlying = underlying
    }

    /// `source.json: $.resources[0].paginator.type: unknown paginator type 'pages'…`, or
    /// `resource heroes, page URL: $.results[3].name (line 1, column 80): message`.
    public var description: String {
        var parts: [String] = []
        if let file {
            var head = file
            if let line, let column, path == nil { head += ":\(line):\(column)" }
            parts.append(head)
        }
        if let resource {
            var head = "resource \(resource)"
            if let pageURL { head += ", page \(pageURL)" }
            parts.append(head)
        }
        if let path {
            var head = path.description
            if file == nil, let line, let column { head += " (line \(line), column \(column))" }
            parts.append(head)
        }
        parts.append(message)
        return parts.joined(separator: ": ")
    }

    /// This error with secrets replaced by `***` in its message (a server's own message, quoted
    /// in it, may echo a credential).
    func redacted(by redactor: Redactor) -> SyncError {
        guard redactor.containsSecret(message) else { return self }
        return SyncError(
            code, message: redactor.redact(message), file: file, path: path, line: line, column: column, resource: resource,
            pageURL: pageURL, status: status, entity: entity, attribute: attribute, underlying: underlying)
    }

    /// This error with `resource` and `pageURL` set where they are not yet.
    func located(resource: String, pageURL: String?) -> SyncError {
        var copy = self
        if copy.resource == nil { copy.resource = resource }
        if copy.pageURL == nil { copy.pageURL = pageURL }
        return copy
    }
}
