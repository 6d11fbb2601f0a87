import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSQLite

@Suite struct SQLiteStoreTests {
    @Test(arguments: StoreKind.persistent)
    func insertsFetchesByIdentityAndStoresRows(kind: StoreKind) throws {
        let model = try charactersModel()
        let test = try kind.makeStore(model: model)
        let store = test.store
        let created = Date(timeIntervalSince1970: 1_313_949_772.249)
        let changes = ChangeSet(inserted: [
            ObjectSnapshot(
                id: tid("Publisher", 1), isPlaceholder: false,
                attributes: [.string("10"), .string("DC Comics")], relationships: [[]]),
            ObjectSnapshot(
                id: tid("Power", 2), isPlaceholder: false,
                attributes: [.string("4"), .string("Agility")], relationships: []),
            ObjectSnapshot(
                id: tid("Power", 3), isPlaceholder: false,
                attributes: [.string("5"), .string("Flight")], relationships: []),
            ObjectSnapshot(
                id: tid("Character", 4), isPlaceholder: false,
                attributes: [
                    .string("1699"), .string("Batman"), .string("Bruce Wayne"), .date(created),
                    .double(4.5), .bool(true),
                ],
                relationships: [[tid("Power", 3), tid("Power", 2)], [tid("Publisher", 1)]]),
        ])
        let ids = try store.write { try $0.apply(changes) }
        #expect(
            ids == [
                tid("Publisher", 1): ObjectID(entityName: "Publisher", primaryKey: 1),
                tid("Power", 2): ObjectID(entityName: "Power", primaryKey: 1),
                tid("Power", 3): ObjectID(entityName: "Power", primaryKey: 2),
                tid("Character", 4): ObjectID(entityName: "Character", primaryKey: 1),
            ])
        #expect(
            try test.rows("SELECT \"_pk\", \"_entity\", \"_placeholder\", \"id\", \"name\", \"realName\", \"active\", \"publisher\" FROM \"Character\"")
                == [["1", "Character", "0", "1699", "Batman", "Bruce Wayne", "1", "1"]])
        #expect(try test.rows("SELECT \"source\", \"destination\" FROM \"Character.powers\" ORDER BY 2") == [["1", "1"], ["1", "2"]])

        let fetched = try store.read { try $0.fetch(entity: "Character", identities: [[.string("1699")], [.string("nope")]]) }
        #expect(
            fetched == [
                ObjectSnapshot(
                    id: ObjectID(entityName: "Character", primaryKey: 1), isPlaceholder: false,
                    attributes: [.string("1699"), .string("Batman"), .string("Bruce Wayne"), .date(created), .double(4.5), .bool(true)],
                    relationships: [
                        [ObjectID(entityName: "Power", primaryKey: 1), ObjectID(entityName: "Power", primaryKey: 2)],
                        [ObjectID(entityName: "Publisher", primaryKey: 1)],
                    ])
            ])
        let publisher = try store.read { try $0.fetch(entity: "Publisher", matching: nil) }
        #expect(publisher.map(\.relationships) == [[[ObjectID(entityName: "Character", primaryKey: 1)]]])
    }
}
