import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis
@testable import TrellisSQLite

/// Scenarios for the importer's stored-object comparison (`Importer`'s `StoredObject`): each
/// is run against every store (``StoreKind/allCases``), and the outcome (report, object
/// IDs, every stored object with its links) must equal the one recorded in
/// `Tests/Fixtures/stored-object-scenarios/` from the importer that registered every fetched
/// object first (commit 7870b4e); the PostgreSQL store's must equal the SQLite store's
/// recording. `TRELLIS_RECORD_SCENARIOS=DIR` writes the outcomes to DIR instead of comparing
/// (how the recordings were made, in a checkout of that commit).
enum Scenario {
    static func attr(
        _ name: String, _ type: AttributeType, key: String? = nil, optional: Bool = true,
        default value: AttributeValue? = nil
    ) -> AttributeDescription {
        var info: [String: String] = [:]
        if let key { info["JSONKeyPath"] = key }
        return AttributeDescription(name: name, type: type, isOptional: optional, defaultValue: value, userInfo: info)
    }

    static func rel(
        _ name: String, _ destination: String, inverse: String? = nil, toMany: Bool = false,
        ordered: Bool = false, key: String? = nil, merge: String? = nil
    ) -> RelationshipDescription {
        var info: [String: String] = [:]
        if let key { info["JSONKeyPath"] = key }
        if let merge { info["JSONMergePolicy"] = merge }
        return RelationshipDescription(
            name: name, destinationEntity: destination, inverseName: inverse, isToMany: toMany,
            isOrdered: ordered, userInfo: info)
    }

    /// Team.members (to-many, mapped) ↔ Person.team (to-one, mapped);
    /// Person.mentor ↔ Person.mentee (one-to-one, both mapped).
    static func teamModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Team", attributes: [attr("id", .integer64, key: "id"), attr("name", .string, key: "name")],
                relationships: [rel("members", "Person", inverse: "team", toMany: true, key: "members")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Person", attributes: [attr("id", .integer64, key: "id"), attr("name", .string, key: "name")],
                relationships: [
                    rel("team", "Team", inverse: "members", key: "team"),
                    rel("mentor", "Person", inverse: "mentee", key: "mentor"),
                    rel("mentee", "Person", inverse: "mentor", key: "mentee"),
                ],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    /// A readable dump of every stored object: entity, attributes, links by label, placeholder flag.
    static func dump(_ store: any PersistentStore) throws -> [String] {
        let model = store.model
        var all: [ObjectSnapshot] = []
        for entity in model.entities where entity.parentName == nil {
            all += try store.read { try $0.fetch(entity: entity.name, matching: nil) }
        }
        var labels: [ObjectID: String] = [:]
        for s in all { labels[s.id] = "\(s.id.entityName):\(s.attributes.first.flatMap { $0?.description } ?? "nil")" }
        var lines: [String] = []
        for s in all {
            guard let entity = model.entity(named: s.id.entityName) else { continue }
            var parts: [String] = [labels[s.id] ?? "?"]
            for (i, a) in entity.attributes.enumerated() { parts.append("\(a.name)=\(s.attributes[i]?.description ?? "nil")") }
            for (i, r) in entity.relationships.enumerated() {
                let targets = s.relationships[i].map { labels[$0] ?? "dangling \($0)" }
                parts.append("\(r.name)=[\((r.isOrdered ? targets : targets.sorted()).joined(separator: ","))]")
            }
            if s.isPlaceholder { parts.append("placeholder") }
            lines.append(parts.joined(separator: " "))
        }
        return lines.sorted()
    }

    static func summary(_ report: ImportReport) -> String {
        let counts = report.counts.keys.sorted().map { "\($0): \(report.counts[$0]!)" }.joined(separator: "; ")
        return counts + " | diagnostics: " + report.diagnostics.map(\.code.rawValue).joined(separator: ",")
    }

    /// A fresh store of every kind, labelled as the recordings name them (`memory`, `sqlite`, `postgres`).
    static func stores(_ model: ObjectModel) throws -> [(String, any PersistentStore, TestStore)] {
        try StoreKind.allCases.map { kind in
            let store = try kind.makeStore(model: model)
            return (kind == .inMemory ? "memory" : kind.rawValue, store.store, store)
        }
    }

    /// `json` with the key `~full` (no property maps it) in each top-level object. The
    /// recordings were made when a top-level object holding only identity attributes
    /// (`{"id": 2}`) was a full object; since issue 28.1 it is a reference (a placeholder when
    /// new, never updated), and an unmapped key keeps it a full object, changing nothing else.
    static func markedFull(_ json: JSONValue) -> JSONValue {
        func marked(_ element: JSONValue) -> JSONValue {
            guard case .object(var object) = element else { return element }
            object["~full"] = true
            return .object(object)
        }
        if case .array(let elements) = json { return .array(elements.map(marked)) }
        return marked(json)
    }

    static func run(
        _ label: String, _ model: ObjectModel, bindings: MappingBindings = MappingBindings(),
        entity: String, setup: [JSONValue], payload: JSONValue, options: ImportOptions = ImportOptions()
    )
        throws -> [String: [String]]
    {
        var results: [String: [String]] = [:]
        for (kind, store, testStore) in try stores(model) {
            defer { withExtendedLifetime(testStore) {} }
            let context = ObjectContext(store: store, bindings: bindings)
            for s in setup { _ = try context.importObjects(from: markedFull(s), entity: entity) }
            var out: [String] = []
            do {
                let report = try context.importObjects(from: options.keyAttribute == nil ? markedFull(payload) : payload, entity: entity, options: options)
                out.append("report: " + summary(report))
                out.append("objectIDs: \(report.objectIDs.map(\.description))")
            } catch {
                out.append("error: \(error)")
            }
            out += try dump(store)
            results[kind] = out
            // The PostgreSQL store must do exactly what the SQLite store recorded.
            let name = "\(label)-\(kind == "postgres" ? "sqlite" : kind).txt"
            let text = out.joined(separator: "\n") + "\n"
            if let directory = ProcessInfo.processInfo.environment["TRELLIS_RECORD_SCENARIOS"] {
                // Recording compares nothing, so it never passes: review the files, run again without the variable.
                try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
                Issue.record("recorded \(name) into \(directory); compare it with the fixture and run again without TRELLIS_RECORD_SCENARIOS")
            } else {
                let recorded = try String(contentsOf: Fixtures.url("stored-object-scenarios/" + name), encoding: .utf8)
                #expect(text == recorded, "\(name)")
            }
        }
        return results
    }
}

@Suite struct StoredObjectScenarioTests {
    /// A nested member says it belongs to another team while the outer team lists it: registering
    /// first lets the outer team's link win (the inverse moves the member back); the stored path
    /// compares with the snapshot, ignoring the pending inverse change, and the member moves.
    @Test func nestedMemberMovingAwayWhileTheOuterTeamListsIt() throws {
        let setup: [JSONValue] = [[["id": 1, "members": [["id": 1], ["id": 2]]], ["id": 2, "members": []]]]
        let payload: JSONValue = [["id": 1, "members": [["id": 1], ["id": 2, "team": 2]]]]
        let r = try Scenario.run("teamMove", try Scenario.teamModel(), entity: "Team", setup: setup, payload: payload)
        for (_, lines) in r {
            #expect(lines.contains { $0.hasPrefix("Person:2 ") && $0.contains("team=[Team:1]") })
        }
    }

    /// An unchanged person is met, faulted in later by a one-to-one move, and met again: the
    /// repeat is diagnosed as when the first occurrence registered it.
    @Test func repeatAfterOneToOneFaultIsDiagnosed() throws {
        let setup: [JSONValue] = [[["id": 1, "mentor": 2], ["id": 2], ["id": 3]]]
        let payload: JSONValue = [["id": 1], ["id": 3, "mentor": 2], ["id": 1]]
        let r = try Scenario.run("dupAfterFault", try Scenario.teamModel(), entity: "Person", setup: setup, payload: payload)
        for (_, lines) in r {
            #expect(lines[0].contains("diagnostics: duplicateIdentity"))
            #expect(lines.contains { $0.hasPrefix("Person:1 ") && $0.contains("mentor=[]") })
        }
    }

    /// Same, in batches of 2 and the one-to-one moving both ways.
    @Test func oneToOneMovesInSmallBatches() throws {
        let setup: [JSONValue] = [[["id": 1, "mentor": 2], ["id": 2], ["id": 3], ["id": 4, "mentor": 5], ["id": 5]]]
        let payload: JSONValue = [
            ["id": 1], ["id": 3, "mentor": 2], ["id": 5, "name": "five"], ["id": 4, "mentee": 1],
            ["id": 2, "mentee": 3], ["id": 1],
        ]
        var options = ImportOptions()
        options.batchSize = 2
        _ = try Scenario.run("oneToOneBatches", try Scenario.teamModel(), entity: "Person", setup: setup, payload: payload, options: options)
    }

    /// Cycles A → B → A with mentor (one-to-one) and nested values that differ at the inner level.
    @Test func cyclesWithDifferingInnerValues() throws {
        let setup: [JSONValue] = [[["id": 1, "name": "A", "mentor": ["id": 2, "name": "B", "mentor": 1]]]]
        let payload: JSONValue = [
            ["id": 1, "name": "A", "mentor": ["id": 2, "name": "B", "mentor": ["id": 1, "name": "A2"]]],
            ["id": 2, "name": "B"],
        ]
        _ = try Scenario.run("cycle", try Scenario.teamModel(), entity: "Person", setup: setup, payload: payload)
        let payload2: JSONValue = [["id": 1, "name": "A", "mentee": ["id": 2, "mentee": ["id": 1, "mentee": 3]]]]
        _ = try Scenario.run("cycle2", try Scenario.teamModel(), entity: "Person", setup: setup, payload: payload2)
    }

    /// Team members appended (mergePolicy append) with a member that is a stored top-level Team? (no: persons),
    /// repeated across batches.
    @Test func appendAcrossBatches() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Team", attributes: [Scenario.attr("id", .integer64, key: "id")],
                relationships: [Scenario.rel("members", "Person", inverse: "teams", toMany: true, key: "members", merge: "append")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Person", attributes: [Scenario.attr("id", .integer64, key: "id")],
                relationships: [Scenario.rel("teams", "Team", inverse: "members", toMany: true, key: "teams")],
                userInfo: ["identityAttributes": "id"]),
        ])
        let setup: [JSONValue] = [[["id": 1, "members": [1, 2]], ["id": 2, "members": [2]]]]
        let payload: JSONValue = [
            ["id": 1, "members": [2]], ["id": 2, "members": [3]], ["id": 1, "members": [3]],
            ["id": 2, "members": [["id": 1, "teams": [1]]]], ["id": 3, "members": []],
        ]
        var options = ImportOptions()
        options.batchSize = 2
        _ = try Scenario.run("append", model, entity: "Team", setup: setup, payload: payload, options: options)
        options.batchSize = 100
        _ = try Scenario.run("append1", model, entity: "Team", setup: setup, payload: payload, options: options)
    }

    /// Ordered to-many of the imported entity onto itself.
    @Test func orderedSelfToMany() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Node", attributes: [Scenario.attr("id", .integer64, key: "id"), Scenario.attr("v", .string, key: "v")],
                relationships: [
                    Scenario.rel("children", "Node", inverse: "parent", toMany: true, ordered: true, key: "children"),
                    Scenario.rel("parent", "Node", inverse: "children", key: "parent"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        let setup: [JSONValue] = [[["id": 1, "children": [2, 3, 4]], ["id": 2], ["id": 3], ["id": 4]]]
        let payload: JSONValue = [
            ["id": 1, "children": [4, 3, 2]], ["id": 5, "children": [3]], ["id": 2, "parent": 5],
            ["id": 1, "children": [2, 4]],
        ]
        _ = try Scenario.run("ordered", model, entity: "Node", setup: setup, payload: payload)
        var options = ImportOptions()
        options.batchSize = 2
        _ = try Scenario.run("ordered2", model, entity: "Node", setup: setup, payload: payload, options: options)
        let payload2: JSONValue = [["id": 3, "parent": 5], ["id": 1, "children": [2, 3, 4]], ["id": 5, "v": "x"]]
        _ = try Scenario.run("ordered3", model, entity: "Node", setup: setup, payload: payload2)
    }

    /// Sub-entities and an entity mapper: stored Dogs imported through Animal.
    @Test func subEntitiesThroughTheParent() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Animal", isAbstract: true, attributes: [Scenario.attr("id", .integer64, key: "id"), Scenario.attr("name", .string, key: "name")],
                relationships: [
                    Scenario.rel("friend", "Animal", inverse: "friendOf", key: "friend"),
                    Scenario.rel("friendOf", "Animal", inverse: "friend", toMany: true),
                ],
                userInfo: ["identityAttributes": "id", "entityMapperName": "M"]),
            EntityDescription(
                name: "Dog", parentName: "Animal", attributes: [Scenario.attr("barks", .boolean, key: "barks")],
                relationships: [Scenario.rel("toys", "Toy", toMany: true, key: "toys")]),
            EntityDescription(name: "Cat", parentName: "Animal", attributes: [Scenario.attr("lives", .integer64, key: "lives")]),
            EntityDescription(name: "Toy", attributes: [Scenario.attr("id", .integer64, key: "id")], userInfo: ["identityAttributes": "id"]),
        ])
        let bindings = MappingBindings(entityMappers: [EntityMapper(name: "M", keyPath: "type", table: ["dog": "Dog", "cat": "Cat"])])
        let setup: [JSONValue] = [[["id": 1, "type": "dog", "barks": true, "toys": [1], "friend": ["id": 2, "type": "cat", "lives": 9]]]]
        // unchanged via parent, changed sub-entity attribute, wrong mapper choice
        _ = try Scenario.run(
            "animals1", model, bindings: bindings, entity: "Animal", setup: setup,
            payload: [["id": 1, "type": "dog", "barks": true, "toys": [1]], ["id": 2, "type": "cat", "lives": 9]])
        _ = try Scenario.run(
            "animals2", model, bindings: bindings, entity: "Animal", setup: setup,
            payload: [["id": 1, "type": "dog", "barks": false], ["id": 2, "type": "cat", "lives": 8, "friend": 1]])
        _ = try Scenario.run(
            "animals3", model, bindings: bindings, entity: "Animal", setup: setup,
            payload: [["id": 1, "type": "cat"]])
        _ = try Scenario.run(
            "animals4", model, bindings: bindings, entity: "Dog", setup: setup,
            payload: [["id": 2, "barks": true]])
        _ = try Scenario.run(
            "animals5", model, bindings: bindings, entity: "Dog", setup: setup,
            payload: [["id": 1, "friend": ["id": 2, "type": "cat", "lives": 9, "friend": 1]]])
        _ = try Scenario.run(
            "animals7", model, bindings: bindings, entity: "Animal", setup: setup,
            payload: [["id": 1, "type": "dog", "friend": 2], ["id": 2, "type": "cat", "friend": 1], 2, 1])
    }

    /// Placeholders: created by a bare identifier, completed later, in batches, with null policies.
    @Test func placeholdersAndNullPolicies() throws {
        let model = try Scenario.teamModel()
        let setup: [JSONValue] = [[["id": 1, "name": "A", "mentor": 2, "team": 7]]]
        _ = try Scenario.run("ph1", model, entity: "Person", setup: setup, payload: [["id": 2], ["id": 1, "name": "A"]])
        _ = try Scenario.run("ph2", model, entity: "Person", setup: setup, payload: [2, ["id": 2, "mentee": 1], 1, ["id": 3, "mentee": 2]])
        var ignore = ImportOptions()
        ignore.nullPolicy = .ignore
        _ = try Scenario.run(
            "null1", model, entity: "Person", setup: setup, payload: [["id": 1, "name": .null, "mentor": .null, "team": .null]], options: ignore)
        _ = try Scenario.run("null2", model, entity: "Person", setup: setup, payload: [["id": 1, "name": .null, "mentor": .null, "team": .null]])
        _ = try Scenario.run("null3", model, entity: "Person", setup: setup, payload: [["id": 1, "name": "A", "mentor": 2, "team": .null]])
    }

    /// deleteMissing, dry runs and object IDs.
    @Test func scopesDryRunsAndIDs() throws {
        let model = try Scenario.teamModel()
        let setup: [JSONValue] = [[["id": 1, "name": "A"], ["id": 2, "name": "B"], ["id": 3, "name": "C"]]]
        var o = ImportOptions()
        o.deleteMissing = .allObjects
        o.batchSize = 2
        _ = try Scenario.run("del1", model, entity: "Person", setup: setup, payload: [["id": 1, "name": "A"], 2, ["id": 4]], options: o)
        o.dryRun = true
        _ = try Scenario.run("del2", model, entity: "Person", setup: setup, payload: [["id": 1, "name": "A"], 2, ["id": 4]], options: o)
        var n = ImportOptions()
        n.deleteMissing = .allObjects
        _ = try Scenario.run(
            "del3", model, entity: "Person", setup: setup, payload: [["id": 4, "mentor": ["id": 3, "name": "C"]], ["id": 1, "name": "A"]], options: n)
    }
}

@Suite struct StoredObjectDeleteMissingTests {
    /// deleteMissing(.allObjects): a new top-level person whose nested mentor is a stored person.
    @Test func newTopLevelObjectSurvivesDeleteMissing() throws {
        let model = try Scenario.teamModel()
        for (kind, store, testStore) in try Scenario.stores(model) {
            defer { withExtendedLifetime(testStore) {} }
            let context = ObjectContext(store: store)
            _ = try context.importObjects(from: [["id": 1, "name": "A"], ["id": 2, "name": "B"], ["id": 3, "name": "C"]], entity: "Person")
            var options = ImportOptions()
            options.deleteMissing = .allObjects
            let report = try context.importObjects(
                from: [["id": 4, "mentor": ["id": 3, "name": "C"]], ["id": 1, "name": "A"]],
                entity: "Person", options: options)
            let people = try Scenario.dump(store)
            #expect(people.contains { $0.hasPrefix("Person:4 ") }, "\(kind)")
            #expect(people.count == 2, "\(kind)")
            #expect(report.deletedObjectIDs.count == 2, "\(kind)")
        }
    }
}
