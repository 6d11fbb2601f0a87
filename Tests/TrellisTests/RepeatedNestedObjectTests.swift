import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// Nested objects without mapped relationships (a character's powers) repeat throughout a
/// payload; the importer applies an identical repeat by reusing the earlier occurrence's
/// object (`LeafObjects`). These pin that the contract still holds: the last differing value
/// wins, values that `==` holds equal but that convert differently are applied, and every
/// repeat is linked.
/// On every store (``StoreKind/allCases``): each test runs once per store kind, on a fresh
/// store of that kind (``use(_:)``).
@Suite final class RepeatedNestedObjectTests {
    let model: ObjectModel
    let stores = TestStores()
    private(set) var store: any PersistentStore
    private(set) var context: ObjectContext

    init() throws {
        model = try GraphFixture.grootModel()
        store = InMemoryStore(model: model)
        context = ObjectContext(store: store)
    }

    /// Makes the suite's store a fresh one of `kind` (with a context on it).
    func use(_ kind: StoreKind) throws {
        store = try stores.make(kind, model: model)
        context = ObjectContext(store: store)
    }

    func powers() throws -> [String] {
        try GraphFixture.rows(store, "Power").map { GraphFixture.describe($0, model) }
    }

    func powerIDs(ofCharacter id: Int64) throws -> [AttributeValue?] {
        let character = try #require(try context.fetch("Character", id: .integer(id)))
        return try character.destinations(forKey: "powers").map { $0["id"] }
    }

    static func character(_ id: Int, power name: JSONValue) -> JSONValue {
        ["id": JSONValue(String(id)), "name": JSONValue("C\(id)"), "powers": [["id": "1", "name": name]]]
    }

    @Test(arguments: StoreKind.allCases)
    func theLastDifferingValueWinsAcrossIdenticalRepeats(kind: StoreKind) throws {
        try use(kind)
        let payload: JSONValue = [
            Self.character(1, power: "A"), Self.character(2, power: "B"), Self.character(3, power: "B"),
            Self.character(4, power: "A"), Self.character(5, power: "A"),
        ]
        let report = try context.importObjects(from: payload, entity: "Character")
        #expect(report.counts(for: "Power") == .init(inserted: 1))
        #expect(report.counts(for: "Character") == .init(inserted: 5))
        #expect(try powers() == ["id=1 name=\"A\""])
        for id in 1...5 { #expect(try powerIDs(ofCharacter: Int64(id)) == [.integer(1)]) }

        // Again with the last value changed: the stored power is updated once, and a repeat
        // identical to the stored value still ends on the last value.
        let changed: JSONValue = [Self.character(1, power: "A"), Self.character(2, power: "A"), Self.character(3, power: "C")]
        let again = try context.importObjects(from: changed, entity: "Character")
        #expect(again.counts(for: "Power") == .init(updated: 1))
        #expect(again.counts(for: "Character") == .init(unchanged: 3))
        #expect(try powers() == ["id=1 name=\"C\""])
    }

    @Test(arguments: StoreKind.allCases)
    func numbersEqualByValueButNotByTextAreAppliedAgain(kind: StoreKind) throws {
        try use(kind)
        // 1 and 1.0 are == as JSON numbers, but a string attribute keeps their text.
        let payload: JSONValue = [
            Self.character(1, power: .number(JSONNumber(Int64(1)))),
            Self.character(2, power: .number(try #require(JSONNumber(text: "1.0")))),
        ]
        _ = try context.importObjects(from: payload, entity: "Character")
        #expect(try powers() == ["id=1 name=\"1.0\""])
    }

    @Test(arguments: StoreKind.allCases)
    func repeatsAcrossBatchesAndWithinOneCharacterAreLinkedOnce(kind: StoreKind) throws {
        try use(kind)
        var options = ImportOptions()
        options.batchSize = 2
        let payload: JSONValue = .array(
            (1...5).map { i -> JSONValue in
                ["id": JSONValue(String(i)), "powers": [["id": "1", "name": "A"], ["id": "2", "name": "B"], ["id": "1", "name": "A"]]]
            })
        let report = try context.importObjects(from: payload, entity: "Character", options: options)
        #expect(report.counts(for: "Power") == .init(inserted: 2))
        #expect(try powers() == ["id=1 name=\"A\"", "id=2 name=\"B\""])
        for id in 1...5 { #expect(try powerIDs(ofCharacter: Int64(id)) == [.integer(1), .integer(2)]) }
    }

    @Test(arguments: StoreKind.allCases)
    func identicalIsStricterThanEquality(kind: StoreKind) throws {
        try use(kind)
        let one = JSONValue.number(JSONNumber(Int64(1)))
        let oneText = JSONValue.number(try #require(JSONNumber(text: "1.0")))
        #expect(one == oneText)
        #expect(!one.isIdentical(to: oneText))
        #expect(JSONValue.number(JSONNumber(2.5)).isIdentical(to: .number(JSONNumber(2.5))))
        let ab: JSONObject = ["a": 1, "b": "x"]
        let ba: JSONObject = ["b": "x", "a": 1]
        #expect(ab == ba)
        #expect(!ab.isIdentical(to: ba))
        #expect(ab.isIdentical(to: ["a": 1, "b": "x"]))
        #expect(!JSONValue.string("\u{E9}").isIdentical(to: .string("e\u{301}")))
        #expect(JSONValue.array([.null, .bool(true)]).isIdentical(to: [.null, true]))
        #expect(!JSONValue.array([.null]).isIdentical(to: [.null, .null]))
    }
}
