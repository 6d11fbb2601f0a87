import Foundation
import TrellisTestSupport

@testable import Trellis

/// One import of a generated case: a top-level array for `entity`.
struct RoundTripPayload {
    var entity: String
    var json: JSONValue
    /// The `null` elements put into arrays (top-level and relationship arrays), which the
    /// import skips and counts.
    var nullElements: Int
}

/// Random payloads for a ``RoundTripModel``: objects of the root entities with identity
/// values from small pools (so imports merge into each other), every attribute present,
/// `null` or missing, relationships as nested objects, bare identifiers, composite
/// references, `null` or missing, arrays written as arrays or as objects keyed by index,
/// and `null` elements here and there.
struct RoundTripPayloads {
    let shape: RoundTripModel
    private var random: SplitMix64
    private var nullElements = 0
    /// Whether the store takes U+0000 in text (PostgreSQL's does not).
    let textHoldsNUL: Bool

    init(_ shape: RoundTripModel, textHoldsNUL: Bool = true) {
        self.shape = shape
        self.textHoldsNUL = textHoldsNUL
        random = SplitMix64(seed: shape.seed ^ 0x9A71_0AD5)
    }

    /// 1 to 3 payloads.
    mutating func make() -> [RoundTripPayload] {
        let roots = shape.importedEntities
        return (0..<Int(next(3)) + 1).map { _ in
            let e = roots[Int(next(UInt64(roots.count)))]
            nullElements = 0
            var elements: [JSONValue] = (0..<Int(next(4)) + 1).map { _ in
                // Now and then a bare identifier at the top level: a placeholder.
                if shape.entities[e].identity == .single, chance(10) { return identifier(of: e) }
                return object(of: e, depth: 1)
            }
            if chance(10) {
                elements.insert(.null, at: Int(next(UInt64(elements.count + 1))))
                nullElements += 1
            }
            return RoundTripPayload(entity: shape.entities[e].name, json: .array(elements), nullElements: nullElements)
        }
    }

    // MARK: - Objects

    /// An object requested as `e`: of `e`, or of one of the sub-entities the mapper may
    /// choose (its `kind` says which).
    private mutating func object(of e: Int, depth: Int) -> JSONValue {
        let choices = shape.concretes(for: e)
        let c = choices.count == 1 ? choices[0] : choices[Int(next(UInt64(choices.count)))]
        var json = JSONValue.object(JSONObject())
        let asArrays = chance(70)
        let id = familyIdentity(of: c)
        for attribute in shape.allAttributes(c) {
            if attribute.isMapperKey {
                put(.string(shape.entities[c].kind!), at: attribute.keyPath, in: &json, asArrays: asArrays)
                continue
            }
            if attribute.isIdentity {
                put(id ?? identityValue(attribute), at: attribute.keyPath, in: &json, asArrays: asArrays)
                continue
            }
            switch next(20) {
            case 0..<12: put(value(of: attribute.type), at: attribute.keyPath, in: &json, asArrays: asArrays)
            case 12..<15: put(.null, at: attribute.keyPath, in: &json, asArrays: asArrays)
            default: break  // missing: unchanged
            }
        }
        for relationship in shape.allRelationships(c) {
            guard let keyPath = relationship.keyPath, let value = linkValue(relationship, depth: depth) else { continue }
            put(value, at: keyPath, in: &json, asArrays: asArrays)
        }
        return json
    }

    /// A relationship's value, or nil to leave the key out.
    private mutating func linkValue(_ relationship: RoundTripModel.Relationship, depth: Int) -> JSONValue? {
        switch next(10) {
        case 0..<4: return Optional<JSONValue>.none
        case 4: return JSONValue.null
        default: break
        }
        let d = relationship.destination
        if !relationship.isToMany { return destination(d, depth: depth) }
        var items: [JSONValue] = []
        for _ in 0..<next(4) {
            if let item = destination(d, depth: depth) { items.append(item) }
        }
        if chance(10) {
            items.insert(.null, at: Int(next(UInt64(items.count + 1))))
            nullElements += 1
        }
        return .array(items)
    }

    /// A nested object, a bare identifier or a composite reference; nil when only a nested
    /// object would do and the payload is deep enough.
    private mutating func destination(_ d: Int, depth: Int) -> JSONValue? {
        let nests = depth < 3 && chance(50)
        switch shape.entities[d].identity {
        case .none:
            guard depth < 3 else { return Optional<JSONValue>.none }  // (a bare `nil` would be JSONValue.null)
            return object(of: d, depth: depth + 1)
        case .single, .composite: return nests ? object(of: d, depth: depth + 1) : identifier(of: d)
        }
    }

    /// The JSON naming an object of `e` by identity: the value, or an object of the
    /// identity key paths.
    private mutating func identifier(of e: Int) -> JSONValue {
        if shape.family(of: e) != nil {
            // An identifier of one of the entities an object requested as `e` may be.
            let choices = shape.concretes(for: e)
            return familyIdentity(of: choices[Int(next(UInt64(choices.count)))])!
        }
        let identity = shape.entities[e].attributes.filter(\.isIdentity)
        if shape.entities[e].identity == .single { return identityValue(identity[0]) }
        var json = JSONValue.object(JSONObject())
        let asArrays = chance(70)
        for attribute in identity { put(identityValue(attribute), at: attribute.keyPath, in: &json, asArrays: asArrays) }
        return json
    }

    /// The identity value of an object of `c` in a family: 1…6. With the identity on the
    /// parent (one namespace), each value belongs to one entity of the family (an object
    /// cannot change its entity): `n` to the `(n - 1) % count`-th the mapper may choose.
    private mutating func familyIdentity(of c: Int) -> JSONValue? {
        guard let family = shape.family(of: c) else { return nil }
        if !family.identityOnParent { return .number(JSONNumber(Int64(next(6)) + 1)) }
        let owned = (1...6).filter { family.concretes[($0 - 1) % family.concretes.count] == c }
        return .number(JSONNumber(Int64(owned[Int(next(UInt64(owned.count)))])))
    }

    // MARK: - Values

    /// An identity value from a small pool, sometimes in another JSON form of the same value.
    private mutating func identityValue(_ attribute: RoundTripModel.Attribute) -> JSONValue {
        switch attribute.type {
        case .integer64, .integer32, .integer16:
            let n = Int64(next(6)) + 1
            return chance(20) ? .string(String(n)) : .number(JSONNumber(n))
        case .uuid:
            let pool = [
                "0f8fad5b-d9cb-469f-a165-70867728950e", "7c9e6679-7425-40de-944b-e07fc1f90ae7",
                "e1b1a1c2-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
            ]
            let text = pool[Int(next(UInt64(pool.count)))]
            return .string(chance(30) ? text.uppercased() : text)
        case .string where attribute.name == "kind":
            return .string(chance(50) ? "x" : "y")
        default:
            return .string(["a", "b", "c", "é", "e\u{301}"][Int(next(5))])
        }
    }

    private mutating func value(of type: AttributeType) -> JSONValue {
        switch type {
        case .string:
            // PostgreSQL's text cannot hold U+0000 (refused, HostileImportTests): U+0001 there,
            // in the same place of the pool so that a seed makes the same case on every store.
            let control = textHoldsNUL ? "x\u{0}y" : "x\u{1}y"
            let pool = ["", "a", "Ada Lovelace", "é", "e\u{301}", control, "😀 \"quoted\"", "line\nbreak", "123", "true"]
            return .string(pool[Int(next(UInt64(pool.count)))])
        case .integer16: return integer(in: Int64(Int16.min)...Int64(Int16.max))
        case .integer32: return integer(in: Int64(Int32.min)...Int64(Int32.max))
        case .integer64:
            if chance(20) { return .number(JSONNumber([Int64.min, Int64.max, 9_007_199_254_740_993][Int(next(3))])) }
            return integer(in: -1_000_000_000_000...1_000_000_000_000)
        case .decimal:
            let pool = ["0", "1.5", "1.50", "-0.001", "12345678901234567890.123", "1e10", "3.14159265358979323846"]
            return .number(JSONNumber(text: pool[Int(next(UInt64(pool.count)))])!)
        case .double:
            switch next(4) {
            case 0: return .number(JSONNumber(text: ["0.1", "-0.0", "1e300", "5e-324", "123.456"][Int(next(5))])!)
            default:
                var d = Double(bitPattern: random.next())
                while !d.isFinite { d = Double(bitPattern: random.next()) }
                return .number(JSONNumber(d))
            }
        case .float:
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            return .number(JSONNumber(text: f.isFinite ? f.description : "0.1")!)
        case .boolean:
            return [.bool(true), .bool(false), .number(JSONNumber(Int64(1))), .string("YES"), .string("false")][Int(next(5))]
        case .date: return date()
        case .binary:
            let bytes = (0..<next(9)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            return .string(Data(bytes).base64EncodedString())
        case .uuid:
            let text = UUID(uuid: (UInt8(next(256)), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8(next(256)))).uuidString
            return .string(chance(50) ? text.lowercased() : text)
        case .uri:
            return .string(["https://example.org/a?b=c", "/relative/path", "a?b", "mailto:ada@example.org"][Int(next(4))])
        case .json:
            return jsonValue(depth: 0)
        }
    }

    private mutating func integer(in range: ClosedRange<Int64>) -> JSONValue {
        let span = UInt64(bitPattern: range.upperBound &- range.lowerBound) &+ 1
        let n = range.lowerBound &+ Int64(bitPattern: span == 0 ? random.next() : random.next() % span)
        return chance(10) ? .string(String(n)) : .number(JSONNumber(n))
    }

    /// RFC 3339 text with 0 to 9 fraction digits and an offset, from 1985 to 2100; or a
    /// number of seconds; or a whole second before 1970.
    private mutating func date() -> JSONValue {
        switch next(6) {
        case 0:
            let seconds = Double(Int64(next(1_000_000_000)) + 500_000_000) + Double(next(1_000_000)) / 1_000_000
            return .number(JSONNumber(text: String(format: "%.6f", seconds))!)
        case 1:
            let whole = -Int64(next(2_000_000_000))
            return .string(RFC3339.string(from: Date(timeIntervalSince1970: Double(whole)), fractionDigits: 0))
        default:
            let seconds = Int64(next(3_600_000_000)) + 482_112_000  // 1985-04-12 ..< 2099
            var text = String(RFC3339.string(from: Date(timeIntervalSince1970: Double(seconds)), fractionDigits: 0).dropLast())
            let digits = Int(next(10))
            if digits > 0 {
                text += "." + (0..<digits).map { _ in String(next(10)) }.joined()
            }
            text += ["Z", "+02:00", "-05:30", "+0100"][Int(next(4))]
            return .string(text)
        }
    }

    private mutating func jsonValue(depth: Int) -> JSONValue {
        switch next(depth < 2 ? 7 : 5) {
        case 0: return .string(["", "x", "é"][Int(next(3))])
        case 1: return .number(JSONNumber(text: ["1", "1.50", "-2e3", "12345678901234567890"][Int(next(4))])!)
        case 2: return .bool(chance(50))
        case 3: return depth == 0 ? .string("top") : .null
        case 4: return .number(JSONNumber(Int64(next(100))))
        case 5: return .array((0..<next(3)).map { _ in jsonValue(depth: depth + 1) })
        default:
            var object = JSONObject()
            for k in 0..<next(3) { object.append(key: ["b", "a", "c"][Int(k)], value: jsonValue(depth: depth + 1)) }
            return .object(object)
        }
    }

    // MARK: - Writing at key paths

    /// Writes `value` at `keyPath` (dot-separated, no escapes), making arrays for index
    /// components when `asArrays` (padded with `null`), else objects keyed `"0"`, `"1"`.
    private func put(_ value: JSONValue, at keyPath: String, in json: inout JSONValue, asArrays: Bool) {
        let components = keyPath.split(separator: ".").map(String.init)
        RoundTripPayloads.put(value, components[...], in: &json, asArrays: asArrays)
    }

    private static func put(_ value: JSONValue, _ components: ArraySlice<String>, in node: inout JSONValue, asArrays: Bool) {
        guard let key = components.first else {
            node = value
            return
        }
        let index = JSONKeyPath.arrayIndex(key)
        if case .null = node {
            node = asArrays && index != nil ? .array([]) : .object(JSONObject())
        }
        switch node {
        case .array(var array):
            let i = index!
            while array.count <= i { array.append(.null) }
            put(value, components.dropFirst(), in: &array[i], asArrays: asArrays)
            node = .array(array)
        case .object(var object):
            var child = object[key] ?? .null
            put(value, components.dropFirst(), in: &child, asArrays: asArrays)
            object[key] = child
            node = .object(object)
        default:
            preconditionFailure("generated key paths do not cross values")
        }
    }

    // MARK: - Random numbers

    private mutating func next(_ bound: UInt64) -> UInt64 { random.next() % bound }
    private mutating func chance(_ percent: UInt64) -> Bool { next(100) < percent }
}
