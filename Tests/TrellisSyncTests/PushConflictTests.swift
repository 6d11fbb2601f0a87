import Foundation
import Testing
import Trellis
import TrellisSync
import TrellisTestSupport

/// Issue 23, point 6: conflicts detected by the server's stamps (a pre-read of `updatedAt`,
/// `detect: check`) and settled by each policy, remote deletes by `remoteDeletes`, against the
/// loopback Parse emulator, on every store. Each case pins the server's fields, the local
/// fields, the outbox rows left and the report's counts.
@Suite struct PushConflictTests {
    /// The heroes and teams of ``PushTests/model()`` pushed with `push` as the heroes' push section.
    static func pulled(_ kind: StoreKind, _ server: TestServer, push: String) throws -> (TestStore, Synchronizer) {
        let store = try kind.makeStore(model: try PushTests.model())
        let source = try SyncTest.source(
            #"""
            {"format": "trellis-source", "formatVersion": 1,
             "client": {"baseURL": "http://127.0.0.1:PORT/parse/", "headers": {"X-Parse-Application-Id": "test-app"},
                        "dialect": "parse", "maxAttempts": 3, "timeoutSeconds": 5},
             "resources": [
               {"name": "heroes", "entity": "Hero", "path": "classes/Hero", "params": {"limit": 100}, "incremental": {"cursor": "updatedAt"},
                "push": \#(push)}]}
            """#, server: server)
        let synchronizer = Synchronizer(source: source, context: ObjectContext(store: store.store), clock: RecordingClock().clock)
        _ = try synchronizer.run()
        return (store, synchronizer)
    }

    /// A pulled store of 4 heroes whose first two are renamed locally (`ID edited`) after the
    /// server renamed the first (`Server name`): the first is a conflict, the second is not.
    static func staleEdit(
        _ kind: StoreKind, policy: String, detect: String = "check", bothChanged: String? = nil
    ) throws -> (TestServer, TestStore, Synchronizer, [String]) {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let side = bothChanged.map { #", "bothChanged": "\#($0)""# } ?? ""
        let (store, synchronizer) = try pulled(
            kind, server, push: #"{"createKey": "clientId", "conflicts": {"detect": "\#(detect)", "policy": "\#(policy)"\#(side)}}"#)
        let ids = try PushTests.heroIDs(server, 4)
        try server.mutate([["op": "update", "class": "Hero", "objectId": .string(ids[0]), "set": ["name": "Server name", "power": 1]]])
        try PushTests.rename(Array(ids[0..<2]), in: store)
        try server.resetLog()
        return (server, store, synchronizer, ids)
    }

    /// The server's record of hero `id`.
    static func serverHero(_ server: TestServer, _ id: String) throws -> JSONValue? {
        try server.data("Hero").first { $0["objectId"]?.stringValue == id }
    }

    /// The local hero `id`'s name, power and updatedAt (RFC 3339 text).
    static func localHero(_ store: TestStore, _ id: String) throws -> (name: String?, power: Int64?, updatedAt: String?)? {
        let hero = store.store.model.entity(named: "Hero")!
        guard
            let snapshot = try store.snapshots(of: "Hero").first(where: {
                $0.attributes[hero.attributeIndex(of: "objectId")!]?.stringValue == id
            })
        else { return nil }
        let stamp = snapshot.attributes[hero.attributeIndex(of: "updatedAt")!].map { JSONCoercion.json(from: $0, as: .date).stringValue }
        var power: Int64?
        if case .integer(let p)? = snapshot.attributes[hero.attributeIndex(of: "power")!] { power = p }
        return (snapshot.attributes[hero.attributeIndex(of: "name")!]?.stringValue, power, stamp ?? nil)
    }

    /// `GET`/`PUT`… and the path's first components, of every request since the log was reset.
    static func requests(_ server: TestServer) throws -> [String] {
        try server.requestedPaths().map { path in
            let plain = path.split(separator: "?").first.map(String.init) ?? path
            return plain + (path.contains("keys=updatedAt") ? " (stamps)" : "")
        }
    }

    // MARK: - Detection

    @Test(arguments: StoreKind.allCases)
    func checkPreReadsTheStampsOncePerClassAndSendsWhatIsCurrent(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let (store, synchronizer) = try Self.pulled(kind, server, push: #"{"createKey": "clientId"}"#)
        let ids = try PushTests.heroIDs(server, 4)
        try PushTests.rename(Array(ids[0..<3]), in: store)
        try server.resetLog()
        let report = try synchronizer.push()
        #expect(report.conflicts == 0 && report.acknowledged == 3 && report.conflictsByPolicy == PushReport.ConflictCounts())
        let requests = try Self.requests(server)
        #expect(requests == ["/parse/classes/Hero (stamps)", "/parse/batch"])
        #expect(report.requests == 2 && report.batches == 1)
        let preRead = try #require(try server.requestedPaths().first?.removingPercentEncoding)
        #expect(preRead.contains(#"where={"objectId":{"$in":["\#(ids[0..<3].sorted().joined(separator: #"",""#))"]}}"#))
        #expect(try store.store.outbox() == [])
    }

    @Test(arguments: StoreKind.allCases)
    func detectNoneIsLastWriterWins(kind: StoreKind) throws {
        let (server, store, synchronizer, ids) = try Self.staleEdit(kind, policy: "serverWins", detect: "none")
        let report = try synchronizer.push()
        #expect(report.conflicts == 0 && report.acknowledged == 2)
        let requests = try Self.requests(server)
        #expect(requests == ["/parse/batch"])  // no pre-read
        #expect(try Self.serverHero(server, ids[0])?["name"] == .string("\(ids[0]) edited"))
        #expect(try Self.serverHero(server, ids[0])?["power"] == 1)  // the field the change did not touch keeps the server's value
        #expect(try store.store.outbox() == [])
    }

    // MARK: - Policies

    @Test(arguments: StoreKind.allCases)
    func serverWinsWritesTheServerCopyHereAndReportsTheChangeOverridden(kind: StoreKind) throws {
        let (server, store, synchronizer, ids) = try Self.staleEdit(kind, policy: "serverWins")
        let report = try synchronizer.push()
        #expect(report.conflicts == 1 && report.conflictsByPolicy.serverWins == 1 && report.conflictsByPolicy.summary == "serverWins 1")
        #expect(report.acknowledged == 1 && report.sent == 1)
        let server0 = try #require(try Self.serverHero(server, ids[0]))
        #expect(server0["name"] == "Server name" && server0["power"] == 1)
        #expect(try Self.serverHero(server, ids[1])?["name"] == .string("\(ids[1]) edited"))
        let local = try #require(try Self.localHero(store, ids[0]))
        #expect(local.name == "Server name" && local.power == 1 && local.updatedAt == server0["updatedAt"]?.stringValue)
        #expect(try store.store.outbox() == [])
        #expect(
            report.overridden == [
                PushReport.Problem(
                    entity: "Hero", serverIdentity: ids[0], operation: .update, state: .pending,
                    message: "overridden by the server's copy (updatedAt \(server0["updatedAt"]?.stringValue ?? "")); local fields name not sent")
            ])
        // Stamps, then the server's copy, then the one operation that was current, as its own request.
        let requests = try Self.requests(server)
        #expect(requests == ["/parse/classes/Hero (stamps)", "/parse/classes/Hero", "/parse/classes/Hero/\(ids[1])"])
        let json = report.json
        #expect(json["conflictsByPolicy"] == ["serverWins": 1, "clientWins": 0, "merge": 0, "manual": 0, "deleteWins": 0, "recreate": 0])
        #expect(json["overridden"]?.arrayValue?.count == 1)
        // The server's copy is what the next pull finds: nothing changes, nothing is recorded.
        let pull = try synchronizer.run()
        #expect(pull.resource("heroes")?.counts.updated == 0)
        #expect(try store.store.outbox() == [])
    }

    @Test(arguments: StoreKind.allCases)
    func clientWinsSendsTheChangeAnyway(kind: StoreKind) throws {
        let (server, store, synchronizer, ids) = try Self.staleEdit(kind, policy: "clientWins")
        let report = try synchronizer.push()
        #expect(report.conflicts == 1 && report.conflictsByPolicy.clientWins == 1 && report.acknowledged == 2)
        let server0 = try #require(try Self.serverHero(server, ids[0]))
        #expect(server0["name"] == .string("\(ids[0]) edited"))
        #expect(server0["power"] == 1)  // only the changed field is sent
        let local = try #require(try Self.localHero(store, ids[0]))
        #expect(local.name == "\(ids[0]) edited" && local.updatedAt == server0["updatedAt"]?.stringValue)
        #expect(report.overridden == [])
        #expect(try store.store.outbox() == [])
    }

    @Test(arguments: StoreKind.allCases)
    func manualLeavesTheRowInConflictUntilResolvedForTheServer(kind: StoreKind) throws {
        let (server, store, synchronizer, ids) = try Self.staleEdit(kind, policy: "manual")
        let report = try synchronizer.push()
        #expect(report.conflicts == 1 && report.conflictsByPolicy.manual == 1 && report.acknowledged == 1)
        #expect(try Self.serverHero(server, ids[0])?["name"] == "Server name")
        #expect(try Self.localHero(store, ids[0])?.name == "\(ids[0]) edited")
        let rows = try store.store.outbox()
        #expect(rows.map(\.state) == [.conflict] && rows.map(\.serverIdentity) == [[.string(ids[0])]])
        let message = try #require(rows.first?.lastError)
        #expect(message.hasPrefix("the server changed Hero \(ids[0]) since the change was made (updatedAt "))
        #expect(message.hasSuffix("; resolve with --resolve Hero:\(ids[0]) --take local|server"))
        #expect(report.problems.map(\.state) == [.conflict])
        // A later push leaves it alone.
        #expect(try synchronizer.push().sent == 0)
        #expect(try store.store.outbox().map(\.state) == [.conflict])

        #expect(throws: SyncError.self) { try synchronizer.resolveConflict(entity: "Hero", serverIdentity: ids[1], take: .server) }
        #expect(try synchronizer.resolveConflict(entity: "Hero", serverIdentity: ids[0], take: .server) == 1)
        #expect(try store.store.outbox() == [])
        let local = try #require(try Self.localHero(store, ids[0]))
        #expect(local.name == "Server name" && local.power == 1)
        let serverStamp = try Self.serverHero(server, ids[0])?["updatedAt"]?.stringValue
        #expect(local.updatedAt == serverStamp)
        #expect(try synchronizer.push().sent == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func manualResolvedForTheLocalChangeSendsItOnTheServersCurrentStamp(kind: StoreKind) throws {
        let (server, store, synchronizer, ids) = try Self.staleEdit(kind, policy: "manual")
        _ = try synchronizer.push()
        do {
            try synchronizer.resolveConflict(entity: "Hero", serverIdentity: "nope", take: .local)
            Issue.record("expected an error")
        } catch let error as SyncError {
            #expect(error.code == .invalidValue)
            #expect(error.message == "the outbox holds no conflict of Hero:nope (its conflicts: Hero:\(ids[0]))")
        }
        #expect(try synchronizer.resolveConflict(entity: "Hero", serverIdentity: ids[0], take: .local) == 1)
        let row = try #require(try store.store.outbox().first)
        let serverStamp = try Self.serverHero(server, ids[0])?["updatedAt"]?.stringValue
        #expect(row.state == .pending && row.base == serverStamp)
        let report = try synchronizer.push()
        #expect(report.conflicts == 0 && report.acknowledged == 1)
        #expect(try Self.serverHero(server, ids[0])?["name"] == .string("\(ids[0]) edited"))
        #expect(try Self.serverHero(server, ids[0])?["power"] == 1)
        #expect(try store.store.outbox() == [])
    }

    @Test(arguments: StoreKind.allCases, ["serverWins", "clientWins"])
    func mergeTakesTheServersFieldsAndSettlesAFieldChangedOnBothByBothChanged(kind: StoreKind, bothChanged: String) throws {
        // The server changed name and power, this side name: power is the server's either way;
        // name was changed on both sides (it differs from its base value on both).
        let (server, store, synchronizer, ids) = try Self.staleEdit(kind, policy: "merge", bothChanged: bothChanged)
        let report = try synchronizer.push()
        #expect(report.conflicts == 1 && report.conflictsByPolicy.merge == 1 && report.conflictsByPolicy.summary == "merge 1")
        let server0 = try #require(try Self.serverHero(server, ids[0]))
        let local = try #require(try Self.localHero(store, ids[0]))
        #expect(server0["power"] == 1 && local.power == 1)
        #expect(local.updatedAt == server0["updatedAt"]?.stringValue)
        #expect(try store.store.outbox() == [])
        if bothChanged == "serverWins" {
            #expect(server0["name"] == "Server name" && local.name == "Server name")
            #expect(report.acknowledged == 1)
            #expect(report.overridden.map(\.message).first?.hasSuffix("): the server's values kept for name") == true)
        } else {
            #expect(server0["name"] == .string("\(ids[0]) edited") && local.name == "\(ids[0]) edited")
            #expect(report.acknowledged == 2 && report.overridden == [])
        }
    }

    /// Three-way with the outbox's base values: the server changed only power, this side only
    /// name; merge sends the name (the server still holds its base value) and keeps the
    /// server's power, whatever `bothChanged` says: nothing was changed on both sides.
    @Test(arguments: StoreKind.allCases)
    func mergeSendsAFieldOnlyThisSideChangedAndTakesOneOnlyTheServerChanged(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let (store, synchronizer) = try Self.pulled(
            kind, server, push: #"{"createKey": "clientId", "conflicts": {"detect": "check", "policy": "merge", "bothChanged": "serverWins"}}"#)
        let ids = try PushTests.heroIDs(server, 4)
        try PushTests.rename([ids[0]], in: store)
        let row = try #require(try store.store.outbox().first)
        #expect(row.baseValues == ["name": .string("Hero 0")] || row.baseValues.keys.sorted() == ["name"])
        try server.mutate([["op": "update", "class": "Hero", "objectId": .string(ids[0]), "set": ["power": 77]]])
        let report = try synchronizer.push()
        #expect(report.conflicts == 1 && report.conflictsByPolicy.merge == 1)
        #expect(report.overridden == [])
        let server0 = try #require(try Self.serverHero(server, ids[0]))
        let local = try #require(try Self.localHero(store, ids[0]))
        #expect(server0["name"] == .string("\(ids[0]) edited") && local.name == "\(ids[0]) edited")
        #expect(server0["power"] == 77 && local.power == 77)
        #expect(local.updatedAt == server0["updatedAt"]?.stringValue)
        #expect(try store.store.outbox() == [])
    }

    @Test(arguments: StoreKind.allCases, ["merge", "manual"])
    func theSameChangeOnBothSidesIsNoConflict(kind: StoreKind, policy: String) throws {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let (store, synchronizer) = try Self.pulled(kind, server, push: #"{"createKey": "clientId", "conflicts": {"policy": "\#(policy)"}}"#)
        let ids = try PushTests.heroIDs(server, 1)
        try server.mutate([["op": "update", "class": "Hero", "objectId": .string(ids[0]), "set": ["name": .string("\(ids[0]) edited")]]])
        try PushTests.rename([ids[0]], in: store)
        try server.resetLog()
        let report = try synchronizer.push()
        #expect(report.conflicts == 0 && report.acknowledged == 1 && report.sent == 0 && report.overridden == [])
        #expect(try server.writes() == [])
        let local = try #require(try Self.localHero(store, ids[0]))
        let stamp = try Self.serverHero(server, ids[0])?["updatedAt"]?.stringValue
        #expect(local.name == "\(ids[0]) edited" && local.updatedAt == stamp)
        #expect(try store.store.outbox() == [])
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateAppliedWhoseAnswerWasLostIsNotSentAgainNorAConflict(kind: StoreKind) throws {
        // The batch is applied and its answer lost: the updates go back to pending, and the next
        // round's pre-read finds the server moved past their base, holding their values.
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let (store, synchronizer) = try Self.pulled(kind, server, push: #"{"createKey": "clientId", "conflicts": {"policy": "manual"}}"#)
        let ids = try PushTests.heroIDs(server, 2)
        try PushTests.rename(ids, in: store)
        try server.faults([["match": "batch", "method": "POST", "drop": true, "times": 1]])
        let report = try synchronizer.push()
        #expect(report.conflicts == 0 && report.acknowledged == 2 && report.retried == 2 && report.sent == 2)
        #expect(try server.writes().map { $0["method"]?.stringValue ?? "" } == ["PUT", "PUT"])  // once each
        for id in ids {
            let local = try #require(try Self.localHero(store, id))
            let record = try #require(try Self.serverHero(server, id))
            #expect(record["name"] == .string("\(id) edited") && local.name == "\(id) edited")
            #expect(local.updatedAt == record["updatedAt"]?.stringValue)
        }
        #expect(try store.store.outbox() == [])
    }

    @Test(arguments: StoreKind.allCases, [ConflictResolution.local, .server])
    func resolvingAConflictOfAnObjectTheServerDeletedSinceRecreatesOrDeletesIt(kind: StoreKind, take: ConflictResolution) throws {
        let (server, store, synchronizer, ids) = try Self.staleEdit(kind, policy: "manual")
        try server.configure(["allowCustomObjectId": true])
        _ = try synchronizer.push()
        #expect(try store.store.outbox().map(\.state) == [.conflict])
        try server.mutate([["op": "delete", "class": "Hero", "objectId": .string(ids[0])]])
        #expect(try synchronizer.resolveConflict(entity: "Hero", serverIdentity: ids[0], take: take) == 1)
        if take == .server {
            #expect(try Self.localHero(store, ids[0]) == nil)
            #expect(try store.store.outbox() == [])
            #expect(synchronizer.lastReport.push?.overridden.map(\.serverIdentity) == [ids[0]])
        } else {
            #expect(try store.store.outbox().map(\.operation) == [.create])
            let report = try synchronizer.push()
            #expect(report.acknowledged == 1)
            let recreated = try #require(try Self.serverHero(server, ids[0]))  // clientId: the same objectId
            #expect(recreated["name"] == .string("\(ids[0]) edited"))
            #expect(try Self.localHero(store, ids[0])?.updatedAt == recreated["updatedAt"]?.stringValue)
            #expect(try store.store.outbox() == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aLocalDeleteBeatsARemoteUpdate(kind: StoreKind) throws {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let (store, synchronizer) = try Self.pulled(kind, server, push: #"{"createKey": "clientId", "conflicts": {"policy": "serverWins"}}"#)
        let ids = try PushTests.heroIDs(server, 4)
        try server.mutate([["op": "update", "class": "Hero", "objectId": .string(ids[0]), "set": ["name": "Server name"]]])
        let context = ObjectContext(store: store.store)
        _ = try context.delete(try #require(try context.fetch("Hero", id: .string(ids[0]))))
        try context.save()
        let report = try synchronizer.push()
        #expect(report.conflicts == 0 && report.acknowledged == 1)
        #expect(try Self.serverHero(server, ids[0]) == nil)
        #expect(try Self.localHero(store, ids[0]) == nil)
        #expect(try store.store.outbox() == [])
    }

    // MARK: - Remote deletes

    @Test(arguments: StoreKind.allCases, ["check", "none"])
    func deleteWinsDeletesTheObjectHereAndReportsTheChange(kind: StoreKind, detect: String) throws {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let (store, synchronizer) = try Self.pulled(
            kind, server, push: #"{"createKey": "clientId", "conflicts": {"detect": "\#(detect)"}, "remoteDeletes": "deleteWins"}"#)
        let ids = try PushTests.heroIDs(server, 4)
        try server.mutate([["op": "delete", "class": "Hero", "objectId": .string(ids[0])]])
        try PushTests.rename(Array(ids[0..<2]), in: store)
        let report = try synchronizer.push()
        #expect(report.conflicts == 1 && report.conflictsByPolicy.deleteWins == 1 && report.conflictsByPolicy.summary == "deleteWins 1")
        #expect(report.acknowledged == 1)
        #expect(try Self.serverHero(server, ids[0]) == nil)
        #expect(try Self.localHero(store, ids[0]) == nil)
        #expect(try Self.localHero(store, ids[1])?.name == "\(ids[1]) edited")
        #expect(try store.store.outbox() == [])
        #expect(report.overridden.map(\.serverIdentity) == [ids[0]])
        #expect(report.overridden.first?.message == "dropped: the object was deleted on the server, and here too (remoteDeletes deleteWins)")
        // check: the pre-read saw it gone, nothing was sent for it; none: its PUT got 101.
        #expect(report.sent == (detect == "check" ? 1 : 2))
    }

    @Test(arguments: StoreKind.allCases, ["check", "none"])
    func recreateCreatesTheObjectAgainWithAllItsFields(kind: StoreKind, detect: String) throws {
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        try server.configure(["allowCustomObjectId": true])
        let (store, synchronizer) = try Self.pulled(
            kind, server, push: #"{"createKey": "clientId", "conflicts": {"detect": "\#(detect)"}, "remoteDeletes": "recreate"}"#)
        let ids = try PushTests.heroIDs(server, 4)
        let power = try #require(try Self.localHero(store, ids[0])?.power)
        try server.mutate([["op": "delete", "class": "Hero", "objectId": .string(ids[0])]])
        try PushTests.rename([ids[0]], in: store)
        try server.resetLog()
        let report = try synchronizer.push()
        #expect(report.conflicts == 1 && report.conflictsByPolicy.recreate == 1 && report.acknowledged == 1)
        let recreated = try #require(try Self.serverHero(server, ids[0]))
        #expect(recreated["name"] == .string("\(ids[0]) edited"))
        #expect(recreated["power"] == .number(JSONNumber(power)))  // every field, not only the changed one
        #expect(recreated["team"]?["objectId"] != nil)
        #expect(try server.writes().map { $0["method"]?.stringValue ?? "" } == ["POST"])
        let local = try #require(try Self.localHero(store, ids[0]))
        #expect(local.updatedAt == recreated["updatedAt"]?.stringValue)
        #expect(try store.store.outbox() == [])
        #expect(report.overridden == [])
    }

    @Test(arguments: StoreKind.allCases)
    func deleteWinsDeniedByTheModelLeavesTheRowInConflict(kind: StoreKind) throws {
        // Team.heroes denies deleting a team that has heroes: the remote delete cannot be followed here.
        let attribute = SyncTestModels.attribute
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Hero",
                attributes: [
                    attribute("objectId", .string, "objectId", nil), attribute("name", .string, "name", nil), attribute("updatedAt", .date, "updatedAt", nil),
                ],
                relationships: [RelationshipDescription(name: "team", destinationEntity: "Team", inverseName: "heroes", userInfo: ["JSONKeyPath": "team"])],
                userInfo: ["identityAttributes": "objectId"]),
            EntityDescription(
                name: "Team",
                attributes: [
                    attribute("objectId", .string, "objectId", nil), attribute("name", .string, "name", nil), attribute("updatedAt", .date, "updatedAt", nil),
                ],
                relationships: [RelationshipDescription(name: "heroes", destinationEntity: "Hero", inverseName: "team", isToMany: true, deleteRule: .deny)],
                userInfo: ["identityAttributes": "objectId"]),
        ])
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let store = try kind.makeStore(model: model)
        let synchronizer = Synchronizer(
            source: try PushTests.source(server), context: ObjectContext(store: store.store), clock: RecordingClock().clock)
        _ = try synchronizer.run()
        try server.mutate([["op": "delete", "class": "Team", "objectId": "team00"]])
        let context = ObjectContext(store: store.store)
        try #require(try context.fetch("Team", id: .string("team00"))).setValue(.string("Renamed"), forKey: "name")
        try context.save()
        let report = try synchronizer.push()
        #expect(report.conflicts == 1 && report.conflictsByPolicy.deleteWins == 1 && report.overridden == [])
        let rows = try store.store.outbox()
        #expect(rows.map(\.state) == [.conflict])
        #expect(
            rows.first?.lastError
                == "the object was deleted on the server (the pre-read found no Team team00); deleting it here failed: "
                + "resolve with --resolve Team:team00 --take local|server")
        #expect(try ObjectContext(store: store.store).fetch("Team", id: .string("team00"))?.value(forKey: "name") == .string("Renamed"))
    }

    // MARK: - Faults

    @Test(arguments: StoreKind.allCases)
    func aWriteBetweenThePreReadAndThePutIsNotSeenByCheck(kind: StoreKind) throws {
        // Parse has no conditional write: `check` narrows the window to the time between the
        // pre-read and the batch, it cannot close it (`ifMatch` does, on APIs with ETags).
        let server = try TestServer(["--heroes", "4", "--ties", "0"])
        let (store, synchronizer) = try Self.pulled(kind, server, push: #"{"createKey": "clientId", "conflicts": {"policy": "serverWins"}}"#)
        let ids = try PushTests.heroIDs(server, 4)
        try PushTests.rename([ids[0]], in: store)
        try server.faults([
            ["match": "keys=updatedAt", "after": [["op": "update", "class": "Hero", "objectId": .string(ids[0]), "set": ["name": "Between", "power": 3]]]]
        ])
        let report = try synchronizer.push()
        #expect(report.conflicts == 0 && report.acknowledged == 1)
        let server0 = try #require(try Self.serverHero(server, ids[0]))
        #expect(server0["name"] == .string("\(ids[0]) edited") && server0["power"] == 3)
        #expect(try store.store.outbox() == [])
    }
}
