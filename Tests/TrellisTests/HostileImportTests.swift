import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// Hostile input for the importer (into an in-memory store; the SQLite and CLI paths are
/// in `Tests/EndToEndTests/HostileInputEndToEndTests.swift`): numbers of 10,000 digits, an
/// identity value of every JSON type, duplicate keys, NUL characters. (The 100 MB string
/// is imported in ``HostileJSONTests``, which runs its large inputs one at a time.) Every
/// failure leaves the store empty.
@Suite struct HostileImportTests {
    let stores = TestStores()

    // MARK: - Numbers of 10,000 digits

    static let numbersModel: ObjectModel = {
        try! ObjectModel(entities: [
            EntityDescription(
                name: "N",
                attributes: [
                    GraphFixture.attribute("i", .integer64, key: "i"), GraphFixture.attribute("d", .double, key: "d"),
                    GraphFixture.attribute("m", .decimal, key: "m"), GraphFixture.attribute("s", .string, key: "s"),
                ])
        ])
    }()

    enum Outcome: Sendable, Equatable {
        case stored(AttributeValue)
        /// The error's message (after the path).
        case refused(String)
    }

    struct NumberCase: Sendable, CustomTestStringConvertible {
        var label: String
        var literal: String
        var integer64: Outcome
        var double: Outcome
        var decimal: Outcome
        var testDescription: String { label }
    }

    static let ones = String(repeating: "1", count: 10_000)
    static let integerRange = "out of range -9223372036854775808...9223372036854775807"
    static let doubleRange = "out of range for Double (magnitude above 1.7976931348623157e308)"
    static let decimalRange = "out of Decimal's range (exponent -128...127)"

    /// Each literal has 10,000 digits. The snippet in a message is the first 40 characters.
    static let numberCases: [NumberCase] = [
        NumberCase(
            label: "10,000 ones", literal: ones,
            integer64: .refused("cannot store \(String(repeating: "1", count: 40))… in N.i (integer64): \(integerRange)"),
            double: .refused("cannot store \(String(repeating: "1", count: 40))… in N.d (double): \(doubleRange)"),
            decimal: .refused("cannot store \(String(repeating: "1", count: 40))… in N.m (decimal): more than 38 significant digits (10000)")),
        NumberCase(
            label: "minus 10,000 ones", literal: "-" + ones,
            integer64: .refused("cannot store -\(String(repeating: "1", count: 39))… in N.i (integer64): \(integerRange)"),
            double: .refused("cannot store -\(String(repeating: "1", count: 39))… in N.d (double): \(doubleRange)"),
            decimal: .refused("cannot store -\(String(repeating: "1", count: 39))… in N.m (decimal): more than 38 significant digits (10000)")),
        NumberCase(
            label: "1 and 9,999 zeros (1e9999)", literal: "1" + String(repeating: "0", count: 9_999),
            integer64: .refused("cannot store 1\(String(repeating: "0", count: 39))… in N.i (integer64): \(integerRange)"),
            double: .refused("cannot store 1\(String(repeating: "0", count: 39))… in N.d (double): \(doubleRange)"),
            decimal: .refused("cannot store 1\(String(repeating: "0", count: 39))… in N.m (decimal): \(decimalRange)")),
        // 1e-9999: below the smallest subnormal Double, so the nearest Double is 0 (documented
        // on JSONCoercion.double); not a whole number; beyond Decimal's exponent.
        NumberCase(
            label: "0.000…1 (1e-9999)", literal: "0." + String(repeating: "0", count: 9_998) + "1",
            integer64: .refused("cannot store 0.\(String(repeating: "0", count: 38))… in N.i (integer64): not a whole number"),
            double: .stored(.double(0)),
            decimal: .refused("cannot store 0.\(String(repeating: "0", count: 38))… in N.m (decimal): \(decimalRange)")),
        // Values that fit, written with 10,000 digits: stored exactly.
        NumberCase(
            label: "1.000…0", literal: "1." + String(repeating: "0", count: 9_999),
            integer64: .stored(.integer(1)), double: .stored(.double(1)), decimal: .stored(.decimal(1))),
        NumberCase(
            label: "1 and 9,999 zeros, e-9999", literal: "1" + String(repeating: "0", count: 9_999) + "e-9999",
            integer64: .stored(.integer(1)), double: .stored(.double(1)), decimal: .stored(.decimal(1))),
        NumberCase(
            label: "Int64.max and 9,981 zeros after the point", literal: "9223372036854775807." + String(repeating: "0", count: 9_981),
            integer64: .stored(.integer(.max)), double: .stored(.double(9.223372036854776e18)),
            decimal: .stored(.decimal(Decimal(string: "9223372036854775807")!))),
        NumberCase(
            label: "38 significant digits and 9,962 zeros after the point",
            literal: "12345678901234567890123456789012345678." + String(repeating: "0", count: 9_962),
            integer64: .refused("cannot store 12345678901234567890123456789012345678.0… in N.i (integer64): \(integerRange)"),
            double: .stored(.double(1.2345678901234568e37)),
            decimal: .stored(.decimal(Decimal(string: "12345678901234567890123456789012345678")!))),
        // Correctly rounded from all 10,000 digits (far from a tie, so the 30-digit prefix rounds the same).
        NumberCase(
            label: "3.1415926535… (10,000 digits)", literal: "3." + String(repeating: "1415926535", count: 999) + "141592653",
            integer64: .refused("cannot store 3.14159265351415926535141592653514159265… in N.i (integer64): not a whole number"),
            double: .stored(.double(3.1415926535141594)),
            decimal: .refused("cannot store 3.14159265351415926535141592653514159265… in N.m (decimal): more than 38 significant digits (10000)")),
    ]

    @Test(arguments: StoreKind.allCases, numberCases)
    func tenThousandDigitNumbers(kind: StoreKind, _ c: NumberCase) throws {
        #expect(c.literal.utf8.filter { $0 >= 0x30 && $0 <= 0x39 }.count == 10_000 + (c.literal.hasSuffix("e-9999") ? 4 : 0))
        for (key, outcome) in [("i", c.integer64), ("d", c.double), ("m", c.decimal)] {
            let store = try stores.make(kind, model: Self.numbersModel)
            let context = ObjectContext(store: store)
            let payload = try JSONReader.parse("[{\"\(key)\": \(c.literal)}]")
            switch outcome {
            case .stored(let value):
                _ = try context.importObjects(from: payload, entity: "N")
                let objects = try context.fetch("N")
                #expect(objects.count == 1, "\(key)")
                #expect(objects.first?[key] == value, "\(key)")
            case .refused(let message):
                do {
                    _ = try context.importObjects(from: payload, entity: "N")
                    Issue.record("\(key): expected an error")
                } catch let error as ImportError {
                    #expect(error.code == .invalidValue)
                    #expect(error.path.description == "$[0].\(key)" && error.entity == "N" && error.property == key)
                    #expect(error.message == message, "\(key)")
                }
                #expect(try store.countObjects() == 0, "\(key)")
            }
        }
        // A string attribute keeps the number's text exactly.
        let context = ObjectContext(store: try stores.make(kind, model: Self.numbersModel))
        _ = try context.importObjects(from: try JSONReader.parse("[{\"s\": \(c.literal)}]"), entity: "N")
        let text = try context.fetch("N").first?["s"]?.stringValue
        #expect(text == c.literal)
    }

    // MARK: - An identity value of every JSON type

    static let identityModel: ObjectModel = {
        try! ObjectModel(entities: [
            EntityDescription(
                name: "I", attributes: [GraphFixture.attribute("id", .integer64, key: "id"), GraphFixture.attribute("n", .string, key: "n")],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "S", attributes: [GraphFixture.attribute("id", .string, key: "id"), GraphFixture.attribute("n", .string, key: "n")],
                userInfo: ["identityAttributes": "id"]),
        ])
    }()

    struct IdentityCase: Sendable, CustomTestStringConvertible {
        var entity: String
        var json: String
        /// Importing `[{"id": V, "n": "a"}, {"id": V, "n": "b"}]`: the stored objects
        /// (`id=… n=…`), or the error.
        var objects: Result<[String], ErrorText>
        /// Importing `[V, V]` (bare identifiers).
        var bare: Result<[String], ErrorText>
        var testDescription: String { "\(entity) id \(json)" }
    }

    struct ErrorText: Error, Equatable, Sendable {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static let identityCases: [IdentityCase] = [
        // integer64 identity
        // `[null, null]`: null elements are skipped (and counted), as Groot skips them.
        .init(entity: "I", json: "null", objects: .success(["id=nil n=\"a\"", "id=nil n=\"b\""]), bare: .success([])),
        .init(
            entity: "I", json: "true", objects: .failure(.init("$[0].id: cannot store true in I.id (integer64): expected a number or a numeric string")),
            bare: .failure(.init("$[0]: expected an I object or identifier, found true"))),
        .init(entity: "I", json: "42", objects: .success(["id=42 n=\"b\""]), bare: .success(["id=42 n=nil placeholder"])),
        .init(entity: "I", json: "\"42\"", objects: .success(["id=42 n=\"b\""]), bare: .success(["id=42 n=nil placeholder"])),
        .init(entity: "I", json: "4.0", objects: .success(["id=4 n=\"b\""]), bare: .success(["id=4 n=nil placeholder"])),
        .init(
            entity: "I", json: "4.5", objects: .failure(.init("$[0].id: cannot store 4.5 in I.id (integer64): not a whole number")),
            bare: .failure(.init("$[0]: cannot store 4.5 in I.id (integer64): not a whole number"))),
        .init(
            entity: "I", json: "9223372036854775808",
            objects: .failure(.init("$[0].id: cannot store 9223372036854775808 in I.id (integer64): out of range -9223372036854775808...9223372036854775807")),
            bare: .failure(.init("$[0]: cannot store 9223372036854775808 in I.id (integer64): out of range -9223372036854775808...9223372036854775807"))),
        .init(
            entity: "I", json: "\"x\"", objects: .failure(.init("$[0].id: cannot store \"x\" in I.id (integer64): not a decimal number")),
            bare: .failure(.init("$[0]: cannot store \"x\" in I.id (integer64): not a decimal number"))),
        .init(
            entity: "I", json: "[1]", objects: .failure(.init("$[0].id: cannot store [1] in I.id (integer64): expected a number or a numeric string")),
            bare: .failure(.init("$[0]: expected an I object or identifier, found [1]"))),
        // A bare object is an object without the identity key: inserted, like any object without identity.
        .init(
            entity: "I", json: "{\"a\":1}",
            objects: .failure(.init("$[0].id: cannot store {\"a\":1} in I.id (integer64): expected a number or a numeric string")),
            bare: .success(["id=nil n=nil", "id=nil n=nil"])),
        // string identity
        .init(entity: "S", json: "null", objects: .success(["id=nil n=\"a\"", "id=nil n=\"b\""]), bare: .success([])),
        .init(
            entity: "S", json: "true", objects: .success(["id=\"true\" n=\"b\""]), bare: .failure(.init("$[0]: expected a S object or identifier, found true"))),
        .init(entity: "S", json: "42", objects: .success(["id=\"42\" n=\"b\""]), bare: .success(["id=\"42\" n=nil placeholder"])),
        .init(entity: "S", json: "4.0", objects: .success(["id=\"4.0\" n=\"b\""]), bare: .success(["id=\"4.0\" n=nil placeholder"])),
        // -0 is read as the integer 0, so its text is "0".
        .init(entity: "S", json: "-0", objects: .success(["id=\"0\" n=\"b\""]), bare: .success(["id=\"0\" n=nil placeholder"])),
        .init(
            entity: "S", json: "9223372036854775808", objects: .success(["id=\"9223372036854775808\" n=\"b\""]),
            bare: .success(["id=\"9223372036854775808\" n=nil placeholder"])),
        .init(entity: "S", json: "\"x\"", objects: .success(["id=\"x\" n=\"b\""]), bare: .success(["id=\"x\" n=nil placeholder"])),
        .init(entity: "S", json: "\"\"", objects: .success(["id=\"\" n=\"b\""]), bare: .success(["id=\"\" n=nil placeholder"])),
        .init(
            entity: "S", json: "[1]", objects: .failure(.init("$[0].id: cannot store [1] in S.id (string): expected a string, a number or a boolean")),
            bare: .failure(.init("$[0]: expected a S object or identifier, found [1]"))),
        .init(
            entity: "S", json: "{\"a\":1}",
            objects: .failure(.init("$[0].id: cannot store {\"a\":1} in S.id (string): expected a string, a number or a boolean")),
            bare: .success(["id=nil n=nil", "id=nil n=nil"])),
    ]

    /// An identity value is coerced to the attribute's type before lookup; the two objects
    /// with the same identity merge (last value wins). `null` (or a missing key) is no
    /// identity: each such object is inserted, as Groot does (a non-optional identity
    /// attribute refuses them instead).
    @Test(arguments: StoreKind.allCases, identityCases)
    func identityValueOfEveryJSONType(kind: StoreKind, _ c: IdentityCase) throws {
        let value = try JSONReader.parse(c.json)
        for (payload, expected) in [
            (JSONValue.array([["id": value, "n": "a"], ["id": value, "n": "b"]]), c.objects),
            (JSONValue.array([value, value]), c.bare),
        ] {
            let store = try stores.make(kind, model: Self.identityModel)
            let context = ObjectContext(store: store)
            do {
                _ = try context.importObjects(from: payload, entity: c.entity)
                let rows = try GraphFixture.rows(store, c.entity).map { GraphFixture.describe($0, store.model) }
                #expect(Result<[String], ErrorText>.success(rows) == expected, "\(payload)")
            } catch let error as ImportError {
                #expect(Result<[String], ErrorText>.failure(ErrorText(error.description)) == expected, "\(payload)")
                #expect(try store.countObjects() == 0)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRequiredIdentityRefusesNullAndMissingValues(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "R", attributes: [GraphFixture.attribute("id", .integer64, key: "id", optional: false), GraphFixture.attribute("n", .string, key: "n")],
                userInfo: ["identityAttributes": "id"])
        ])
        for payload: JSONValue in [[["id": nil, "n": "a"]], [["n": "a"]]] {
            let store = try stores.make(kind, model: model)
            let error = try #require(throws: ImportError.self) { try ObjectContext(store: store).importObjects(from: payload, entity: "R") }
            #expect(error.code == .missingRequiredValue)
            #expect(error.description == "$[0].id: R.id is required; the object has no value at 'id'")
            #expect(try store.countObjects() == 0)
        }
    }

    // MARK: - Duplicate keys, NUL characters

    @Test(arguments: StoreKind.allCases)
    func duplicateKeysInAPayloadMeanTheLastValue(kind: StoreKind) throws {
        let store = try stores.make(kind, model: Self.identityModel)
        let context = ObjectContext(store: store)
        _ = try context.importObjects(from: try JSONReader.parse(#"[{"id": 1, "n": "a", "id": 2, "n": "b", "n": "c"}]"#), entity: "I")
        #expect(try GraphFixture.rows(store, "I").map { GraphFixture.describe($0, store.model) } == ["id=2 n=\"c\""])
    }

    /// "é" precomposed (U+00E9) and decomposed ("e" U+0301) are equal for Swift's `==` but
    /// different text for SQLite. They used to merge into one object within a payload (and
    /// stay two across imports), and changing one into the other was "unchanged".
    @Test(arguments: StoreKind.allCases)
    func canonicallyEquivalentStringsAreDifferentIdentitiesAndValues(kind: StoreKind) throws {
        let precomposed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(AttributeValue.string(precomposed) != .string(decomposed))
        #expect(Set([AttributeValue.string(precomposed), .string(decomposed)]).count == 2)
        #expect(JSONValue.string(precomposed) != .string(decomposed))
        #expect(JSONValue.array([.string(precomposed)]) == .array([.string("\u{E9}")]))

        let store = try stores.make(kind, model: Self.identityModel)
        let context = ObjectContext(store: store)
        let both = try context.importObjects(from: [["id": .string(precomposed), "n": "nfc"], ["id": .string(decomposed), "n": "nfd"]], entity: "S")
        #expect(both.counts(for: "S") == .init(inserted: 2))
        #expect(both.diagnostics.isEmpty)
        let changed = try context.importObjects(from: [["id": .string(precomposed), "n": .string(decomposed)]], entity: "S")
        #expect(changed.counts(for: "S") == .init(updated: 1))
        let rows = try GraphFixture.rows(store, "S").map { ($0.attributes[0]?.stringValue ?? "", $0.attributes[1]?.stringValue ?? "") }
        #expect(rows.map { [Array($0.0.utf8), Array($0.1.utf8)] } == [[[0xC3, 0xA9], [0x65, 0xCC, 0x81]], [[0x65, 0xCC, 0x81], Array("nfd".utf8)]])
    }

    @Test(arguments: StoreKind.allCases)
    func nulCharactersInKeysAndValuesRoundTripThroughImportAndExport(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "K",
                attributes: [
                    GraphFixture.attribute("id", .string, key: "id"), GraphFixture.attribute("v", .string, key: "a\u{0}b"),
                    GraphFixture.attribute("j", .json, key: "j"),
                ], userInfo: ["identityAttributes": "id"])
        ])
        let text = #"[{"id":"x\u0000y","a\u0000b":"\u0000v\u0000","j":{"k\u0000":["\u0000"]}},{"id":"x","a\u0000b":"","j":null}]"#
        let context = ObjectContext(store: try stores.make(kind, model: model))
        if kind == .postgres {
            // PostgreSQL's text and jsonb cannot hold U+0000: refused, naming the entity and
            // attribute, and nothing is stored.
            #expect { _ = try context.importObjects(from: try JSONReader.parse(text), entity: "K") } throws: { error in
                guard let error = error as? StoreError else { return false }
                return error.code == .unsupportedValue && error.message.hasPrefix("entity K, attribute id: ")
                    && error.message.contains("U+0000")
            }
            #expect(try context.fetch("K").isEmpty)
            return
        }
        _ = try context.importObjects(from: try JSONReader.parse(text), entity: "K")
        // "x\0y" and "x" are two identities.
        let objects = try context.fetch("K")
        #expect(objects.count == 2)
        #expect(objects.first?["id"]?.stringValue?.utf8.elementsEqual([0x78, 0, 0x79]) == true)
        #expect(try JSONWriter.string(for: try context.exportJSON(objects)) == text)
        let again = try context.importObjects(from: try JSONReader.parse(text), entity: "K")
        #expect(again.counts(for: "K") == .init(unchanged: 2))
    }
}
