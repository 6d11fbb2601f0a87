import Foundation
import Trellis

/// How local changes to a resource's objects go back to the API: a resource's `push`
/// section in the source file (`docs/Sync.md`, "Pushing local changes").
///
///     "push": {"batchSize": 50, "createKey": "requestId",
///              "conflicts": {"detect": "check", "policy": "merge"}, "remoteDeletes": "deleteWins"}
///
/// For the Parse dialect the routes are Parse's REST API's
/// (https://docs.parseplatform.org/rest/guide/#objects, #batch-operations): `POST
/// classes/X`, `PUT classes/X/ID`, `DELETE classes/X/ID`, and `POST batch` with
/// `{"requests": [{"method", "path", "body"}]}` answered with one result per operation.
/// Other APIs give each operation's method and path (`{id}` replaced by the server
/// identity), and `update` may send `If-Match` with the stored ETag (RFC 9110 §13.1.1).
public struct PushConfiguration: Sendable, Equatable {
    /// One operation's request: `{"method": "PATCH", "path": "items/{id}"}`.
    public struct Route: Sendable, Equatable {
        /// The HTTP method, upper case (`POST`, `PUT`, `PATCH`, `DELETE`).
        public var method: String
        /// The path relative to the client's base URL; `{id}` is the object's server identity.
        public var path: String
        /// `update` only: send `If-Match` with the ETag the change was based on.
        public var ifMatch: Bool

        public init(method: String, path: String, ifMatch: Bool = false) {
            self.method = method
            self.path = path
            self.ifMatch = ifMatch
        }
    }

    /// How a create whose outcome is unknown (a timeout, a connection reset after sending)
    /// is made exactly once: `createKey`.
    public enum CreateKey: Sendable, Equatable {
        /// Trellis assigns the server identity before sending (Parse with custom object ids,
        /// `allowCustomObjectId`): a repeated create names the same object.
        case clientId
        /// The outbox row's idempotency key goes with the request (`X-Parse-Request-Id` for
        /// Parse, `Idempotency-Key` otherwise), and the server answers a repeat without
        /// doing it again.
        case requestId
        /// A unique client key the server stores in this attribute: an unknown outcome is
        /// settled by looking the keys up (one `$in` query per class for Parse).
        case lookupField(String)
        /// No way to tell: a create whose outcome is unknown may be made twice. Refused
        /// unless the run allows it (`--at-least-once`).
        case none
    }

    /// How a change made on a stale base is noticed: `conflicts.detect`.
    public enum ConflictDetection: String, Sendable, Equatable, CaseIterable {
        /// Not at all: the last writer wins.
        case none
        /// `If-Match` with the stored ETag; the server answers 412 on a stale base.
        case ifMatch
        /// A batched pre-read of the server stamps (`updatedAt`) before the writes.
        case check
    }

    /// What a detected conflict does: `conflicts.policy`.
    public enum ConflictPolicy: String, Sendable, Equatable, CaseIterable {
        /// The server's values stay; the local change is reported as overridden.
        case serverWins
        /// The change is sent again without the precondition.
        case clientWins
        /// Three-way against the base: each field takes the side that changed it; a field
        /// changed on both sides (or whose base value is unknown) follows `bothChanged`
        /// (`serverWins` by default).
        case merge
        /// The row stays in `conflict` until resolved (`trellis sync SOURCE --resolve ENTITY:ID --take local|server`).
        case manual
    }

    /// Which side a field changed on both sides takes under `merge`: `conflicts.bothChanged`.
    public enum BothChanged: String, Sendable, Equatable, CaseIterable {
        /// The server's value is kept (the default).
        case serverWins
        /// The local value is sent.
        case clientWins
    }

    /// What a remote delete of an object with a pending local update does: `remoteDeletes`.
    public enum RemoteDeletes: String, Sendable, Equatable, CaseIterable {
        /// The object is deleted locally; the pending update is dropped and reported.
        case deleteWins
        /// The object is created again on the server from the local values.
        case recreate
    }

    /// Operations in one request at most (`POST batch` for Parse). Default 50 (Parse's
    /// batch limit), 1 for other APIs (one request per operation).
    public var batchSize: Int
    public var createKey: CreateKey
    public var detect: ConflictDetection
    public var policy: ConflictPolicy
    public var remoteDeletes: RemoteDeletes
    /// `merge` only: the side a field changed on both sides takes. Default `serverWins`.
    public var bothChanged: BothChanged = .serverWins
    /// The attribute holding the server's stamp or ETag of an object (`stamp`): its value when
    /// a change is made is the change's base (``OutboxEntry/base``, through
    /// ``Synchronizer/pushRules``), compared by `check` and sent as `If-Match` by `ifMatch`, and
    /// a write's answer (its `ETag` header, else the attribute's key in the body) is written
    /// into it. Nil (the default): the attribute mapped to `updatedAt`.
    public var stamp: String?
    /// The routes of an API without a dialect (nil for Parse, whose routes are fixed); an
    /// operation without a route is not pushable (such changes are kept and reported).
    public var create: Route?
    public var update: Route?
    public var delete: Route?

    /// A push section; defaults as a source file's: `requestId`, `check`, `serverWins`, `deleteWins`.
    public init(
        batchSize: Int = 50, createKey: CreateKey = .requestId, detect: ConflictDetection = .check,
        policy: ConflictPolicy = .serverWins, remoteDeletes: RemoteDeletes = .deleteWins,
        create: Route? = nil, update: Route? = nil, delete: Route? = nil, stamp: String? = nil
    ) {
        self.stamp = stamp
        self.batchSize = batchSize
        self.createKey = createKey
        self.detect = detect
        self.policy = policy
        self.remoteDeletes = remoteDeletes
        self.create = create
        self.update = update
        self.delete = delete
    }
}

extension SyncSource {
    /// A resource's `push` section (`value` at `path`), for the client's `dialect`.
    /// - Throws: ``SyncError`` `.unknownKey` (with the closest allowed key), `.wrongType`,
    ///   `.missingKey`, `.invalidValue` (an unknown `createKey`, `detect`, `policy` or
    ///   `remoteDeletes`; routes given for the Parse dialect, whose routes are Parse's; an
    ///   API without a dialect and without any route; `detect: ifMatch` without an `update`
    ///   that sends `If-Match`), each located by file and JSON path.
    static func readPush(
        _ value: JSONValue, at path: JSONPath, dialect: ClientConfiguration.Dialect?,
        reading: SourceReading
    ) throws -> PushConfiguration {
        let isParse = dialect == .parse
        let routeKeys = ["create", "update", "delete"]
        let fields = try SourceFields(
            value, at: path, what: "a push section",
            allowed: ["batchSize", "createKey", "conflicts", "remoteDeletes", "stamp"] + routeKeys, reading: reading)
        var push = PushConfiguration(batchSize: isParse ? 50 : 1)
        if let size = try fields.integer("batchSize", atLeast: 1) {
            if isParse, size > 50 {
                throw reading.error(.invalidValue, fields.at("batchSize"), "Parse's batch holds at most 50 operations (found \(size))")
            }
            push.batchSize = size
        }
        if let text = try fields.string("createKey") {
            switch text {
            case "clientId": push.createKey = .clientId
            case "requestId": push.createKey = .requestId
            case "none": push.createKey = .none
            default:
                if text.hasPrefix("lookupField:"), !text.dropFirst("lookupField:".count).isEmpty {
                    push.createKey = .lookupField(String(text.dropFirst("lookupField:".count)))
                } else {
                    throw reading.error(
                        .invalidValue, fields.at("createKey"),
                        "unknown createKey \(JSONWriter.quoted(text)); "
                            + "known: clientId, requestId, lookupField:ATTRIBUTE, none")
                }
            }
        }
        if let conflicts = fields.value("conflicts") {
            let at = fields.at("conflicts")
            let inner = try SourceFields(conflicts, at: at, what: "conflicts", allowed: ["detect", "policy", "bothChanged"], reading: reading)
            if let detect = try inner.string("detect") {
                push.detect = try choice(detect, at: inner.at("detect"), what: "conflict detection", reading: reading)
            }
            if let policy = try inner.string("policy") {
                push.policy = try choice(policy, at: inner.at("policy"), what: "conflict policy", reading: reading)
            }
            if let side = try inner.string("bothChanged") {
                push.bothChanged = try choice(side, at: inner.at("bothChanged"), what: "bothChanged side", reading: reading)
                if push.policy != .merge {
                    throw reading.error(
                        .invalidValue, inner.at("bothChanged"),
                        "bothChanged says which side a field changed on both sides takes in a merge; the policy is \(push.policy.rawValue)")
                }
            }
        }
        push.stamp = try fields.string("stamp")
        if let remote = try fields.string("remoteDeletes") {
            push.remoteDeletes = try choice(remote, at: fields.at("remoteDeletes"), what: "remoteDeletes", reading: reading)
        }
        for key in routeKeys where fields.value(key) != nil {
            if isParse {
                throw reading.error(
                    .invalidValue, fields.at(key),
                    "the parse dialect's routes are Parse's (POST classes/X, "
                        + "PUT and DELETE classes/X/ID, POST batch): '\(key)' is for APIs without a dialect")
            }
            let route = try readRoute(fields.value(key)!, at: fields.at(key), operation: key, reading: reading)
            switch key {
            case "create": push.create = route
            case "update": push.update = route
            default: push.delete = route
            }
        }
        if !isParse, push.create == nil, push.update == nil, push.delete == nil {
            throw reading.error(
                .missingKey, path,
                "a push section of an API without a dialect needs at least one route: "
                    + "create, update or delete ({\"method\": \"POST\", \"path\": \"items\"})")
        }
        if push.detect == .ifMatch, !isParse, push.update?.ifMatch != true {
            throw reading.error(
                .invalidValue, fields.at("conflicts").appending(key: "detect"),
                "detect \"ifMatch\" needs an update route that sends If-Match (\"ifMatch\": true)")
        }
        if push.detect == .ifMatch, isParse {
            throw reading.error(
                .invalidValue, fields.at("conflicts").appending(key: "detect"),
                "Parse sends no ETags: detect conflicts with \"check\" (a pre-read of updatedAt)")
        }
        return push
    }

    /// `{"method", "path", "ifMatch"}` of one operation.
    private static func readRoute(_ value: JSONValue, at path: JSONPath, operation: String, reading: SourceReading) throws -> PushConfiguration.Route {
        let allowed = operation == "update" ? ["method", "path", "ifMatch"] : ["method", "path"]
        let fields = try SourceFields(value, at: path, what: "the \(operation) route", allowed: allowed, reading: reading)
        let method = try fields.requiredString("method", in: "the \(operation) route").uppercased()
        guard ["POST", "PUT", "PATCH", "DELETE"].contains(method) else {
            throw reading.error(.invalidValue, fields.at("method"), "unknown method \(JSONWriter.quoted(method)); known: POST, PUT, PATCH, DELETE")
        }
        let route = try fields.requiredString("path", in: "the \(operation) route")
        if operation != "create", !route.contains("{id}") {
            throw reading.error(.invalidValue, fields.at("path"), "the \(operation) path names the object with {id} (found \(JSONWriter.quoted(route)))")
        }
        var ifMatch = false
        if let flag = fields.value("ifMatch") {
            guard case .bool(let b) = flag else { throw fields.wrongType("ifMatch", expected: "true or false", found: flag) }
            ifMatch = b
        }
        return PushConfiguration.Route(method: method, path: route, ifMatch: ifMatch)
    }

    /// The case of `T` named `text`.
    private static func choice<T: RawRepresentable & CaseIterable>(
        _ text: String, at path: JSONPath, what: String,
        reading: SourceReading
    ) throws -> T where T.RawValue == String {
        if let value = T(rawValue: text) { return value }
        let known = T.allCases.map(\.rawValue)
        var message = "unknown \(what) \(JSONWriter.quoted(text))"
        if let suggestion = SourceFields.closest(to: text, in: known) { message += " (did you mean '\(suggestion)'?)" }
        throw reading.error(.invalidValue, path, message + "; known: " + known.joined(separator: ", "))
    }
}
