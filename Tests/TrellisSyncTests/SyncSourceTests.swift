import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSync

/// Source files: every key read, and every mistake located by its JSON path.
@Suite struct SyncSourceTests {
    static let example = #"""
        {"format": "trellis-source", "formatVersion": 1,
         "client": {"baseURL": "http://127.0.0.1:8080/parse",
                    "headers": {"X-Parse-Application-Id": "${env:PARSE_APP_ID}"},
                    "dialect": "parse",
                    "timeoutSeconds": 60, "maxAttempts": 5, "minIntervalSeconds": 0},
         "resources": [
           {"name": "heroes", "entity": "Hero", "path": "classes/Hero", "records": "results",
            "params": {"limit": 1000},
            "paginator": {"type": "parse"},
            "incremental": {"cursor": "updatedAt"},
            "deletions": {"type": "fullScan"}}]}
        """#

    func read(_ text: String, environment: [String: String] = ["PARSE_APP_ID": "app-1"]) throws -> SyncSource {
        try SyncSource(json: try JSONReader.parse(text), environment: environment, file: "heroes.source.json")
    }

    @Test func theIssuesExampleReads() throws {
        let source = try read(Self.example)
        #expect(source.client.baseURL.absoluteString == "http://127.0.0.1:8080/parse/")
        #expect(source.client.headers.map(\.name) == ["X-Parse-Application-Id"])
        #expect(source.client.headers.map(\.value) == ["app-1"])
        #expect(source.client.dialect == .parse)
        #expect(source.client.timeoutSeconds == 60)
        #expect(source.client.maxAttempts == 5)
        let heroes = try #require(source.resource(named: "heroes"))
        #expect(heroes.entity == "Hero")
        #expect(heroes.path == "classes/Hero")
        #expect(heroes.records == "results")
        #expect(heroes.params.map(\.name) == ["limit"])
        #expect(heroes.params.map(\.value) == ["1000"])
        #expect(heroes.paginator == .parse)
        #expect(heroes.incremental == IncrementalConfiguration(cursor: "updatedAt"))
        #expect(heroes.deletions == .fullScan(maxFraction: 0.5, scope: nil))
        #expect(heroes.pageRules == PageRules(repeatedPage: .end, maxStalePages: 5))
        #expect(source.client.allowedHosts == [])
        // A value read from the environment is a secret.
        #expect(source.redactor.redact("id app-1 here") == "id *** here")
    }

    /// A password written in the base URL is a secret like one read from the environment:
    /// messages, checkpoints and `--status` show `user:***@`.
    @Test func aPasswordInTheBaseURLIsASecret() throws {
        for (written, password) in [("ghp_URLPASS", "ghp_URLPASS"), ("p%40ss%2Fw0rd", "p@ss/w0rd")] {
            let text = Self.example.replacingOccurrences(of: "http://127.0.0.1:8080/parse\"", with: "http://user:\(written)@127.0.0.1:8080/parse\"")
            let source = try read(text)
            #expect(source.redactor.redact(source.client.baseURL.absoluteString) == "http://user:***@127.0.0.1:8080/parse/")
            #expect(
                source.redactor.redact("page http://user:\(written)@127.0.0.1:8080/parse/classes/Hero: HTTP 500 \(password)")
                    == "page http://user:***@127.0.0.1:8080/parse/classes/Hero: HTTP 500 ***")
        }
        // A user without a password has nothing to hide.
        let plain = try read(Self.example.replacingOccurrences(of: "http://127.0.0.1:8080/parse\"", with: "http://user@127.0.0.1:8080/parse\""))
        #expect(plain.redactor.redact(plain.client.baseURL.absoluteString) == "http://user@127.0.0.1:8080/parse/")
    }

    /// For a replay, which sends nothing: an unset variable reads as the value given, a set one as itself.
    @Test func anUnsetVariableReadsAsTheReplayValueWhenOneIsGiven() throws {
        let json = try JSONReader.parse(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "https://api.nytimes.com/", "auth": {"type": "apiKey", "in": "query", "name": "api-key", "value": "${env:NYT_UNSET}"},
                        "headers": {"X-Id": "${env:APP_ID}"}},
             "resources": [{"name": "a", "entity": "A", "path": "a"}]}
            """#)
        let source = try SyncSource(json: json, environment: ["APP_ID": "app-1"], unsetVariableValue: "unset-in-replay")
        #expect(source.client.auth == .apiKey(location: .query, name: "api-key", value: "unset-in-replay"))
        #expect(source.client.headers.map(\.value) == ["app-1"])
        #expect(source.redactor.redact("unset-in-replay app-1") == "*** ***")
        #expect(throws: SyncError.self) { try SyncSource(json: json, environment: ["APP_ID": "app-1"]) }
    }

    @Test func everyPaginatorAuthAndDeletionReads() throws {
        let source = try read(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "https://api.nytimes.com/", "auth": {"type": "apiKey", "in": "query", "name": "api-key", "value": "${env:NYT}"},
                        "minIntervalSeconds": 12, "maxRateLimitWaitSeconds": 60, "allowedHosts": ["static01.nyt.com", "cdn.example:8443"]},
             "resources": [
               {"name": "a", "entity": "A", "path": "a", "paginator": {"type": "linkHeader", "repeatedPage": "error", "maxStalePages": 2}},
               {"name": "b", "entity": "A", "path": "b", "records": "", "paginator": {"type": "nextURL", "path": "links.next"}},
               {"name": "c", "entity": "A", "path": "c", "paginator": {"type": "offset", "limit": 50, "totalPath": "meta.total"}},
               {"name": "d", "entity": "A", "path": "d", "records": "response.docs",
                "paginator": {"type": "pageNumber", "parameter": "page", "start": 0, "maxPages": 100},
                "params": {"q": "moon", "begin_date": "${incremental.start}"},
                "incremental": {"cursor": "pub_date", "lagSeconds": 3600, "initial": "2015-07-01T00:00:00Z"}},
               {"name": "e", "entity": "A", "path": "e", "paginator": {"type": "cursor", "path": "meta.next_cursor", "parameter": "cursor"},
                "deletions": {"type": "tombstones", "resource": "f"}},
               {"name": "f", "path": "deleted", "deletions": {"type": "none"}},
               {"name": "g", "entity": "A", "path": "g", "deletions": {"type": "fullScan", "maxFraction": 0.1, "scope": "kind == 'g'"}},
               {"name": "h", "entity": "H", "path": "https://static01.nyt.com/h", "deletions": {"type": "fullScan"}}]}
            """#, environment: ["NYT": "nyt-key"])
        #expect(source.client.auth == .apiKey(location: .query, name: "api-key", value: "nyt-key"))
        #expect(source.client.minIntervalSeconds == 12)
        #expect(
            source.resources.map(\.paginator) == [
                .linkHeader, .nextURL(path: "links.next"),
                .offset(limit: 50, offsetParameter: "offset", limitParameter: "limit", totalPath: "meta.total"),
                .pageNumber(parameter: "page", start: 0, maxPages: 100), .cursor(path: "meta.next_cursor", parameter: "cursor"), .none, .none, .none,
            ])
        #expect(source.client.allowedHosts == ["static01.nyt.com", "cdn.example:8443"])
        #expect(source.resources[0].pageRules == PageRules(repeatedPage: .error, maxStalePages: 2))
        #expect(source.resources[1].pageRules == PageRules())
        #expect(source.resources[7].deletions == .fullScan(maxFraction: 0.5, scope: nil))
        #expect(source.resources[1].records == nil)
        #expect(source.resources[3].params.map(\.value) == ["moon", "${incremental.start}"])
        #expect(source.resources[3].incremental == IncrementalConfiguration(cursor: "pub_date", lagSeconds: 3600, initial: "2015-07-01T00:00:00Z"))
        #expect(source.resources[4].deletions == .tombstones(resource: "f"))
        #expect(source.resources[6].deletions == .fullScan(maxFraction: 0.1, scope: "kind == 'g'"))
        #expect(source.redactor.redact("GET /a?api-key=nyt-key") == "GET /a?api-key=***")
    }

    struct BadSource: CustomStringConvertible, Sendable {
        let description: String
        let text: String
        let code: SyncError.Code
        let error: String
    }

    static func replacing(_ old: String, with new: String) -> String { example.replacingOccurrences(of: old, with: new) }

    static let bad: [BadSource] = [
        BadSource(
            description: "an unknown key", text: replacing(#""records": "results""#, with: #""record": "results""#), code: .unknownKey,
            error: "heroes.source.json: $.resources[0].record: unknown key 'record' in a resource (did you mean 'records'?); "
                + "allowed keys: name, entity, path, params, records, paginator, incremental, deletions, push"),
        BadSource(
            description: "a wrong type", text: replacing(#""maxAttempts": 5"#, with: #""maxAttempts": "5""#), code: .wrongType,
            error: #"heroes.source.json: $.client.maxAttempts: expected an integer, found the string "5""#),
        BadSource(
            description: "a negative timeout", text: replacing(#""timeoutSeconds": 60"#, with: #""timeoutSeconds": -1"#), code: .invalidValue,
            error: "heroes.source.json: $.client.timeoutSeconds: expected a number above 0, found -1"),
        BadSource(
            description: "an unknown paginator", text: replacing(#"{"type": "parse"}"#, with: #"{"type": "pages"}"#), code: .invalidValue,
            error:
                #"heroes.source.json: $.resources[0].paginator.type: unknown paginator type "pages"; known: linkHeader, nextURL, offset, pageNumber, cursor, parse, none"#
        ),
        BadSource(
            description: "a paginator key of another type", text: replacing(#"{"type": "parse"}"#, with: #"{"type": "offset", "limit": 10, "parameter": "p"}"#),
            code: .unknownKey,
            error:
                "heroes.source.json: $.resources[0].paginator.parameter: unknown key 'parameter' in an offset paginator; allowed keys: type, limit, offsetParameter, limitParameter, totalPath, repeatedPage, maxStalePages"
        ),
        BadSource(
            description: "a relative base URL", text: replacing("http://127.0.0.1:8080/parse", with: "parse/"), code: .invalidValue,
            error: #"heroes.source.json: $.client.baseURL: expected an absolute http or https URL, found "parse/""#),
        BadSource(
            description: "a missing path", text: replacing(#""path": "classes/Hero", "#, with: ""), code: .missingKey,
            error: #"heroes.source.json: $.resources[0]: a resource needs "path" (a string)"#),
        BadSource(
            description: "an unknown substitution", text: replacing("${env:PARSE_APP_ID}", with: "${PARSE_APP_ID}"), code: .invalidValue,
            error: "heroes.source.json: $.client.headers[\"X-Parse-Application-Id\"]: unknown substitution '${PARSE_APP_ID}' (allowed here: ${env:NAME})"),
        BadSource(
            description: "a missing variable", text: replacing("${env:PARSE_APP_ID}", with: "${env:PARSE_MISSING}"),
            code: .missingEnvironmentVariable,
            error: "heroes.source.json: $.client.headers[\"X-Parse-Application-Id\"]: the environment variable PARSE_MISSING is not set"),
        BadSource(
            description: "a wrong format version", text: replacing(#""formatVersion": 1"#, with: #""formatVersion": 2"#), code: .invalidValue,
            error: "heroes.source.json: $.formatVersion: this version of Trellis reads formatVersion 1, not 2"),
        BadSource(
            description: "a skip parameter with the parse paginator", text: replacing(#""limit": 1000"#, with: #""limit": 1000, "skip": 10"#),
            code: .invalidValue,
            error: "heroes.source.json: $.resources[0].params.skip: the parse paginator sets 'skip' itself (keyset paging on updatedAt, objectId)"),
        BadSource(
            description: "a maxFraction above 1", text: replacing(#"{"type": "fullScan"}"#, with: #"{"type": "fullScan", "maxFraction": 2}"#),
            code: .invalidValue, error: "heroes.source.json: $.resources[0].deletions.maxFraction: expected a fraction from 0 to 1, found 2"),
        BadSource(
            description: "a repeatedPage that is neither end nor error",
            text: replacing(#"{"type": "parse"}"#, with: #"{"type": "parse", "repeatedPage": "stop"}"#), code: .invalidValue,
            error: #"heroes.source.json: $.resources[0].paginator.repeatedPage: expected "end" or "error", found "stop""#),
        BadSource(
            description: "a maxStalePages of 0", text: replacing(#"{"type": "parse"}"#, with: #"{"type": "parse", "maxStalePages": 0}"#),
            code: .invalidValue, error: "heroes.source.json: $.resources[0].paginator.maxStalePages: expected an integer of at least 1, found 0"),
        BadSource(
            description: "page rules on the none paginator",
            text: replacing(#"{"type": "parse"}"#, with: #"{"type": "none", "maxStalePages": 2}"#), code: .unknownKey,
            error: "heroes.source.json: $.resources[0].paginator.maxStalePages: unknown key 'maxStalePages' in a none paginator; allowed keys: type"),
        BadSource(
            description: "an allowed host that is a URL",
            text: replacing(#""minIntervalSeconds": 0"#, with: #""minIntervalSeconds": 0, "allowedHosts": ["https://cdn.example/"]"#),
            code: .invalidValue,
            error: #"heroes.source.json: $.client.allowedHosts[0]: expected a host (api.example.com) or host:port, found "https://cdn.example/""#),
        BadSource(
            description: "allowedHosts that is not an array",
            text: replacing(#""minIntervalSeconds": 0"#, with: #""minIntervalSeconds": 0, "allowedHosts": "cdn.example""#),
            code: .wrongType, error: #"heroes.source.json: $.client.allowedHosts: expected an array of host names, found the string "cdn.example""#),
        BadSource(
            description: "a path on another host", text: replacing(#""path": "classes/Hero""#, with: #""path": "https://evil.example/classes/Hero""#),
            code: .invalidValue,
            error: #"heroes.source.json: $.resources[0].path: the path "https://evil.example/classes/Hero" is not requested: it is on another "#
                + "origin (https://evil.example:443) than the base URL (http://127.0.0.1:8080); credentials are never sent there, and it is "
                + "followed only when client.allowedHosts lists its host"),
        BadSource(
            description: "a scope that is not a predicate",
            text: replacing(#"{"type": "fullScan"}"#, with: #"{"type": "fullScan", "scope": "power <"}"#), code: .invalidValue,
            error: "heroes.source.json: $.resources[0].deletions.scope: not a predicate: column 8: expected a value after <, found the end of the predicate"),
        BadSource(
            description: "two resources on one entity, one deleting by full scan without a scope",
            text: replacing(
                #""deletions": {"type": "fullScan"}}]}"#,
                with: #""deletions": {"type": "fullScan"}}, {"name": "villains", "entity": "Hero", "path": "classes/Villain"}]}"#),
            code: .invalidValue,
            error: "heroes.source.json: $.resources[0].deletions: resources 'heroes' and 'villains' both fill Hero, and 'heroes' deletes by full "
                + #"scan: it would delete the objects 'villains' brought in; give it a "scope" (a predicate selecting its own objects, e.g. "power < 50")"#),
        BadSource(
            description: "an unknown push key",
            text: replacing(
                #""deletions": {"type": "fullScan"}"#,
                with: #""deletions": {"type": "fullScan"}, "push": {"batchsize": 20}"#),
            code: .unknownKey,
            error: "heroes.source.json: $.resources[0].push.batchsize: unknown key 'batchsize' in a push section (did you mean 'batchSize'?); "
                + "allowed keys: batchSize, createKey, conflicts, remoteDeletes, stamp, create, update, delete"),
        BadSource(
            description: "a push batch size of the wrong type",
            text: replacing(
                #""deletions": {"type": "fullScan"}"#,
                with: #""deletions": {"type": "fullScan"}, "push": {"batchSize": "50"}"#),
            code: .wrongType, error: #"heroes.source.json: $.resources[0].push.batchSize: expected an integer, found the string "50""#),
        BadSource(
            description: "a Parse batch above 50",
            text: replacing(
                #""deletions": {"type": "fullScan"}"#,
                with: #""deletions": {"type": "fullScan"}, "push": {"batchSize": 51}"#),
            code: .invalidValue, error: "heroes.source.json: $.resources[0].push.batchSize: Parse's batch holds at most 50 operations (found 51)"),
        BadSource(
            description: "an unknown conflict policy",
            text: replacing(
                #""deletions": {"type": "fullScan"}"#,
                with: #""deletions": {"type": "fullScan"}, "push": {"conflicts": {"policy": "serverwins"}}"#),
            code: .invalidValue,
            error: #"heroes.source.json: $.resources[0].push.conflicts.policy: unknown conflict policy "serverwins" (did you mean 'serverWins'?); "#
                + "known: serverWins, clientWins, merge, manual"),
        BadSource(
            description: "an unknown createKey",
            text: replacing(
                #""deletions": {"type": "fullScan"}"#,
                with: #""deletions": {"type": "fullScan"}, "push": {"createKey": "lookupField:"}"#),
            code: .invalidValue,
            error:
                #"heroes.source.json: $.resources[0].push.createKey: unknown createKey "lookupField:"; known: clientId, requestId, lookupField:ATTRIBUTE, none"#
        ),
        BadSource(
            description: "routes for the Parse dialect",
            text: replacing(
                #""deletions": {"type": "fullScan"}"#,
                with: #""deletions": {"type": "fullScan"}, "push": {"create": {"method": "POST", "path": "x"}}"#),
            code: .invalidValue,
            error: "heroes.source.json: $.resources[0].push.create: the parse dialect's routes are Parse's (POST classes/X, PUT and DELETE "
                + "classes/X/ID, POST batch): 'create' is for APIs without a dialect"),
        BadSource(
            description: "bothChanged without merge",
            text: replacing(
                #""deletions": {"type": "fullScan"}"#,
                with: #""deletions": {"type": "fullScan"}, "push": {"conflicts": {"policy": "manual", "bothChanged": "clientWins"}}"#),
            code: .invalidValue,
            error: "heroes.source.json: $.resources[0].push.conflicts.bothChanged: bothChanged says which side a field changed on both "
                + "sides takes in a merge; the policy is manual"),
        BadSource(
            description: "an unknown bothChanged side",
            text: replacing(
                #""deletions": {"type": "fullScan"}"#,
                with: #""deletions": {"type": "fullScan"}, "push": {"conflicts": {"policy": "merge", "bothChanged": "local"}}"#),
            code: .invalidValue,
            error: #"heroes.source.json: $.resources[0].push.conflicts.bothChanged: unknown bothChanged side "local"; known: serverWins, clientWins"#),
        BadSource(
            description: "ifMatch detection on Parse",
            text: replacing(
                #""deletions": {"type": "fullScan"}"#,
                with: #""deletions": {"type": "fullScan"}, "push": {"conflicts": {"detect": "ifMatch"}}"#),
            code: .invalidValue,
            error: #"heroes.source.json: $.resources[0].push.conflicts.detect: Parse sends no ETags: detect conflicts with "check" (a pre-read of updatedAt)"#),
        BadSource(
            description: "a bad initial value", text: replacing(#""cursor": "updatedAt""#, with: #""cursor": "updatedAt", "initial": "yesterday""#),
            code: .invalidValue,
            error: #"heroes.source.json: $.resources[0].incremental.initial: expected an RFC 3339 date-time or a number, found "yesterday""#),
    ]

    /// A Parse resource's push section: defaults and every key (issue 23.3).
    @Test func aParsePushSectionReads() throws {
        let defaults = try read(Self.replacing(#""deletions": {"type": "fullScan"}"#, with: #""deletions": {"type": "fullScan"}, "push": {}"#))
        #expect(
            defaults.resources[0].push
                == PushConfiguration(
                    batchSize: 50, createKey: .requestId, detect: .check, policy: .serverWins,
                    remoteDeletes: .deleteWins))
        #expect(try read(Self.example).resources[0].push == nil)
        let given = try read(
            Self.replacing(
                #""deletions": {"type": "fullScan"}"#,
                with: #""deletions": {"type": "fullScan"}, "push": "#
                    + #"{"batchSize": 20, "createKey": "lookupField:clientKey", "conflicts": {"detect": "none", "policy": "merge", "#
                    + #""bothChanged": "clientWins"}, "remoteDeletes": "recreate", "stamp": "updatedAt"}"#))
        var expected = PushConfiguration(
            batchSize: 20, createKey: .lookupField("clientKey"), detect: .none, policy: .merge,
            remoteDeletes: .recreate, stamp: "updatedAt")
        expected.bothChanged = .clientWins
        #expect(given.resources[0].push == expected)
        for (text, key) in [("clientId", PushConfiguration.CreateKey.clientId), ("none", .none), ("requestId", .requestId)] {
            let source = try read(
                Self.replacing(
                    #""deletions": {"type": "fullScan"}"#,
                    with: #""deletions": {"type": "fullScan"}, "push": {"createKey": "\#(text)"}"#))
            #expect(source.resources[0].push?.createKey == key)
        }
    }

    /// An API without a dialect names its routes; `update` may send `If-Match`.
    @Test func aRESTPushSectionNamesItsRoutes() throws {
        func source(_ push: String) -> String {
            #"{"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://127.0.0.1:8080/v1/"}, "#
                + #""resources": [{"name": "items", "entity": "Item", "path": "items", "push": \#(push)}]}"#
        }
        let push = try read(
            source(
                #"{"createKey": "requestId", "conflicts": {"detect": "ifMatch", "policy": "manual"}, "#
                    + #""create": {"method": "post", "path": "items"}, "update": {"method": "PATCH", "path": "items/{id}", "ifMatch": true}, "#
                    + #""delete": {"method": "DELETE", "path": "items/{id}"}}"#)
        ).resources[0].push
        #expect(
            push
                == PushConfiguration(
                    batchSize: 1, createKey: .requestId, detect: .ifMatch, policy: .manual, remoteDeletes: .deleteWins,
                    create: .init(method: "POST", path: "items"),
                    update: .init(method: "PATCH", path: "items/{id}", ifMatch: true),
                    delete: .init(method: "DELETE", path: "items/{id}")))
        let cases: [(String, SyncError.Code, String)] = [
            (
                "{}", .missingKey,
                "heroes.source.json: $.resources[0].push: a push section of an API without a dialect needs at least one route: "
                    + #"create, update or delete ({"method": "POST", "path": "items"})"#
            ),
            (
                #"{"update": {"method": "PATCH", "path": "items"}}"#, .invalidValue,
                #"heroes.source.json: $.resources[0].push.update.path: the update path names the object with {id} (found "items")"#
            ),
            (
                #"{"create": {"method": "GET", "path": "items"}}"#, .invalidValue,
                #"heroes.source.json: $.resources[0].push.create.method: unknown method "GET"; known: POST, PUT, PATCH, DELETE"#
            ),
            (
                #"{"create": {"method": "POST", "path": "items", "ifMatch": true}}"#, .unknownKey,
                "heroes.source.json: $.resources[0].push.create.ifMatch: unknown key 'ifMatch' in the create route; allowed keys: method, path"
            ),
            (
                #"{"conflicts": {"detect": "ifMatch"}, "update": {"method": "PUT", "path": "items/{id}"}}"#, .invalidValue,
                #"heroes.source.json: $.resources[0].push.conflicts.detect: detect "ifMatch" needs an update route that sends If-Match ("ifMatch": true)"#
            ),
            (
                #"{"update": {"method": "PUT", "path": "items/{id}", "ifMatch": "yes"}}"#, .wrongType,
                #"heroes.source.json: $.resources[0].push.update.ifMatch: expected true or false, found the string "yes""#
            ),
        ]
        for (push, code, message) in cases {
            let error = try #require(throws: SyncError.self) { try read(source(push)) }
            #expect(error.code == code && error.description == message, "\(push): \(error)")
        }
    }

    @Test(arguments: bad)
    func mistakesAreLocated(_ bad: BadSource) throws {
        let error = try #require(throws: SyncError.self) { try read(bad.text) }
        #expect(error.code == bad.code)
        #expect(error.description == bad.error)
        #expect(!error.description.contains("app-1"))
    }

    @Test func textThatIsNotJSONGivesLineAndColumn() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).source.json")
        try Data("{\"format\": \"trellis-source\",\n  \"client\": {,}}".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let error = try #require(throws: SyncError.self) { try SyncSource(contentsOf: file, environment: [:]) }
        #expect(error.code == .unreadableSource)
        #expect(error.line == 2)
        #expect(error.column == 14)
        #expect(error.description.hasPrefix("\(file.path):2:14: not JSON: "))
    }

    @Test func watermarksCompareAsInstantsNeverAsStrings() throws {
        let a = try #require(Watermark(json: "2024-01-01T01:00:00.000000001+01:00"))
        let b = try #require(Watermark(json: ["__type": "Date", "iso": "2024-01-01T00:00:00.000000001Z"]))
        let c = try #require(Watermark(json: "2024-01-01T00:00:00.000000002Z"))
        #expect(a == b)
        #expect(b < c)  // one nanosecond apart: not truncated
        #expect("2024-01-01T01:00:00.000000001+01:00" > "2024-01-01T00:00:00.000000002Z")  // as strings they would not be
        #expect(Watermark(json: 1_704_067_200_123)! < Watermark(json: "1704067200124")!)
        #expect(Watermark(json: "yesterday") == nil)
        let tie1 = Watermark(text: "2024-01-01T00:00:00.001Z", value: .instant(SyncInstant(rfc3339: "2024-01-01T00:00:00.001Z")!), tieBreaker: "a")
        var tie2 = tie1
        tie2.tieBreaker = "b"
        #expect(tie1 < tie2)
        #expect(SyncInstant(rfc3339: "2015-07-01T12:00:00+0000")?.rfc3339 == "2015-07-01T12:00:00Z")
        #expect(SyncInstant(rfc3339: "2024-02-30T00:00:00Z") == nil)
    }

    @Test func dateOnlyCursorsAreMidnightUTCAndLagByWholeDays() throws {
        let day = try #require(Watermark(json: "2024-05-01"))
        #expect(day == Watermark(json: "2024-05-01T00:00:00Z"))
        #expect(day < Watermark(json: "2024-05-01T00:00:00.000000001Z")!)
        #expect(Watermark(json: "2024-04-30T23:59:59.999Z")! < day)
        #expect(day.lagged(by: 0).text == "2024-05-01")
        #expect(day.lagged(by: 3600).text == "2024-04-30")
        #expect(day.lagged(by: 3600).value == Watermark(json: "2024-04-30T00:00:00Z")!.value)
        #expect(day.lagged(by: 86_400 * 2).text == "2024-04-29")
        #expect(try #require(Watermark(json: "1969-12-31")).lagged(by: 1).text == "1969-12-30")
        #expect(try #require(Watermark(json: "2024-05-01T10:00:00Z")).lagged(by: 3600).text == "2024-05-01T09:00:00Z")
    }
}
