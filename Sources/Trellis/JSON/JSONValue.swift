/// A JSON value (RFC 8259): null, a boolean, a number, a string, an array or an object.
///
/// Numbers are exact (see ``JSONNumber``): an integer that fits `Int64` is kept as an
/// `Int64`, every other number keeps its decimal text, so 64-bit identifiers, big
/// integers and decimals never pass through `Double` unless a caller asks for a `Double`.
/// Objects keep their keys in document order (see ``JSONObject``); when the text of an
/// object repeats a key, the last value wins.
///
///     let value = try JSONReader.parse(#"{"id": 1234567890123456789, "tags": ["a"]}"#)
///     value["id"]?.int64Value        // 1234567890123456789, exactly
///     value["tags"]?[0]?.stringValue // "a"
///
/// Equality is structural: arrays compare element by element, objects compare as
/// key → value maps (key order does not matter), numbers compare by value when both
/// are integers and by their canonical text otherwise (see ``JSONNumber/==(_:_:)``).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Structural equality (see the type's notes); strings compare by their UTF-8 code
    /// units, so `"é"` precomposed and decomposed are different values.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a.hasSameCodeUnits(as: b)
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        default: return false
        }
    }

    // MARK: - Kinds

    /// The kind of a JSON value, as used in error messages ("expected a string, found an array").
    public enum Kind: String, Sendable, Hashable, CustomStringConvertible {
        case null
        case bool = "boolean"
        case number, string, array, object
        public var description: String { rawValue }
    }

    /// The kind of this value.
    public var kind: Kind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// `true` for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    // MARK: - Typed getters (no coercion; see `JSONCoercion` for the forgiving conversions)

    /// The boolean, when this is `true` or `false`; otherwise nil.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The string, when this is a JSON string; otherwise nil.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number, when this is a JSON number; otherwise nil.
    public var numberValue: JSONNumber? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The number as an `Int64`, when it is an integer in `Int64`'s range
    /// (`12`, `-9223372036854775808`, also `1.0e2`); otherwise nil. Never rounds.
    public var int64Value: Int64? { numberValue?.int64Value }

    /// The number as an `Int`, when it is an integer in `Int`'s range; otherwise nil.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// The number as the nearest `Double` (correctly rounded from its decimal text);
    /// nil when this is not a number or the number is out of `Double`'s range.
    public var doubleValue: Double? { numberValue?.doubleValue }

    /// The elements, when this is an array; otherwise nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The object, when this is an object; otherwise nil.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    // MARK: - Subscripts

    /// The value for `key` when this is an object that has the key; otherwise nil
    /// (also for arrays and scalars, never a trap).
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The element at `index` when this is an array and the index is in bounds;
    /// otherwise nil (never a trap).
    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    /// A float literal becomes the shortest decimal text that reads back as the same `Double`.
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Keys keep literal order; a repeated key keeps its first position and its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

// MARK: - Convenience initialisers

extension JSONValue {
    /// A JSON number holding `value` exactly.
    public init(_ value: Int64) { self = .number(JSONNumber(value)) }
    /// A JSON number holding `value` exactly.
    public init(_ value: Int) { self = .number(JSONNumber(Int64(value))) }
    /// A JSON string.
    public init(_ value: String) { self = .string(value) }
    /// A JSON boolean.
    public init(_ value: Bool) { self = .bool(value) }
}
