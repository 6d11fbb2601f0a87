import Foundation

/// A value that can stand for `%@` (or `%K`, as a key path) in predicate text:
/// strings, integers, floating-point numbers, booleans, dates, decimals, UUIDs, URLs,
/// `Data`, ``AttributeValue``, ``ObjectID``, ``PredicateValue`` and arrays of them (for `IN`
/// and `BETWEEN`). `nil` stands for `nil`.
public protocol PredicateArgument: Sendable {
    /// The argument as a predicate value.
    var predicateValue: PredicateValue { get }
}

extension String: PredicateArgument { public var predicateValue: PredicateValue { .string(self) } }
extension Substring: PredicateArgument { public var predicateValue: PredicateValue { .string(String(self)) } }
extension Int: PredicateArgument { public var predicateValue: PredicateValue { .integer(Int64(self)) } }
extension Int64: PredicateArgument { public var predicateValue: PredicateValue { .integer(self) } }
extension Int32: PredicateArgument { public var predicateValue: PredicateValue { .integer(Int64(self)) } }
extension Double: PredicateArgument { public var predicateValue: PredicateValue { .double(self) } }
extension Float: PredicateArgument { public var predicateValue: PredicateValue { .double(Double(self)) } }
extension Bool: PredicateArgument { public var predicateValue: PredicateValue { .bool(self) } }
extension Date: PredicateArgument { public var predicateValue: PredicateValue { .date(self) } }
extension Decimal: PredicateArgument { public var predicateValue: PredicateValue { .value(.decimal(self)) } }
extension UUID: PredicateArgument { public var predicateValue: PredicateValue { .value(.uuid(self)) } }
extension URL: PredicateArgument { public var predicateValue: PredicateValue { .value(.uri(self)) } }
extension Data: PredicateArgument { public var predicateValue: PredicateValue { .value(.binary(self)) } }
extension AttributeValue: PredicateArgument { public var predicateValue: PredicateValue { .value(self) } }
extension ObjectID: PredicateArgument { public var predicateValue: PredicateValue { .objectID(self) } }
extension PredicateValue: PredicateArgument { public var predicateValue: PredicateValue { self } }
extension Array: PredicateArgument where Element: PredicateArgument {
    public var predicateValue: PredicateValue { .list(map(\.predicateValue)) }
}
extension Set: PredicateArgument where Element: PredicateArgument {
    public var predicateValue: PredicateValue { .list(map(\.predicateValue)) }
}
extension Optional: PredicateArgument where Wrapped: PredicateArgument {
    public var predicateValue: PredicateValue { self?.predicateValue ?? .null }
}
