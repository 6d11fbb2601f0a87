import Foundation
import Trellis

/// Reading source files (`docs/Sync.md` documents every key).
extension SyncSource {
    static let format = "trellis-source"
    static let formatVersion = 1

    /// Reads the source file at `url`.
    ///
    /// - Parameters:
    ///   - environment: the variables `${env:NAME}` reads (the process's, usually).
    ///   - unsetVariableValue: what a variable that is not set reads as (a secret like the
    ///     others), for a source that sends no request: a replay of staged pages
    ///     (``Synchronizer/init(replaying:source:context:options:)``) needs no API key. nil
    ///     (the default): an unset variable is an error.
    /// - Throws: ``SyncError`` located in the file: `.unreadableSource` (with line and
    ///   column when the text is not JSON), `.unknownKey`, `.missingKey`, `.wrongType`,
    ///   `.invalidValue` (with the JSON path, `$.resources[0].paginator.type`),
    ///   `.missingEnvironmentVariable` (naming the variable, never a value).
    public init(contentsOf url: URL, environment: [String: String], unsetVariableValue: String? = nil) throws {
        let file = url.path
        let data: Data
        do {
            data = try FileContents.read(url)
        } catch {
            let reason: String
            switch error {
            case .noSuchFile: reason = "no such file"
            case .directory: reason = "is a directory, not a source file"
            case .unreadable(let why): reason = "cannot read the source file: \(why)"
            }
            throw SyncError(.unreadableSource, message: reason, file: file)
        }
        let json: JSONValue
        do {
            json = try JSONReader.parse(data)
        } catch {
            throw SyncError(.unreadableSource, message: "not JSON: \(error.message)", file: file, line: error.line, column: error.column)
        }
        try self.init(json: json, environment: environment, file: file, unsetVariableValue: unsetVariableValue)
    }

    /// Reads a source from its JSON form (`file` names it in errors; `unsetVariableValue` as
    /// in ``init(contentsOf:environment:unsetVariableValue:)``).
    /// - Throws: as ``init(contentsOf:environment:unsetVariableValue:)``.
    public init(json: JSONValue, environment: [String: String], file: String? = nil, unsetVariableValue: String? = nil) throws {
        let reading = SourceReading(file: file, environment: environment, unsetVariableValue: unsetVariableValue)
        let top = try SourceFields(
            json, at: .root, what: "a source file", allowed: ["format", "formatVersion", "client", "resources"],
            reading: reading)
        guard let format = try top.string("format") else {
            throw top.missing("format", in: "a source file", expected: "\"\(SyncSource.format)\"")
        }
        guard format == SyncSource.format else {
            throw reading.error(.invalidValue, top.at("format"), "expected \"\(SyncSource.format)\", found \(JSONWriter.quoted(format))")
        }
        guard let version = try top.integer("formatVersion", atLeast: 1) else {
            throw top.missing("formatVersion", in: "a source file", expected: "1")
        }
        guard version == SyncSource.formatVersion else {
            throw reading.error(
                .invalidValue, top.at("formatVersion"),
                "this version of Trellis reads formatVersion \(SyncSource.formatVersion), not \(version)")
        }
        guard let clientValue = top.value("client") else { throw top.missing("client", in: "a source file", expected: "an object") }
        let client = try SyncSource.readClient(clientValue, at: top.at("client"), reading: reading)
        guard let resourcesValue = top.value("resources") else {
            throw top.missing("resources", in: "a source file", expected: "an array of resources")
        }
        guard case .array(let elements) = resourcesValue else {
            throw top.wrongType("resources", expected: "an array of resources", found: resourcesValue)
        }
        guard !elements.isEmpty else { throw reading.error(.invalidValue, top.at("resources"), "a source needs at least one resource") }
        var resources: [ResourceConfiguration] = []
        for (i, element) in elements.enumerated() {
            let path = top.at("resources").appending(index: i)
            let resource = try SyncSource.readResource(element, at: path, client: client, reading: reading)
            if resources.contains(where: { $0.name == resource.name }) {
                throw reading.error(.invalidValue, path.appending(key: "name"), "a second resource named '\(resource.name)'")
            }
            resources.append(resource)
        }
        try SyncSource.checkReferences(resources, reading: reading)
        if let (index, scan, other) = SyncSource.unscopedFullScan(resources, overlapping: { $0 == $1 }) {
            throw reading.error(
                .invalidValue, JSONPath.root.appending(key: "resources").appending(index: index).appending(key: "deletions"),
                SyncSource.unscopedFullScanMessage(scan, other))
        }
        var secrets = reading.secrets
        if client.dialect == .parse {
            secrets += client.headers.filter { $0.name.lowercased().hasPrefix("x-parse-") && $0.name.lowercased() != "x-parse-application-id" }
                .map(\.value)
        }
        secrets += client.headers.filter { Redactor.isSecretHeader($0.name) }.map(\.value)
        self.init(client: client, resources: resources, secrets: secrets)
    }

    // MARK: - Client

    static func readClient(_ value: JSONValue, at path: JSONPath, reading: SourceReading) throws -> ClientConfiguration {
        let fields = try SourceFields(
            value, at: path, what: "the client",
            allowed: [
                "baseURL", "headers", "auth", "dialect", "timeoutSeconds", "maxAttempts", "minIntervalSeconds", "maxRateLimitWaitSeconds",
                "allowedHosts",
            ], reading: reading)
        let text = try fields.requiredString("baseURL", in: "the client")
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw reading.error(.invalidValue, fields.at("baseURL"), "expected an absolute http or https URL, found \(JSONWriter.quoted(reading.redact(text)))")
        }
        var headers: [(name: String, value: String)] = []
        if let object = try fields.objectMember("headers") {
            for (name, value) in object {
                guard case .string(let s) = value else {
                    throw reading.error(
                        .wrongType, fields.at("headers").appending(key: name),
                        "expected a string, found \(SourceFields.kindPhrase(value))")
                }
                guard HTTPHeaders.isValidName(name) else {
                    throw reading.error(.invalidValue, fields.at("headers").appending(key: name), "not an HTTP header name (RFC 9110 §5.1)")
                }
                headers.append((name, try reading.substitute(s, at: fields.at("headers").appending(key: name), allowingStart: false)))
            }
        }
        var dialect: ClientConfiguration.Dialect?
        if let name = try fields.string("dialect") {
            guard let d = ClientConfiguration.Dialect(rawValue: name) else {
                throw reading.error(.invalidValue, fields.at("dialect"), "unknown dialect \(JSONWriter.quoted(name)); known: parse")
            }
            dialect = d
        }
        let auth = try fields.value("auth").map { try readAuth($0, at: fields.at("auth"), reading: reading) }
        var allowedHosts: [String] = []
        if let value = fields.value("allowedHosts") {
            guard case .array(let elements) = value else { throw fields.wrongType("allowedHosts", expected: "an array of host names", found: value) }
            for (i, element) in elements.enumerated() {
                let at = fields.at("allowedHosts").appending(index: i)
                guard case .string(let host) = element else {
                    throw reading.error(.wrongType, at, "expected a host name, found \(SourceFields.kindPhrase(element))")
                }
                guard OriginPolicy.entry(host) != nil else {
                    throw reading.error(.invalidValue, at, "expected a host (api.example.com) or host:port, found \(JSONWriter.quoted(host))")
                }
                allowedHosts.append(host)
            }
        }
        return ClientConfiguration(
            baseURL: url, headers: headers, auth: auth, dialect: dialect,
            timeoutSeconds: try fields.number("timeoutSeconds", atLeast: 0, exclusive: true) ?? 60,
            maxAttempts: try fields.integer("maxAttempts", atLeast: 1) ?? 5,
            minIntervalSeconds: try fields.number("minIntervalSeconds", atLeast: 0) ?? 0,
            maxRateLimitWaitSeconds: try fields.number("maxRateLimitWaitSeconds", atLeast: 0) ?? 900, allowedHosts: allowedHosts)
    }

    static func readAuth(_ value: JSONValue, at path: JSONPath, reading: SourceReading) throws -> Authentication {
        let probe = try SourceFields(
            value, at: path, what: "auth", allowed: ["type", "token", "username", "password", "in", "name", "value"],
            reading: reading)
        guard let type = try probe.string("type") else { throw probe.missing("type", in: "auth", expected: "bearer, basic or apiKey") }
        switch type {
        case "bearer":
            let fields = try SourceFields(value, at: path, what: "bearer auth", allowed: ["type", "token"], reading: reading)
            return .bearer(token: try fields.requiredString("token", in: "bearer auth"))
        case "basic":
            let fields = try SourceFields(value, at: path, what: "basic auth", allowed: ["type", "username", "password"], reading: reading)
            return .basic(
                username: try fields.requiredString("username", in: "basic auth"),
                password: try fields.requiredString("password", in: "basic auth"))
        case "apiKey":
            let fields = try SourceFields(value, at: path, what: "apiKey auth", allowed: ["type", "in", "name", "value"], reading: reading)
            let location = try fields.requiredString("in", in: "apiKey auth")
            guard let parsed = Authentication.APIKeyLocation(rawValue: location) else {
                throw reading.error(.invalidValue, fields.at("in"), "expected \"header\" or \"query\", found \(JSONWriter.quoted(location))")
            }
            return .apiKey(
                location: parsed, name: try fields.requiredString("name", in: "apiKey auth"),
                value: try fields.requiredString("value", in: "apiKey auth"))
        default:
            throw reading.error(.invalidValue, probe.at("type"), "unknown auth type \(JSONWriter.quoted(type)); known: bearer, basic, apiKey")
        }
    }

    // MARK: - Resources

    static func readResource(
        _ value: JSONValue, at path: JSONPath, client: ClientConfiguration,
        reading: SourceReading
    ) throws -> ResourceConfiguration {
        let dialect = client.dialect
        let fields = try SourceFields(
            value, at: path, what: "a resource",
            allowed: [
                "name", "entity", "path", "params", "records", "paginator", "incremental", "deletions", "push",
            ], reading: reading)
        let name = try fields.requiredString("name", in: "a resource")
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || "_.-".unicodeScalars.contains($0) }),
            name.unicodeScalars.allSatisfy(\.isASCII)
        else {
            throw reading.error(.invalidValue, fields.at("name"), "a resource name is letters, digits, '_', '.' and '-' (found \(JSONWriter.quoted(name)))")
        }
        let entity = try fields.string("entity")
        let endpoint = try fields.requiredString("path", in: "a resource")
        guard let resolved = URL(string: endpoint, relativeTo: client.baseURL)?.absoluteURL else {
            throw reading.error(.invalidValue, fields.at("path"), "not a URL path: \(JSONWriter.quoted(endpoint))")
        }
        if let reason = OriginPolicy(baseURL: client.baseURL, allowedHosts: client.allowedHosts).refusal(of: resolved) {
            throw reading.error(.invalidValue, fields.at("path"), "the path \(JSONWriter.quoted(reading.redact(endpoint))) is not requested: \(reason)")
        }
        var params: [(name: String, value: String)] = []
        if let object = try fields.objectMember("params") {
            for (key, value) in object {
                let at = fields.at("params").appending(key: key)
                switch value {
                case .string(let s): params.append((key, try reading.substitute(s, at: at, allowingStart: true)))
                case .number(let n): params.append((key, n.text))
                case .bool(let b): params.append((key, b ? "true" : "false"))
                case .object, .array:
                    guard dialect == .parse, key == "where" else {
                        throw reading.error(.wrongType, at, "expected a string, number or boolean, found \(SourceFields.kindPhrase(value))")
                    }
                    params.append((key, try JSONWriter.string(for: value)))
                case .null: break
                }
            }
        }
        let records: JSONKeyPath?
        switch try fields.keyPath("records", allowingEmpty: true) {
        case .none: records = dialect == .parse ? JSONKeyPath(key: "results") : nil
        case .some(let path): records = path
        }
        let paginator =
            try fields.value("paginator").map { try readPaginator($0, at: fields.at("paginator"), reading: reading) }
            ?? (dialect == .parse ? .parse : .none)
        let pageRules = try fields.value("paginator").map { try readPageRules($0, at: fields.at("paginator"), reading: reading) } ?? PageRules()
        if paginator == .parse, dialect != .parse {
            throw reading.error(.invalidValue, fields.at("paginator").appending(key: "type"), "the parse paginator needs \"dialect\": \"parse\" in the client")
        }
        if paginator == .parse {
            for reserved in ["order", "skip"] where params.contains(where: { $0.name == reserved }) {
                throw reading.error(
                    .invalidValue, fields.at("params").appending(key: reserved),
                    "the parse paginator sets '\(reserved)' itself (keyset paging on updatedAt, objectId)")
            }
        }
        let incremental = try fields.value("incremental").map { try readIncremental($0, at: fields.at("incremental"), reading: reading) }
        if paginator == .parse, let incremental, incremental.cursor.components.count != 1 {
            throw reading.error(
                .invalidValue, fields.at("incremental").appending(key: "cursor"),
                "the parse paginator filters on the cursor: it must be one top-level key (updatedAt)")
        }
        let deletions = try fields.value("deletions").map { try readDeletions($0, at: fields.at("deletions"), reading: reading) } ?? .none
        let push = try fields.value("push").map { try readPush($0, at: fields.at("push"), dialect: dialect, reading: reading) }
        if push != nil, entity == nil {
            throw reading.error(.invalidValue, fields.at("push"), "a resource without an entity (tombstones) has nothing to push")
        }
        var resource = ResourceConfiguration(
            name: name, entity: entity, path: endpoint, params: params, records: records,
            paginator: paginator, pageRules: pageRules, incremental: incremental, deletions: deletions)
        resource.push = push
        return resource
    }

    static func readPaginator(_ value: JSONValue, at path: JSONPath, reading: SourceReading) throws -> PaginatorConfiguration {
        let probe = try SourceFields(
            value, at: path, what: "a paginator",
            allowed: [
                "type", "path", "limit", "offsetParameter", "limitParameter", "totalPath", "parameter", "start", "maxPages",
            ] + pageRuleKeys, reading: reading)
        let types = ["linkHeader", "nextURL", "offset", "pageNumber", "cursor", "parse", "none"]
        guard let type = try probe.string("type") else { throw probe.missing("type", in: "a paginator", expected: types.joined(separator: ", ")) }
        func fields(_ allowed: [String]) throws -> SourceFields {
            try SourceFields(
                value, at: path, what: "\("aeiou".contains(type.first ?? "x") ? "an" : "a") \(type) paginator",
                allowed: ["type"] + allowed + (type == "none" ? [] : pageRuleKeys), reading: reading)
        }
        switch type {
        case "linkHeader":
            _ = try fields([])
            return .linkHeader
        case "nextURL":
            return .nextURL(path: try fields(["path"]).requiredKeyPath("path", in: "a nextURL paginator"))
        case "offset":
            let f = try fields(["limit", "offsetParameter", "limitParameter", "totalPath"])
            guard let limit = try f.integer("limit", atLeast: 1) else { throw f.missing("limit", in: "an offset paginator", expected: "a page size") }
            let total: JSONKeyPath?? = try f.keyPath("totalPath", allowingEmpty: false)
            return .offset(
                limit: limit, offsetParameter: try f.string("offsetParameter") ?? "offset",
                limitParameter: try f.string("limitParameter") ?? "limit", totalPath: total ?? nil)
        case "pageNumber":
            let f = try fields(["parameter", "start", "maxPages"])
            let start = try f.integer("start", atLeast: 0) ?? 1
            return .pageNumber(parameter: try f.string("parameter") ?? "page", start: start, maxPages: try f.integer("maxPages", atLeast: 1))
        case "cursor":
            let f = try fields(["path", "parameter"])
            return .cursor(
                path: try f.requiredKeyPath("path", in: "a cursor paginator"),
                parameter: try f.requiredString("parameter", in: "a cursor paginator"))
        case "parse":
            _ = try fields([])
            return .parse
        case "none":
            _ = try fields([])
            return .none
        default:
            var message = "unknown paginator type \(JSONWriter.quoted(type))"
            if let suggestion = SourceFields.closest(to: type, in: types) { message += " (did you mean '\(suggestion)'?)" }
            throw reading.error(.invalidValue, probe.at("type"), message + "; known: " + types.joined(separator: ", "))
        }
    }

    /// The keys of ``PageRules`` in every paginator but `none`.
    static let pageRuleKeys = ["repeatedPage", "maxStalePages"]

    /// `repeatedPage` (`"end"` or `"error"`) and `maxStalePages` (at least 1) of a paginator
    /// already read by ``readPaginator(_:at:reading:)``.
    static func readPageRules(_ value: JSONValue, at path: JSONPath, reading: SourceReading) throws -> PageRules {
        let fields = try SourceFields(value, at: path, what: "a paginator", allowed: Array(value.objectValue?.keys ?? []), reading: reading)
        var rules = PageRules()
        if let text = try fields.string("repeatedPage") {
            guard let repeated = PageRules.Repeated(rawValue: text) else {
                throw reading.error(.invalidValue, fields.at("repeatedPage"), "expected \"end\" or \"error\", found \(JSONWriter.quoted(text))")
            }
            rules.repeatedPage = repeated
        }
        if let count = try fields.integer("maxStalePages", atLeast: 1) { rules.maxStalePages = count }
        return rules
    }

    static func readIncremental(_ value: JSONValue, at path: JSONPath, reading: SourceReading) throws -> IncrementalConfiguration {
        let fields = try SourceFields(
            value, at: path, what: "incremental", allowed: ["cursor", "parameter", "lagSeconds", "initial"],
            reading: reading)
        let cursor = try fields.requiredKeyPath("cursor", in: "incremental")
        var initial: String?
        if let value = fields.value("initial") {
            switch value {
            case .string: initial = try fields.string("initial")
            case .number(let n): initial = n.text
            default: throw fields.wrongType("initial", expected: "a string or a number", found: value)
            }
            if let text = initial, Watermark.Value(text: text) == nil {
                throw reading.error(.invalidValue, fields.at("initial"), "expected an RFC 3339 date-time or a number, found \(JSONWriter.quoted(text))")
            }
        }
        return IncrementalConfiguration(
            cursor: cursor, parameter: try fields.string("parameter"),
            lagSeconds: try fields.number("lagSeconds", atLeast: 0) ?? 0, initial: initial)
    }

    static func readDeletions(_ value: JSONValue, at path: JSONPath, reading: SourceReading) throws -> DeletionConfiguration {
        let probe = try SourceFields(value, at: path, what: "deletions", allowed: ["type", "maxFraction", "scope", "resource"], reading: reading)
        guard let type = try probe.string("type") else { throw probe.missing("type", in: "deletions", expected: "none, fullScan or tombstones") }
        switch type {
        case "none":
            _ = try SourceFields(value, at: path, what: "deletions of type none", allowed: ["type"], reading: reading)
            return .none
        case "fullScan":
            let fields = try SourceFields(value, at: path, what: "fullScan deletions", allowed: ["type", "maxFraction", "scope"], reading: reading)
            let fraction = try fields.number("maxFraction", atLeast: 0) ?? 0.5
            guard fraction <= 1 else {
                throw reading.error(.invalidValue, fields.at("maxFraction"), "expected a fraction from 0 to 1, found \(SourceFields.format(fraction))")
            }
            let scope = try fields.string("scope")
            if let scope {
                do {
                    _ = try ObjectPredicate(format: scope)
                } catch let error as QueryError {
                    throw reading.error(.invalidValue, fields.at("scope"), "not a predicate: \(error)")
                }
            }
            return .fullScan(maxFraction: fraction, scope: scope)
        case "tombstones":
            let fields = try SourceFields(value, at: path, what: "tombstones deletions", allowed: ["type", "resource"], reading: reading)
            return .tombstones(resource: try fields.requiredString("resource", in: "tombstones deletions"))
        default:
            throw reading.error(.invalidValue, probe.at("type"), "unknown deletions type \(JSONWriter.quoted(type)); known: none, fullScan, tombstones")
        }
    }

    /// Tombstone resources exist and are not themselves synced into an entity; every other
    /// resource names its entity.
    static func checkReferences(_ resources: [ResourceConfiguration], reading: SourceReading) throws {
        var tombstoneNames = Set<String>()
        for (i, resource) in resources.enumerated() {
            guard case .tombstones(let name) = resource.deletions else { continue }
            let at = JSONPath.root.appending(key: "resources").appending(index: i).appending(key: "deletions").appending(key: "resource")
            guard let target = resources.first(where: { $0.name == name }) else {
                throw reading.error(.invalidValue, at, "no resource named '\(name)' (resources: \(resources.map(\.name).joined(separator: ", ")))")
            }
            guard target.name != resource.name else { throw reading.error(.invalidValue, at, "a resource cannot be its own tombstones") }
            tombstoneNames.insert(name)
        }
        for (i, resource) in resources.enumerated() where resource.entity == nil && !tombstoneNames.contains(resource.name) {
            throw reading.error(
                .missingKey, JSONPath.root.appending(key: "resources").appending(index: i),
                "a resource needs \"entity\" (an entity of the model), unless it is the tombstones of another")
        }
    }
}

extension SyncSource {
    /// The first full-scanning resource without a `scope` whose entity another resource fills
    /// too (`overlapping` tells whether two entity names share objects: the same name here, the
    /// same inheritance hierarchy once the model is known): its index, and both resources.
    /// Its scan would delete the objects the other brought in, and they would come back and
    /// go again on every run.
    static func unscopedFullScan(_ resources: [ResourceConfiguration], overlapping: (String, String) -> Bool)
        -> (index: Int, scan: ResourceConfiguration, other: ResourceConfiguration)?
    {
        for (i, resource) in resources.enumerated() {
            guard case .fullScan(_, nil) = resource.deletions, let entity = resource.entity else { continue }
            if let other = resources.first(where: { $0.name != resource.name && $0.entity.map { overlapping(entity, $0) } == true }) {
                return (i, resource, other)
            }
        }
        return nil
    }

    static func unscopedFullScanMessage(_ scan: ResourceConfiguration, _ other: ResourceConfiguration) -> String {
        let entities =
            scan.entity == other.entity
            ? "both fill \(scan.entity ?? "?")" : "fill \(scan.entity ?? "?") and \(other.entity ?? "?") (one inheritance hierarchy)"
        return "resources '\(scan.name)' and '\(other.name)' \(entities), and '\(scan.name)' deletes by full scan: it would delete the objects "
            + "'\(other.name)' brought in; give it a \"scope\" (a predicate selecting its own objects, e.g. \"power < 50\")"
    }
}

extension SourceReading {
    /// Text safe to print: the secrets found so far replaced.
    func redact(_ text: String) -> String { Redactor(secrets: secrets).redact(text) }
}
