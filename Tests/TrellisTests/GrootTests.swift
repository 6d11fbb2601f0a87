import Foundation
import Testing
@testable import Trellis

/// Groot's documented scenarios, and the defects its users reported.
@Suite struct GrootTests {
    @Test func importsBatmanWithStringIDsIntoInteger64() throws {
        let model = try GraphFixture.grootModel()
        let store = InMemoryStore(model: model)
        let context = ObjectContext(store: store)
        let report = try context.importObjects(from: GraphFixture.batman, entity: "Character")
        #expect(report.counts(for: "Character") == .init(inserted: 1))
        #expect(report.counts(for: "Power") == .init(inserted: 2))
        #expect(report.counts(for: "Publisher") == .init(inserted: 1))
        #expect(report.objectIDs == [ObjectID(entityName: "Character", primaryKey: 1)])
        let characters = try GraphFixture.rows(store, "Character")
        #expect(characters.map { GraphFixture.describe($0, model) } == [#"id=1699 name="Batman" realName="Bruce Wayne""#])
        #expect(characters[0].relationships == [
            [ObjectID(entityName: "Power", primaryKey: 1), ObjectID(entityName: "Power", primaryKey: 2)],
            [ObjectID(entityName: "Publisher", primaryKey: 1)],
        ])
        let powers = try GraphFixture.rows(store, "Power")
        #expect(powers.map { GraphFixture.describe($0, model) } == [#"id=4 name="Agility""#, #"id=9 name="Insanely Rich""#])
        #expect(powers.map(\.relationships) == [[[characters[0].id]], [[characters[0].id]]])
        let publishers = try GraphFixture.rows(store, "Publisher")
        #expect(publishers.map(\.relationships) == [[[characters[0].id]]])

        let batman = try #require(try context.fetch("Character", id: .integer(1699)))
        #expect(batman["realName"] == .string("Bruce Wayne"))
        #expect(try batman.destinations(forKey: "powers").map { $0["name"] } == [.string("Agility"), .string("Insanely Rich")])
        #expect(try batman.destination(forKey: "publisher")?["name"] == .string("DC Comics"))
    }
}
