import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// A generated `Codable` type: a schema tree that a ``SchemaValue`` decodes itself by,
/// through every container kind and every primitive overload.
indirect enum Schema: Sendable, CustomStringConvertible {
    case bool, string, int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint, float, double, decimal, date, data, url
    case optional(Schema)
    case array(Schema)
    case object([(String, Schema)])
    case dictionary(Schema)
    /// An object read through `superDecoder(forKey:)` rather than a nested container.
    case viaSuperDecoder([(String, Schema)])

    static let scalars: [Schema] = [
        .bool, .string, .int8, .int16, .int32, .int64, .int, .uint8, .uint16, .uint32, .uint64, .uint, .float, .double, .decimal, .date, .data, .url,
    ]

    static func random(depth: Int, using g: inout SplitMix64) -> Schema {
        let roll = Int.random(in: 0..<10, using: &g)
        if depth == 0 || roll < 5 { return scalars.randomElement(using: &g)! }
        switch roll {
        case 5: return .optional(random(depth: depth - 1, using: &g))
        case 6: return .array(random(depth: depth - 1, using: &g))
        case 7: return .dictionary(random(depth: depth - 1, using: &g))
        case 8: return .viaSuperDecoder(fields(depth: depth, using: &g))
        default: return .object(fields(depth: depth, using: &g))
        }
    }

    static func fields(depth: Int, using g: inout SplitMix64) -> [(String, Schema)] {
        (0..<Int.random(in: 0...4, using: &g)).map { i in ("f\(i)_x", random(depth: depth - 1, using: &g)) }
    }

    var description: String {
        switch self {
        case .optional(let s): "\(s)?"
        case .array(let s): "[\(s)]"
        case .dictionary(let s): "[String: \(s)]"
        case .object(let f): "{" + f.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}"
        case .viaSuperDecoder(let f): "super{" + f.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}"
        default: "\(String(reflecting: self).split(separator: ".").last!)"
        }
    }
}

/// The schemas waiting to be decoded, handed to ``SchemaValue`` through `userInfo`.
final class SchemaStack: @unchecked Sendable {
    var schemas: [Schema] = []
}

let schemaStackKey = CodingUserInfoKey(rawValue: "schemaStack")!

/// A value of a generated type: decodes as its schema says, describes what it read.
struct SchemaValue: Decodable, CustomDebugStringConvertible {
    var debugDescription: String

    init(from decoder: any Decoder) throws {
        let stack = decoder.userInfo[schemaStackKey] as! SchemaStack
        let schema = stack.schemas.removeLast()
        debugDescription = try SchemaValue.read(schema, from: decoder, stack: stack)
    }

    /// Decodes `schema` through `container`'s own overloads where there is one.
    static func read(_ schema: Schema, from decoder: any Decoder, stack: SchemaStack) throws -> String {
        switch schema {
        case .object(let fields), .viaSuperDecoder(let fields):
            let container = try decoder.container(keyedBy: CodableKey.self)
            var parts: [String] = []
            for (name, field) in fields {
                let key = CodableKey(stringValue: name)
                parts.append("\(name)=" + (try readField(field, key: key, in: container, stack: stack)))
            }
            return "{" + parts.joined(separator: ",") + "}"
        case .array(let element):
            var container = try decoder.unkeyedContainer()
            var parts: [String] = []
            while !container.isAtEnd {
                parts.append(try readElement(element, in: &container, stack: stack))
            }
            return "[" + parts.joined(separator: ",") + "]"
        case .dictionary(let element):
            stack.schemas.append(element)
            let container = try decoder.container(keyedBy: CodableKey.self)
            var parts: [String] = []
            for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                stack.schemas.append(element)
                parts.append("\(key.stringValue)=" + String(reflecting: try container.decode(SchemaValue.self, forKey: key)))
            }
            stack.schemas.removeLast()
            return "{" + parts.joined(separator: ",") + "}"
        case .optional(let wrapped):
            let single = try decoder.singleValueContainer()
            if single.decodeNil() { return "nil" }
            return try read(wrapped, from: decoder, stack: stack)
        default:
            let single = try decoder.singleValueContainer()
            return try readScalar(schema, single)
        }
    }

    static func readScalar(_ schema: Schema, _ c: any SingleValueDecodingContainer) throws -> String {
        switch schema {
        case .bool: return String(reflecting: try c.decode(Bool.self))
        case .string: return String(reflecting: try c.decode(String.self))
        case .int8: return String(reflecting: try c.decode(Int8.self))
        case .int16: return String(reflecting: try c.decode(Int16.self))
        case .int32: return String(reflecting: try c.decode(Int32.self))
        case .int64: return String(reflecting: try c.decode(Int64.self))
        case .int: return String(reflecting: try c.decode(Int.self))
        case .uint8: return String(reflecting: try c.decode(UInt8.self))
        case .uint16: return String(reflecting: try c.decode(UInt16.self))
        case .uint32: return String(reflecting: try c.decode(UInt32.self))
        case .uint64: return String(reflecting: try c.decode(UInt64.self))
        case .uint: return String(reflecting: try c.decode(UInt.self))
        case .float: return String(reflecting: try c.decode(Float.self))
        case .double: return String(reflecting: try c.decode(Double.self))
        case .decimal: return String(reflecting: try c.decode(Decimal.self))
        case .date: return String(reflecting: try c.decode(Date.self).timeIntervalSinceReferenceDate)
        case .data: return String(reflecting: try c.decode(Data.self).base64EncodedString())
        case .url: return String(reflecting: try c.decode(URL.self).absoluteString)
        default: preconditionFailure("not a scalar")
        }
    }

    static func readField(_ schema: Schema, key: CodableKey, in c: KeyedDecodingContainer<CodableKey>, stack: SchemaStack) throws -> String {
        func show<T>(_ value: T?) -> String { value.map { String(reflecting: $0) } ?? "nil" }
        switch schema {
        case .bool: return show(try c.decode(Bool.self, forKey: key))
        case .string: return show(try c.decode(String.self, forKey: key))
        case .int8: return show(try c.decode(Int8.self, forKey: key))
        case .int16: return show(try c.decode(Int16.self, forKey: key))
        case .int32: return show(try c.decode(Int32.self, forKey: key))
        case .int64: return show(try c.decode(Int64.self, forKey: key))
        case .int: return show(try c.decode(Int.self, forKey: key))
        case .uint8: return show(try c.decode(UInt8.self, forKey: key))
        case .uint16: return show(try c.decode(UInt16.self, forKey: key))
        case .uint32: return show(try c.decode(UInt32.self, forKey: key))
        case .uint64: return show(try c.decode(UInt64.self, forKey: key))
        case .uint: return show(try c.decode(UInt.self, forKey: key))
        case .float: return show(try c.decode(Float.self, forKey: key))
        case .double: return show(try c.decode(Double.self, forKey: key))
        case .decimal: return show(try c.decode(Decimal.self, forKey: key))
        case .date: return show(try c.decode(Date.self, forKey: key).timeIntervalSinceReferenceDate)
        case .data: return show(try c.decode(Data.self, forKey: key).base64EncodedString())
        case .url: return show(try c.decode(URL.self, forKey: key).absoluteString)
        case .optional(let wrapped):
            switch wrapped {
            case .bool: return show(try c.decodeIfPresent(Bool.self, forKey: key))
            case .string: return show(try c.decodeIfPresent(String.self, forKey: key))
            case .int8: return show(try c.decodeIfPresent(Int8.self, forKey: key))
            case .int64: return show(try c.decodeIfPresent(Int64.self, forKey: key))
            case .uint32: return show(try c.decodeIfPresent(UInt32.self, forKey: key))
            case .float: return show(try c.decodeIfPresent(Float.self, forKey: key))
            case .double: return show(try c.decodeIfPresent(Double.self, forKey: key))
            case .date: return show(try c.decodeIfPresent(Date.self, forKey: key)?.timeIntervalSinceReferenceDate)
            default:
                if try !c.contains(key) || c.decodeNil(forKey: key) { return "nil" }
                return try readField(wrapped, key: key, in: c, stack: stack)
            }
        case .viaSuperDecoder:
            return try read(schema, from: c.superDecoder(forKey: key), stack: stack)
        case .object(let fields):
            let nested = try c.nestedContainer(keyedBy: CodableKey.self, forKey: key)
            var parts: [String] = []
            for (name, field) in fields {
                parts.append("\(name)=" + (try readField(field, key: CodableKey(stringValue: name), in: nested, stack: stack)))
            }
            return "{" + parts.joined(separator: ",") + "}"
        case .array, .dictionary:
            stack.schemas.append(schema)
            return String(reflecting: try c.decode(SchemaValue.self, forKey: key))
        }
    }

    static func readElement(_ schema: Schema, in c: inout any UnkeyedDecodingContainer, stack: SchemaStack) throws -> String {
        func show<T>(_ value: T?) -> String { value.map { String(reflecting: $0) } ?? "nil" }
        switch schema {
        case .bool: return show(try c.decode(Bool.self))
        case .string: return show(try c.decode(String.self))
        case .int8: return show(try c.decode(Int8.self))
        case .int16: return show(try c.decode(Int16.self))
        case .int32: return show(try c.decode(Int32.self))
        case .int64: return show(try c.decode(Int64.self))
        case .int: return show(try c.decode(Int.self))
        case .uint8: return show(try c.decode(UInt8.self))
        case .uint16: return show(try c.decode(UInt16.self))
        case .uint32: return show(try c.decode(UInt32.self))
        case .uint64: return show(try c.decode(UInt64.self))
        case .uint: return show(try c.decode(UInt.self))
        case .float: return show(try c.decode(Float.self))
        case .double: return show(try c.decode(Double.self))
        case .decimal: return show(try c.decode(Decimal.self))
        case .date: return show(try c.decode(Date.self).timeIntervalSinceReferenceDate)
        case .data: return show(try c.decode(Data.self).base64EncodedString())
        case .url: return show(try c.decode(URL.self).absoluteString)
        case .optional(let wrapped):
            switch wrapped {
            case .string: return show(try c.decodeIfPresent(String.self))
            case .int: return show(try c.decodeIfPresent(Int.self))
            case .double: return show(try c.decodeIfPresent(Double.self))
            default:
                if try c.decodeNil() { return "nil" }
                return try readElement(wrapped, in: &c, stack: stack)
            }
        case .object(let fields):
            let nested = try c.nestedContainer(keyedBy: CodableKey.self)
            var parts: [String] = []
            for (name, field) in fields {
                parts.append("\(name)=" + (try readField(field, key: CodableKey(stringValue: name), in: nested, stack: stack)))
            }
            return "{" + parts.joined(separator: ",") + "}"
        case .viaSuperDecoder:
            return try read(schema, from: c.superDecoder(), stack: stack)
        case .array(let element):
            var nested = try c.nestedUnkeyedContainer()
            var parts: [String] = []
            while !nested.isAtEnd { parts.append(try readElement(element, in: &nested, stack: stack)) }
            return "[" + parts.joined(separator: ",") + "]"
        case .dictionary:
            stack.schemas.append(schema)
            return String(reflecting: try c.decode(SchemaValue.self))
        }
    }
}

/// JSON text for a schema: mostly a fitting value, sometimes a wrong one (a null, another
/// type, a missing member, a number out of range), so that both values and errors compare.
struct SchemaJSON {
    var g: SplitMix64
    let mutationRate: Int  // out of 100

    static let numbers = [
        "0", "-0", "1", "-1", "127", "128", "-129", "255", "256", "-32769", "65536", "2147483648", "4294967296",
        "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
        "1.0", "1e2", "2.5", "-0.0", "1e-400", "1e400", "0.1", "3.4028235677973366e38", "1.7976931348623157e308", "5e-324",
        "123456789012345678901234567890", "0.30000000000000004", "-12.75e-3", "1E+2", "100e-2",
    ]
    static let strings = [
        #""""#, #""a""#, #""é\u00e9""#, #""\ud83d\ude00""#, #""2024-05-01T12:00:00Z""#, #""AQID""#, #""https://example.com/x""#,
        #""a\"b\\c\n""#, #""not base64!""#, #""http://[::1""#,
    ]

    mutating func json(for schema: Schema) -> String {
        if Int.random(in: 0..<100, using: &g) < mutationRate { return wrongValue() }
        switch schema {
        case .bool: return Bool.random(using: &g) ? "true" : "false"
        case .string, .url, .data: return Self.strings.randomElement(using: &g)!
        case .date: return Bool.random(using: &g) ? Self.numbers.randomElement(using: &g)! : Self.strings.randomElement(using: &g)!
        case .int8, .int16, .int32, .int64, .int, .uint8, .uint16, .uint32, .uint64, .uint, .decimal:
            if Bool.random(using: &g) { return String(Int64.random(in: -300...70_000, using: &g)) }
            return Self.numbers.randomElement(using: &g)!
        case .float, .double:
            switch Int.random(in: 0..<3, using: &g) {
            case 0: return "\(Double(bitPattern: g.next() & 0x7FEF_FFFF_FFFF_FFFF | (g.next() & 0x8000_0000_0000_0000)))"
            case 1: return "\(Float(bitPattern: UInt32(truncatingIfNeeded: g.next()) & 0x7F7F_FFFF))"
            default: return Self.numbers.randomElement(using: &g)!
            }
        case .optional(let wrapped):
            return Int.random(in: 0..<3, using: &g) == 0 ? "null" : json(for: wrapped)
        case .array(let element):
            return "[" + (0..<Int.random(in: 0...3, using: &g)).map { _ in json(for: element) }.joined(separator: ",") + "]"
        case .dictionary(let element):
            let keys = ["a", "b_c", "Δ", "1"]
            return "{" + (0..<Int.random(in: 0...3, using: &g)).map { i in "\"\(keys[i])\":" + json(for: element) }.joined(separator: ",") + "}"
        case .object(let fields), .viaSuperDecoder(let fields):
            var members: [String] = []
            for (name, field) in fields {
                if Int.random(in: 0..<100, using: &g) < mutationRate / 2 { continue }  // missing
                members.append("\"\(name)\": " + json(for: field))
            }
            if Int.random(in: 0..<100, using: &g) < mutationRate, let (name, field) = fields.first {
                members.append("\"\(name)\": " + json(for: field))  // repeated key
            }
            return "{" + members.joined(separator: ", ") + "}"
        }
    }

    mutating func wrongValue() -> String {
        ["null", "true", "[]", "{}", "\"x\"", "12", "1e400", "-1", "[1]", "{\"a\":1}"].randomElement(using: &g)!
    }
}

@Suite("TrellisJSONDecoder: generated types and values against JSONDecoder")
struct CodableGeneratedTests {
    /// Seeds 1…600: each a random schema and a random (often wrong) document for it,
    /// decoded by both decoders under a seed-chosen configuration.
    @Test(arguments: 0..<6)
    func generatedSchemasDecodeAlike(batch: Int) throws {
        for seed in UInt64(batch * 100 + 1)...UInt64(batch * 100 + 100) {
            var g = SplitMix64(seed: seed)
            let schema = Schema.object(Schema.fields(depth: 4, using: &g) + [("last", Schema.random(depth: 3, using: &g))])
            var generator = SchemaJSON(g: g, mutationRate: Int(seed % 4) * 5)
            let json = generator.json(for: schema)
            let snake = seed % 3 == 0
            let iso = seed % 2 == 0
            let pair = DecoderPair { foundation, trellis in
                if snake {
                    foundation.keyDecodingStrategy = .convertFromSnakeCase
                    trellis.keyDecodingStrategy = .convertFromSnakeCase
                }
                if iso {
                    foundation.dateDecodingStrategy = .iso8601
                    trellis.dateDecodingStrategy = .iso8601
                }
            }
            let stack = SchemaStack()
            pair.foundation.userInfo = [schemaStackKey: stack]
            pair.trellis.userInfo = [schemaStackKey: stack]
            let data = Data(json.utf8)
            stack.schemas = [schema]
            let expected = DecodeOutcome { try pair.foundation.decode(SchemaValue.self, from: data) }
            stack.schemas = [schema]
            let actual = DecodeOutcome { try pair.trellis.decode(SchemaValue.self, from: data) }
            #expect(actual == expected, "seed \(seed): \(schema)\n\(json)")
            if let message = actual.message, actual == expected {
                #expect(message.hasPrefix(expected.message!), "seed \(seed)")
            }
        }
    }
}
