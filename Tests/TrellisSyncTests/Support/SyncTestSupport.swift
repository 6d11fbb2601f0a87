import Foundation
import Trellis
import TrellisSync
import TrellisTestSupport

/// A clock for the HTTP client that records the waits it is asked for instead of sleeping,
/// and draws its jitter from a fixed sequence.
final class RecordingClock: @unchecked Sendable {
    // SAFETY: `sleeps` and `draws` are read and written only while `lock` is held.
    private let lock = NSLock()
    private var sleeps: [Double] = []
    private var draw = 0
    let randoms: [Double]
    let fixedNow: Date?

    init(randoms: [Double] = [0.5], now: Date? = nil) {
        self.randoms = randoms
        self.fixedNow = now
    }

    var waits: [Double] { lock.withLock { sleeps } }

    var clock: ClientClock {
        ClientClock(
            now: { [self] in fixedNow ?? Date() },
            sleep: { [self] seconds in lock.withLock { sleeps.append(seconds) } },
            random: { [self] in
                lock.withLock {
                    defer { draw += 1 }
                    return randoms[draw % randoms.count]
                }
            })
    }
}

/// Helpers shared by the sync suites.
enum SyncTest {
    /// A source read from JSON text (`PORT` replaced by the server's port).
    static func source(_ text: String, server: TestServer, environment: [String: String] = [:]) throws -> SyncSource {
        let json = try JSONReader.parse(text.replacingOccurrences(of: "PORT", with: String(server.port)))
        return try SyncSource(json: json, environment: environment, file: "test.source.json")
    }

    /// The Parse source of the heroes (limit 100, incremental, full-scan deletions).
    static func parseSource(
        server: TestServer, limit: Int? = 100, deletions: String = #"{"type": "fullScan"}"#,
        maxAttempts: Int = 3
    ) throws -> SyncSource {
        let params = limit.map { #""params": {"limit": \#($0)},"# } ?? ""
        return try source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/parse/",
                        "headers": {"X-Parse-Application-Id": "${env:PARSE_APP_ID}", "X-Parse-REST-API-Key": "${env:PARSE_KEY}"},
                        "dialect": "parse", "maxAttempts": \#(maxAttempts), "timeoutSeconds": 10},
             "resources": [{"name": "heroes", "entity": "Hero", "path": "classes/Hero", "records": "results", \#(params)
                            "paginator": {"type": "parse"}, "incremental": {"cursor": "updatedAt"},
                            "deletions": \#(deletions)}]}
            """#, server: server, environment: ["PARSE_APP_ID": "test-app", "PARSE_KEY": "k3y-s3cr3t"])
    }

    /// The differences between the stored heroes and the server's (empty when the store
    /// holds exactly the server's records: no duplicate, none missing, same values).
    static func heroDifferences(_ store: TestStore, _ server: TestServer) throws -> [String] {
        let model = store.store.model
        let hero = model.entity(named: "Hero")!
        let stored = try store.snapshots(of: "Hero").filter { !$0.isPlaceholder }
        var byID: [String: ObjectSnapshot] = [:]
        var problems: [String] = []
        for snapshot in stored {
            let id = snapshot.attributes[hero.attributeIndex(of: "objectId")!]?.stringValue ?? "?"
            if byID[id] != nil { problems.append("\(id) stored twice") }
            byID[id] = snapshot
        }
        let records = try server.data("Hero")
        for record in records {
            guard let id = record["objectId"]?.stringValue else { continue }
            guard let snapshot = byID.removeValue(forKey: id) else {
                problems.append("\(id) missing")
                continue
            }
            func value(_ name: String) -> AttributeValue? { snapshot.attributes[hero.attributeIndex(of: name)!] }
            if value("name")?.stringValue != record["name"]?.stringValue { problems.append("\(id) name \(String(describing: value("name")))") }
            if case .date(let date)? = value("updatedAt"), let text = record["updatedAt"]?.stringValue,
                let instant = SyncInstant(rfc3339: text), SyncInstant(date) == instant
            {
            } else {
                problems.append("\(id) updatedAt \(String(describing: value("updatedAt"))) vs \(record["updatedAt"].map { "\($0)" } ?? "nil")")
            }
        }
        problems += byID.keys.sorted().map { "\($0) stored but not on the server" }
        return problems
    }

    /// The differences between the stored items and the server's list.
    static func itemDifferences(_ store: TestStore, _ server: TestServer) throws -> [String] {
        let entity = store.store.model.entity(named: "Item")!
        var stored: [Int64: String] = [:]
        var problems: [String] = []
        for snapshot in try store.snapshots(of: "Item") {
            let id = snapshot.attributes[entity.attributeIndex(of: "id")!]?.integerValue ?? -1
            let updated = snapshot.attributes[entity.attributeIndex(of: "updatedAt")!].map { "\($0)" } ?? "nil"
            if stored[id] != nil { problems.append("\(id) stored twice") }
            stored[id] = updated
        }
        for record in try server.data("items") {
            guard let id = record["id"]?.int64Value else { continue }
            guard let updated = stored.removeValue(forKey: id) else {
                problems.append("item \(id) missing")
                continue
            }
            let expected = record["updated_at"]?.stringValue.flatMap(SyncInstant.init(rfc3339:))
            if expected.map({ "\(AttributeValue.date($0.date))" }) != updated { problems.append("item \(id) updatedAt \(updated)") }
        }
        problems += stored.keys.sorted().map { "item \($0) stored but not on the server" }
        return problems
    }
}
