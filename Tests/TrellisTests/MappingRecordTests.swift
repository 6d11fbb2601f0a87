import Foundation
import Testing

@testable import Trellis

private struct Power: JSONMappable, Equatable {
    let id: Int64
    let name: String
    init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
    init(map: JSONMap) throws {
        id = try map.from("id")
        name = try map.from("name")
    }
}

private struct Hero: JSONMappable, Equatable {
    let id: String
    let name: String
    let createdAt: Date
    let rating: Double
    let active: Bool
    let publisherName: String?
    let firstPower: String?
    let powers: [Power]
    let nickname: String?

    init(map: JSONMap) throws {
        id = try map.from("id")
        name = try map.from("name")
        createdAt = try map.from("created_at")
        rating = try map.from("rating")
        active = try map.from("active")
        publisherName = try map.from("publisher.name")
        firstPower = try map.from("powers.0.name")
        powers = try map.from("powers") ?? []
        nickname = try map.from("nickname")
    }
}

@Suite struct MappingRecordTests {
    static let created = Date(timeIntervalSince1970: 1_313_949_772.249)

    static let record = AttributeRecord(
        attributes: [
            "id": .integer(1699),  // an integer attribute read as a String property
            "name": .string("Batman"),
            "created_at": .date(created),  // a date attribute: taken as is, full precision
            "rating": .decimal(Decimal(string: "4.5")!),
            "active": .bool(true),
            "nickname": nil,
        ],
        relationships: [
            "publisher": .toOne(AttributeRecord(attributes: ["id": .integer(10), "name": .string("DC Comics")])),
            "powers": .toMany([
                AttributeRecord(attributes: ["id": .integer(4), "name": .string("Agility")]),
                AttributeRecord(attributes: ["id": .string("7"), "name": .string("Stealth")]),
            ]),
        ])

    @Test func sameInitReadsARecordAndJSON() throws {
        let fromRecord = try Hero(record: Self.record)
        #expect(fromRecord.id == "1699")
        #expect(fromRecord.name == "Batman")
        #expect(fromRecord.createdAt == Self.created)
        #expect(fromRecord.rating == 4.5)
        #expect(fromRecord.active)
        #expect(fromRecord.publisherName == "DC Comics")
        #expect(fromRecord.firstPower == "Agility")
        #expect(fromRecord.powers == [Power(id: 4, name: "Agility"), Power(id: 7, name: "Stealth")])
        #expect(fromRecord.nickname == nil)

        let fromJSON = try Hero(json: [
            "id": "1699", "name": "Batman", "created_at": "2011-08-21T18:02:52.249Z", "rating": 4.5, "active": 1,
            "publisher": ["id": "10", "name": "DC Comics"],
            "powers": [["id": "4", "name": "Agility"], ["id": 7, "name": "Stealth"]],
        ])
        #expect(fromJSON.powers == fromRecord.powers)
        #expect(fromJSON.publisherName == fromRecord.publisherName)
        #expect((fromJSON.createdAt.timeIntervalSince1970 * 1000).rounded() == 1_313_949_772_249)
    }

    @Test func recordErrorsNameThePropertyPath() throws {
        var record = Self.record
        record.relationships["powers"] = .toMany([AttributeRecord(attributes: ["id": .string("x"), "name": .string("A")])])
        #expect(try Hero(record: record).powers == [])  // lenient optional: nil, then the default
        let error = try #require(throws: MappingError.self) { try Hero(record: record, options: .init(strict: true)) }
        #expect(error.code == .invalidValue)
        #expect(error.description == #"$.powers[0].id: expected Int64, found string "x": not a decimal number"#)

        record = Self.record
        record.attributes["name"] = .some(nil)
        let null = try #require(throws: MappingError.self) { try Hero(record: record) }
        #expect(null.description == "$.name: null value (expected String)")

        record = Self.record
        record.attributes["active"] = nil
        let missing = try #require(throws: MappingError.self) { try Hero(record: record) }
        #expect(missing.description == "$.active: missing value (expected Bool)")
    }

    @Test func emptyToOneIsNil() throws {
        var record = Self.record
        record.relationships["publisher"] = .toOne(nil)
        #expect(try Hero(record: record).publisherName == nil)
    }

    @Test func rootRendersTheRecordAsJSONWithOneLevelOfRelationships() throws {
        let deep = AttributeRecord(attributes: ["e": .bool(true)])
        let map = JSONMap(
            record: AttributeRecord(
                attributes: ["a": .integer(1), "b": .date(Date(timeIntervalSince1970: 0))],
                relationships: ["c": .toMany([AttributeRecord(attributes: ["d": nil], relationships: ["deeper": .toOne(deep)])])]))
        #expect(try map.root == ["a": 1, "b": "1970-01-01T00:00:00.000Z", "c": [["d": nil]]])
        #expect(try map.rawValue("c.0") == ["d": nil, "deeper": ["e": true]])
        #expect(try map.rawValue("c.0.d") == nil)
        #expect(try map.rawValue("c.0.deeper.e") == true)
        #expect(try map.contains("a"))
        #expect(try !map.contains("z"))
    }
}

@Suite struct MappingTransformerTests {
    private struct Stamped: JSONMappable {
        let at: Date
        let maybe: Date?
        let cents: Int?
        init(map: JSONMap) throws {
            at = try map.from("at", using: .epochMilliseconds)
            maybe = try map.from("maybe", using: .iso8601)
            cents = try map.from("price", using: "cents")
        }
    }

    static var registry: JSONValueTransformerRegistry {
        var registry = JSONValueTransformerRegistry()
        registry.register(
            JSONValueTransformer(
                name: "cents",
                forward: { json in
                    guard case .string(let text) = json, text.hasPrefix("$"), let value = Decimal(string: String(text.dropFirst())) else {
                        return nil
                    }
                    return .integer(Int64(truncating: (value * 100) as NSDecimalNumber))
                },
                reverse: { value in
                    .string("$" + String(format: "%.2f", Double(value.integerValue ?? 0) / 100))
                }))
        return registry
    }

    @Test func perPropertyTransformers() throws {
        let options = JSONMap.Options(transformers: Self.registry)
        let stamped = try Stamped(json: ["at": 1_000, "maybe": "1970-01-01T00:00:01Z", "price": "$1.25"], options: options)
        #expect(stamped.at == Date(timeIntervalSince1970: 1))
        #expect(stamped.maybe == Date(timeIntervalSince1970: 1))
        #expect(stamped.cents == 125)
        // Optional transformed values follow the optional rules.
        let lenient = try Stamped(json: ["at": 0, "maybe": 12, "price": "free"], options: options)
        #expect(lenient.maybe == nil)
        #expect(lenient.cents == nil)
        // A transformer's type mismatch names the property.
        let error = try #require(throws: MappingError.self) { try Stamped(json: ["at": "now"], options: options) }
        #expect(error.code == .invalidValue)
        #expect(error.path.description == "$.at")
        #expect(error.expected == "Date")
    }

    @Test func standardRegistryByName() throws {
        struct Post: JSONMappable, JSONRepresentable {
            let created: Date
            let updated: Date?
            let day: Date
            init(created: Date, updated: Date?, day: Date) {
                self.created = created
                self.updated = updated
                self.day = day
            }
            init(map: JSONMap) throws {
                created = try map.from("created", using: "epoch-seconds")
                updated = try map.from("updated", using: "epoch-milliseconds")
                day = try map.from("day", using: "iso8601-date")
            }
            func write(to map: inout JSONWriteMap) throws {
                try map.write(created, to: "created", using: "epoch-seconds")
                try map.write(updated, to: "updated", using: "epoch-milliseconds")
                try map.write(day, to: "day", using: "iso8601-date")
            }
        }
        let post = try Post(jsonString: #"{"created": "1313949772", "updated": 1313949772250, "day": "2011-08-21"}"#)
        #expect(post.created == Date(timeIntervalSince1970: 1_313_949_772))
        #expect(post.updated == Date(timeIntervalSince1970: 1_313_949_772.25))
        #expect(post.day == Date(timeIntervalSince1970: 1_313_884_800))
        #expect(try post.jsonString() == #"{"created":1313949772,"updated":1313949772250,"day":"2011-08-21"}"#)
        let lenient = try Post(json: ["created": 0, "updated": "soon", "day": "2011-08-21"])
        #expect(lenient.updated == nil)
        let error = try #require(throws: MappingError.self) { try Post(json: ["created": true, "day": "2011-08-21"]) }
        #expect(error.code == .typeMismatch)
        #expect(error.description.hasPrefix(#"$.created: expected Date, found boolean true: value transformer "epoch-seconds": "#))
    }

    @Test func unknownTransformerNameThrowsEvenForOptionals() throws {
        let error = try #require(throws: MappingError.self) { try Stamped(json: ["at": 0]) }
        #expect(error.code == .unknownTransformer)
        #expect(error.path.description == "$.price")
    }

    @Test func closureTransformer() throws {
        struct Tags: JSONMappable {
            let tags: [String]
            init(map: JSONMap) throws {
                tags = try map.from("tags") { json in
                    guard case .string(let csv) = json else { throw MappingError.Code.typeMismatch }
                    return csv.split(separator: ",").map(String.init)
                }
            }
        }
        #expect(try Tags(json: ["tags": "a,b"]).tags == ["a", "b"])
        let error = try #require(throws: MappingError.self) { try Tags(json: ["tags": 1]) }
        #expect(error.code == .invalidValue)
        #expect(error.path.description == "$.tags")
        #expect(error.underlyingError as? MappingError.Code == .typeMismatch)
    }

    @Test func registeredTransformerWrites() throws {
        struct Price: JSONRepresentable {
            let cents: Int
            func write(to map: inout JSONWriteMap) throws { try map.write(cents, to: "price", using: "cents") }
        }
        #expect(try Price(cents: 125).jsonValue(options: .init(transformers: Self.registry)) == ["price": "$1.25"])
        let error = try #require(throws: MappingError.self) { try Price(cents: 1).jsonValue() }
        #expect(error.code == .unknownTransformer)
    }
}

/// A record whose `owner` relationship cannot be read (as a store failing to fault it in).
private struct FailingRecord: JSONMapRecord {
    struct StoreDown: Error, Equatable {}
    func jsonMapNode(forKey key: String) throws -> JSONMapNode? {
        switch key {
        case "name": return .attribute(.string("Ada"))
        case "owner": throw StoreDown()
        default: return nil
        }
    }
    var jsonMapKeys: [String] { ["name", "owner"] }
}

private struct Owned: JSONMappable {
    struct Owner: JSONMappable {
        let name: String
        init(map: JSONMap) throws { name = try map.from("name") }
    }
    let name: String
    let ownerName: String?
    init(map: JSONMap) throws {
        name = try map.from("name")
        ownerName = try map.from("owner.name")
    }
}

private struct Wrapper: JSONMappable {
    let owned: Owned?
    init(map: JSONMap) throws { owned = try map.from("owned") }
}

/// A model that rejects a value with its own error type.
private struct Positive: JSONMappable {
    struct NotPositive: Error, Equatable { let value: Int }
    let value: Int
    init(map: JSONMap) throws {
        value = try map.from("value")
        guard value > 0 else { throw NotPositive(value: value) }
    }
}

private struct Holder: JSONMappable {
    let positive: Positive?
    init(map: JSONMap) throws { positive = try map.from("positive") }
}

@Suite struct MappingErrorPassThroughTests {
    @Test func sourceErrorsPropagateUnchangedEvenThroughOptionals() throws {
        #expect(throws: FailingRecord.StoreDown()) { try Owned(record: FailingRecord()) }
        let record = AttributeRecord(relationships: ["owned": .toOne(nil)])
        #expect(try Wrapper(record: record).owned == nil)
    }

    @Test func yourOwnErrorsPropagateUnchanged() throws {
        #expect(throws: Positive.NotPositive(value: -1)) { try Holder(json: ["positive": ["value": -1]]) }
        #expect(try Holder(json: ["positive": ["value": "x"]]).positive == nil)  // a data error: lenient
        #expect(try Holder(json: ["positive": ["value": 3]]).positive?.value == 3)
    }
}
