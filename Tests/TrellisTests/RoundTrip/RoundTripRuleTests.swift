import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// The rules that make an export import back (issue 13 point 4), one kind of bug each, on
/// every store: the exact export, then the re-import (nothing changes) and the import into
/// an empty store (the same graph).
@Suite struct RoundTripRuleTests {
    /// Imports `payload` as `entity`, exports `exported` (default options), and checks the
    /// round trip both ways. Returns the export of `exported`'s objects.
    static func roundTrip(
        _ model: ObjectModel, _ payload: JSONValue, entity: String, exporting exported: [String],
        kind: StoreKind, bindings: MappingBindings = MappingBindings()
    ) throws -> [String: JSONValue] {
        let original = try kind.makeStore(model: model)
        _ = try ObjectContext(store: original.store, bindings: bindings).importObjects(from: payload, entity: entity)
        let context = ObjectContext(store: original.store, bindings: bindings)
        var exports: [String: JSONValue] = [:]
        for name in exported { exports[name] = try context.exportJSON(try context.fetch(name)) }
        let before = try original.dump()
        for name in exported {
            let report = try ObjectContext(store: original.store, bindings: bindings).importObjects(from: exports[name]!, entity: name)
            for (entity, counts) in report.counts {
                #expect(counts.inserted + counts.updated + counts.deleted == 0, "\(name) export re-imported: \(entity) \(counts)")
            }
            #expect(report.diagnostics.filter { $0.code != .duplicateIdentity } == [])
        }
        #expect(try original.dump() == before)
        let copy = try kind.makeStore(model: model)
        for name in exported { _ = try ObjectContext(store: copy.store, bindings: bindings).importObjects(from: exports[name]!, entity: name) }
        #expect(try GraphCanon.text(of: copy) == (try GraphCanon.text(of: original)))
        return exports
    }

    // MARK: - Array-index key paths

    static func cityModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "City",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("main", .string, key: "weather.0.main"),
                    GraphFixture.attribute("description", .string, key: "weather.0.description"),
                    GraphFixture.attribute("later", .string, key: "weather.1.description"),
                    GraphFixture.attribute("latitude", .double, key: "coordinates.0"),
                    GraphFixture.attribute("longitude", .double, key: "coordinates.1"),
                    GraphFixture.attribute("name", .string, key: "names.138586341"),
                    GraphFixture.attribute("second", .string, key: "list.1"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
    }

    /// `weather.0.description` and `weather.1.description` export as an array, as the API
    /// sent them; an all-digits component that is not one of the indexes 0…n-1 of its
    /// location (`names.138586341`, a lone `list.1`) stays an object key.
    @Test(arguments: StoreKind.allCases)
    func arrayIndexKeyPathsExportAsArrays(kind: StoreKind) throws {
        let payload: JSONValue = [
            [
                "id": 1, "weather": [["main": "Clouds", "description": "few clouds"], ["description": "rain"]],
                "coordinates": [51.5, -0.12], "names": ["138586341": "London"], "list": ["1": "b"],
            ]
        ]
        let exports = try Self.roundTrip(try Self.cityModel(), payload, entity: "City", exporting: ["City"], kind: kind)
        #expect(
            try JSONWriter.string(for: exports["City"]!) == #"[{"id":1,"weather":[{"main":"Clouds","description":"few clouds"},"#
                + #"{"description":"rain"}],"coordinates":[51.5,-0.12],"names":{"138586341":"London"},"list":{"1":"b"}}]"#)
    }

    /// With `nilPolicy = .omit`, an element no value is written to is `null`, which the import
    /// reads as missing (the values stay as they are).
    @Test func anArrayElementWithoutValuesIsNullWhenNilsAreOmitted() throws {
        let context = ObjectContext(store: InMemoryStore(model: try Self.cityModel()))
        _ = try context.importObjects(from: [["id": 1, "weather": [nil, ["description": "rain"]]]], entity: "City")
        var options = ExportOptions()
        options.nilPolicy = .omit
        #expect(
            try JSONWriter.string(for: try context.exportJSON(try context.fetch("City"), options: options))
                == #"[{"id":1,"weather":[null,{"description":"rain"}]}]"#)
    }

    // MARK: - Dates

    /// A date keeps the fraction digits it has (3, 6 or 9), through the attribute type's JSON
    /// form and the `iso8601` transformer alike; `…13.184968Z` used to export as `….185Z`.
    @Test(arguments: StoreKind.allCases)
    func datesKeepTheirFractionDigits(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Event",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"), GraphFixture.attribute("at", .date, key: "at"),
                    GraphFixture.attribute("iso", .date, key: "iso", transformer: "iso8601"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        let payload: JSONValue = [
            ["id": 1, "at": "2015-11-13T09:36:13.184968Z", "iso": "2015-11-13T09:36:13.184968Z"],
            ["id": 2, "at": "2015-11-13T10:36:13.5+01:00", "iso": "2015-11-13T09:36:13Z"],
            ["id": 3, "at": 1_447_407_373.000001, "iso": "2015-11-13T09:36:13.123456789Z"],
        ]
        let exports = try Self.roundTrip(model, payload, entity: "Event", exporting: ["Event"], kind: kind)
        let events = try #require(exports["Event"]?.arrayValue)
        #expect(events[0] == ["id": 1, "at": "2015-11-13T09:36:13.184968Z", "iso": "2015-11-13T09:36:13.184968Z"])
        #expect(events[1] == ["id": 2, "at": "2015-11-13T09:36:13.500Z", "iso": "2015-11-13T09:36:13.000Z"])
        #expect(events[2]["at"] == "2015-11-13T09:36:13.000001Z")
        let nanoseconds = try #require(events[2]["iso"]?.stringValue)
        if kind == .postgres {
            // timestamptz holds microseconds (docs/PostgresStore.md): the nearest one.
            #expect(nanoseconds == "2015-11-13T09:36:13.123457Z")
        } else {
            // Nanoseconds are finer than a `Date` holds: written with 9 digits, read back as the same date.
            #expect(nanoseconds.count == 30 && nanoseconds.hasPrefix("2015-11-13T09:36:13.1234567"))
            #expect(RFC3339.date(from: nanoseconds) == RFC3339.date(from: "2015-11-13T09:36:13.123456789Z"))
        }
    }

    // MARK: - Objects without identity attributes

    static func tripModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Person", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [GraphFixture.relationship("trips", "Trip", inverse: "person", toMany: true, key: "trips")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Trip",
                attributes: [
                    GraphFixture.attribute("name", .string, key: "name"),
                    GraphFixture.attribute("km", .integer32, key: "km"),
                ],
                relationships: [GraphFixture.relationship("person", "Person", inverse: "trips")]),
        ])
    }

    /// Destinations without identity attributes have no identifier: nested in full in both
    /// styles (they were `"trips": [null, null]`, which the import refused), and found again
    /// among the relationship's current destinations by the re-import (they were inserted
    /// again, the old ones left unlinked).
    @Test(arguments: StoreKind.allCases)
    func destinationsWithoutIdentityAreNestedAndFoundAgain(kind: StoreKind) throws {
        let payload: JSONValue = [["id": 1, "trips": [["name": "a", "km": 3], ["name": "b"]]]]
        let exports = try Self.roundTrip(try Self.tripModel(), payload, entity: "Person", exporting: ["Person"], kind: kind)
        let expected: JSONValue = [["id": 1, "trips": [["name": "a", "km": 3], ["name": "b", "km": nil]]]]
        #expect(exports["Person"] == expected)
        let store = try kind.makeStore(model: try Self.tripModel())
        let context = ObjectContext(store: store.store)
        _ = try context.importObjects(from: payload, entity: "Person")
        var identifiers = ExportOptions()
        identifiers.relationshipStyle = .identifiers
        #expect(try context.exportJSON(try context.fetch("Person"), options: identifiers) == expected)

        // Changed: the unchanged trip is found by its values, the changed one takes the other.
        let report = try ObjectContext(store: store.store).importObjects(
            from: [["id": 1, "trips": [["name": "c"], ["name": "b"]]]], entity: "Person")
        #expect(report.counts(for: "Trip") == .init(updated: 1, unchanged: 1))
        #expect(report.counts(for: "Person") == .init(unchanged: 1))
        #expect(
            try store.dump() == """
                Person/1 {id: 1} trips=[Trip/1, Trip/2]
                Trip/1 {name: "c", km: 3} person=[Person/1]
                Trip/2 {name: "b", km: nil} person=[Person/1]
                """)
        // Fewer: the trips no JSON object took are unlinked (not deleted; like any object an
        // import unlinks, not counted); more: new ones.
        let fewer = try ObjectContext(store: store.store).importObjects(from: [["id": 1, "trips": [["name": "b"]]]], entity: "Person")
        #expect(fewer.counts(for: "Trip") == .init(unchanged: 1))
        #expect(fewer.counts(for: "Person") == .init(updated: 1))
        let more = try ObjectContext(store: store.store).importObjects(
            from: [["id": 1, "trips": [["name": "b"], ["name": "d"]]]], entity: "Person")
        #expect(more.counts(for: "Trip") == .init(inserted: 1, unchanged: 1))
        #expect(
            try store.dump() == """
                Person/1 {id: 1} trips=[Trip/2, Trip/3]
                Trip/1 {name: "c", km: 3} person=[]
                Trip/2 {name: "b", km: nil} person=[Person/1]
                Trip/3 {name: "d", km: nil} person=[Person/1]
                """)
    }

    /// Folders without identity attributes, nested in a drive: a folder's `parent` is the
    /// folder it is written in, so it is left out, and the import puts it back through the
    /// inverse (`children`).
    @Test(arguments: StoreKind.allCases)
    func aLinkBackToAnObjectWithoutIdentityBeingWrittenIsLeftOut(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Drive", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [GraphFixture.relationship("root", "Folder", key: "root")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Folder", attributes: [GraphFixture.attribute("name", .string, key: "name")],
                relationships: [
                    GraphFixture.relationship("children", "Folder", inverse: "parent", toMany: true, ordered: true, key: "children"),
                    GraphFixture.relationship("parent", "Folder", inverse: "children", key: "parent"),
                ]),
        ])
        let payload: JSONValue = [["id": 1, "root": ["name": "/", "children": [["name": "a"], ["name": "b", "children": [["name": "c"]]]]]]]
        let exports = try Self.roundTrip(model, payload, entity: "Drive", exporting: ["Drive"], kind: kind)
        #expect(
            try JSONWriter.string(for: exports["Drive"]!) == #"[{"id":1,"root":{"name":"/","children":[{"name":"a","children":[]},"#
                + #"{"name":"b","children":[{"name":"c","children":[]}]}],"parent":null}}]"#)
    }

    // MARK: - Sub-entities

    /// Cats and dogs numbered apart (the abstract `Animal` declares no identity): a pet met
    /// again through a relationship to `Animal` cannot be its bare identifier (`1` could be
    /// Cat 1 or Dog 1, and the import refuses it); it is its attributes, from which the
    /// entity mapper chooses Cat and the identity finds Cat 1.
    @Test(arguments: StoreKind.allCases)
    func aSubEntityMetAgainThroughItsParentIsItsAttributes(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Owner", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                relationships: [
                    GraphFixture.relationship("pets", "Animal", toMany: true, key: "pets"),
                    GraphFixture.relationship("favorite", "Animal", key: "favorite"),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Animal", isAbstract: true,
                attributes: [GraphFixture.attribute("kind", .string, key: "kind"), GraphFixture.attribute("name", .string, key: "name")],
                userInfo: ["entityMapperName": "AnimalKind"]),
            EntityDescription(
                name: "Cat", parentName: "Animal", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Dog", parentName: "Animal", attributes: [GraphFixture.attribute("id", .integer64, key: "id")],
                userInfo: ["identityAttributes": "id"]),
        ])
        let bindings = MappingBindings(entityMappers: [EntityMapper(name: "AnimalKind", keyPath: "kind", table: ["cat": "Cat", "dog": "Dog"])])
        let payload: JSONValue = [
            [
                "id": 1, "pets": [["kind": "cat", "id": 1, "name": "Tom"], ["kind": "dog", "id": 1, "name": "Rex"]],
                "favorite": ["kind": "cat", "id": 1],
            ]
        ]
        let exports = try Self.roundTrip(model, payload, entity: "Owner", exporting: ["Owner", "Cat", "Dog"], kind: kind, bindings: bindings)
        #expect(
            try JSONWriter.string(for: exports["Owner"]!) == #"[{"id":1,"pets":[{"kind":"cat","name":"Tom","id":1},"#
                + #"{"kind":"dog","name":"Rex","id":1}],"favorite":{"kind":"cat","name":"Tom","id":1}}]"#)
    }

    // MARK: - Null elements

    /// `null` elements of the top-level collection and of relationship arrays are skipped, as
    /// Groot skips them, each counted with its path (they were refused).
    @Test(arguments: StoreKind.allCases)
    func nullElementsAreSkippedAndCounted(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try GraphFixture.grootModel())
        let context = ObjectContext(store: store.store)
        let report = try context.importObjects(from: [["id": 1, "powers": [4, nil, ["id": 9]]], nil], entity: "Character")
        #expect(report.nullElementsSkipped == 2)
        #expect(
            report.diagnostics.filter { $0.code == .nullElementSkipped }.map(\.description)
                == ["$[0].powers[1]: null element skipped", "$[1]: null element skipped"])
        #expect(report.counts(for: "Character") == .init(inserted: 1))
        #expect(report.counts(for: "Power") == .init(inserted: 2))
        #expect(
            try store.dump() == """
                Character/1 {id: 1, name: nil, realName: nil} powers=[Power/1, Power/2] publisher=[]
                Power/1 (placeholder) {id: 4, name: nil} characters=[Character/1]
                Power/2 {id: 9, name: nil} characters=[Character/1]
                """)
        var keyed = JSONObject()
        keyed.append(key: "1699", value: nil)
        var source = JSONImportSource(keyedObject: keyed)
        let members = try context.importObjects(from: &source, entity: "Character")
        #expect(members.diagnostics.map(\.description) == [#"$["1699"]: null element skipped"#])
        #expect(members.nullElementsSkipped == 1 && members.counts.isEmpty)
    }

    // MARK: - Stores

    /// A many-to-many whose mapped side is unordered and whose inverse is ordered and not
    /// mapped (SQLite keeps the join table on the ordered side): a link between two new
    /// objects was lost, the import leaving the inverse's side empty.
    @Test(arguments: StoreKind.allCases)
    func manyToManyLinksBetweenNewObjectsAreKept(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "A", attributes: [GraphFixture.attribute("id", .integer32, key: "id")],
                relationships: [GraphFixture.relationship("bs", "B", inverse: "owners", toMany: true, key: "bs")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "B", attributes: [GraphFixture.attribute("id", .integer32, key: "id")],
                relationships: [GraphFixture.relationship("owners", "A", inverse: "bs", toMany: true, ordered: true)],
                userInfo: ["identityAttributes": "id"]),
        ])
        let exports = try Self.roundTrip(model, [["id": 2, "bs": [4, ["id": 5]]]], entity: "A", exporting: ["A", "B"], kind: kind)
        #expect(exports["A"] == [["id": 2, "bs": [4, ["id": 5]]]])
        let store = try kind.makeStore(model: model)
        _ = try ObjectContext(store: store.store).importObjects(from: [["id": 2, "bs": [4, ["id": 5]]]], entity: "A")
        #expect(
            try store.dump() == """
                A/1 {id: 2} bs=[B/1, B/2]
                B/1 (placeholder) {id: 4} owners=[A/1]
                B/2 {id: 5} owners=[A/1]
                """)
    }

    /// Known issue: a many-to-many ordered on both sides keeps both orders in memory, but the
    /// SQLite store (and the PostgreSQL store, which has its layout) has one `position` column
    /// in the join table (the owning side's order), so the other side reads back in the
    /// owner's order: `"as": [2, 1]` comes back `[1, 2]`.
    /// Found by the generator (seed 47 with sub-entities); fixing it takes a second position
    /// column in such join tables, and a migration. When it is fixed, this test's known
    /// issue stops being recorded, and the test fails until the `withKnownIssue` goes.
    @Test(arguments: StoreKind.allCases)
    func bothSidesOfAnOrderedManyToManyKeepTheirOrder(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "A", attributes: [GraphFixture.attribute("id", .integer32, key: "id")],
                relationships: [GraphFixture.relationship("bs", "B", inverse: "as", toMany: true, ordered: true, key: "bs")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "B", attributes: [GraphFixture.attribute("id", .integer32, key: "id")],
                relationships: [GraphFixture.relationship("as", "A", inverse: "bs", toMany: true, ordered: true, key: "as")],
                userInfo: ["identityAttributes": "id"]),
        ])
        let store = try kind.makeStore(model: model)
        _ = try ObjectContext(store: store.store).importObjects(from: [["id": 1, "as": [1, 2]], ["id": 2, "as": [2, 1]]], entity: "B")
        let expected = """
            A/1 (placeholder) {id: 1} bs=[B/1, B/2]
            A/2 (placeholder) {id: 2} bs=[B/1, B/2]
            B/1 {id: 1} as=[A/1, A/2]
            B/2 {id: 2} as=[A/2, A/1]
            """
        if kind == .sqlite || kind == .postgres {
            // The PostgreSQL store has the SQLite layout (docs/PostgresStore.md), and so the same issue.
            let dump = try store.dump()
            #expect(
                dump == """
                    A/1 (placeholder) {id: 1} bs=[B/1, B/2]
                    A/2 (placeholder) {id: 2} bs=[B/1, B/2]
                    B/1 {id: 1} as=[A/1, A/2]
                    B/2 {id: 2} as=[A/1, A/2]
                    """)
            withKnownIssue("the SQL stores keep the owning side's order only") { #expect(dump == expected) }
        } else {
            #expect(try store.dump() == expected)
        }
    }

    // MARK: - Placeholders

    /// A placeholder holds only its identity: related, it is exported as its identifier; at
    /// the top level as the object of its identity attributes (`{"id": 7}`), which the
    /// import reads as a reference: it finds the placeholder unchanged, or makes the same
    /// placeholder. In full it was `{"id": 7, "name": null}`, which completed it.
    @Test(arguments: StoreKind.allCases)
    func placeholdersExportAsTheirIdentifiers(kind: StoreKind) throws {
        let exports = try Self.roundTrip(
            try GraphFixture.grootModel(), [["id": 1, "publisher": 7, "powers": [4]]],
            entity: "Character", exporting: ["Character", "Power", "Publisher"], kind: kind)
        #expect(exports["Character"] == [["id": 1, "name": nil, "real_name": nil, "powers": [4], "publisher": 7]])
        #expect(exports["Power"] == [["id": 4]])
        #expect(exports["Publisher"] == [["id": 7]])
    }

    /// With `placeholders = .exclude` an exported array holds only objects written in full;
    /// a related placeholder is still its identifier.
    @Test(arguments: StoreKind.allCases)
    func excludedPlaceholdersAreLeftOutOfArrays(kind: StoreKind) throws {
        let store = try kind.makeStore(model: try GraphFixture.grootModel())
        _ = try ObjectContext(store: store.store).importObjects(
            from: [["id": 1, "publisher": 7, "powers": [4, ["id": 5, "name": "Flight"]]]], entity: "Character")
        let context = ObjectContext(store: store.store)
        var options = ExportOptions()
        options.placeholders = .exclude
        #expect(try context.exportJSON(try context.fetch("Power"), options: options) == [["id": 5, "name": "Flight"]])
        #expect(try context.exportJSON(try context.fetch("Publisher"), options: options) == [])
        #expect(
            try context.exportJSON(try context.fetch("Character"), options: options)
                == [["id": 1, "name": nil, "real_name": nil, "powers": [4, ["id": 5, "name": "Flight"]], "publisher": 7]])
        #expect(try context.exportJSON(try context.fetch("Power")) == [["id": 4], ["id": 5, "name": "Flight"]])
    }
}
