import Foundation
import Trellis

/// A source file (`docs/Sync.md`): the HTTP client of one API and the resources pulled
/// from it, each into one entity of the model.
///
///     let source = try SyncSource(contentsOf: URL(fileURLWithPath: "heroes.source.json"),
///                                 environment: ProcessInfo.processInfo.environment)
///     let report = try Synchronizer(source: source, context: context).run()
///
/// Values are read once: `${env:NAME}` is replaced when the file is read (a missing
/// variable is an error naming it), and every value that came from the environment or an
/// `auth` object is a secret: it never appears in messages, reports, checkpoints or staged
/// files (``redactor``).
public struct SyncSource: Sendable {
    /// The HTTP client settings.
    public var client: ClientConfiguration
    /// The resources, in file order (a run syncs them in this order).
    public var resources: [ResourceConfiguration]
    /// Replaces the secrets of this source by `***` in any text.
    public var redactor: Redactor

    /// A source from its parts (values are used as given; nothing is a secret but `auth`'s
    /// and the password of the base URL's user information, `https://user:PASSWORD@host/`,
    /// RFC 3986 §3.2.1, written in the file or not).
    public init(client: ClientConfiguration, resources: [ResourceConfiguration], secrets: [String] = []) {
        self.client = client
        self.resources = resources
        var all = secrets + (client.auth?.secrets ?? [])
        if let components = URLComponents(url: client.baseURL, resolvingAgainstBaseURL: false) {
            if let password = components.password, !password.isEmpty { all.append(password) }
            if let encoded = components.percentEncodedPassword, !encoded.isEmpty { all.append(encoded) }
        }
        self.redactor = Redactor(secrets: all)
    }

    /// The resource named `name`, if any.
    public func resource(named name: String) -> ResourceConfiguration? {
        resources.first { $0.name == name }
    }
}

/// How requests are made: `client` in a source file.
public struct ClientConfiguration: Sendable {
    /// An API dialect: how its queries, pages and typed values look.
    public enum Dialect: String, Sendable, Hashable {
        /// The Parse REST API (`X-Parse-*` headers, `where` as JSON, keyset paging on
        /// `(updatedAt, objectId)`, typed values such as `{"__type": "Date", "iso": …}`).
        case parse
    }

    /// The URL resources' paths are relative to; always ends with `/`.
    public var baseURL: URL
    /// Headers sent with every request, in file order.
    public var headers: [(name: String, value: String)]
    /// Credentials, if any.
    public var auth: Authentication?
    /// The dialect, or nil for plain REST.
    public var dialect: Dialect?
    /// Seconds a request may wait for data before it fails (and is retried). Default 60.
    public var timeoutSeconds: Double
    /// Attempts per request, the first included (429, 5xx and connection errors are
    /// retried). Default 5.
    public var maxAttempts: Int
    /// Seconds between the starts of two requests to the same host (pacing: the NYT API
    /// allows 5 requests a minute, 12 seconds). Default 0.
    public var minIntervalSeconds: Double
    /// The longest wait a rate limit may impose (`x-ratelimit-reset`, `Retry-After`)
    /// before the request fails with ``SyncError/Code/rateLimited``. Default 900 (15 minutes).
    public var maxRateLimitWaitSeconds: Double
    /// Hosts besides the base URL's that next links (and resource paths) may lead to: a host
    /// (`cdn.example.com`, any port) or `host:port`. Requests there never carry credentials
    /// (`Authorization`, cookies, API keys, secret headers and query values): those go to the
    /// base URL's origin only. Default none: a link to another origin is an error.
    public var allowedHosts: [String]

    /// A configuration with the defaults above.
    public init(
        baseURL: URL, headers: [(name: String, value: String)] = [], auth: Authentication? = nil,
        dialect: Dialect? = nil, timeoutSeconds: Double = 60, maxAttempts: Int = 5,
        minIntervalSeconds: Double = 0, maxRateLimitWaitSeconds: Double = 900, allowedHosts: [String] = []
    ) {
        let text = baseURL.absoluteString
        self.baseURL = text.hasSuffix("/") ? baseURL : URL(string: text + "/") ?? baseURL
        self.headers = headers
        self.auth = auth
        self.dialect = dialect
        self.timeoutSeconds = timeoutSeconds
        self.maxAttempts = maxAttempts
        self.minIntervalSeconds = minIntervalSeconds
        self.maxRateLimitWaitSeconds = maxRateLimitWaitSeconds
        self.allowedHosts = allowedHosts
    }
}

/// Credentials sent with every request: `client.auth` in a source file.
public enum Authentication: Sendable, Hashable {
    /// `Authorization: Bearer TOKEN` (RFC 6750 §2.1).
    case bearer(token: String)
    /// `Authorization: Basic base64(username:password)` (RFC 7617).
    case basic(username: String, password: String)
    /// An API key in a header or a query parameter (the NYT API's `api-key`).
    case apiKey(location: APIKeyLocation, name: String, value: String)

    /// Where an API key goes.
    public enum APIKeyLocation: String, Sendable, Hashable {
        case header, query
    }

    /// The values never to print.
    var secrets: [String] {
        switch self {
        case .bearer(let token): return [token]
        case .basic(let username, let password):
            return [password, Data("\(username):\(password)".utf8).base64EncodedString()]
        case .apiKey(_, _, let value): return [value]
        }
    }
}

/// One resource: an endpoint whose records become objects of one entity.
public struct ResourceConfiguration: Sendable {
    /// Its name in reports, checkpoints (`sync/NAME`) and `--resource` (letters, digits, `_ . -`).
    public var name: String
    /// The entity its records are imported as (nil for a resource that only names objects
    /// to delete: the `tombstones` of another resource, which gives the entity).
    public var entity: String?
    /// The path relative to the client's base URL (`classes/Hero`).
    public var path: String
    /// Query parameters, in file order; a value may contain `${incremental.start}`.
    public var params: [(name: String, value: String)]
    /// The key path of the record array in the body (`results`, `response.docs`); nil: the
    /// body is the array.
    public var records: JSONKeyPath?
    /// How the next page is found.
    public var paginator: PaginatorConfiguration
    /// How a walk that does not end by itself is ended (the paginator's `repeatedPage` and
    /// `maxStalePages`).
    public var pageRules: PageRules
    /// How a run starts where the previous one ended, if it does.
    public var incremental: IncrementalConfiguration?
    /// How objects deleted at the source are deleted from the store.
    public var deletions: DeletionConfiguration
    /// How local changes to the entity's objects go back to the API (the `push` section);
    /// nil: the resource is pulled only, and local changes to its objects are not pushable.
    public var push: PushConfiguration?

    /// A resource; defaults: no parameters, the body is the array, one page, not
    /// incremental, no deletions.
    public init(
        name: String, entity: String?, path: String, params: [(name: String, value: String)] = [],
        records: JSONKeyPath? = nil, paginator: PaginatorConfiguration = .none, pageRules: PageRules = PageRules(),
        incremental: IncrementalConfiguration? = nil, deletions: DeletionConfiguration = .none
    ) {
        self.name = name
        self.entity = entity
        self.path = path
        self.params = params
        self.records = records
        self.paginator = paginator
        self.pageRules = pageRules
        self.incremental = incremental
        self.deletions = deletions
    }
}

/// How the pages of a resource follow each other: `paginator` in a source file.
public enum PaginatorConfiguration: Sendable, Hashable {
    /// The `Link: <…>; rel="next"` response header (RFC 8288), as GitHub sends.
    case linkHeader
    /// A URL in the body at `path` (absent, `null` or `""`: the last page).
    case nextURL(path: JSONKeyPath)
    /// `offset`/`limit` parameters; ends on an empty page or at the total at `totalPath`;
    /// without a total, on a page shorter than the server's page size (learned from the first
    /// page: a server may cap `limit`), or, when the walk decides full-scan deletions, only
    /// on an empty page.
    case offset(limit: Int, offsetParameter: String, limitParameter: String, totalPath: JSONKeyPath?)
    /// A page number parameter from `start`; ends on an empty page, a page repeating an
    /// earlier one, or after `maxPages` pages.
    case pageNumber(parameter: String, start: Int, maxPages: Int?)
    /// An opaque cursor at `path` in the body, sent back as `parameter` (a cursor that is an
    /// absolute `http(s)` URL is the next page's URL).
    case cursor(path: JSONKeyPath, parameter: String)
    /// Parse's keyset paging on `(updatedAt, objectId)` (see ``ParseDialect``).
    case parse
    /// A single request.
    case none

    /// Whether the walk is positional (offset, page number, links): a record moving or
    /// vanishing while the walk goes on shifts the pages (see `docs/Sync.md`, "Walks over a
    /// changing sort key").
    var isPositional: Bool {
        switch self {
        case .linkHeader, .nextURL, .offset, .pageNumber: return true
        case .cursor, .parse, .none: return false
        }
    }
}

/// How a walk is ended when the server does not end it: `repeatedPage` and `maxStalePages`
/// in a source file's `paginator` (`docs/Sync.md`, "The end of a walk").
public struct PageRules: Sendable, Hashable {
    /// What a page repeating an earlier page of the walk (the same records, by identity and
    /// stamp, in the same order), or a streak of stale pages, does.
    public enum Repeated: String, Sendable, Hashable {
        /// Ends the walk (an API answering page numbers past the end with the last page again).
        case end
        /// Fails the walk with ``SyncError/Code/paginationLoop`` naming the page.
        case error
    }

    /// Default ``Repeated/end``.
    public var repeatedPage: Repeated
    /// Pages in a row whose records all came earlier in the walk (or that are empty, with a
    /// next page) end the walk (or fail it, per ``repeatedPage``). Default 5.
    public var maxStalePages: Int

    public init(repeatedPage: Repeated = .end, maxStalePages: Int = 5) {
        self.repeatedPage = repeatedPage
        self.maxStalePages = max(1, maxStalePages)
    }
}

/// Incremental runs: `incremental` in a source file.
public struct IncrementalConfiguration: Sendable, Hashable {
    /// The key path of each record's update stamp (a date, or a number).
    public var cursor: JSONKeyPath
    /// The query parameter that takes the start value (GitHub's `since`), if any.
    public var parameter: String?
    /// Seconds re-read before the watermark (dates only). Default 0.
    public var lagSeconds: Double
    /// The start value of a first run (the source's text: `2024-01-01T00:00:00Z`), if any.
    public var initial: String?

    /// An incremental configuration.
    public init(cursor: JSONKeyPath, parameter: String? = nil, lagSeconds: Double = 0, initial: String? = nil) {
        self.cursor = cursor
        self.parameter = parameter
        self.lagSeconds = lagSeconds
        self.initial = initial
    }
}

/// How deletions at the source reach the store: `deletions` in a source file.
public enum DeletionConfiguration: Sendable, Hashable {
    /// Never delete (the default).
    case none
    /// A completed walk of the whole resource deletes the stored objects of the entity it
    /// did not see; refuses to delete more than `maxFraction` of them without `--full`.
    /// `scope` (an ``ObjectPredicate`` text, `power < 50`) limits the stored objects it
    /// considers to those of this resource, when other resources fill the same entity.
    case fullScan(maxFraction: Double, scope: String?)
    /// The records of the resource named `resource` name objects to delete.
    case tombstones(resource: String)
}
