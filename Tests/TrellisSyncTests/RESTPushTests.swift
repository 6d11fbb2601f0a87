import Foundation
import Testing
import Trellis
import TrellisSync
import TrellisTestSupport

/// Issue 23, points 3, 6 and 11: pushing to an API without a dialect (the push section's
/// routes) against the emulator's generic REST mode with ETags: `If-Match` with the stored
/// ETag (`detect: ifMatch`), a 412 settled by each policy, `check` as a `GET` of each object,
/// a write by another client between a read and the `PATCH`, remote deletes, and a create
/// whose answer is lost made once by its `Idempotency-Key`; on every store.
@Suite struct RESTPushTests {
    /// Note (id, title, body, etag: the stamp).
    static func model() throws -> ObjectModel {
        let attribute = SyncTestModels.attribute
        return try ObjectModel(entities: [
            EntityDescription(
                name: "Note",
                attributes: [
                    attribute("id", .string, "id", nil), attribute("title", .string, "title", nil), attribute("body", .string, "body", nil),
                    attribute("etag", .string, "etag", nil),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
    }

    static func source(_ server: TestServer, detect: String, policy: String, remoteDeletes: String = "deleteWins", ifMatch: Bool = true)
        throws -> SyncSource
    {
        try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/rest/", "maxAttempts": 3, "timeoutSeconds": 5},
             "resources": [
               {"name": "notes", "entity": "Note", "path": "notes", "records": "items",
                "push": {"stamp": "etag", "createKey": "requestId", "remoteDeletes": "\#(remoteDeletes)",
                         "conflicts": {"detect": "\#(detect)", "policy": "\#(policy)"},
                         "create": {"method": "POST", "path": "notes"},
                         "update": {"method": "PATCH", "path": "notes/{id}", "ifMatch": \#(ifMatch)},
                         "delete": {"method": "DELETE", "path": "notes/{id}"}}}]}
            """#, server: server)
    }

    /// A store holding the server's notes after a pull.
    static func pulled(
        _ kind: StoreKind, _ server: TestServer, detect: String = "ifMatch", policy: String = "serverWins",
        remoteDeletes: String = "deleteWins", ifMatch: Bool = true
    ) throws -> (TestStore, Synchronizer) {
        let store = try kind.makeStore(model: try model())
        let synchronizer = Synchronizer(
            source: try source(server, detect: detect, policy: policy, remoteDeletes: remoteDeletes, ifMatch: ifMatch),
            context: ObjectContext(store: store.store), clock: RecordingClock().clock)
        _ = try synchronizer.run()
        return (store, synchronizer)
    }

    /// Sets the titles of these notes locally, with the source's push rules (the etag is the base).
    static func retitle(_ titles: [String: String], in store: TestStore, _ synchronizer: Synchronizer) throws {
        let context = ObjectContext(store: store.store, pushRules: synchronizer.pushRules)
        for (id, title) in titles.sorted(by: { $0.key < $1.key }) {
            try #require(try context.fetch("Note", id: .string(id))).setValue(.string(title), forKey: "title")
        }
        try context.save()
    }

    /// The local notes as `id → [title, body, etag]`.
    static func localNotes(_ store: TestStore) throws -> [String: [String?]] {
        let note = store.store.model.entity(named: "Note")!
        var notes: [String: [String?]] = [:]
        for snapshot in try store.snapshots(of: "Note") {
            let values = ["id", "title", "body", "etag"].map { snapshot.attributes[note.attributeIndex(of: $0)!]?.stringValue }
            notes[values[0] ?? "?"] = Array(values.dropFirst())
        }
        return notes
    }

    /// The server's notes as `id → [title, body, etag]`.
    static func serverNotes(_ server: TestServer) throws -> [String: [String?]] {
        var notes: [String: [String?]] = [:]
        for record in try server.data("rest/notes") {
            notes[record["id"]?.stringValue ?? "?"] = ["title", "body", "etag"].map { record[$0]?.stringValue }
        }
        return notes
    }

    /// The requests since the log was reset: method (writes) or GET, path, and If-Match.
    static func requests(_ server: TestServer) throws -> [String] {
        let log = try server.requestLog()
        return log.map { entry in
            let method = entry["method"]?.stringValue ?? "GET"
            let headers = entry["headers"]?.objectValue ?? JSONObject()
            let value = headers.members.first { $0.key.lowercased() == "if-match" }?.value.stringValue
            let ifMatch = value.map { " If-Match \($0)" } ?? ""
            return "\(method) \(entry["path"]?.stringValue ?? "")\(ifMatch)"
        }
    }

    // MARK: - ifMatch

    @Test(arguments: StoreKind.allCases)
    func anUpdateSendsItsBaseAsIfMatchAndKeepsTheNewETag(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0", "--notes", "3"])
        let (store, synchronizer) = try Self.pulled(kind, server)
        let before = try Self.serverNotes(server)
        try Self.retitle(["note1": "Mine"], in: store, synchronizer)
        #expect(try store.store.outbox().map(\.base) == [before["note1"]?[2] ?? nil])
        try server.resetLog()
        let report = try synchronizer.push()
        #expect(report.acknowledged == 1 && report.conflicts == 0 && report.requests == 1)
        #expect(try Self.requests(server) == ["PATCH /rest/notes/note1 If-Match \(before["note1"]?[2] ?? "")"])
        let after = try Self.serverNotes(server)
        #expect(after["note1"]?[0] == "Mine" && after["note1"]?[1] == "text 1" && after["note1"]?[2] != before["note1"]?[2])
        #expect(try Self.localNotes(store) == after)  // the new ETag written here
        #expect(try store.store.outbox() == [])
        let pull = try synchronizer.run()
        #expect(pull.resource("notes")?.counts.updated == 0)
    }

    @Test(arguments: StoreKind.allCases, ["serverWins", "merge", "clientWins", "manual"])
    func a412IsSettledByThePolicy(kind: StoreKind, policy: String) throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0", "--notes", "3"])
        let (store, synchronizer) = try Self.pulled(kind, server, policy: policy)
        let base = try #require(try Self.serverNotes(server)["note1"]?[2] ?? nil)
        try server.mutate([["op": "update", "class": "rest/notes", "id": "note1", "set": ["title": "Theirs", "body": "their text"]]])
        let moved = try #require(try Self.serverNotes(server)["note1"]?[2] ?? nil)
        try Self.retitle(["note1": "Mine", "note2": "Mine too"], in: store, synchronizer)
        try server.resetLog()
        let report = try synchronizer.push()
        let server1 = try #require(try Self.serverNotes(server)["note1"])
        let local1 = try #require(try Self.localNotes(store)["note1"])
        #expect(report.conflicts == 1)
        #expect(try Self.serverNotes(server)["note2"]?[0] == "Mine too")
        switch policy {
        case "serverWins", "merge":
            // merge: title changed on both sides (serverWins), body only on the server's.
            #expect((policy == "merge" ? report.conflictsByPolicy.merge : report.conflictsByPolicy.serverWins) == 1)
            #expect(report.acknowledged == 1)
            #expect(server1 == ["Theirs", "their text", moved])
            #expect(local1 == server1)
            #expect(try store.store.outbox() == [])
            #expect(report.overridden.map(\.serverIdentity) == ["note1"])
            #expect(try Self.requests(server).filter { $0.contains("note1") } == ["PATCH /rest/notes/note1 If-Match \(base)", "GET /rest/notes/note1"])
        case "clientWins":
            #expect(report.conflictsByPolicy.clientWins == 1 && report.acknowledged == 2)
            #expect(server1[0] == "Mine" && server1[1] == "their text")  // only the changed field is sent
            #expect(local1 == ["Mine", "text 1", server1[2]])
            #expect(try store.store.outbox() == [])
            #expect(try Self.requests(server).filter { $0.contains("note1") } == ["PATCH /rest/notes/note1 If-Match \(base)", "PATCH /rest/notes/note1"])
        default:
            #expect(report.conflictsByPolicy.manual == 1 && report.acknowledged == 1)
            #expect(server1 == ["Theirs", "their text", moved])
            #expect(local1 == ["Mine", "text 1", base])
            let rows = try store.store.outbox()
            #expect(rows.map(\.state) == [.conflict])
            #expect(
                rows.first?.lastError == "HTTP 412: the server's ETag is \(moved), not the base \(base); resolve with --resolve Note:note1 --take local|server")
            #expect(try synchronizer.resolveConflict(entity: "Note", serverIdentity: "note1", take: .local) == 1)
            let again = try synchronizer.push()
            #expect(again.acknowledged == 1 && again.conflicts == 0)
            #expect(try Self.serverNotes(server)["note1"]?[0] == "Mine")
            #expect(try store.store.outbox() == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aWriteBetweenThePreReadAndThePatchIsCaughtByIfMatch(kind: StoreKind) throws {
        // detect check with an If-Match route: the pre-read finds the base current, another
        // client writes before the PATCH, the PATCH's If-Match fails: serverWins.
        let server = try TestServer(["--heroes", "0", "--ties", "0", "--notes", "3"])
        let (store, synchronizer) = try Self.pulled(kind, server, detect: "check")
        try Self.retitle(["note1": "Mine"], in: store, synchronizer)
        try server.faults([["match": "/rest/notes/note1", "after": [["op": "update", "class": "rest/notes", "id": "note1", "set": ["title": "Between"]]]]])
        try server.resetLog()
        let report = try synchronizer.push()
        #expect(report.conflicts == 1 && report.conflictsByPolicy.serverWins == 1 && report.acknowledged == 0)
        let server1 = try #require(try Self.serverNotes(server)["note1"])
        #expect(server1[0] == "Between")
        #expect(try Self.localNotes(store)["note1"] == server1)
        #expect(try store.store.outbox() == [])
        #expect(
            try Self.requests(server).map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == [
                "GET /rest/notes/note1", "PATCH /rest/notes/note1", "GET /rest/notes/note1",
            ])
    }

    @Test(arguments: StoreKind.allCases)
    func aWriteJustBeforeThePatchIsA412AndCheckWithoutIfMatchLosesIt(kind: StoreKind) throws {
        for ifMatch in [true, false] {
            let server = try TestServer(["--heroes", "0", "--ties", "0", "--notes", "3"])
            let (store, synchronizer) = try Self.pulled(kind, server, detect: ifMatch ? "ifMatch" : "check", ifMatch: ifMatch)
            try Self.retitle(["note1": "Mine"], in: store, synchronizer)
            try server.faults([
                [
                    "match": "/rest/notes/note1", "method": "PATCH",
                    "before": [["op": "update", "class": "rest/notes", "id": "note1", "set": ["body": "new body"]]],
                ]
            ])
            let report = try synchronizer.push()
            let server1 = try #require(try Self.serverNotes(server)["note1"])
            if ifMatch {
                #expect(report.conflicts == 1 && report.conflictsByPolicy.serverWins == 1)
                #expect(server1[0] == "Note 1" && server1[1] == "new body")
                #expect(try Self.localNotes(store)["note1"] == server1)
            } else {
                // The pre-read saw the base current; the PATCH (without If-Match) lands on the newer copy.
                #expect(report.conflicts == 0 && report.acknowledged == 1)
                #expect(server1[0] == "Mine" && server1[1] == "new body")
            }
            #expect(try store.store.outbox() == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aLocalDeleteIsSentWithoutAPrecondition(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0", "--notes", "3"])
        let (store, synchronizer) = try Self.pulled(kind, server)
        try server.mutate([["op": "update", "class": "rest/notes", "id": "note3", "set": ["title": "Theirs"]]])
        let context = ObjectContext(store: store.store, pushRules: synchronizer.pushRules)
        _ = try context.delete(try #require(try context.fetch("Note", id: .string("note3"))))
        try context.save()
        try server.resetLog()
        let report = try synchronizer.push()
        #expect(report.acknowledged == 1 && report.conflicts == 0)
        #expect(try Self.requests(server) == ["DELETE /rest/notes/note3"])
        #expect(try Self.serverNotes(server)["note3"] == nil)
        #expect(try store.store.outbox() == [])
    }

    // MARK: - Remote deletes and creates

    @Test(arguments: StoreKind.allCases, ["deleteWins", "recreate"])
    func aPatchOfAnObjectTheServerDeletedFollowsRemoteDeletes(kind: StoreKind, remoteDeletes: String) throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0", "--notes", "3"])
        let (store, synchronizer) = try Self.pulled(kind, server, remoteDeletes: remoteDeletes)
        try server.mutate([["op": "delete", "class": "rest/notes", "id": "note2"]])
        try Self.retitle(["note2": "Mine"], in: store, synchronizer)
        let report = try synchronizer.push()
        #expect(report.conflicts == 1)
        #expect(try store.store.outbox() == [])
        if remoteDeletes == "deleteWins" {
            #expect(report.conflictsByPolicy.deleteWins == 1)
            #expect(try Self.localNotes(store)["note2"] == nil)
            #expect(try Self.serverNotes(server)["note2"] == nil)
            #expect(report.overridden.map(\.serverIdentity) == ["note2"])
        } else {
            // Created again with every field, under the id the server gives (requestId).
            #expect(report.conflictsByPolicy.recreate == 1 && report.acknowledged == 1)
            let server2 = try #require(try Self.serverNotes(server)["r000001"])
            #expect(server2[0] == "Mine" && server2[1] == "text 2")
            #expect(try Self.localNotes(store)["r000001"] == server2)
            #expect(try Self.localNotes(store)["note2"] == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aCreateWhoseAnswerIsLostIsMadeOnceByItsIdempotencyKey(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0", "--notes", "1"])
        let (store, synchronizer) = try Self.pulled(kind, server)
        let context = ObjectContext(store: store.store, pushRules: synchronizer.pushRules)
        let note = try context.insert("Note")
        try note.setValue(.string("New"), forKey: "title")
        try context.save()
        try server.faults([["match": "/rest/notes", "method": "POST", "drop": true, "times": 1]])
        let report = try synchronizer.push()
        #expect(report.acknowledged == 1 && report.reconciled == 1)
        let notes = try Self.serverNotes(server)
        #expect(notes.keys.sorted() == ["note1", "r000001"])  // once
        #expect(try Self.localNotes(store) == notes)
        let keys = try server.writes().compactMap { $0["requestId"]?.stringValue }
        #expect(keys.count == 1)
        #expect(try store.store.outbox() == [])
    }
}

extension RESTPushTests {
    /// A push section the sending cannot serve is a located error before anything is sent.
    @Test func aLookupFieldOrAnUnknownStampIsRefusedBeforeSending() throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0", "--notes", "1"])
        let store = try StoreKind.inMemory.makeStore(model: try Self.model())
        for (push, message) in [
            (
                #"{"createKey": "lookupField:title", "create": {"method": "POST", "path": "notes"}}"#,
                "createKey lookupField is looked up with Parse's $in query; an API without a dialect takes clientId, requestId or none"
            ),
            (#"{"stamp": "version", "create": {"method": "POST", "path": "notes"}}"#, "stamp version: Note has no attribute version"),
        ] {
            let source = try SyncTest.source(
                #"""
                {"format": "trellis-source", "formatVersion": 1, "client": {"baseURL": "http://127.0.0.1:PORT/rest/"},
                 "resources": [{"name": "notes", "entity": "Note", "path": "notes", "records": "items", "push": \#(push)}]}
                """#, server: server)
            let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store.store))
            do {
                _ = try synchronizer.push()
                Issue.record("expected an error for \(push)")
            } catch let error as SyncError {
                #expect(error.code == .invalidValue)
                #expect(error.resource == "notes" && error.entity == "Note")
                #expect(error.message == message)
            }
        }
        #expect(try server.writes() == [])
    }
}
