import Foundation

/// A condition on objects, as Core Data's `NSPredicate` writes it: comparisons of key paths
/// with values, joined by `AND`, `OR` and `NOT`. A value of this type names attributes and
/// relationships by text; ``ObjectFetchRequest`` resolves it against the entity it fetches
/// (see ``QueryError`` for what can be wrong), and every store runs the resolved form
/// (SQL for the SQLite store, evaluation for ``InMemoryStore``).
///
/// Written as text (the NSPredicate format, see ``init(_:_:)`` and docs/Queries.md):
///
///     let p = try ObjectPredicate("name BEGINSWITH[cd] %@ AND rating > %@", "bat", 2.5)
///
/// or built from values:
///
///     let p: ObjectPredicate = .and([
///         .compare("name", .beginsWith, "bat", options: [.caseInsensitive, .diacriticInsensitive]),
///         .compare("rating", .greater, 2.5),
///     ])
///
/// The name is not `Predicate`, which Foundation (Swift 5.9's `#Predicate` macro type)
/// already uses: an app importing both would have to qualify every use.
public indirect enum ObjectPredicate: Sendable, Hashable {
    /// Always true (`TRUEPREDICATE`) or always false (`FALSEPREDICATE`).
    case constant(Bool)
    /// One comparison of a key path with a value.
    case comparison(PredicateComparison)
    /// All hold (an empty list is true).
    case and([ObjectPredicate])
    /// Any holds (an empty list is false).
    case or([ObjectPredicate])
    /// Does not hold.
    case not(ObjectPredicate)

    /// `keyPath op value`, e.g. `.compare("rating", .greater, 2.5)`.
    public static func compare(
        _ keyPath: String, _ op: PredicateOperator, _ value: PredicateValue,
        options: PredicateOptions = [], quantifier: PredicateQuantifier? = nil
    ) -> ObjectPredicate {
        .comparison(PredicateComparison(keyPath: keyPath, op: op, value: value, options: options, quantifier: quantifier))
    }

    /// The objects whose ID is one of `ids` (`SELF IN %@`).
    public static func objectIDs(_ ids: [ObjectID]) -> ObjectPredicate {
        .compare("SELF", .in, .list(ids.map { .objectID($0) }))
    }

    /// The predicate equivalent to a ``StorePredicate``.
    public init(_ predicate: StorePredicate) {
        switch predicate {
        case .equals(let attribute, let value):
            self = .compare(attribute, .equal, value.map { .value($0) } ?? .null)
        case .oneOf(let attribute, let values):
            self = .compare(attribute, .in, .list(values.map { .value($0) }))
        case .relatedTo(let relationship, let destination):
            self = .compare(relationship, .equal, destination.map { .objectID($0) } ?? .null)
        case .and(let ps): self = .and(ps.map(ObjectPredicate.init))
        case .or(let ps): self = .or(ps.map(ObjectPredicate.init))
        case .not(let p): self = .not(ObjectPredicate(p))
        }
    }

    /// `self AND other`.
    public static func && (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate { .and([lhs, rhs]) }
    /// `self OR other`.
    public static func || (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate { .or([lhs, rhs]) }
    /// `NOT self`.
    public static prefix func ! (operand: ObjectPredicate) -> ObjectPredicate { .not(operand) }
}

/// One comparison: `[ANY|ALL|NONE] keyPath op[options] value`.
public struct PredicateComparison: Sendable, Hashable {
    /// Attribute names joined by dots, through to-one relationships (`publisher.name`); one
    /// to-many relationship may appear with a ``quantifier`` (`ANY powers.name`), or last
    /// before `@count` (`powers.@count`); `SELF` is the object itself (compared with object IDs).
    public var keyPath: String
    public var op: PredicateOperator
    /// The value compared with (a list for `IN` and `BETWEEN`).
    public var value: PredicateValue
    /// `[c]`, `[d]`: for `==`, `!=`, `IN`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES` on strings.
    public var options: PredicateOptions
    /// `ANY`, `ALL` or `NONE`, for a key path through a to-many relationship.
    public var quantifier: PredicateQuantifier?
    /// Where the comparison starts in the predicate's text (1-based column), when parsed.
    public var column: Int?
    /// Where the comparison's value starts in the text (1-based column), when parsed.
    public var valueColumn: Int?

    public init(
        keyPath: String, op: PredicateOperator, value: PredicateValue, options: PredicateOptions = [],
        quantifier: PredicateQuantifier? = nil, column: Int? = nil, valueColumn: Int? = nil
    ) {
        self.keyPath = keyPath
        self.op = op
        self.value = value
        self.options = options
        self.quantifier = quantifier
        self.column = column
        self.valueColumn = valueColumn
    }
}

/// The comparison operators of the NSPredicate format.
public enum PredicateOperator: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    /// `x BETWEEN {low, high}`: `low <= x AND x <= high`.
    case between = "BETWEEN"
    /// `x IN {a, b, c}`.
    case `in` = "IN"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    /// Wildcards: `*` any run of characters, `?` one character (`\*`, `\?` and `\\` are the characters).
    case like = "LIKE"
    /// The whole string matches an ICU regular expression (as NSPredicate's MATCHES).
    case matches = "MATCHES"

    public var description: String { rawValue }

    /// `true` for the operators that only apply to strings.
    public var isTextOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: return true
        default: return false
        }
    }

    /// `true` for `<`, `<=`, `>`, `>=` and `BETWEEN`.
    public var isOrdering: Bool {
        switch self {
        case .less, .lessOrEqual, .greater, .greaterOrEqual, .between: return true
        default: return false
        }
    }
}

/// String comparison modifiers: `[c]` and `[d]`.
///
/// Both compare the Unicode case folding / diacritic folding of the two strings
/// (Foundation's `String.folding(options:locale:)` with no locale, then NFC), so `"STRASSE"
/// ==[c] "straße"`, `"ÉCOLE" ==[cd] "ecole"` and `"Cafe\u{301}" ==[c] "café"` hold; SQLite's
/// own `NOCASE` and `LIKE` fold ASCII letters only.
public struct PredicateOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `[c]`: case-insensitive.
    public static let caseInsensitive = PredicateOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    public static let diacriticInsensitive = PredicateOptions(rawValue: 2)

    /// `[cd]`, `[c]`, `[d]` or the empty string.
    public var description: String {
        if isEmpty { return "" }
        return "[" + (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "") + "]"
    }
}

/// How a comparison through a to-many relationship combines its destinations.
public enum PredicateQuantifier: String, Sendable, Hashable, CaseIterable {
    /// At least one destination matches.
    case any = "ANY"
    /// Every destination matches (true when there are none).
    case all = "ALL"
    /// No destination matches (`NONE`; not `none`, which `Optional` has).
    case noneOf = "NONE"
}

/// The value side of a comparison, as written: coerced to the attribute's type when the
/// predicate is resolved (a date attribute takes an RFC 3339 / ISO 8601 string, a double
/// attribute an integer, …).
public indirect enum PredicateValue: Sendable, Hashable, CustomStringConvertible,
    ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    /// `nil` / `NULL`.
    case null
    case string(String)
    case integer(Int64)
    case double(Double)
    /// A number written in predicate text, kept as its digits (exact for decimal and 64-bit attributes).
    case number(String)
    case bool(Bool)
    case date(Date)
    /// A value already of an attribute type.
    case value(AttributeValue)
    case objectID(ObjectID)
    /// `{a, b, c}` (for `IN` and `BETWEEN`).
    case list([PredicateValue])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }

    /// The value in predicate format (`"bat"`, `2.5`, `nil`, `{1, 2}`).
    public var description: String {
        switch self {
        case .null: return "nil"
        case .string(let s): return PredicateFormatter.quoted(s)
        case .integer(let i): return String(i)
        case .double(let d): return JSONNumber.shortestText(d)
        case .number(let text): return text
        case .bool(let b): return b ? "TRUE" : "FALSE"
        case .date(let d): return PredicateFormatter.quoted(RFC3339.string(from: d))
        case .value(let v):
            if case .string(let s) = v { return PredicateFormatter.quoted(s) }
            return v.description
        case .objectID(let id): return id.description
        case .list(let values): return "{" + values.map(\.description).joined(separator: ", ") + "}"
        }
    }

    /// A short name of the value's kind for messages (`a string`, `a number`).
    var kindDescription: String {
        switch self {
        case .null: return "nil"
        case .string: return "a string"
        case .integer, .double, .number: return "a number"
        case .bool: return "a boolean"
        case .date: return "a date"
        case .value(let v): return "a value of type \(AttributeValueKind.name(of: v))"
        case .objectID: return "an object ID"
        case .list: return "a list"
        }
    }
}

/// Names of ``AttributeValue`` cases for messages.
enum AttributeValueKind {
    static func name(of value: AttributeValue) -> String {
        switch value {
        case .string: return "string"
        case .integer: return "integer"
        case .decimal: return "decimal"
        case .double: return "double"
        case .bool: return "boolean"
        case .date: return "date"
        case .binary: return "binary"
        case .uuid: return "uuid"
        case .uri: return "uri"
        case .json: return "json"
        }
    }
}
