import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// `Codable` values out of the store (`context.fetch(request, as:)`) and into it
/// (`context.importObjects(values, entity:)`), through the JSON shape of an export, on
/// every store.
@Suite final class StoredCodableTests {
    let stores = TestStores()

    struct Venue: Codable, Equatable {
        var id: String
        var name: String
    }

    struct Event: Codable, Equatable {
        var id: String
        var title: String
        var startsAt: Date
        var price: Decimal
        var poster: Data?
        var seats: Int
        var venue: Venue?

        enum CodingKeys: String, CodingKey {
            case id, title
            case startsAt = "starts_at"
            case price, poster, seats, venue
        }
    }

    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Event",
                attributes: [
                    GraphFixture.attribute("id", .string, key: "id", optional: false),
                    GraphFixture.attribute("title", .string, key: "title"),
                    GraphFixture.attribute("startsAt", .date, key: "starts_at"),
                    GraphFixture.attribute("price", .decimal, key: "price"),
                    GraphFixture.attribute("poster", .binary, key: "poster"),
                    GraphFixture.attribute("seats", .integer64, key: "seats"),
                ],
                relationships: [GraphFixture.relationship("venue", "Venue", inverse: "events", key: "venue")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Venue",
                attributes: [GraphFixture.attribute("id", .string, key: "id", optional: false), GraphFixture.attribute("name", .string, key: "name")],
                relationships: [GraphFixture.relationship("events", "Event", inverse: "venue", toMany: true)],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    static let events = [
        Event(
            id: "e1", title: "Opening", startsAt: Date(timeIntervalSince1970: 1_314_131_052.249), price: Decimal(string: "12.30")!,
            poster: Data([0, 1, 2, 255]), seats: 120, venue: Venue(id: "v1", name: "Hall")),
        Event(
            id: "e2", title: "Closing", startsAt: Date(timeIntervalSince1970: 1_700_000_000), price: Decimal(string: "0.1")!,
            poster: nil, seats: 9_007_199_254_740_993, venue: Venue(id: "v1", name: "Hall")),
        Event(id: "e3", title: "Matinee", startsAt: Date(timeIntervalSince1970: 0.000_001), price: 7, poster: Data(), seats: -3, venue: nil),
    ]

    @Test(arguments: StoreKind.allCases)
    func encodableValuesImportAndDecodeBackTheSame(kind: StoreKind) throws {
        let model = try Self.model()
        let context = ObjectContext(store: try stores.make(kind, model: model))
        let report = try context.importObjects(Self.events, entity: "Event")
        #expect(report.counts["Event"]?.inserted == 3)
        #expect(report.counts["Venue"]?.inserted == 1)

        let request = ObjectFetchRequest(entity: "Event", sortDescriptors: [ObjectSortDescriptor("id")])
        let fetched = try ObjectContext(store: context.store).fetch(request, as: Event.self)
        #expect(fetched == Self.events)
        let stored = try #require(try ObjectContext(store: context.store).fetch("Event", id: .string("e1")))
        #expect(stored["startsAt"] == .date(Date(timeIntervalSince1970: 1_314_131_052.249)))
        #expect(stored["seats"] == .integer(120))
        #expect(try ObjectContext(store: context.store).fetch("Event", id: .string("e2"))?["seats"] == .integer(9_007_199_254_740_993))

        // The same values again: every object unchanged, as for a payload imported twice.
        let again = try ObjectContext(store: context.store).importObjects(Self.events, entity: "Event")
        #expect(again.counts["Event"]?.unchanged == 3)
        #expect(again.counts["Event"]?.updated == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func fetchedObjectsDecodeAsTheExportReadsAndFailuresNameTheObject(kind: StoreKind) throws {
        let model = try Self.model()
        let context = ObjectContext(store: try stores.make(kind, model: model))
        _ = try context.importObjects(Self.events, entity: "Event")
        let request = ObjectFetchRequest(entity: "Event", predicate: try ObjectPredicate("seats > 100"), sortDescriptors: [ObjectSortDescriptor("seats")])
        let exporter = ObjectExporter(context: context)
        let exported = try context.fetch(request).map { try exporter.json(for: $0) }
        let viaText = try exported.map { try JSONDecoder.storedObjects.decode(Event.self, from: JSONWriter.data(for: $0)) }
        #expect(try context.fetch(request, as: Event.self) == viaText)
        #expect(viaText.map(\.id) == ["e1", "e2"])

        struct Strict: Decodable {
            var id: String
            var title: String
            var poster: Data
        }
        do {
            _ = try context.fetch(ObjectFetchRequest(entity: "Event", sortDescriptors: [ObjectSortDescriptor("id")]), as: Strict.self)
            Issue.record("decoded")
        } catch DecodingError.valueNotFound(_, let decodingContext) {
            #expect(decodingContext.codingPath.map(\.stringValue) == ["poster"])
            let id = try #require(try context.fetch("Event", id: .string("e2"))?.objectID)
            #expect(decodingContext.debugDescription.hasSuffix("(object \(id), at $.poster)"))
        }
        struct Ids: Decodable {
            var id: String
            var venue: String?
        }
        let ids = try context.fetch(
            ObjectFetchRequest(entity: "Event", sortDescriptors: [ObjectSortDescriptor("id")]), as: Ids.self,
            exportOptions: {
                var o = ExportOptions()
                o.relationshipStyle = .identifiers
                return o
            }())
        #expect(ids.map(\.venue) == ["v1", "v1", nil])
    }

    @Test(arguments: StoreKind.allCases)
    func aValueTheMappingRejectsImportsNothing(kind: StoreKind) throws {
        struct BadSeats: Encodable {
            var id: String
            var seats: String
        }
        let context = ObjectContext(store: try stores.make(kind, model: try Self.model()))
        _ = try context.importObjects(Self.events, entity: "Event")
        do {
            _ = try context.importObjects([BadSeats(id: "e9", seats: "1"), BadSeats(id: "e10", seats: "many")], entity: "Event")
            Issue.record("imported")
        } catch let error as ImportError {
            #expect(error.path.description == "$[1].seats")
        }
        #expect(try context.count(ObjectFetchRequest(entity: "Event")) == 3)
    }
}

extension JSONDecoder {
    /// Foundation's decoder reading what an export writes (RFC 3339 dates with fractions).
    fileprivate static var storedObjects: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            return RFC3339.date(from: text)!
        }
        return decoder
    }
}
